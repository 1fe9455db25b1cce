package elastic

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

// Finite-difference tolerances. Gradients are compared with central differences of
// the energy, Hessians with central differences of the analytic gradient, step
// h = 1e-6 * (characteristic length of the element). The error is measured as
// ||analytic - fd||_2 <= fdRelTol * max(||analytic||_2, fdFloor * stiffness scale):
// the central-difference truncation error is O(h^2) ~ 1e-12 and the rounding error
// O(eps/h) ~ 1e-10 relative, so 1e-5 has wide margin yet catches any wrong term.
const (
	fdStep   = 1e-6
	fdRelTol = 1e-5
	fdFloor  = 1e-3
)

func randRot(rng *rand.Rand) dense.Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return dense.Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

func randVec3(rng *rand.Rand, s float64) dense.Vec3 {
	return dense.Vec3{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
}

func lift(X dense.Vec2) dense.Vec3 { return dense.Vec3{X[0], X[1], 0} }

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func diffNorm(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// ---------------------------------------------------------------- membrane

type triCase struct {
	name string
	rest MembraneRest
	p    Lame
	x    [3]dense.Vec3
}

// membraneCases builds random rest triangles and deformed states: rest lifted to
// 3D, anisotropically stretched or compressed in plane, randomly rotated and
// translated, then randomly perturbed (including out of plane).
func membraneCases(t testing.TB, rng *rand.Rand, n int) []triCase {
	var out []triCase
	kinds := []string{"perturbed", "stretched", "compressed", "mixed", "sheared", "near-rest", "equal-sv"}
	for len(out) < n {
		X := [3]dense.Vec2{{rng.Float64(), rng.Float64()}, {rng.Float64(), rng.Float64()}, {rng.Float64(), rng.Float64()}}
		r, err := NewMembraneRest(X[0], X[1], X[2])
		if err != nil || r.Area < 0.05 {
			continue
		}
		kind := len(out) % len(kinds)
		var s0, s1, shear, pert float64
		switch kinds[kind] {
		case "perturbed":
			s0, s1, pert = 1, 1, 0.1
		case "stretched":
			s0, s1, pert = 1.2+0.5*rng.Float64(), 1.1+0.3*rng.Float64(), 0.02
		case "compressed":
			s0, s1, pert = 0.5+0.4*rng.Float64(), 0.4+0.4*rng.Float64(), 0.02
		case "mixed":
			s0, s1, pert = 1.3, 0.6, 0.05
		case "sheared":
			s0, s1, shear, pert = 1, 1, 0.5, 0.02
		case "near-rest":
			s0, s1, pert = 1, 1, 1e-4
		case "equal-sv":
			s0, s1, pert = 1.1, 1.1, 0
		}
		R := randRot(rng)
		tr := randVec3(rng, 1)
		var x [3]dense.Vec3
		for i := 0; i < 3; i++ {
			y := dense.Vec3{s0*X[i][0] + shear*X[i][1], s1 * X[i][1], 0}
			x[i] = R.MulVec(y).Add(tr).Add(randVec3(rng, pert))
		}
		p := Lame{Mu: 0.5 + rng.Float64(), Lambda: 2 * rng.Float64()}
		out = append(out, triCase{kinds[kind], r, p, x})
	}
	return out
}

func membraneEnergyFlat(c *triCase, q *[9]float64) float64 {
	return MembraneEnergy(&c.rest, c.p, dense.Vec3{q[0], q[1], q[2]}, dense.Vec3{q[3], q[4], q[5]}, dense.Vec3{q[6], q[7], q[8]})
}

func membraneGHFlat(c *triCase, q *[9]float64, g *[9]float64, H *[81]float64) float64 {
	return MembraneGradHess(&c.rest, c.p, dense.Vec3{q[0], q[1], q[2]}, dense.Vec3{q[3], q[4], q[5]}, dense.Vec3{q[6], q[7], q[8]}, g, H)
}

func TestMembraneFD(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	worstG, worstH := 0.0, 0.0
	for k, c := range membraneCases(t, rng, 1400) {
		var q [9]float64
		for i := 0; i < 3; i++ {
			copy(q[3*i:], c.x[i][:])
		}
		var g [9]float64
		var H [81]float64
		E := membraneGHFlat(&c, &q, &g, &H)
		if e2 := membraneEnergyFlat(&c, &q); math.Abs(E-e2) > 1e-14*math.Max(E, 1e-300) {
			t.Fatalf("case %d: energies differ %g vs %g", k, E, e2)
		}
		h := fdStep // triangles have unit-ish size
		scale := c.rest.Area * (c.p.Mu + c.p.Lambda)
		var gfd [9]float64
		var Hfd [81]float64
		for i := 0; i < 9; i++ {
			qp, qm := q, q
			qp[i] += h
			qm[i] -= h
			gfd[i] = (membraneEnergyFlat(&c, &qp) - membraneEnergyFlat(&c, &qm)) / (2 * h)
			var gp, gm [9]float64
			var Hs [81]float64
			membraneGHFlat(&c, &qp, &gp, &Hs)
			membraneGHFlat(&c, &qm, &gm, &Hs)
			for j := 0; j < 9; j++ {
				Hfd[9*j+i] = (gp[j] - gm[j]) / (2 * h)
			}
		}
		eg := diffNorm(g[:], gfd[:]) / math.Max(norm(g[:]), fdFloor*scale)
		eh := diffNorm(H[:], Hfd[:]) / math.Max(norm(H[:]), fdFloor*scale)
		worstG, worstH = math.Max(worstG, eg), math.Max(worstH, eh)
		if eg > fdRelTol {
			t.Fatalf("case %d (%s): gradient rel err %g\n g=%v\nfd=%v", k, c.name, eg, g, gfd)
		}
		if eh > fdRelTol {
			t.Fatalf("case %d (%s): Hessian rel err %g\n H=%v\nfd=%v", k, c.name, eh, H, Hfd)
		}
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				if H[9*i+j] != H[9*j+i] {
					t.Fatalf("case %d: Hessian not symmetric", k)
				}
			}
		}
		// Translations are in the kernel of H (the energy is translation invariant).
		for d := 0; d < 3; d++ {
			for i := 0; i < 9; i++ {
				s := H[9*i+d] + H[9*i+3+d] + H[9*i+6+d]
				if math.Abs(s) > 1e-12*norm(H[:]) {
					t.Fatalf("case %d: H*translation = %g", k, s)
				}
			}
			if s := g[d] + g[3+d] + g[6+d]; math.Abs(s) > 1e-12*math.Max(norm(g[:]), 1) {
				t.Fatalf("case %d: gradient has net force %g", k, s)
			}
		}
		checkProjectedPSD(t, H[:], 9)
	}
	t.Logf("membrane: worst FD rel err gradient %.2e, Hessian %.2e (tol %.0e)", worstG, worstH, fdRelTol)
}

