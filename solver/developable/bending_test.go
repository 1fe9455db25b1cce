package developable

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBendingDerivativesFD compares the bending gradient with central
// differences of the energy, and the assembled Hessian with central
// differences of the gradient, at a random configuration.
func TestBendingDerivativesFD(t *testing.T) {
	m, x0 := grid(t, 5, 1)
	b := NewBending(m, 0.7)
	rng := rand.New(rand.NewPCG(3, 4))
	x := m.Midpoints(x0)
	for i := range x {
		x[i] += 0.1 * rng.NormFloat64()
	}
	n := len(x)
	g := make([]float64, n)
	b.Gradient(x, g)
	const h = 1e-6
	worst, scale := 0.0, 0.0
	for i := range n {
		var ep, em float64
		shifted(x, i, h, func(plus bool) {
			if plus {
				ep = b.Energy(x)
			} else {
				em = b.Energy(x)
			}
		})
		worst = math.Max(worst, math.Abs((ep-em)/(2*h)-g[i]))
		scale = math.Max(scale, math.Abs(g[i]))
	}
	if worst > 1e-6*scale {
		t.Errorf("gradient differs from central differences of E by %g (largest component %g)", worst, scale)
	}
	// Dense Hessian from the triplets: H acts on each coordinate alike.
	ne := m.NumEdges()
	hs := make([][]float64, ne)
	for i := range hs {
		hs[i] = make([]float64, ne)
	}
	r, c, v := b.Hessian()
	for k := range r {
		hs[r[k]][c[k]] += v[k]
		if r[k] != c[k] {
			hs[c[k]][r[k]] += v[k]
		}
	}
	gp, gm := make([]float64, n), make([]float64, n)
	worst, scale = 0, 0
	for j := range n {
		clear(gp)
		clear(gm)
		shifted(x, j, h, func(plus bool) {
			if plus {
				b.Gradient(x, gp)
			} else {
				b.Gradient(x, gm)
			}
		})
		for i := range n {
			want := 0.0
			if i%3 == j%3 {
				want = hs[i/3][j/3]
			}
			worst = math.Max(worst, math.Abs((gp[i]-gm[i])/(2*h)-want))
			scale = math.Max(scale, math.Abs(want))
		}
	}
	if worst > 1e-6*scale {
		t.Errorf("Hessian differs from central differences of the gradient by %g (largest entry %g)", worst, scale)
	}
}

// TestBendingFlatAndCylinder: the energy vanishes on every rigid motion of
// the flat rest sheet, and on a sheet rolled onto a cylinder of radius R it
// equals a reference computed from the geometry alone: in face t, the CR
// basis function of edge e has gradient |e| nu_e / A_t (nu_e the rest
// outward unit normal of e), so (L x)_e = sum over e's faces of |e| F_t
// nu_e with F_t the face's deformation gradient from its vertex
// positions. On this grid (cells planar on the cylinder, only the edges
// along the axis bent) the energy is 3x the continuum k_b/2 A / R^2: the
// quadratic energy of concentrated hinges; the test logs the ratio.
func TestBendingFlatAndCylinder(t *testing.T) {
	const kb = 2.0
	m, x0 := grid(t, 21, 1)
	b := NewBending(m, kb)
	x := m.Midpoints(x0)
	rot := make([]float64, len(x))
	c, s := math.Cos(0.3), math.Sin(0.3)
	for e := range m.NumEdges() {
		p := x[3*e : 3*e+3]
		rot[3*e], rot[3*e+1], rot[3*e+2] = c*p[0]-s*p[1]+0.2, s*p[0]+c*p[1]-1, p[2]+3
	}
	if e := b.Energy(rot); e > 1e-20 {
		t.Errorf("energy of a rigidly moved flat sheet is %g, want 0", e)
	}
	const R = 0.5
	cyl := make([]float64, len(x0))
	for v := range len(x0) / 3 {
		u, w := x0[3*v], x0[3*v+2]
		cyl[3*v], cyl[3*v+1], cyl[3*v+2] = R*math.Sin(u/R), R-R*math.Cos(u/R), w
	}
	got := b.Energy(m.Midpoints(cyl))
	want, area := 0.0, 0.0
	for e, ef := range m.EdgeFaces {
		if ef[1] < 0 {
			continue
		}
		var lx [3]float64
		ae := 0.0
		for _, f := range ef {
			fv, u := m.Faces[f], m.FaceU[f]
			k := 0
			for m.FaceEdges[f][k] != int32(e) {
				k++
			}
			// Rest edge opposite corner k, from corner k+1 to k+2, and its
			// outward normal (faces are CCW).
			p, q := u[(k+1)%3], u[(k+2)%3]
			el := math.Hypot(q[0]-p[0], q[1]-p[1])
			nu := [2]float64{(q[1] - p[1]) / el, -(q[0] - p[0]) / el}
			// F = [x1-x0 x2-x0] [U1-U0 U2-U0]^-1.
			d1 := [2]float64{u[1][0] - u[0][0], u[1][1] - u[0][1]}
			d2 := [2]float64{u[2][0] - u[0][0], u[2][1] - u[0][1]}
			det := d1[0]*d2[1] - d2[0]*d1[1]
			inv := [2][2]float64{{d2[1] / det, -d2[0] / det}, {-d1[1] / det, d1[0] / det}}
			for cc := range 3 {
				e1 := cyl[3*int(fv[1])+cc] - cyl[3*int(fv[0])+cc]
				e2 := cyl[3*int(fv[2])+cc] - cyl[3*int(fv[0])+cc]
				f0 := e1*inv[0][0] + e2*inv[1][0]
				f1 := e1*inv[0][1] + e2*inv[1][1]
				lx[cc] += el * (f0*nu[0] + f1*nu[1])
			}
			ae += 0.5 * math.Abs(det) / 3
		}
		want += (lx[0]*lx[0] + lx[1]*lx[1] + lx[2]*lx[2]) / ae
		area += ae
	}
	want *= kb / 2
	if math.Abs(got-want) > 1e-9*want {
		t.Errorf("cylinder energy %.12g, reference from the faces' deformation gradients %.12g", got, want)
	}
	t.Logf("cylinder R=%g: energy %.5g; continuum k_b/2 A/R^2 over the rows' area %.5g (ratio %.3f)", R, got, kb/2*area/(R*R), got/(kb/2*area/(R*R)))
}
