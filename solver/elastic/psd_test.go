package elastic

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/solver/dense"
)

// minEigen returns the smallest eigenvalue of the n x n symmetric H (gonum).
func minEigen(t *testing.T, H []float64, n int) float64 {
	t.Helper()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), H...)), false) {
		t.Fatal("gonum EigenSym failed")
	}
	return es.Values(nil)[0]
}

// TestMembranePSDVariant checks MembraneGradHessPSD: same energy and gradient as
// the exact kernel, a PSD Hessian for every deformation (including the
// compressed ones where the exact Hessian is indefinite), and the exact Hessian
// itself wherever all six F-space eigenvalues are non-negative (both principal
// stretches >= 1).
func TestMembranePSDVariant(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	indefinite := 0
	stretched := 0
	for _, c := range membraneCases(t, rng, 400) {
		var g, gp [9]float64
		var H [81]float64
		var P [54]float64
		for i := range P {
			P[i] = math.NaN() // must be overwritten
		}
		e := MembraneGradHess(&c.rest, c.p, c.x[0], c.x[1], c.x[2], &g, &H)
		ep := MembraneGradHessPSD(&c.rest, c.p, c.x[0], c.x[1], c.x[2], 1, &gp, &P)
		if e != ep || g != gp {
			t.Fatalf("%s: PSD variant changed energy or gradient", c.name)
		}
		var Hp [81]float64
		unpack(&P, &Hp)
		scale := math.Max(norm(H[:]), 1e-300)
		if m := minEigen(t, Hp[:], 9); m < -1e-12*scale {
			t.Fatalf("%s: PSD variant has eigenvalue %g", c.name, m)
		}
		if minEigen(t, H[:], 9) < -1e-9*scale {
			indefinite++
		}
		F := c.rest.DeformationGradient(c.x[0], c.x[1], c.x[2])
		if _, s, _ := dense.SVD32(F); s[1] >= 1 {
			// No eigenvalue clamped: the same arithmetic, so the same bits.
			stretched++
			for i := range H {
				if math.Float64bits(H[i]) != math.Float64bits(Hp[i]) {
					t.Fatalf("%s: stretched (s = %v) yet the PSD variant's entry %d is %v, the exact Hessian's %v", c.name, s, i, Hp[i], H[i])
				}
			}
		}
	}
	if stretched == 0 {
		t.Fatal("no stretched case: the packed layout was not compared bit for bit")
	}
	if indefinite == 0 {
		t.Fatal("no case had an indefinite exact Hessian: the test does not exercise the projection")
	}
	t.Logf("%d of 400 exact membrane Hessians were indefinite", indefinite)
}

// TestHingeGaussNewton checks HingeGradGN: same energy and gradient as the
// exact kernel, a PSD rank-one Hessian u u^T, equal to the exact Hessian at
// the rest angle (where the dropped term vanishes).
func TestHingeGaussNewton(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for k := 0; k < 300; k++ {
		x := [4]dense.Vec3{randVec3(rng, 1), randVec3(rng, 1), randVec3(rng, 1), randVec3(rng, 1)}
		r, err := NewHingeRest(x[0], x[1], x[2], x[3])
		if err != nil {
			continue
		}
		kb := 0.1 + rng.Float64()
		var g, gn, u [12]float64
		var H [144]float64
		// At rest: GN equals the exact Hessian.
		HingeGradHess(&r, kb, x[0], x[1], x[2], x[3], &g, &H)
		HingeGradGN(&r, kb, x[0], x[1], x[2], x[3], 1, &gn, &u)
		Hn := outer(u[:])
		if d := diffNorm(H[:], Hn[:]); d > 1e-10*math.Max(norm(H[:]), 1e-300) {
			t.Fatalf("case %d: at rest GN differs from exact by %g", k, d)
		}
		// Deformed: same gradient, PSD Hessian.
		for i := range x {
			x[i] = x[i].Add(randVec3(rng, 0.2))
		}
		e := HingeGradHess(&r, kb, x[0], x[1], x[2], x[3], &g, &H)
		en := HingeGradGN(&r, kb, x[0], x[1], x[2], x[3], 1, &gn, &u)
		if e != en || g != gn {
			t.Fatalf("case %d: GN changed energy or gradient", k)
		}
		Hn = outer(u[:])
		// The GN Hessian is 2 kb W grad theta grad theta^T, grad theta being
		// the exact gradient over 2 kb W (theta - theta0).
		if d := wrapAngle(DihedralAngle(x[0], x[1], x[2], x[3]) - r.Theta0); math.Abs(d) > 1e-3 {
			s := 1 / (2 * kb * r.Weight * d * d)
			want := outer(g[:])
			for i := range want {
				want[i] *= s
			}
			if diff := diffNorm(Hn, want); diff > 1e-10*norm(want) {
				t.Fatalf("case %d: u u^T differs from g g^T / (2 kb W d^2) by %g", k, diff)
			}
		}
		if m := minEigen(t, Hn, 12); m < -1e-12*math.Max(norm(Hn), 1e-300) {
			t.Fatalf("case %d: GN Hessian has eigenvalue %g", k, m)
		}
	}
}

// TestHessianWeight checks that the weight w of MembraneGradHessPSD gives, bit
// for bit, the unweighted Hessian's entries each times w, that HingeGradGN's
// factor is sqrt(w) times the unweighted one (to rounding), and that neither
// changes the energy or gradient.
func TestHessianWeight(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, w := range []float64{1e-4 + 3e-7, 0.37, 2.5} {
		for _, c := range membraneCases(t, rng, 100) {
			var g, gw [9]float64
			var H, Hw [54]float64
			e := MembraneGradHessPSD(&c.rest, c.p, c.x[0], c.x[1], c.x[2], 1, &g, &H)
			ew := MembraneGradHessPSD(&c.rest, c.p, c.x[0], c.x[1], c.x[2], w, &gw, &Hw)
			for i := range H {
				H[i] *= w
			}
			if e != ew || g != gw || H != Hw {
				t.Fatalf("%s, w = %g: weighted membrane kernel differs", c.name, w)
			}
		}
		for _, c := range hingeCases(t, rng, 100) {
			var g, gw, u, uw [12]float64
			e := HingeGradGN(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], 1, &g, &u)
			ew := HingeGradGN(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], w, &gw, &uw)
			if e != ew || g != gw {
				t.Fatalf("%s, w = %g: weighted hinge kernel changed energy or gradient", c.name, w)
			}
			for i := range u {
				u[i] *= math.Sqrt(w)
			}
			if d := diffNorm(u[:], uw[:]); d > 1e-15*norm(u[:]) {
				t.Fatalf("%s, w = %g: weighted hinge factor differs by %g", c.name, w, d)
			}
		}
	}
}

// outer returns u u^T, row-major.
func outer(u []float64) []float64 {
	H := make([]float64, len(u)*len(u))
	for i := range u {
		for j := range u {
			H[i*len(u)+j] = u[i] * u[j]
		}
	}
	return H
}

// TestFloorAt checks floorAt against math.Max bit for bit, on the values
// where they could part: NaN, signed zeros, the floor itself, either side.
func TestFloorAt(t *testing.T) {
	for _, f := range []float64{0, SingularEps, 1} {
		for _, x := range []float64{math.NaN(), math.Copysign(0, -1), 0, -1, 1e-300, f, math.Nextafter(f, -1), math.Nextafter(f, 2), 2, math.Inf(1), math.Inf(-1)} {
			if got, want := floorAt(x, f), math.Max(x, f); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("floorAt(%v, %v) = %v, math.Max gives %v", x, f, got, want)
			}
		}
	}
}
