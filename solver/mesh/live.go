package mesh

import "iter"

// Live is a triangle mesh under local edits (see the package doc). Faces
// and vertices are only appended; a killed face stays in F, marked dead in
// Alive, and a face slot is never rewritten, so the first F0 faces and V0
// vertices are the input's. VF[v] lists the live faces around vertex v, in
// the order they were added (input faces in face order), and VNext[v] the
// vertex after v in each of them: face VF[v][i] holds the directed edge
// v->VNext[v][i]. The zero value is ready to use; Load reuses storage.
type Live struct {
	F     [][3]int32
	Alive []bool // per face
	NLive int    // live faces
	VF    [][]int32
	VNext [][]int32
	// Epoch marks per vertex and per face: an entry equal to the epoch
	// that NextVEpoch (NextFEpoch) returned is marked in that pass.
	VMark, FMark []uint32
	vep, fep     uint32

	V0, F0 int
	in     Incidence // of the input faces, to recognise surviving faces
}

// Load makes l the mesh of faces over nv vertices, all live.
func (l *Live) Load(faces [][3]int32, nv int) {
	nf := len(faces)
	l.V0, l.F0 = nv, nf
	l.F = append(l.F[:0], faces...)
	l.Alive = resize(l.Alive, nf)
	for i := range l.Alive {
		l.Alive[i] = true
	}
	l.NLive = nf
	l.in.Build(faces, nil, nv)
	l.VF, l.VNext = ResetLists(l.VF, nv), ResetLists(l.VNext, nv)
	// Each list keeps its own storage when large enough (a Live reused for
	// meshes of similar sizes); the others are capped windows of one new
	// array, so that appending to one never overwrites the next.
	var back []int32
	m := int32(len(l.in.Faces))
	for v := range nv {
		lo, hi := l.in.Start[v], l.in.Start[v+1]
		if int(hi-lo) <= cap(l.VF[v]) && int(hi-lo) <= cap(l.VNext[v]) {
			l.VF[v] = append(l.VF[v][:0], l.in.Faces[lo:hi]...)
			l.VNext[v] = append(l.VNext[v][:0], l.in.Next[lo:hi]...)
			continue
		}
		if back == nil {
			back = make([]int32, 2*m)
			copy(back, l.in.Faces)
			copy(back[m:], l.in.Next)
		}
		l.VF[v], l.VNext[v] = back[lo:hi:hi], back[m+lo:m+hi:m+hi]
	}
	l.VMark, l.FMark = zeroed(l.VMark, nv), zeroed(l.FMark, nf)
	l.vep, l.fep = 0, 0
}

// ResetLists returns l with n empty lists, keeping the storage of the
// lists it had, also beyond its length.
func ResetLists(l [][]int32, n int) [][]int32 {
	if cap(l) >= n {
		l = l[:n]
	} else {
		l = append(l[:cap(l)], make([][]int32, n-cap(l))...)
	}
	for i := range l {
		l[i] = l[i][:0]
	}
	return l
}

func zeroed(s []uint32, n int) []uint32 {
	s = resize(s, n)
	clear(s)
	return s
}

// GrowList makes l[i] (i == len(l)) an empty list, reusing the storage an
// earlier mesh left beyond len(l).
func GrowList(l [][]int32, i int) [][]int32 {
	if cap(l) > i {
		l = l[:i+1]
		l[i] = l[i][:0]
		return l
	}
	return append(l, nil)
}

// AddVert appends a vertex in no face and returns its index.
func (l *Live) AddVert() int32 {
	w := len(l.VF)
	l.VF, l.VNext = GrowList(l.VF, w), GrowList(l.VNext, w)
	l.VMark = append(l.VMark, 0)
	return int32(w)
}

// AddFace appends the live face (a, b, c) and returns its index.
func (l *Live) AddFace(a, b, c int32) int32 {
	f := int32(len(l.F))
	l.F = append(l.F, [3]int32{a, b, c})
	l.Alive = append(l.Alive, true)
	l.FMark = append(l.FMark, 0)
	l.NLive++
	l.VF[a] = append(l.VF[a], f)
	l.VF[b] = append(l.VF[b], f)
	l.VF[c] = append(l.VF[c], f)
	l.VNext[a] = append(l.VNext[a], b)
	l.VNext[b] = append(l.VNext[b], c)
	l.VNext[c] = append(l.VNext[c], a)
	return f
}

// KillFace marks face f dead and removes it from its vertices' lists,
// keeping their order.
func (l *Live) KillFace(f int32) {
	l.Alive[f] = false
	l.NLive--
	for _, v := range l.F[f] {
		fs, nx := l.VF[v], l.VNext[v]
		for i, g := range fs {
			if g == f {
				copy(fs[i:], fs[i+1:])
				copy(nx[i:], nx[i+1:])
				l.VF[v], l.VNext[v] = fs[:len(fs)-1], nx[:len(nx)-1]
				break
			}
		}
	}
}

// FaceWith returns the live face holding the directed edge a->b (the first
// in VF[a]), or -1.
func (l *Live) FaceWith(a, b int32) int32 {
	for i, x := range l.VNext[a] {
		if x == b {
			return l.VF[a][i]
		}
	}
	return -1
}

// Adjacent reports whether vertices a and b share a live face.
func (l *Live) Adjacent(a, b int32) bool {
	for _, f := range l.VF[a] {
		if Corner(l.F[f], b) >= 0 {
			return true
		}
	}
	return false
}

