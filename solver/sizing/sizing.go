package sizing

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
	"github.com/loomsim/loom/solver/sparse"
)

// Obstacles carries, per node, the nearest obstacle point and its outward
// unit normal, for the obstacle term of eq. 9. The zero value means no
// obstacles.
type Obstacles struct {
	// Point[i] is the obstacle point nearest to node i and Normal[i] the
	// obstacle's outward normal there (normalised here; it must be nonzero).
	// Both nil (no obstacles) or both of length len(Mesh.X).
	Point, Normal []dense.Vec3
	// Has[i] reports whether node i has an obstacle point at all; nil means
	// every node has one.
	Has []bool
	// Range: a node whose obstacle point is farther than Range from it is
	// treated as having none. It must be positive when Point is set; +Inf
	// means no cut-off.
	Range float64
}

// Workspace holds the buffers of Compute. The zero value is ready to use. A
// Workspace is not safe for concurrent use; repeated calls on meshes no larger
// than an earlier one do not allocate.
type Workspace struct {
	// adjacency
	nvPtr, nvIdx []int32 // node -> its verts, in vert order
	vBeg, vEnd   []int32 // vert -> its range in inc
	nBeg         []int32 // node -> its range in inc (len nodes+1)
	inc          []int32 // incidences 3*face+corner, grouped by node, then vert, then face

	// per face: (x1-x0) x (x2-x0), twice the area-weighted normal
	faceN []dense.Vec3

	// per node
	normal []dense.Vec3
	obsN   []dense.Vec3 // normalised obstacle normal
	obsPhi []float64    // (x - p).n
	obsOn  []bool

	// per face
	faceM   []dense.Mat2 // clamped face tensor
	faceA   []float64    // material-space area
	faceBad []bool

	// seam scratch, per incidence and per vert
	succ, pred, nxt, prv []int32
	psi                  []float64
	vRuns                []int32
	vTheta0, vPhi0, vAlp []float64

	// arguments of the current call, read by the kernels
	m              *remesh.Mesh
	obs            Obstacles
	p              Params
	lo, hi, a2     float64
	idn, icmp, ivl float64 // 1/dn^2, 1/c^2, 1/dv^2
	out            []dense.Mat2

	crossBody, nodeBody, faceBody, avgBody func(lo, hi int)

	noSeams bool // tests: average every vert on its own
}

// Compute writes the sizing tensor of every vert of m into out (len(out) ==
// len(m.U)) using a temporary Workspace. Prefer Workspace.Compute for
// repeated calls.
func Compute(m *remesh.Mesh, obs Obstacles, p Params, r sparse.Runner, out []dense.Mat2) error {
	var w Workspace
	return w.Compute(m, obs, p, r, out)
}

// Compute writes the sizing tensor of every vert of m into out (len(out) ==
// len(m.U)); see the package documentation for the method. It returns an
// error, naming the offending field, node, vert or face, for invalid Params,
// mismatched lengths, out-of-range or repeated indices, non-finite input and
// degenerate or clockwise material-space faces; out is then unspecified. The
// result is bitwise identical for any Runner; r == nil means sparse.Serial.
func (w *Workspace) Compute(m *remesh.Mesh, obs Obstacles, p Params, r sparse.Runner, out []dense.Mat2) error {
	if err := p.Validate(); err != nil {
		return err
	}
	if err := validate(m, &obs, out); err != nil {
		return err
	}
	if r == nil {
		r = sparse.Serial{}
	}
	if w.nodeBody == nil {
		w.crossBody, w.nodeBody, w.faceBody, w.avgBody = w.crossKernel, w.nodeKernel, w.faceKernel, w.avgKernel
	}
	nn, nv, nf := len(m.X), len(m.U), len(m.F)
	w.m, w.obs, w.p, w.out = m, obs, p, out
	w.lo, w.hi, w.a2 = p.bounds()
	w.idn = 1 / (p.RefineAngle * p.RefineAngle)
	w.icmp = 1 / (p.RefineCompression * p.RefineCompression)
	w.ivl = 1 / (p.RefineVelocity * p.RefineVelocity)
	defer w.release()

	w.buildAdjacency(nn, nv, nf)
	w.faceN = grow(w.faceN, nf)
	r.For(nf, w.crossBody)
	w.normal = grow(w.normal, nn)
	w.obsN = grow(w.obsN, nn)
	w.obsPhi = grow(w.obsPhi, nn)
	w.obsOn = grow(w.obsOn, nn)
	r.For(nn, w.nodeBody)

	w.faceM = grow(w.faceM, nf)
	w.faceA = grow(w.faceA, nf)
	w.faceBad = grow(w.faceBad, nf)
	r.For(nf, w.faceBody)
	for f, bad := range w.faceBad {
		if bad {
			t := m.F[f]
			return fmt.Errorf("sizing: face %d (verts %d %d %d) is degenerate or clockwise in material space", f, t[0], t[1], t[2])
		}
	}

	ni := 3 * nf
	w.succ, w.pred = grow(w.succ, ni), grow(w.pred, ni)
	w.nxt, w.prv = grow(w.nxt, ni), grow(w.prv, ni)
	w.psi = grow(w.psi, ni)
	w.vRuns = grow(w.vRuns, nv)
	w.vTheta0, w.vPhi0, w.vAlp = grow(w.vTheta0, nv), grow(w.vPhi0, nv), grow(w.vAlp, nv)
	r.For(nn, w.avgBody)
	return nil
}

