package sizing

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
)

// faceTermsOf runs Compute (for the normals and obstacle data) and returns
// the unclamped eq. 6-9 terms of every face.
func faceTermsOf(t *testing.T, m *remesh.Mesh, obs Obstacles, p Params) ([]faceTerms, *Workspace) {
	t.Helper()
	w := new(Workspace)
	out := make([]dense.Mat2, len(m.U))
	if err := w.Compute(m, obs, p, nil, out); err != nil {
		t.Fatal(err)
	}
	w.m, w.obs, w.p = m, obs, p
	defer w.release()
	res := make([]faceTerms, len(m.F))
	for f := range m.F {
		res[f] = w.terms(f)
		if !res[f].ok {
			t.Fatalf("face %d rejected", f)
		}
	}
	return res, w
}

func TestParamsValidate(t *testing.T) {
	good := Params{RefineAngle: 0.3, RefineCompression: 0.1, RefineVelocity: 1, SizeMin: 0.01, SizeMax: 0.5, AspectMin: 0.2}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	inf := good
	inf.RefineAngle, inf.RefineCompression, inf.RefineVelocity, inf.SizeMax = math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
	if err := inf.Validate(); err != nil {
		t.Fatal(err)
	}
	nan := math.NaN()
	for _, c := range []struct {
		field string
		mod   func(*Params)
	}{
		{"RefineAngle", func(p *Params) { p.RefineAngle = 0 }},
		{"RefineAngle", func(p *Params) { p.RefineAngle = nan }},
		{"RefineCompression", func(p *Params) { p.RefineCompression = -1 }},
		{"RefineVelocity", func(p *Params) { p.RefineVelocity = nan }},
		{"SizeMin", func(p *Params) { p.SizeMin = 0 }},
		{"SizeMin", func(p *Params) { p.SizeMin = math.Inf(1) }},
		{"SizeMax", func(p *Params) { p.SizeMax = 0.001 }},
		{"SizeMax", func(p *Params) { p.SizeMax = nan }},
		{"AspectMin", func(p *Params) { p.AspectMin = 1.5 }},
		{"AspectMin", func(p *Params) { p.AspectMin = -0.1 }},
		{"AspectMin", func(p *Params) { p.AspectMin = nan }},
	} {
		p := good
		c.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), "Params."+c.field) {
			t.Errorf("%s: got %v", c.field, err)
		}
		m, _ := grid(2, 1, 0, 0)
		if err2 := Compute(m, Obstacles{}, p, nil, make([]dense.Mat2, len(m.U))); err2 == nil || err2.Error() != err.Error() {
			t.Errorf("Compute did not report %v: %v", err, err2)
		}
	}
}

func randSym(rng *rand.Rand) dense.Mat2 {
	// eigenvalues spread over many decades, random orientation
	l1 := math.Exp(rng.Float64()*30 - 15)
	l2 := math.Exp(rng.Float64()*30 - 15)
	if rng.IntN(5) == 0 {
		l2 = l1 // exactly isotropic
	}
	return rotMat(dense.Mat2{{l1, 0}, {0, l2}}, rng.Float64()*2*math.Pi)
}

func eig2(m dense.Mat2) (float64, float64) { l1, l2, _ := eigSym(m); return l1, l2 }

func TestEigSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		m := dense.Mat2{{rng.NormFloat64(), 0}, {0, rng.NormFloat64()}}
		m[0][1] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(8)-6))
		m[1][0] = m[0][1]
		l1, l2, q := eigSym(m)
		if l1 < l2 {
			t.Fatal("order")
		}
		if math.Abs(q[0]*q[0]+q[1]*q[1]-1) > 1e-15 {
			t.Fatal("not unit")
		}
		mq := m.MulVec(q)
		sc := math.Max(math.Abs(l1), math.Abs(l2)) + 1e-300
		if math.Hypot(mq[0]-l1*q[0], mq[1]-l1*q[1]) > 1e-14*sc {
			t.Fatalf("eigvec %v %v %v", m, l1, q)
		}
		if d := matDiff(fromEig(l1, l2, q), m); d > 1e-14*sc {
			t.Fatalf("reconstruct %g", d)
		}
		if math.Abs(l1+l2-m.Trace()) > 1e-14*sc || math.Abs(l1*l2-m.Det()) > 1e-13*sc*sc {
			t.Fatalf("invariants")
		}
	}
}