// BorderInfo returns, for vertex v, the number of outgoing (v->out) and
// incoming (in->v) border edges, those with no live face across them, and
// the last of each in the order of VF[v] (-1: none).
func (l *Live) BorderInfo(v int32) (nOut, nIn int, out, in int32) {
	out, in = -1, -1
	for _, f := range l.VF[v] {
		t := l.F[f]
		p := Corner(t, v)
		nx, pv := t[(p+1)%3], t[(p+2)%3]
		if l.FaceWith(nx, v) < 0 {
			nOut++
			out = nx
		}
		if l.FaceWith(v, pv) < 0 {
			nIn++
			in = pv
		}
	}
	return
}

// OnBorder reports whether vertex v has a border edge.
func (l *Live) OnBorder(v int32) bool {
	nOut, nIn, _, _ := l.BorderInfo(v)
	return nOut+nIn > 0
}

// InputFace returns the input face with the same vertices as live face f,
// in the same cyclic order, or -1.
func (l *Live) InputFace(f int32) int32 {
	if int(f) < l.F0 {
		return f
	}
	t := l.F[f]
	if int(t[0]) >= l.V0 || int(t[1]) >= l.V0 || int(t[2]) >= l.V0 {
		return -1
	}
	for _, g := range l.in.Of(int(t[0])) {
		if HasDirected(l.F[g], t[0], t[1]) && Corner(l.F[g], t[2]) >= 0 {
			return g
		}
	}
	return -1
}

// Wings returns the live faces on the two sides of the edge i-j, fl
// holding i->j and fr holding j->i (-1: none), and their third vertices cl
// and cr (-1: none).
func (l *Live) Wings(i, j int32) (fl, fr, cl, cr int32) {
	fl, fr, cl, cr = l.FaceWith(i, j), l.FaceWith(j, i), -1, -1
	if fl >= 0 {
		cl = Third(l.F[fl], i, j)
	}
	if fr >= 0 {
		cr = Third(l.F[fr], i, j)
	}
	return fl, fr, cl, cr
}

// Moved yields, for collapsing vertex i onto j, each live face around i
// that does not hold j (in the order of VF[i]) with i replaced by j: the
// faces the collapse would leave changed.
func (l *Live) Moved(i, j int32) iter.Seq[[3]int32] {
	return func(yield func([3]int32) bool) {
		for _, f := range l.VF[i] {
			t := l.F[f]
			if Corner(t, j) >= 0 {
				continue
			}
			t[Corner(t, i)] = j
			if !yield(t) {
				return
			}
		}
	}
}

// AppendLive appends to faces each live face, in face order, with its
// vertices renumbered by vertNew, and to faceOld its InputFace; a face
// that is an input face keeps the input's rotation.
func (l *Live) AppendLive(faces [][3]int32, faceOld []int32, vertNew []int32) ([][3]int32, []int32) {
	for f := range l.F {
		if !l.Alive[f] {
			continue
		}
		t := l.F[f]
		g := l.InputFace(int32(f))
		if g >= 0 {
			t = l.F[g] // same cyclic order; keep the input's rotation
		}
		faces = append(faces, [3]int32{vertNew[t[0]], vertNew[t[1]], vertNew[t[2]]})
		faceOld = append(faceOld, g)
	}
	return faces, faceOld
}

// LinkCondition reports whether every vertex that shares a live face with
// both i and j is one of i, j, k and l: the link condition of collapsing
// the edge i-j, whose faces' third vertices are k and l (-1: none). It uses
// the vertex marks.
func (l *Live) LinkCondition(i, j, k, m int32) bool {
	ep := l.NextVEpoch()
	for _, f := range l.VF[j] {
		for _, x := range l.F[f] {
			l.VMark[x] = ep
		}
	}
	for _, f := range l.VF[i] {
		for _, x := range l.F[f] {
			if x != i && x != j && x != k && x != m && l.VMark[x] == ep {
				return false
			}
		}
	}
	return true
}

// NextVEpoch returns a new vertex epoch: no vertex is marked with it.
func (l *Live) NextVEpoch() uint32 { return nextEpoch(&l.vep, l.VMark) }

// NextFEpoch returns a new face epoch: no face is marked with it.
func (l *Live) NextFEpoch() uint32 { return nextEpoch(&l.fep, l.FMark) }

// nextEpoch advances *ep, clearing marks when it wraps around to 0.
func nextEpoch(ep *uint32, marks []uint32) uint32 {
	*ep++
	if *ep == 0 {
		clear(marks)
		*ep = 1
	}
	return *ep
}

// Renumber numbers the items that alive marks, in order, from 0: it
// returns newIdx (reused when large enough) with each item's new index, -1
// for a dead one, and appends to old, per live item, its index when below
// n0 (an input item) and -1 otherwise (a created one).
func Renumber(alive []bool, n0 int, newIdx, old []int32) ([]int32, []int32) {
	newIdx = resize(newIdx, len(alive))
	n := int32(0)
	for v, a := range alive {
		if !a {
			newIdx[v] = -1
			continue
		}
		newIdx[v] = n
		n++
		if v < n0 {
			old = append(old, int32(v))
		} else {
			old = append(old, -1)
		}
	}
	return newIdx, old
}