// release drops the references to the caller's data.
func (w *Workspace) release() {
	w.m, w.obs, w.out = nil, Obstacles{}, nil
}

// FaceTensors returns the clamped per-face tensors (eq. 13, before averaging)
// computed by the last Compute; they are meaningful only when that call
// succeeded, stay valid until the next call, and must not be modified.
func (w *Workspace) FaceTensors() []dense.Mat2 { return w.faceM }

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

func finite3(v dense.Vec3) bool {
	s := v[0] + v[1] + v[2]
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}

func finite2(v dense.Vec2) bool {
	s := v[0] + v[1]
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}

func validate(m *remesh.Mesh, obs *Obstacles, out []dense.Mat2) error {
	if m == nil {
		return fmt.Errorf("sizing: nil mesh")
	}
	nn, nv := len(m.X), len(m.U)
	if len(m.V) != nn {
		return fmt.Errorf("sizing: len(V) = %d, want len(X) = %d", len(m.V), nn)
	}
	if len(m.Node) != nv {
		return fmt.Errorf("sizing: len(Node) = %d, want len(U) = %d", len(m.Node), nv)
	}
	if len(out) != nv {
		return fmt.Errorf("sizing: len(out) = %d, want len(U) = %d", len(out), nv)
	}
	if nn > math.MaxInt32 || nv > math.MaxInt32 || 3*len(m.F) > math.MaxInt32 {
		return fmt.Errorf("sizing: mesh too large for int32 indices")
	}
	for i := range nn {
		if !finite3(m.X[i]) {
			return fmt.Errorf("sizing: node %d: non-finite position %v", i, m.X[i])
		}
		if !finite3(m.V[i]) {
			return fmt.Errorf("sizing: node %d: non-finite velocity %v", i, m.V[i])
		}
	}
	for v := range nv {
		if !finite2(m.U[v]) {
			return fmt.Errorf("sizing: vert %d: non-finite material coordinate %v", v, m.U[v])
		}
		if n := m.Node[v]; n < 0 || int(n) >= nn {
			return fmt.Errorf("sizing: vert %d: node %d out of range [0, %d)", v, n, nn)
		}
	}
	for f, t := range m.F {
		for k := range 3 {
			if t[k] < 0 || int(t[k]) >= nv {
				return fmt.Errorf("sizing: face %d: vert %d out of range [0, %d)", f, t[k], nv)
			}
		}
		if m.Node[t[0]] == m.Node[t[1]] || m.Node[t[1]] == m.Node[t[2]] || m.Node[t[2]] == m.Node[t[0]] {
			return fmt.Errorf("sizing: face %d (verts %d %d %d) has two corners on one node", f, t[0], t[1], t[2])
		}
	}
	if obs.Point == nil && obs.Normal == nil {
		return nil
	}
	if len(obs.Point) != nn || len(obs.Normal) != nn {
		return fmt.Errorf("sizing: Obstacles: len(Point) = %d, len(Normal) = %d, want len(X) = %d", len(obs.Point), len(obs.Normal), nn)
	}
	if obs.Has != nil && len(obs.Has) != nn {
		return fmt.Errorf("sizing: Obstacles: len(Has) = %d, want len(X) = %d", len(obs.Has), nn)
	}
	if !(obs.Range > 0) {
		return fmt.Errorf("sizing: Obstacles.Range = %g: must be positive", obs.Range)
	}
	for i := range nn {
		if obs.Has != nil && !obs.Has[i] {
			continue
		}
		if !finite3(obs.Point[i]) {
			return fmt.Errorf("sizing: Obstacles: node %d: non-finite point %v", i, obs.Point[i])
		}
		if n := obs.Normal[i]; !finite3(n) || n.Dot(n) == 0 {
			return fmt.Errorf("sizing: Obstacles: node %d: invalid normal %v", i, n)
		}
	}
	return nil
}

