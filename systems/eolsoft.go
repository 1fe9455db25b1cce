package systems

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// softStiffness is the soft contacts' stiffness relative to the stiffest
// diagonal entry of the system matrix at their vertices (h^2 k against
// mass plus h^2 times the elastic stiffness). Sanchez-Banderas et al. 2020 sec. 4.2 make the soft
// constraint of an EIL node 1000 times a rod segment's stretch stiffness;
// at 1000 here push diverged within 0.75 s (max_strain 6.7e7) on its
// filtered PCG solve.
const softStiffness = 10

// softScratch holds softContacts' buffers between steps.
type softScratch struct {
	mesh    remesh.Mesh // a view of the gathered state: X, F (EOLCloth.faces), one vert per node
	feature []int32     // per vertex, its EOL vertex's feature (-1: none)
	detect  detectScratch
}

// softContacts adds to the step's force gradient and system matrix (eq. 11,
// before the EOL mapping of eq. 9-10) a soft constraint for every contact
// with a sharp feature that the conformal pass left without a node: a cloth
// edge that crosses an edge feature or a wire although its ends are not on
// it, or a face that a corner or nail touches away from the feature's node.
// Those are the hits that conformal.Preprocess blocks (the nearest node is
// locked or on another feature, where two features' conformal edges cross
// or come close: a box corner, jaws), drops at the cloth border, or counts
// as duplicates of a node of their feature (a point touches the cloth at
// one node, yet a face folded over that node's faces meets it too).
//
// It is the cloth counterpart of the EIL node of Sanchez-Banderas et al.
// 2020 sec. 3.3 and 4.2: rather than a degenerate hard constraint at a node
// squeezed next to another feature's, a stiff spring ties the interpolated
// cloth point to the obstacle, with the point's Eulerian coordinate free
// (the closest point of the cloth edge to the feature line, or the
// feature's projection onto the face, found again at every solve), so that
// the spring acts along the common normal n only and lets the cloth slide
// along and over the feature. Unlike a persistent yarn contact it is
// one-sided: it acts while the cloth point p is inside the obstacle's
// contact layer, g = d(p) - thickness < 0 with d the signed distance to the
// obstacle's surface (a nail: to its tip along n), and pushes it back to
// the layer; it never pulls cloth onto the feature, so cloth lifts off
// freely. The gap is taken at the end of the step (the obstacle moves by h
// times its velocity at p along n).
//
// Per contact, with the weights w_i of p, the energy 1/2 k g^2 adds
// k g w_i n to vertex i's gradient and h^2 k w_i w_j n n^T to the matrix
// block (i, j) (Gauss-Newton: n held fixed; for an edge, moving the closest
// point does not change g to first order), with h^2 k = softStiffness times
// the largest diagonal entry of the blocks (i, i). It returns the number of
// soft contacts added.
func (c *EOLCloth) softContacts(sc *softScratch) (int, error) {
	s := c.state
	n := s.NumVerts()
	m := &sc.mesh
	m.X = resize(m.X, n)
	for i := range m.X {
		m.X[i] = vec(s.X, int32(i))
	}
	if len(m.Node) != n {
		m.Node = resize(m.Node, n)
		for i := range m.Node {
			m.Node[i] = int32(i)
		}
	}
	m.F = c.faces
	sc.feature = resize(sc.feature, n)
	for i := range sc.feature {
		sc.feature[i] = -1
	}
	for k := range c.verts {
		sc.feature[c.verts[k].v] = c.verts[k].feature
	}
	added := 0
	for _, hit := range c.detect(m, sc.feature, &sc.detect) {
		var vs [3]int32
		var w [3]float64
		nv, nrm, g := c.softGap(m, &hit, &vs, &w)
		if nv == 0 || !(g < 0) {
			continue
		}
		a := 0.0
		for _, v := range vs[:nv] {
			d := s.A.Diag[v]
			a = math.Max(a, math.Max(s.A.Val[9*d], math.Max(s.A.Val[9*d+4], s.A.Val[9*d+8])))
		}
		kh2 := softStiffness * a
		k := kh2 / (s.H * s.H)
		for i, vi := range vs[:nv] {
			for d := range 3 {
				s.Grad[3*vi+int32(d)] += k * g * w[i] * nrm[d]
			}
			for j, vj := range vs[:nv] {
				if err := c.addBlock(vi, vj, kh2*w[i]*w[j], nrm); err != nil {
					return added, err
				}
			}
		}
		added++
	}
	return added, nil
}

// softGap returns the cloth vertices (into vs, weights w; their number nv,
// 0 when the contact has no usable normal), the outward normal and the
// signed gap at the end of the step of a soft contact (softContacts).
func (c *EOLCloth) softGap(m *remesh.Mesh, hit *conformal.Hit, vs *[3]int32, w *[3]float64) (nv int, nrm dense.Vec3, g float64) {
	f := &c.features[hit.Feature]
	var p dense.Vec3
	if hit.Face >= 0 {
		t := m.F[hit.Face]
		x := [3]dense.Vec3{m.X[t[0]], m.X[t[1]], m.X[t[2]]}
		nv, *vs, *w = 3, t, hit.Bary
		p = x[0].Scale(w[0]).Add(x[1].Scale(w[1])).Add(x[2].Scale(w[2]))
		nrm = x[1].Sub(x[0]).Cross(x[2].Sub(x[0]))
		out := f.N[0].Add(f.N[1]).Add(f.N[2]) // a corner's diagonal, a nail's normal
		if nrm.Dot(out) < 0 {
			nrm = nrm.Scale(-1)
		}
	} else {
		a, b := m.X[hit.A], m.X[hit.B]
		nv, vs[0], vs[1], w[0], w[1] = 2, hit.A, hit.B, 1-hit.S, hit.S
		p = a.Add(b.Sub(a).Scale(hit.S))
		if f.Wire {
			nrm = f.WireNormal(p) // hit.X is on the wire's surface there
		} else {
			// The common normal of the cloth edge and the feature line,
			// out of the box edge's wedge.
			nrm = f.Dir.Cross(b.Sub(a))
			if nrm.Dot(f.N[0].Add(f.N[1])) < 0 {
				nrm = nrm.Scale(-1)
			}
		}
	}
	l := nrm.Norm()
	if !(l > 0) || hit.Face < 0 && !f.Wire && l < 1e-6*m.X[hit.A].Sub(m.X[hit.B]).Norm() {
		return 0, dense.Vec3{}, 0 // a cloth edge along the feature: no common normal
	}
	nrm = nrm.Scale(1 / l)
	if f.Kind == components.FeaturePoint {
		// A nail's tip (the feature is moved out by the thickness).
		g = nrm.Dot(p.Sub(f.P0.Sub(f.N[0].Scale(c.thickness))))
	} else {
		o := &c.obstacles[f.Obstacle]
		g, _ = geom.SignedDistance(&o.Shape, o.Offset, p)
	}
	return nv, nrm, g - c.thickness - c.state.H*nrm.Dot(f.VelAt(p))
}

// addBlock adds s n n^T to block (i, j) of the system matrix; i and j must
// share a face (the block is in the matrix's pattern).
func (c *EOLCloth) addBlock(i, j int32, s float64, n dense.Vec3) error {
	A := c.state.A
	for p := A.RowPtr[i]; p < A.RowPtr[i+1]; p++ {
		if A.Col[p] != j {
			continue
		}
		b := A.Val[9*p : 9*p+9]
		for r := range 3 {
			for q := range 3 {
				b[3*r+q] += s * n[r] * n[q]
			}
		}
		return nil
	}
	return fmt.Errorf("soft contact: vertices %d and %d share no face", i, j)
}