// checkProjectedPSD projects H with dense.ProjectPSD and checks with gonum that
// the result is PSD.
func checkProjectedPSD(t *testing.T, H []float64, n int) {
	t.Helper()
	P := append([]float64(nil), H...)
	dense.ProjectPSD(P, n)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, P), false) {
		t.Fatal("gonum EigenSym failed")
	}
	if v := es.Values(nil); v[0] < -1e-12*math.Max(norm(H), 1e-300) {
		t.Fatalf("projected Hessian has eigenvalue %g", v[0])
	}
}

func TestMembraneRigidInvariance(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for k := 0; k < 500; k++ {
		X := [3]dense.Vec2{{rng.Float64(), rng.Float64()}, {rng.Float64(), rng.Float64()}, {rng.Float64(), rng.Float64()}}
		r, err := NewMembraneRest(X[0], X[1], X[2])
		if err != nil || r.Area < 0.02 {
			continue
		}
		p := Lame{Mu: 1 + rng.Float64(), Lambda: 1 + rng.Float64()}
		R := randRot(rng)
		tr := randVec3(rng, 3)
		var x [3]dense.Vec3
		for i := range x {
			x[i] = R.MulVec(lift(X[i])).Add(tr)
		}
		var g [9]float64
		var H [81]float64
		E := MembraneGradHess(&r, p, x[0], x[1], x[2], &g, &H)
		if E > 1e-26 || MembraneEnergy(&r, p, x[0], x[1], x[2]) > 1e-26 {
			t.Fatalf("case %d: energy %g under rigid motion", k, E)
		}
		if norm(g[:]) > 1e-12 {
			t.Fatalf("case %d: gradient %v under rigid motion", k, g)
		}
		ps := PrincipalStrains(r.DeformationGradient(x[0], x[1], x[2]))
		if math.Abs(ps[0]) > 1e-13 || math.Abs(ps[1]) > 1e-13 {
			t.Fatalf("case %d: strains %v", k, ps)
		}
		// At rest, H annihilates translations and infinitesimal rotations w x x_i.
		nH := norm(H[:])
		var dirs [][9]float64
		for d := 0; d < 3; d++ {
			var v [9]float64
			v[d], v[3+d], v[6+d] = 1, 1, 1
			dirs = append(dirs, v)
			var e dense.Vec3
			e[d] = 1
			var w [9]float64
			for i := 0; i < 3; i++ {
				c := e.Cross(x[i])
				copy(w[3*i:], c[:])
			}
			dirs = append(dirs, w)
		}
		for _, v := range dirs {
			for i := 0; i < 9; i++ {
				s := 0.0
				for j := 0; j < 9; j++ {
					s += H[9*i+j] * v[j]
				}
				if math.Abs(s) > 1e-10*nH*norm(v[:]) {
					t.Fatalf("case %d: H*rigid mode = %g", k, s)
				}
			}
		}
		// At rest the exact Hessian is PSD.
		var es mat.EigenSym
		es.Factorize(mat.NewSymDense(9, append([]float64(nil), H[:]...)), false)
		if v := es.Values(nil); v[0] < -1e-10*nH {
			t.Fatalf("case %d: rest Hessian not PSD: %g", k, v[0])
		}
	}
}