// buildAdjacency fills the incidence lists by counting sort: nodes in order,
// each node's verts in vert order, each vert's faces in face order.
func (w *Workspace) buildAdjacency(nn, nv, nf int) {
	m := w.m
	w.nvPtr = grow(w.nvPtr, nn+1)
	w.nvIdx = grow(w.nvIdx, nv)
	w.vBeg, w.vEnd = grow(w.vBeg, nv), grow(w.vEnd, nv)
	w.nBeg = grow(w.nBeg, nn+1)
	w.inc = grow(w.inc, 3*nf)

	clear(w.nvPtr)
	for _, n := range m.Node {
		w.nvPtr[n+1]++
	}
	for i := range nn {
		w.nvPtr[i+1] += w.nvPtr[i]
	}
	// vEnd is first the per-vert degree, then the scatter cursor, and ends
	// as each vert's range end.
	cur := w.vEnd
	// scatter verts by node using nBeg as a temporary cursor
	copy(w.nBeg, w.nvPtr)
	for v, n := range m.Node {
		w.nvIdx[w.nBeg[n]] = int32(v)
		w.nBeg[n]++
	}
	// degree per vert
	clear(cur)
	for _, t := range m.F {
		cur[t[0]]++
		cur[t[1]]++
		cur[t[2]]++
	}
	// ranges: nodes in order, verts of a node in order
	pos := int32(0)
	for c := range nn {
		w.nBeg[c] = pos
		for _, v := range w.nvIdx[w.nvPtr[c]:w.nvPtr[c+1]] {
			w.vBeg[v] = pos
			pos += cur[v]
			cur[v] = w.vBeg[v] // now the scatter cursor
		}
	}
	w.nBeg[nn] = pos
	for f, t := range m.F {
		for k, v := range t {
			w.inc[cur[v]] = int32(3*f + k)
			cur[v]++
		}
	}
	// cur (== w.vEnd) now holds each vert's range end.
}

// crossKernel computes the unnormalised world-space face normals.
func (w *Workspace) crossKernel(lo, hi int) {
	m := w.m
	for f := lo; f < hi; f++ {
		t := m.F[f]
		x0 := m.X[m.Node[t[0]]]
		w.faceN[f] = m.X[m.Node[t[1]]].Sub(x0).Cross(m.X[m.Node[t[2]]].Sub(x0))
	}
}

// nodeKernel computes the area-weighted vertex normals and the per-node
// obstacle data.
func (w *Workspace) nodeKernel(lo, hi int) {
	m := w.m
	for c := lo; c < hi; c++ {
		var s dense.Vec3
		for _, ic := range w.inc[w.nBeg[c]:w.nBeg[c+1]] {
			s = s.Add(w.faceN[ic/3])
		}
		if n := s.Norm(); n > 0 {
			s = s.Scale(1 / n)
		}
		w.normal[c] = s

		on := false
		if w.obs.Point != nil && (w.obs.Has == nil || w.obs.Has[c]) {
			d := m.X[c].Sub(w.obs.Point[c])
			if d.Norm() <= w.obs.Range {
				on = true
				n := w.obs.Normal[c]
				n = n.Scale(1 / n.Norm())
				w.obsN[c] = n
				w.obsPhi[c] = d.Dot(n)
			}
		}
		w.obsOn[c] = on
	}
}