func TestClamp(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, b := range []struct{ lmin, lmax, amin float64 }{
		{0.01, 1, 0}, {0.01, 1, 0.3}, {1e-3, 10, 0.05}, {0.1, 0.1, 0.5}, {0.02, math.Inf(1), 0.1}, {0.01, 1, 1},
	} {
		lo, hi, a2 := Params{SizeMin: b.lmin, SizeMax: b.lmax, AspectMin: b.amin}.bounds()
		for range 2000 {
			m := randSym(rng)
			c := Clamp(m, lo, hi, a2)
			l1, l2 := eig2(c)
			tol := 1e-12 * hi
			if l2 < lo-tol || l1 > hi+tol || l2 < a2*l1-tol {
				t.Fatalf("%+v: %v -> eig %g %g", b, m, l1, l2)
			}
			if b.amin == 1 && (c[0][1] != 0 || c[1][0] != 0 || c[0][0] != c[1][1]) {
				t.Fatalf("alpha_min = 1 not isotropic: %v", c)
			}
			// Eigenvectors are kept: c commutes with m.
			cm, mc := c.Mul(m), m.Mul(c)
			if matDiff(cm, mc) > 1e-12*matNorm(cm)+1e-300 {
				t.Fatalf("eigenvectors moved: %v -> %v", m, c)
			}
			// Already admissible tensors are unchanged.
			m1, m2 := eig2(m)
			if m2 >= lo && m1 <= hi && m2 >= a2*m1 && matDiff(c, m) > 1e-14*m1 {
				t.Fatalf("admissible tensor changed: %v -> %v", m, c)
			}
		}
	}
	// Hand value: diag(1e6, 1e-6) with l in [0.01, 1], alpha 0.1 -> diag(1e4, 100).
	c := Clamp(dense.Mat2{{1e-6, 0}, {0, 1e6}}, 1, 1e4, 0.01)
	if matDiff(c, dense.Mat2{{100, 0}, {0, 1e4}}) > 1e-9 {
		t.Fatalf("hand clamp %v", c)
	}
	if c := Clamp(dense.Mat2{{math.NaN(), 0}, {0, 1}}, 1, 4, 0); c != (dense.Mat2{{4, 0}, {0, 4}}) {
		t.Fatalf("NaN clamp %v", c)
	}
}

func TestPosPart(t *testing.T) {
	q := math.Pi / 7
	m := rotMat(dense.Mat2{{0.51, 0}, {0, -0.3}}, q)
	if d := matDiff(posPart(m), rotMat(dense.Mat2{{0.51, 0}, {0, 0}}, q)); d > 1e-15 {
		t.Fatal(d)
	}
	if posPart(dense.Mat2{{-1, 0.1}, {0.1, -2}}) != (dense.Mat2{}) {
		t.Fatal("negative definite")
	}
	pd := dense.Mat2{{2, 0.1}, {0.1, 1}}
	if posPart(pd) != pd {
		t.Fatal("positive definite changed")
	}
}

// jitter moves the interior material coordinates of a single-panel grid by up to
// a fraction of the cell size, keeping X = (U, 0).
func jitter(m *remesh.Mesh, n int, L, frac float64, rng *rand.Rand) {
	h := L / float64(n)
	for v, u := range m.U {
		if u[0] > 1e-9 && u[0] < L-1e-9 && u[1] > 1e-9 && u[1] < L-1e-9 {
			m.U[v] = dense.Vec2{u[0] + frac*h*(2*rng.Float64()-1), u[1] + frac*h*(2*rng.Float64()-1)}
		}
		m.X[m.Node[v]] = dense.Vec3{m.U[v][0], m.U[v][1], 0}
	}
}

func TestVelocityLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m, _ := grid(6, 2, 0, 0)
	jitter(m, 6, 2, 0.3, rng)
	var A dense.Mat32
	for i := range 3 {
		for j := range 2 {
			A[i][j] = rng.NormFloat64()
		}
	}
	for v, u := range m.U {
		m.V[m.Node[v]] = A.MulVec(u).Add(dense.Vec3{0.3, -1, 2}) // plus a constant
	}
	want := A.TMul(A)
	tol := 1e-12 * matNorm(want)
	ft, _ := faceTermsOf(t, m, Obstacles{}, only("vel"))
	for f, x := range ft {
		if d := matDiff(x.vel, want); d > tol {
			t.Fatalf("face %d: M_vel = %v, want %v (diff %g)", f, x.vel, want, d)
		}
	}
	// Through the whole pipeline (unit weight, bounds far away): faces and
	// verts carry A^T A; with RefineVelocity = 2 it is scaled by 1/4.
	p := only("vel")
	p.RefineVelocity = 2
	var w Workspace
	out := make([]dense.Mat2, len(m.U))
	if err := w.Compute(m, Obstacles{}, p, nil, out); err != nil {
		t.Fatal(err)
	}
	want4 := dense.Mat2{{want[0][0] / 4, want[0][1] / 4}, {want[1][0] / 4, want[1][1] / 4}}
	for f, x := range w.FaceTensors() {
		if d := matDiff(x, want4); d > tol {
			t.Fatalf("face tensor %d: %v want %v", f, x, want4)
		}
	}
	for v, x := range out {
		if d := matDiff(x, want4); d > tol {
			t.Fatalf("vert %d: %v want %v", v, x, want4)
		}
	}
}

