package conformal

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/remesh"
)

// work is the working mesh. With one vert per node, everything is indexed
// by vert. Verts and faces are only appended; removed ones are marked dead
// and a face slot is never rewritten, so the first nV0 verts and nF0 faces
// are the input's (see mesh.Live).
type work struct {
	p   Params
	nex int

	// Per vert (and its node).
	u      []dense.Vec2
	x, v   []dense.Vec3
	extra  []float64
	locked []bool
	feat   []int32
	tp     []float64
	point  []bool
	alive  []bool
	// Per created vert (index - nV0).
	made []made

	// The faces and their topology over the verts, with vert and face
	// marks.
	live mesh.Live
	// Per face: while hits are inserted (tracking), origin[f] is the input
	// face that face f lies in and kids[g] the faces made inside input face
	// g.
	origin   []int32
	kids     [][]int32
	tracking bool

	nV0, nF0 int
	inNode   []int32 // input vert -> input node
	vertOf   []int32 // input node -> input vert

	conf []int32 // verts that are or were conformal (filtered when read)
	ends map[int32]EdgeEnds
	// absorbs are (free vert, new conformal node) pairs: a hit landed within
	// MinEdge of the free vert (see absorb).
	absorbs [][2]int32

	splits, collapses, flips int

	// Output maps, set by output.
	nodeNew []int32
}

// made is the bookkeeping of a created vert: its sources and, for a vert
// made on an input edge while inserting hits, that edge (a < b) and the
// parameter from a.
type made struct {
	src  []remesh.Source
	a, b int32
	s    float64
}

func load(m *remesh.Mesh, c Features, p Params) *work {
	nv, nf := len(m.U), len(m.F)
	w := &work{p: p, nex: m.NExtra, nV0: nv, nF0: nf, tracking: true, ends: c.Ends}
	w.inNode = m.Node
	w.vertOf = make([]int32, len(m.X))
	for v, n := range m.Node {
		w.vertOf[n] = int32(v)
	}
	w.u = append(make([]dense.Vec2, 0, nv+16), m.U...)
	w.x = make([]dense.Vec3, nv, nv+16)
	w.v = make([]dense.Vec3, nv, nv+16)
	w.extra = make([]float64, nv*w.nex, (nv+16)*w.nex)
	w.locked = make([]bool, nv, nv+16)
	w.feat = make([]int32, nv, nv+16)
	w.tp = make([]float64, nv, nv+16)
	w.point = make([]bool, nv, nv+16)
	w.alive = make([]bool, nv, nv+16)
	for v, n := range m.Node {
		w.x[v], w.v[v] = m.X[n], m.V[n]
		copy(w.extra[v*w.nex:(v+1)*w.nex], m.Extra[int(n)*w.nex:(int(n)+1)*w.nex])
		w.locked[v] = m.Locked != nil && m.Locked[n]
		w.feat[v] = c.Feature[n]
		if c.Feature[n] >= 0 {
			w.tp[v] = c.T[n]
			w.point[v] = c.Point != nil && c.Point[n]
			w.conf = append(w.conf, int32(v))
		}
		w.alive[v] = true
	}
	w.live.Load(m.F, nv)
	w.origin = make([]int32, nf, nf+32)
	w.kids = make([][]int32, nf)
	for i := range w.origin {
		w.origin[i] = int32(i)
	}
	return w
}

// conformalEdge reports whether an edge between a and b is conformal: both
// on one edge feature, or one on an edge feature and the other on a corner
// at its end (Features.Edge).
func (w *work) conformalEdge(a, b int32) bool {
	_, ok := chainPair(w.feat[a], w.feat[b], w.point[a], w.point[b], w.ends)
	return ok
}

// chainT returns the edge feature of the conformal edge a-b and the
// parameters of a and b along it (a corner at the edge's end has that end's
// T0 or T1).
func (w *work) chainT(a, b int32) (f int32, ta, tb float64, ok bool) {
	f, ok = chainPair(w.feat[a], w.feat[b], w.point[a], w.point[b], w.ends)
	if !ok {
		return -1, 0, 0, false
	}
	return f, w.paramOn(a, f), w.paramOn(b, f), true
}

// paramOn is node v's parameter along edge feature f: its T, or the end's
// parameter for a corner at an end of f.
func (w *work) paramOn(v, f int32) float64 {
	if !w.point[v] {
		return w.tp[v]
	}
	if e := w.ends[f]; e.Start == w.feat[v] {
		return e.T0
	}
	return w.ends[f].T1
}