// gradient returns [q1-q0, q2-q0] Dm^-1 for per-corner 3-vectors q.
func gradient(q0, q1, q2 dense.Vec3, dmInv dense.Mat2) dense.Mat32 {
	d1, d2 := q1.Sub(q0), q2.Sub(q0)
	var g dense.Mat32
	for i := range 3 {
		g[i][0] = d1[i]*dmInv[0][0] + d2[i]*dmInv[1][0]
		g[i][1] = d1[i]*dmInv[0][1] + d2[i]*dmInv[1][1]
	}
	return g
}

// gtg returns the symmetric g^T g.
func gtg(g dense.Mat32) dense.Mat2 {
	a := g[0][0]*g[0][0] + g[1][0]*g[1][0] + g[2][0]*g[2][0]
	b := g[0][0]*g[0][1] + g[1][0]*g[1][1] + g[2][0]*g[2][1]
	d := g[0][1]*g[0][1] + g[1][1]*g[1][1] + g[2][1]*g[2][1]
	return dense.Mat2{{a, b}, {b, d}}
}

// faceTerms holds the four tensors of eq. 6-9 for one face.
type faceTerms struct {
	crv, vel, cmp, obs dense.Mat2
	area               float64
	ok                 bool
}

// terms evaluates eq. 6-9 on face f.
func (w *Workspace) terms(f int) faceTerms {
	m := w.m
	t := m.F[f]
	u0 := m.U[t[0]]
	e1, e2 := m.U[t[1]].Sub(u0), m.U[t[2]].Sub(u0)
	det := e1[0]*e2[1] - e1[1]*e2[0]
	// Reject degenerate and clockwise faces; the threshold is relative to
	// the edge lengths so it does not depend on the unit of length.
	if !(det > 1e-12*(e1[0]*e1[0]+e1[1]*e1[1]+e2[0]*e2[0]+e2[1]*e2[1])) {
		return faceTerms{}
	}
	dmInv := dense.Mat2{{e2[1] / det, -e2[0] / det}, {-e1[1] / det, e1[0] / det}}
	n0, n1, n2 := m.Node[t[0]], m.Node[t[1]], m.Node[t[2]]

	var ft faceTerms
	ft.ok = true
	ft.area = 0.5 * det
	ft.crv = gtg(gradient(w.normal[n0], w.normal[n1], w.normal[n2], dmInv))
	ft.vel = gtg(gradient(m.V[n0], m.V[n1], m.V[n2], dmInv))
	F := gradient(m.X[n0], m.X[n1], m.X[n2], dmInv)
	c := gtg(F)
	ft.cmp = posPart(dense.Mat2{{1 - c[0][0], -c[0][1]}, {-c[1][0], 1 - c[1][1]}})

	if w.obs.Point != nil {
		lmin2 := w.p.SizeMin * w.p.SizeMin
		for _, a := range [3]int32{n0, n1, n2} {
			if !w.obsOn[a] {
				continue
			}
			n := w.obsN[a]
			g := dense.Vec2{
				F[0][0]*n[0] + F[1][0]*n[1] + F[2][0]*n[2],
				F[0][1]*n[0] + F[1][1]*n[1] + F[2][1]*n[2],
			}
			g2 := g[0]*g[0] + g[1]*g[1]
			if g2 == 0 {
				continue
			}
			phi := w.obsPhi[a]
			den := 3 * max(phi*phi, g2*lmin2)
			off := g[0] * g[1] / den
			ft.obs[0][0] += g[0] * g[0] / den
			ft.obs[0][1] += off
			ft.obs[1][0] += off
			ft.obs[1][1] += g[1] * g[1] / den
		}
	}
	return ft
}

// faceKernel computes the clamped face tensors (eq. 10-13) and areas.
func (w *Workspace) faceKernel(lo, hi int) {
	for f := lo; f < hi; f++ {
		ft := w.terms(f)
		w.faceBad[f] = !ft.ok
		if !ft.ok {
			continue
		}
		var mh dense.Mat2
		for i := range 2 {
			for j := range 2 {
				mh[i][j] = ft.crv[i][j]*w.idn + ft.cmp[i][j]*w.icmp + ft.vel[i][j]*w.ivl + ft.obs[i][j]
			}
		}
		w.faceM[f] = Clamp(mh, w.lo, w.hi, w.a2)
		w.faceA[f] = ft.area
	}
}