// cylinder maps a single-panel n x n grid on [0,L]^2 isometrically onto a
// cylinder of radius R with axis along u1, and returns the interior faces (no
// corner on the grid boundary).
func cylinder(n int, L, R float64) (*remesh.Mesh, []int) {
	m, _ := grid(n, L, 0, 0)
	for v, u := range m.U {
		s, c := math.Sincos(u[0] / R)
		m.X[m.Node[v]] = dense.Vec3{R * s, u[1], R * (1 - c)}
	}
	var inner []int
	onB := func(u dense.Vec2) bool { return u[0] < 1e-9 || u[1] < 1e-9 || u[0] > L-1e-9 || u[1] > L-1e-9 }
	for f, t := range m.F {
		if !onB(m.U[t[0]]) && !onB(m.U[t[1]]) && !onB(m.U[t[2]]) {
			inner = append(inner, f)
		}
	}
	return m, inner
}

func TestCurvatureCylinder(t *testing.T) {
	const L, R = 1.0, 0.5
	var prevF, prevV float64
	for _, n := range []int{8, 16, 32, 64} {
		m, inner := cylinder(n, L, R)
		ft, _ := faceTermsOf(t, m, Obstacles{}, only("crv"))
		errF := 0.0
		for _, f := range inner {
			l1, l2, q := eigSym(ft[f].crv)
			// across the fold (u0): 1/R^2; along the axis (u1): 0
			e := math.Abs(l1*R*R-1) + math.Abs(l2)*R*R + math.Abs(q[1])
			errF = math.Max(errF, e)
		}
		// Vert tensors two rings in from the boundary.
		out := make([]dense.Mat2, len(m.U))
		if err := Compute(m, Obstacles{}, only("crv"), nil, out); err != nil {
			t.Fatal(err)
		}
		h := L / float64(n)
		errV := 0.0
		for v, u := range m.U {
			if u[0] < 2.5*h || u[1] < 2.5*h || u[0] > L-2.5*h || u[1] > L-2.5*h {
				continue
			}
			x := out[v]
			errV = math.Max(errV, math.Abs(x[0][0]*R*R-1)+math.Abs(x[0][1])*R*R+math.Abs(x[1][1])*R*R)
		}
		t.Logf("n=%d: face error %.3g, vert error %.3g", n, errF, errV)
		if prevF > 0 && (errF > prevF/3.5 || errV > prevV/3.5) {
			t.Errorf("n=%d: no second-order convergence: %g -> %g, %g -> %g", n, prevF, errF, prevV, errV)
		}
		prevF, prevV = errF, errV
	}
	if prevF > 1e-4 {
		t.Errorf("finest face error %g", prevF)
	}
}

// affine sets X = G u (+ a rigid rotation in 3D) on every node of a
// single-panel mesh.
func affine(m *remesh.Mesh, G dense.Mat2) {
	// 3D rotation about the axis (1,2,3)/|.| by 0.7 rad (Rodrigues)
	k := dense.Vec3{1, 2, 3}
	k = k.Scale(1 / k.Norm())
	s, c := math.Sincos(0.7)
	rot := func(x dense.Vec3) dense.Vec3 {
		return x.Scale(c).Add(k.Cross(x).Scale(s)).Add(k.Scale(k.Dot(x) * (1 - c)))
	}
	for v, u := range m.U {
		g := G.MulVec(u)
		m.X[m.Node[v]] = rot(dense.Vec3{g[0], g[1], 0})
	}
}

func TestCompression(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m, _ := grid(5, 1, 0, 0)
	jitter(m, 5, 1, 0.3, rng)
	for _, c := range []struct {
		name     string
		sx, sy   float64 // principal stretches
		rot      float64 // principal axes angle
		lam1, l2 float64 // expected M_cmp eigenvalues along x, y axes
	}{
		{"compress x", 0.7, 1, 0, 1 - 0.49, 0},
		{"compress 30deg", 0.7, 1, math.Pi / 6, 1 - 0.49, 0},
		{"stretch", 1.3, 1, 0.4, 0, 0},
		{"stretch both", 1.3, 1.1, 0.4, 0, 0},
		{"mixed", 0.8, 1.2, -1, 1 - 0.64, 0},
		{"both", 0.8, 0.9, 2, 1 - 0.64, 1 - 0.81},
		{"rest", 1, 1, 0, 0, 0},
	} {
		// G = Q diag(sx, sy) Q^T
		G := rotMat(dense.Mat2{{c.sx, 0}, {0, c.sy}}, c.rot)
		affine(m, G)
		want := rotMat(dense.Mat2{{c.lam1, 0}, {0, c.l2}}, c.rot)
		ft, _ := faceTermsOf(t, m, Obstacles{}, only("cmp"))
		for f, x := range ft {
			if d := matDiff(x.cmp, want); d > 1e-13 {
				t.Fatalf("%s: face %d: M_cmp = %v, want %v (diff %g)", c.name, f, x.cmp, want, d)
			}
			// A homogeneous flat deformation has no curvature or obstacle term.
			if matNorm(x.crv) > 1e-20 || x.obs != (dense.Mat2{}) {
				t.Fatalf("%s: spurious terms %v %v", c.name, x.crv, x.obs)
			}
		}
	}
}