func TestMembraneKnownValues(t *testing.T) {
	r, err := NewMembraneRest(dense.Vec2{0, 0}, dense.Vec2{1, 0}, dense.Vec2{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if r.Area != 0.5 {
		t.Fatalf("area %g", r.Area)
	}
	p := Lame{Mu: 2, Lambda: 3}
	// Uniform stretch by 1.5 in x: s = (1.5, 1): Psi = 2*0.25 + 1.5*0.25 = 0.875.
	E := MembraneEnergy(&r, p, dense.Vec3{0, 0, 0}, dense.Vec3{1.5, 0, 0}, dense.Vec3{0, 1, 0})
	if math.Abs(E-0.5*0.875) > 1e-15 {
		t.Fatalf("E = %g", E)
	}
	F := r.DeformationGradient(dense.Vec3{0, 0, 0}, dense.Vec3{1.5, 0, 0}, dense.Vec3{0, 0, 2})
	if F != (dense.Mat32{{1.5, 0}, {0, 0}, {0, 2}}) {
		t.Fatalf("F = %v", F)
	}
	ps := PrincipalStrains(F)
	if math.Abs(ps[0]-1) > 1e-15 || math.Abs(ps[1]-0.5) > 1e-15 {
		t.Fatalf("strains %v", ps)
	}
	for _, bad := range [][3]dense.Vec2{
		{{0, 0}, {1, 0}, {2, 0}},
		{{0, 0}, {1e-8, 0}, {0, 1e-7}},
		{{0, 0}, {math.NaN(), 0}, {0, 1}},
		{{0, 0}, {math.Inf(1), 0}, {0, 1}},
	} {
		if _, err := NewMembraneRest(bad[0], bad[1], bad[2]); err == nil {
			t.Fatalf("expected error for %v", bad)
		}
	}
}

func TestMembraneDegenerateNoNaN(t *testing.T) {
	r, _ := NewMembraneRest(dense.Vec2{0, 0}, dense.Vec2{1, 0}, dense.Vec2{0, 1})
	p := Lame{Mu: 1, Lambda: 1}
	cfgs := [][3]dense.Vec3{
		{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}},    // collapsed to a point
		{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}},    // collinear
		{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}},    // two coincident
		{{0, 0, 0}, {1, 0, 0}, {0, -1, 0}},   // inverted (mirror)
		{{0, 0, 0}, {1, 0, 0}, {0, 1e-9, 0}}, // nearly collapsed
	}
	for _, x := range cfgs {
		var g [9]float64
		var H [81]float64
		E := MembraneGradHess(&r, p, x[0], x[1], x[2], &g, &H)
		if math.IsNaN(E) || math.IsInf(E, 0) {
			t.Fatalf("%v: energy %g", x, E)
		}
		for _, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%v: gradient %v", x, g)
			}
		}
		for _, v := range H {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("%v: Hessian has %g", x, v)
			}
		}
		checkProjectedPSD(t, H[:], 9)
	}
}