func (w *work) edgeLen(a, b int32) float64 { return dist2(w.u[a], w.u[b]) }

// addFace appends face (a, b, c), made inside the input face origin (-1:
// untracked).
func (w *work) addFace(a, b, c, origin int32) int32 {
	f := w.live.AddFace(a, b, c)
	if !w.tracking {
		origin = -1
	}
	w.origin = append(w.origin, origin)
	if origin >= 0 {
		w.kids[origin] = append(w.kids[origin], f)
	}
	return f
}

// sources appends vert v's input-node combination, scaled by wt, to dst.
func (w *work) sources(dst []remesh.Source, v int32, wt float64) []remesh.Source {
	if int(v) < w.nV0 {
		return append(dst, remesh.Source{Node: w.inNode[v], W: wt})
	}
	for _, s := range w.made[int(v)-w.nV0].src {
		dst = append(dst, remesh.Source{Node: s.Node, W: wt * s.W})
	}
	return dst
}

// newVert appends a non-conformal vert at the combination sum_k wt[k] *
// vs[k] of U, X, V, Extra and sources.
func (w *work) newVert(vs []int32, wt []float64) int32 {
	n := int32(len(w.u))
	var u dense.Vec2
	var x, vel dense.Vec3
	var src []remesh.Source
	for k, a := range vs {
		c := wt[k]
		u[0] += c * w.u[a][0]
		u[1] += c * w.u[a][1]
		x = x.Add(w.x[a].Scale(c))
		vel = vel.Add(w.v[a].Scale(c))
		src = w.sources(src, a, c)
	}
	w.u = append(w.u, u)
	w.x = append(w.x, x)
	w.v = append(w.v, vel)
	for i := 0; i < w.nex; i++ {
		var e float64
		for k, a := range vs {
			e += wt[k] * w.extra[int(a)*w.nex+i]
		}
		w.extra = append(w.extra, e)
	}
	w.locked = append(w.locked, false)
	w.feat = append(w.feat, -1)
	w.tp = append(w.tp, 0)
	w.point = append(w.point, false)
	w.alive = append(w.alive, true)
	if w.live.AddVert() != n {
		panic("conformal: verts and their face lists out of step")
	}
	w.made = append(w.made, made{src: sortSources(src), a: -1, b: -1})
	return n
}

// makeConformal puts vert n on feature f at parameter t.
func (w *work) makeConformal(n, f int32, t float64, pt bool) {
	if w.feat[n] < 0 {
		w.conf = append(w.conf, n)
	}
	w.feat[n], w.tp[n], w.point[n] = f, t, pt
}

// splitEdge splits the edge a-b at parameter s from a (both faces across it
// become two) and returns the new vert, which lies at the linear
// interpolation of a and b.
func (w *work) splitEdge(a, b int32, s float64) int32 {
	fl, fr := w.live.FaceWith(a, b), w.live.FaceWith(b, a)
	n := w.newVert([]int32{a, b}, []float64{1 - s, s})
	if fl >= 0 {
		c, o := mesh.Third(w.live.F[fl], a, b), w.origin[fl]
		w.live.KillFace(fl)
		w.addFace(a, n, c, o)
		w.addFace(n, b, c, o)
	}
	if fr >= 0 {
		d, o := mesh.Third(w.live.F[fr], a, b), w.origin[fr]
		w.live.KillFace(fr)
		w.addFace(b, n, d, o)
		w.addFace(n, a, d, o)
	}
	return n
}

// splitFace splits face f at barycentric coordinates bc into three faces and
// returns the new vert.
func (w *work) splitFace(f int32, bc [3]float64) int32 {
	t, o := w.live.F[f], w.origin[f]
	n := w.newVert(t[:], bc[:])
	w.live.KillFace(f)
	w.addFace(t[0], t[1], n, o)
	w.addFace(t[1], t[2], n, o)
	w.addFace(t[2], t[0], n, o)
	return n
}