func TestObstacle(t *testing.T) {
	plane := dense.Vec3{0, 0, -0.25}
	up := dense.Vec3{0, 0, 1}
	// Flat sheet a distance 0.4 above the plane, parallel to it: M_obs = 0.
	m, _ := grid(4, 1, 0, 0)
	for i := range m.X {
		m.X[i][2] = 0.15
	}
	ft, _ := faceTermsOf(t, m, planeObstacles(m, plane, up, math.Inf(1)), loose())
	for f, x := range ft {
		if x.obs != (dense.Mat2{}) {
			t.Fatalf("flat face %d: M_obs = %v", f, x.obs)
		}
	}

	// Tilted sheet x(u) = (u0 cos th, u1, h0 + u0 sin th) over the plane
	// z = 0 (normal +z): grad phi = F^T n = (sin th, 0), phi_a = z_a =
	// h0 + u0_a sin th, so the face tensor is
	// diag(sin^2 th * (1/3) sum_a 1/phi_a^2, 0).
	const th, h0 = 0.3, 0.2
	tilt := func(rng float64, has []bool) {
		sn, cs := math.Sincos(th)
		for v, u := range m.U {
			m.X[m.Node[v]] = dense.Vec3{u[0] * cs, u[1], h0 + u[0]*sn}
		}
		obs := planeObstacles(m, dense.Vec3{}, up, rng)
		obs.Has = has
		ft, _ := faceTermsOf(t, m, obs, loose())
		for f, x := range ft {
			s := 0.0
			for _, v := range m.F[f] {
				phi := h0 + m.U[v][0]*sn
				if phi <= rng && (has == nil || has[m.Node[v]]) {
					s += 1 / (phi * phi)
				}
			}
			want := dense.Mat2{{sn * sn * s / 3, 0}, {0, 0}}
			if d := matDiff(x.obs, want); d > 1e-13*matNorm(want) || (s == 0 && x.obs != dense.Mat2{}) {
				t.Fatalf("range %g: face %d: M_obs = %v, want %v", rng, f, x.obs, want)
			}
		}
	}
	tilt(math.Inf(1), nil)
	tilt(0.35, nil) // corners with phi > 0.35 are out of range
	has := make([]bool, len(m.X))
	for i := range has {
		has[i] = i%3 != 0
	}
	tilt(math.Inf(1), has)

	// Touching: phi = 0 at u0 = 0. Each corner's term is capped at l_min^-2.
	p := loose()
	p.SizeMin = 0.05
	sn, cs := math.Sincos(th)
	for v, u := range m.U {
		m.X[m.Node[v]] = dense.Vec3{u[0] * cs, u[1], u[0] * sn}
	}
	ft, _ = faceTermsOf(t, m, planeObstacles(m, dense.Vec3{}, up, 1), p)
	cap := 1 / (p.SizeMin * p.SizeMin)
	touching := false
	for f, x := range ft {
		l1, _ := eig2(x.obs)
		if !finite4(x.obs) || l1 > cap*(1+1e-12) {
			t.Fatalf("face %d: M_obs = %v (cap %g)", f, x.obs, cap)
		}
		for _, v := range m.F[f] {
			touching = touching || m.U[v][0] == 0
		}
		_ = touching
	}
	if !touching {
		t.Fatal("no touching face tested")
	}
	// the face with two corners at phi = 0 and one at phi = h sin th: two capped
	// terms, the third is (sin th)^2/(h sin th)^2 = 1/h^2 = 16 < cap
	f0 := 1 // grid face (p00, p11, p01) of cell (0,0): corners at u0 = 0, h, 0
	want := (2*cap + 1/(0.25*0.25)) / 3
	if l1, _ := eig2(ft[f0].obs); math.Abs(l1-want) > 1e-12*want {
		t.Fatalf("touching face: %g, want %g", l1, want)
	}
}