// ---------------------------------------------------------------- hinge

type hingeCase struct {
	name string
	rest HingeRest
	kb   float64
	x    [4]dense.Vec3
}

// rotAbout rotates p about the axis through o with unit direction u by angle t.
func rotAbout(p, o, u dense.Vec3, t float64) dense.Vec3 {
	v := p.Sub(o)
	c, s := math.Cos(t), math.Sin(t)
	r := v.Scale(c).Add(u.Cross(v).Scale(s)).Add(u.Scale(u.Dot(v) * (1 - c)))
	return o.Add(r)
}

// hingeGeom returns a random hinge: edge x0 x1 on the x axis-ish in the plane,
// x2 on one side and x3 on the other, with x3 then rotated about the edge by fold.
func hingeGeom(rng *rand.Rand, fold float64) [4]dense.Vec3 {
	X0 := dense.Vec3{rng.Float64() * 0.2, rng.Float64() * 0.2, 0}
	X1 := dense.Vec3{0.8 + 0.4*rng.Float64(), rng.Float64() * 0.2, 0}
	X2 := dense.Vec3{rng.Float64()*1.4 - 0.2, 0.4 + 0.8*rng.Float64(), 0}
	X3 := dense.Vec3{rng.Float64()*1.4 - 0.2, -0.4 - 0.8*rng.Float64(), 0}
	e := X1.Sub(X0)
	X3 = rotAbout(X3, X0, e.Scale(1/e.Norm()), fold)
	return [4]dense.Vec3{X0, X1, X2, X3}
}

func hingeCases(t testing.TB, rng *rand.Rand, n int) []hingeCase {
	var out []hingeCase
	type kind struct {
		name       string
		rest, fold float64 // rest fold angle, deformed fold angle (magnitudes)
		pert       float64
	}
	kinds := []kind{
		{"flat-rest-near-flat", 0, 1e-7, 0},
		{"flat-rest-small", 0, 1e-3, 1e-4},
		{"flat-rest-exactly-flat", 0, 0, 0},
		{"flat-rest-perturbed", 0, 0, 0.05},
		{"flat-rest-bent", 0, 1.2, 0.02},
		{"strongly-bent", 0.3, 2.6, 0.02},
		{"bent-rest-near-flat", 0.8, 1e-6, 0},
		{"bent-rest-opposite", -0.7, 0.9, 0.03},
		{"near-pi", 0.1, 3.0, 0.01},
	}
	for len(out) < n {
		k := kinds[len(out)%len(kinds)]
		sign := 1.0
		if rng.Intn(2) == 0 {
			sign = -1
		}
		X := hingeGeom(rng, k.rest*sign)
		rest, err := NewHingeRest(X[0], X[1], X[2], X[3])
		if err != nil {
			t.Fatal(err)
		}
		x := hingeGeom(rng, k.fold*sign)
		R := randRot(rng)
		tr := randVec3(rng, 1)
		for i := range x {
			x[i] = R.MulVec(x[i]).Add(tr).Add(randVec3(rng, k.pert))
		}
		out = append(out, hingeCase{k.name, rest, 0.1 + rng.Float64(), x})
	}
	return out
}

func hingeEnergyFlat(c *hingeCase, q *[12]float64) float64 {
	return HingeEnergy(&c.rest, c.kb, dense.Vec3{q[0], q[1], q[2]}, dense.Vec3{q[3], q[4], q[5]}, dense.Vec3{q[6], q[7], q[8]}, dense.Vec3{q[9], q[10], q[11]})
}

func hingeGHFlat(c *hingeCase, q *[12]float64, g *[12]float64, H *[144]float64) float64 {
	return HingeGradHess(&c.rest, c.kb, dense.Vec3{q[0], q[1], q[2]}, dense.Vec3{q[3], q[4], q[5]}, dense.Vec3{q[6], q[7], q[8]}, dense.Vec3{q[9], q[10], q[11]}, g, H)
}

func dihedralFlat(q *[12]float64) float64 {
	return DihedralAngle(dense.Vec3{q[0], q[1], q[2]}, dense.Vec3{q[3], q[4], q[5]}, dense.Vec3{q[6], q[7], q[8]}, dense.Vec3{q[9], q[10], q[11]})
}

