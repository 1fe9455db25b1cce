package remesh

import (
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

// Remesher holds the working mesh of a remesh and every scratch buffer, so
// that repeated remeshes reuse memory. The zero value is ready to use; a
// Remesher is not safe for concurrent use.
//
// Working state: nodes, verts and faces are only ever appended; removed ones
// are marked dead, and new faces always get new indices (a face slot is never
// rewritten), so the first n0 entries of each array are the input's and stay
// identifiable. The faces and their topology are a mesh.Live over the verts.
type Remesher struct {
	p Params

	// Nodes.
	x, v      []dense.Vec3
	extra     []float64
	nex       int
	locked    []bool
	clearance float64 // Mesh.LockedClearance
	nodeAlive []bool
	nodeVerts [][]int32
	// pres[n] lists the nodes joined to node n by a preserved edge.
	pres [][]int32
	// frozen holds the vert pairs (low, high) whose split was refused to
	// keep the faces around preserved edges from degenerating (see
	// splitKeepsPreserved); looked up only, never iterated.
	frozen map[[2]int32]struct{}
	srcOff []int32 // per created node (index - nN0): offset into src
	srcLen []int32
	src    []Source

	// Verts.
	u         []dense.Vec2
	vnode     []int32
	m         []dense.Mat2
	vertAlive []bool

	// The faces, the live faces around each vert, the input's faces
	// around each vert (to recognise surviving faces), vert and face
	// marks.
	live mesh.Live

	nN0, nV0, nF0 int
	hasSeams      bool
	maxSize2      float64 // (1-h)^2
	flipMax2      float64 // flips may not create an edge of squared size above this
	// flipSlack is added to flipTol; zero but in tests, where a negative
	// slack makes cocircular quads flip both ways, by rounding, and so cycle.
	flipSlack float64

	// nodeNew maps working nodes to output nodes (-1: removed); set by
	// output.
	nodeNew []int32

	// Node epoch marks.
	nmark  []uint32
	nmark2 []uint32
	nepoch uint32

	// Scratch.
	cands     []cand
	sel       []cand
	left      []cand
	dirty     []int32
	flipCur   []int32
	flipNext  []int32
	flipNew   []int32
	flipSel   [][4]int32
	flipCycle flipCycle
	act       []int32
	queue     []int32
	pairs     [][2]int32
	tmpFaces  []int32
	tmpNodes  []int32
	tmpNodes2 []int32
	tmpSrc    []Source
	sizes     []float64

	splits, flips, collapses int
	truncated                bool
}

// Source is one term of the linear combination that gives a created node's
// interpolated state from the input mesh's nodes.
type Source struct {
	Node int32   // node index in the input mesh
	W    float64 // weight; a node's weights sum to 1
}

type cand struct {
	a, b int32
	s    float64
}

func (r *Remesher) load(m *Mesh, M []dense.Mat2) {
	nn, nv, nf := len(m.X), len(m.U), len(m.F)
	r.nN0, r.nV0, r.nF0 = nn, nv, nf
	r.x = append(r.x[:0], m.X...)
	r.v = append(r.v[:0], m.V...)
	r.nex = m.NExtra
	r.extra = append(r.extra[:0], m.Extra...)
	r.clearance = m.LockedClearance
	r.locked = r.locked[:0]
	if m.Locked != nil {
		r.locked = append(r.locked, m.Locked...)
	} else {
		for i := 0; i < nn; i++ {
			r.locked = append(r.locked, false)
		}
	}
	r.nodeAlive = r.nodeAlive[:0]
	for i := 0; i < nn; i++ {
		r.nodeAlive = append(r.nodeAlive, true)
	}
	r.nodeVerts = mesh.ResetLists(r.nodeVerts, nn)
	r.pres = mesh.ResetLists(r.pres, nn)
	if r.frozen == nil {
		r.frozen = map[[2]int32]struct{}{}
	}
	clear(r.frozen)
	for _, pr := range m.Preserved {
		if !r.preserved(pr[0], pr[1]) {
			r.pres[pr[0]] = append(r.pres[pr[0]], pr[1])
			r.pres[pr[1]] = append(r.pres[pr[1]], pr[0])
		}
	}
	r.srcOff, r.srcLen, r.src = r.srcOff[:0], r.srcLen[:0], r.src[:0]

	r.u = append(r.u[:0], m.U...)
	r.vnode = append(r.vnode[:0], m.Node...)
	r.m = append(r.m[:0], M...)
	r.vertAlive = r.vertAlive[:0]
	for i := 0; i < nv; i++ {
		r.vertAlive = append(r.vertAlive, true)
	}
	for i, n := range m.Node {
		r.nodeVerts[n] = append(r.nodeVerts[n], int32(i))
	}
	r.hasSeams = false
	for n := range r.nodeVerts {
		if len(r.nodeVerts[n]) > 1 {
			r.hasSeams = true
		}
	}
	r.live.Load(m.F, nv)

	r.nmark = zeroU32(r.nmark, nn)
	r.nmark2 = zeroU32(r.nmark2, nn)
	r.nepoch = 0
	r.splits, r.flips, r.collapses = 0, 0, 0
	r.truncated = false
}

func growI32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func zeroU32(s []uint32, n int) []uint32 {
	if cap(s) < n {
		return make([]uint32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = 0
	}
	return s
}

func (r *Remesher) nextNEpoch() uint32 {
	r.nepoch++
	if r.nepoch == 0 {
		for i := range r.nmark {
			r.nmark[i], r.nmark2[i] = 0, 0
		}
		r.nepoch = 1
	}
	return r.nepoch
}

func (r *Remesher) addVert(u dense.Vec2, M dense.Mat2, node int32) int32 {
	w := int32(len(r.u))
	r.u = append(r.u, u)
	r.m = append(r.m, M)
	r.vnode = append(r.vnode, node)
	r.vertAlive = append(r.vertAlive, true)
	if r.live.AddVert() != w {
		panic("remesh: verts and their face lists out of step")
	}
	r.nodeVerts[node] = append(r.nodeVerts[node], w)
	return w
}

// addNode appends a node halfway between nodes p and q (velocity, extra state
// and sources interpolated; position set to the midpoint, to be replaced by
// the quadric placement).
func (r *Remesher) addNode(p, q int32) int32 {
	n := int32(len(r.x))
	r.x = append(r.x, mid3(r.x[p], r.x[q]))
	r.v = append(r.v, mid3(r.v[p], r.v[q]))
	for k := 0; k < r.nex; k++ {
		r.extra = append(r.extra, 0.5*(r.extra[int(p)*r.nex+k]+r.extra[int(q)*r.nex+k]))
	}
	r.locked = append(r.locked, false)
	r.nodeAlive = append(r.nodeAlive, true)
	r.nmark = append(r.nmark, 0)
	r.nmark2 = append(r.nmark2, 0)
	r.nodeVerts = mesh.GrowList(r.nodeVerts, int(n))
	r.pres = mesh.GrowList(r.pres, int(n))
	// Sources: half of each parent's, merged.
	tmp := r.tmpSrc[:0]
	tmp = r.appendSources(tmp, p, 0.5)
	tmp = r.appendSources(tmp, q, 0.5)
	// Insertion sort by node, then merge equal nodes.
	for i := 1; i < len(tmp); i++ {
		for j := i; j > 0 && tmp[j].Node < tmp[j-1].Node; j-- {
			tmp[j], tmp[j-1] = tmp[j-1], tmp[j]
		}
	}
	off := int32(len(r.src))
	for i := 0; i < len(tmp); i++ {
		if l := len(r.src); l > int(off) && r.src[l-1].Node == tmp[i].Node {
			r.src[l-1].W += tmp[i].W
			continue
		}
		r.src = append(r.src, tmp[i])
	}
	r.tmpSrc = tmp
	r.srcOff = append(r.srcOff, off)
	r.srcLen = append(r.srcLen, int32(len(r.src))-off)
	return n
}

func (r *Remesher) appendSources(dst []Source, n int32, w float64) []Source {
	if int(n) < r.nN0 {
		return append(dst, Source{Node: n, W: w})
	}
	i := int(n) - r.nN0
	for _, s := range r.src[r.srcOff[i] : r.srcOff[i]+r.srcLen[i]] {
		dst = append(dst, Source{Node: s.Node, W: w * s.W})
	}
	return dst
}

func mid3(a, b dense.Vec3) dense.Vec3 {
	return dense.Vec3{0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1]), 0.5 * (a[2] + b[2])}
}

