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
	for _, c := range membraneCases(t, rng, 400) {
		var g, gp [9]float64
		var H, Hp [81]float64
		e := MembraneGradHess(&c.rest, c.p, c.x[0], c.x[1], c.x[2], &g, &H)
		ep := MembraneGradHessPSD(&c.rest, c.p, c.x[0], c.x[1], c.x[2], 1, &gp, &Hp)
		if e != ep || g != gp {
			t.Fatalf("%s: PSD variant changed energy or gradient", c.name)
		}
		scale := math.Max(norm(H[:]), 1e-300)
		if m := minEigen(t, Hp[:], 9); m < -1e-12*scale {
			t.Fatalf("%s: PSD variant has eigenvalue %g", c.name, m)
		}
		if minEigen(t, H[:], 9) < -1e-9*scale {
			indefinite++
		}
		F := c.rest.DeformationGradient(c.x[0], c.x[1], c.x[2])
		if _, s, _ := dense.SVD32(F); s[1] >= 1 && diffNorm(H[:], Hp[:]) > 1e-12*scale {
			t.Fatalf("%s: stretched (s = %v) yet the PSD variant differs from the exact Hessian", c.name, s)
		}
	}
	if indefinite == 0 {
		t.Fatal("no case had an indefinite exact Hessian: the test does not exercise the projection")
	}
	t.Logf("%d of 400 exact membrane Hessians were indefinite", indefinite)
}

// TestHingeGaussNewton checks HingeGradHessGN: same energy and gradient as the
// exact kernel, a PSD rank-one Hessian, equal to the exact Hessian at the rest
// angle (where the dropped term vanishes).
func TestHingeGaussNewton(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for k := 0; k < 300; k++ {
		x := [4]dense.Vec3{randVec3(rng, 1), randVec3(rng, 1), randVec3(rng, 1), randVec3(rng, 1)}
		r, err := NewHingeRest(x[0], x[1], x[2], x[3])
		if err != nil {
			continue
		}
		kb := 0.1 + rng.Float64()
		var g, gn [12]float64
		var H, Hn [144]float64
		// At rest: GN equals the exact Hessian.
		HingeGradHess(&r, kb, x[0], x[1], x[2], x[3], &g, &H)
		HingeGradHessGN(&r, kb, x[0], x[1], x[2], x[3], 1, &gn, &Hn)
		if d := diffNorm(H[:], Hn[:]); d > 1e-10*math.Max(norm(H[:]), 1e-300) {
			t.Fatalf("case %d: at rest GN differs from exact by %g", k, d)
		}
		// Deformed: same gradient, PSD Hessian.
		for i := range x {
			x[i] = x[i].Add(randVec3(rng, 0.2))
		}
		e := HingeGradHess(&r, kb, x[0], x[1], x[2], x[3], &g, &H)
		en := HingeGradHessGN(&r, kb, x[0], x[1], x[2], x[3], 1, &gn, &Hn)
		if e != en || g != gn {
			t.Fatalf("case %d: GN changed energy or gradient", k)
		}
		if m := minEigen(t, Hn[:], 12); m < -1e-12*math.Max(norm(Hn[:]), 1e-300) {
			t.Fatalf("case %d: GN Hessian has eigenvalue %g", k, m)
		}
	}
}

// TestHessianWeight checks that the weight w of MembraneGradHessPSD and
// HingeGradHessGN gives, bit for bit, the unweighted Hessian's entries each
// times w, and leaves the energy and gradient as they are.
func TestHessianWeight(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for _, w := range []float64{1e-4 + 3e-7, 0.37, 2.5} {
		for _, c := range membraneCases(t, rng, 100) {
			var g, gw [9]float64
			var H, Hw [81]float64
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
			var g, gw [12]float64
			var H, Hw [144]float64
			e := HingeGradHessGN(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], 1, &g, &H)
			ew := HingeGradHessGN(&c.rest, c.kb, c.x[0], c.x[1], c.x[2], c.x[3], w, &gw, &Hw)
			for i := range H {
				H[i] *= w
			}
			if e != ew || g != gw || H != Hw {
				t.Fatalf("%s, w = %g: weighted hinge kernel differs", c.name, w)
			}
		}
	}
}