func TestHingeFD(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	worstG, worstH, worstT := 0.0, 0.0, 0.0
	for k, c := range hingeCases(t, rng, 1800) {
		var q [12]float64
		for i := 0; i < 4; i++ {
			copy(q[3*i:], c.x[i][:])
		}
		var g [12]float64
		var H [144]float64
		E := hingeGHFlat(&c, &q, &g, &H)
		if e2 := hingeEnergyFlat(&c, &q); E != e2 {
			t.Fatalf("case %d: energies differ %g vs %g", k, E, e2)
		}
		h := fdStep
		scale := c.kb * c.rest.Weight
		var gfd, tfd [12]float64
		var Hfd [144]float64
		for i := 0; i < 12; i++ {
			qp, qm := q, q
			qp[i] += h
			qm[i] -= h
			gfd[i] = (hingeEnergyFlat(&c, &qp) - hingeEnergyFlat(&c, &qm)) / (2 * h)
			tfd[i] = (dihedralFlat(&qp) - dihedralFlat(&qm)) / (2 * h)
			var gp, gm [12]float64
			var Hs [144]float64
			hingeGHFlat(&c, &qp, &gp, &Hs)
			hingeGHFlat(&c, &qm, &gm, &Hs)
			for j := 0; j < 12; j++ {
				Hfd[12*j+i] = (gp[j] - gm[j]) / (2 * h)
			}
		}
		// Gradient of theta itself against the Bridson / Tamstorf-Grinspun closed
		// form, and against FD of DihedralAngle.
		gt := bridsonGrad(c.x)
		et := diffNorm(gt[:], tfd[:]) / math.Max(norm(gt[:]), 1e-3)
		worstT = math.Max(worstT, et)
		if et > fdRelTol {
			t.Fatalf("case %d (%s): closed-form dtheta vs FD rel err %g\n%v\n%v", k, c.name, et, gt, tfd)
		}
		eg := diffNorm(g[:], gfd[:]) / math.Max(norm(g[:]), fdFloor*scale)
		eh := diffNorm(H[:], Hfd[:]) / math.Max(norm(H[:]), fdFloor*scale)
		worstG, worstH = math.Max(worstG, eg), math.Max(worstH, eh)
		if eg > fdRelTol {
			t.Fatalf("case %d (%s): gradient rel err %g\n g=%v\nfd=%v", k, c.name, eg, g, gfd)
		}
		if eh > fdRelTol {
			t.Fatalf("case %d (%s): Hessian rel err %g", k, c.name, eh)
		}
		nH := norm(H[:])
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				if H[12*i+j] != H[12*j+i] {
					t.Fatalf("case %d: Hessian not symmetric", k)
				}
			}
		}
		for d := 0; d < 3; d++ {
			for i := 0; i < 12; i++ {
				s := H[12*i+d] + H[12*i+3+d] + H[12*i+6+d] + H[12*i+9+d]
				if math.Abs(s) > 1e-11*nH {
					t.Fatalf("case %d: H*translation = %g", k, s)
				}
			}
		}
		checkProjectedPSD(t, H[:], 12)
	}
	t.Logf("hinge: worst FD rel err dtheta %.2e, gradient %.2e, Hessian %.2e (tol %.0e)", worstT, worstG, worstH, fdRelTol)
}

// bridsonGrad is the classical closed-form gradient of theta (Bridson et al. 2003,
// Tamstorf & Grinspun 2013) in this package's sign convention:
// dtheta/dx2 = -|e|/|n1|^2 n1, dtheta/dx3 = -|e|/|n2|^2 n2, and for the edge
// vertices the barycentric combination that makes the sum and torque vanish.
func bridsonGrad(x [4]dense.Vec3) [12]float64 {
	e := x[1].Sub(x[0])
	l2 := e.Dot(e)
	l := math.Sqrt(l2)
	n1 := e.Cross(x[2].Sub(x[0]))
	n2 := x[3].Sub(x[0]).Cross(e)
	g2 := n1.Scale(-l / n1.Dot(n1))
	g3 := n2.Scale(-l / n2.Dot(n2))
	a2 := x[2].Sub(x[0]).Dot(e) / l2
	a3 := x[3].Sub(x[0]).Dot(e) / l2
	g1 := g2.Scale(-a2).Add(g3.Scale(-a3))
	g0 := g2.Scale(a2 - 1).Add(g3.Scale(a3 - 1))
	var g [12]float64
	copy(g[0:], g0[:])
	copy(g[3:], g1[:])
	copy(g[6:], g2[:])
	copy(g[9:], g3[:])
	return g
}