// straightBorder reports whether v is a border vert with one border edge in
// and one out, collinear: a border vert that is not a corner.
func (w *work) straightBorder(v int32) (in, out int32, ok bool) {
	nOut, nIn, out, in := w.live.BorderInfo(v)
	if nOut != 1 || nIn != 1 {
		return in, out, false
	}
	e1, e2 := w.u[in].Sub(w.u[v]), w.u[out].Sub(w.u[v])
	ok = math.Abs(cross2(e1, e2)) <= 1e-9*math.Sqrt(dot2(e1, e1)*dot2(e2, e2)) && dot2(e1, e2) < 0
	return in, out, ok
}

// collapse removes vert i by moving its faces onto j (faces holding both
// die). The caller has checked canRemove(i, j).
func (w *work) collapse(i, j int32) {
	fs := append([]int32(nil), w.live.VF[i]...)
	for _, f := range fs {
		t := w.live.F[f]
		if mesh.Corner(t, j) >= 0 {
			w.live.KillFace(f)
			continue
		}
		t[mesh.Corner(t, i)] = j
		w.live.KillFace(f)
		w.addFace(t[0], t[1], t[2], -1)
	}
	w.alive[i] = false
	w.collapses++
}

// output compacts the working mesh into a new Mesh and its Result. Nodes
// and verts keep the input's relative order, created ones follow in order of
// creation.
func (w *work) output(m *remesh.Mesh) (*remesh.Mesh, Result) {
	res := Result{Features: Features{Ends: w.ends}}
	nAll := len(w.u)
	w.nodeNew = make([]int32, nAll)
	vertNew := make([]int32, nAll)
	for i := range w.nodeNew {
		w.nodeNew[i], vertNew[i] = -1, -1
	}
	nv, nf := 0, 0
	for _, a := range w.alive {
		if a {
			nv++
		}
	}
	for _, a := range w.live.Alive {
		if a {
			nf++
		}
	}
	out := &remesh.Mesh{NExtra: w.nex, X: make([]dense.Vec3, 0, nv), V: make([]dense.Vec3, 0, nv),
		Extra: make([]float64, 0, nv*w.nex), U: make([]dense.Vec2, 0, nv), Node: make([]int32, 0, nv), F: make([][3]int32, 0, nf)}
	if m.Locked != nil {
		out.Locked = make([]bool, 0, nv)
	}
	res.Feature, res.T, res.Point = make([]int32, 0, nv), make([]float64, 0, nv), make([]bool, 0, nv)
	res.NodeOld, res.VertOld, res.FaceOld = make([]int32, 0, nv), make([]int32, 0, nv), make([]int32, 0, nf)
	res.SrcStart = append(make([]int32, 0, nv+1), 0)
	res.Src = make([]remesh.Source, 0, nv)
	addNode := func(v int32) {
		w.nodeNew[v] = int32(len(out.X))
		out.X = append(out.X, w.x[v])
		out.V = append(out.V, w.v[v])
		out.Extra = append(out.Extra, w.extra[int(v)*w.nex:(int(v)+1)*w.nex]...)
		if m.Locked != nil {
			out.Locked = append(out.Locked, w.locked[v])
		}
		if w.feat[v] >= 0 {
			res.Feature = append(res.Feature, w.feat[v])
			res.T = append(res.T, w.tp[v])
		} else {
			res.Feature = append(res.Feature, -1)
			res.T = append(res.T, 0)
		}
		res.Point = append(res.Point, w.feat[v] >= 0 && w.point[v])
		if int(v) < w.nV0 {
			res.NodeOld = append(res.NodeOld, w.inNode[v])
		} else {
			res.NodeOld = append(res.NodeOld, -1)
		}
		res.Src = w.sources(res.Src, v, 1)
		res.SrcStart = append(res.SrcStart, int32(len(res.Src)))
	}
	for _, v := range w.vertOf {
		if w.alive[v] {
			addNode(v)
		}
	}
	for v := w.nV0; v < nAll; v++ {
		if w.alive[v] {
			addNode(int32(v))
		}
	}
	vertNew, res.VertOld = mesh.Renumber(w.alive, w.nV0, vertNew, res.VertOld)
	for v := 0; v < nAll; v++ {
		if vertNew[v] >= 0 {
			out.U = append(out.U, w.u[v])
			out.Node = append(out.Node, w.nodeNew[v])
		}
	}
	out.F, res.FaceOld = w.live.AppendLive(out.F, res.FaceOld, vertNew)
	res.Splits, res.Collapses, res.Flips = w.splits, w.collapses, w.flips
	return out, res
}