func mid2(a, b dense.Vec2) dense.Vec2 {
	return dense.Vec2{0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])}
}

func midM(a, b dense.Mat2) dense.Mat2 {
	return dense.Mat2{
		{0.5 * (a[0][0] + b[0][0]), 0.5 * (a[0][1] + b[0][1])},
		{0.5 * (a[1][0] + b[1][0]), 0.5 * (a[1][1] + b[1][1])},
	}
}

// size2 is the squared size of edge a-b, eq. 1, on its own side of a seam.
func (r *Remesher) size2(a, b int32) float64 {
	ua, ub := r.u[a], r.u[b]
	d0, d1 := ua[0]-ub[0], ua[1]-ub[1]
	ma, mb := &r.m[a], &r.m[b]
	m00 := ma[0][0] + mb[0][0]
	m01 := ma[0][1] + mb[0][1] + ma[1][0] + mb[1][0]
	m11 := ma[1][1] + mb[1][1]
	return 0.5 * (d0*d0*m00 + d0*d1*m01 + d1*d1*m11)
}

// partner returns the seam partner of the boundary edge a-b: the other
// boundary edge pa-pb with pa on a's node and pb on b's node, and how many
// such edges there are (0: not a seam edge).
func (r *Remesher) partner(a, b int32) (pa, pb int32, n int) {
	pa, pb = -1, -1
	if !r.hasSeams {
		return
	}
	na, nb := r.vnode[a], r.vnode[b]
	if len(r.nodeVerts[na]) < 2 && len(r.nodeVerts[nb]) < 2 {
		return
	}
	for _, a2 := range r.nodeVerts[na] {
		for _, f := range r.live.VF[a2] {
			t := r.live.F[f]
			p := mesh.Corner(t, a2)
			// Outgoing a2->x.
			if x := t[(p+1)%3]; r.vnode[x] == nb && !(a2 == a && x == b) && !(a2 == b && x == a) && r.live.FaceWith(x, a2) < 0 {
				pa, pb = a2, x
				n++
			}
			// Incoming x->a2.
			if x := t[(p+2)%3]; r.vnode[x] == nb && !(a2 == a && x == b) && !(a2 == b && x == a) && r.live.FaceWith(a2, x) < 0 {
				pa, pb = a2, x
				n++
			}
		}
	}
	return
}

// edgeSize is eq. 1 for the edge a-b, averaged with its seam partner.
func (r *Remesher) edgeSize(a, b int32, boundary bool) float64 {
	s := sqrt(r.size2(a, b))
	if boundary {
		if pa, pb, n := r.partner(a, b); n == 1 {
			s = 0.5 * (s + sqrt(r.size2(pa, pb)))
		}
	}
	return s
}

// preserved reports whether nodes p and q are joined by a preserved edge.
func (r *Remesher) preserved(p, q int32) bool {
	for _, x := range r.pres[p] {
		if x == q {
			return true
		}
	}
	return false
}

// preservedEdge reports whether the edge between verts a and b is preserved.
func (r *Remesher) preservedEdge(a, b int32) bool {
	return len(r.pres[r.vnode[a]]) > 0 && r.preserved(r.vnode[a], r.vnode[b])
}