func TestDihedralAngleKnown(t *testing.T) {
	x0, x1 := dense.Vec3{0, 0, 0}, dense.Vec3{1, 0, 0}
	x2 := dense.Vec3{0.3, 1, 0}
	for _, fold := range []float64{0, 1e-9, 0.3, math.Pi / 2, 2.5, -0.3, -math.Pi / 2, -3} {
		// Rotate x3 = (0.6,-1,0) about the edge (x axis) by fold.
		x3 := rotAbout(dense.Vec3{0.6, -1, 0}, x0, dense.Vec3{1, 0, 0}, fold)
		th := DihedralAngle(x0, x1, x2, x3)
		// Rotating x3 = (0.6,-1,0) by +fold about +x gives z = -sin(fold) < 0 for
		// fold > 0, folding away from the normals' (+z) side: theta = +fold.
		if math.Abs(th-fold) > 1e-14 {
			t.Fatalf("fold %g: theta %g", fold, th)
		}
	}
	// Rest angle and weight.
	r, err := NewHingeRest(x0, x1, x2, dense.Vec3{0.6, -1, 0})
	if err != nil {
		t.Fatal(err)
	}
	if r.Theta0 != 0 || math.Abs(r.Weight-3*1/(0.5+0.5)) > 1e-15 {
		t.Fatalf("rest %+v", r)
	}
	for _, bad := range [][4]dense.Vec3{
		{x0, x0, x2, dense.Vec3{0, -1, 0}},                  // zero edge
		{x0, x1, dense.Vec3{2, 0, 0}, dense.Vec3{0, -1, 0}}, // degenerate face 1
		{x0, x1, x2, dense.Vec3{3, 0, 0}},                   // degenerate face 2
		{x0, x1, x2, dense.Vec3{math.NaN(), 0, 0}},
	} {
		if _, err := NewHingeRest(bad[0], bad[1], bad[2], bad[3]); err == nil {
			t.Fatalf("expected error for %v", bad)
		}
	}
}

func TestHingeRigidInvariance(t *testing.T) {
	rng := rand.New(rand.NewSource(22))
	for k := 0; k < 500; k++ {
		X := hingeGeom(rng, 2*rng.Float64()-1)
		r, err := NewHingeRest(X[0], X[1], X[2], X[3])
		if err != nil {
			t.Fatal(err)
		}
		R := randRot(rng)
		tr := randVec3(rng, 3)
		var x [4]dense.Vec3
		for i := range x {
			x[i] = R.MulVec(X[i]).Add(tr)
		}
		var g [12]float64
		var H [144]float64
		E := HingeGradHess(&r, 1, x[0], x[1], x[2], x[3], &g, &H)
		if E > 1e-26 {
			t.Fatalf("case %d: energy %g under rigid motion", k, E)
		}
		if norm(g[:]) > 1e-11 {
			t.Fatalf("case %d: gradient %v", k, g)
		}
		nH := norm(H[:])
		for d := 0; d < 3; d++ {
			var e dense.Vec3
			e[d] = 1
			var tv, wv [12]float64
			for i := 0; i < 4; i++ {
				tv[3*i+d] = 1
				c := e.Cross(x[i])
				copy(wv[3*i:], c[:])
			}
			for _, v := range [][12]float64{tv, wv} {
				for i := 0; i < 12; i++ {
					s := 0.0
					for j := 0; j < 12; j++ {
						s += H[12*i+j] * v[j]
					}
					if math.Abs(s) > 1e-10*nH*norm(v[:]) {
						t.Fatalf("case %d: H*rigid mode = %g", k, s)
					}
				}
			}
		}
	}
}

func TestHingeDegenerateNoNaN(t *testing.T) {
	r := HingeRest{Theta0: 0, Weight: 3}
	z := dense.Vec3{}
	for _, x := range [][4]dense.Vec3{
		{z, z, z, z},
		{z, {1, 0, 0}, {2, 0, 0}, {0, -1, 0}},
		{z, {1, 0, 0}, {0, 1, 0}, {0.5, 0, 0}},
	} {
		var g [12]float64
		var H [144]float64
		E := HingeGradHess(&r, 1, x[0], x[1], x[2], x[3], &g, &H)
		if math.IsNaN(E) || math.IsNaN(norm(g[:])) || math.IsNaN(norm(H[:])) {
			t.Fatalf("%v: NaN", x)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewSource(31))
	mc := membraneCases(t, rng, 1)[0]
	hc := hingeCases(t, rng, 6)[5]
	var g9 [9]float64
	var H81 [81]float64
	var g12 [12]float64
	var H144 [144]float64
	if a := testing.AllocsPerRun(100, func() {
		MembraneGradHess(&mc.rest, mc.p, mc.x[0], mc.x[1], mc.x[2], &g9, &H81)
	}); a != 0 {
		t.Fatalf("MembraneGradHess allocs %v", a)
	}
	var P54 [54]float64
	if a := testing.AllocsPerRun(100, func() {
		MembraneGradHessPSD(&mc.rest, mc.p, mc.x[0], mc.x[1], mc.x[2], 0.5, &g9, &P54)
		HingeGradGN(&hc.rest, hc.kb, hc.x[0], hc.x[1], hc.x[2], hc.x[3], 0.5, &g12, &g12)
	}); a != 0 {
		t.Fatalf("MembraneGradHessPSD, HingeGradGN allocs %v", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		MembraneEnergy(&mc.rest, mc.p, mc.x[0], mc.x[1], mc.x[2])
	}); a != 0 {
		t.Fatalf("MembraneEnergy allocs %v", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		HingeGradHess(&hc.rest, hc.kb, hc.x[0], hc.x[1], hc.x[2], hc.x[3], &g12, &H144)
	}); a != 0 {
		t.Fatalf("HingeGradHess allocs %v", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		HingeGradHess(&hc.rest, hc.kb, hc.x[0], hc.x[1], hc.x[2], hc.x[3], &g12, &H144)
		dense.ProjectPSD(H144[:], 12)
	}); a != 0 {
		t.Fatalf("HingeGradHess+ProjectPSD allocs %v", a)
	}
}

var sinkE float64

// BenchmarkMembraneGradHess times the exact kernel and the force fill's
// (PSD, weighted, packed).
func BenchmarkMembraneGradHess(b *testing.B) {
	rng := rand.New(rand.NewSource(41))
	cs := membraneCases(b, rng, 64)
	var g [9]float64
	var H [81]float64
	var P [54]float64
	for _, psd := range []bool{false, true} {
		b.Run(map[bool]string{false: "exact", true: "psd"}[psd], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c := &cs[i&63]
				if psd {
					sinkE += MembraneGradHessPSD(&c.rest, c.p, c.x[0], c.x[1], c.x[2], 0.5, &g, &P)
				} else {
					sinkE += MembraneGradHess(&c.rest, c.p, c.x[0], c.x[1], c.x[2], &g, &H)
				}
			}
		})
	}
}

func BenchmarkMembraneEnergy(b *testing.B) {
	rng := rand.New(rand.NewSource(41))
	cs := membraneCases(b, rng, 64)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := &cs[i&63]
		sinkE += MembraneEnergy(&c.rest, c.p, c.x[0], c.x[1], c.x[2])
	}
}

// BenchmarkHingeGradHess times the exact kernel and the force fill's
// (Gauss-Newton, weighted, as its factor).
func BenchmarkHingeGradHess(b *testing.B) {
	rng := rand.New(rand.NewSource(42))
	cs := hingeCases(b, rng, 63)
	var g, u [12]float64
	var H [144]float64
	for _, gn := range []bool{false, true} {
		b.Run(map[bool]string{false: "exact", true: "gn"}[gn], func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c := &cs[i%63]
				if gn {
					sinkE += HingeGradGN(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], 0.5, &g, &u)
				} else {
					sinkE += HingeGradHess(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], &g, &H)
				}
			}
		})
	}
}

func BenchmarkHingeEnergy(b *testing.B) {
	rng := rand.New(rand.NewSource(42))
	cs := hingeCases(b, rng, 63)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c := &cs[i%63]
		sinkE += HingeEnergy(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3])
	}
}
