package strainlimit

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/sparse"
)

func randVec2(rng *rand.Rand) dense.Vec2 { return dense.Vec2{rng.Float64()*2 - 1, rng.Float64()*2 - 1} }
func randVec3(rng *rand.Rand) dense.Vec3 {
	return dense.Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}
}

// TestPrincipalStrainGrad checks eq. 27 against central differences of the
// singular values on random triangles.
func TestPrincipalStrainGrad(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const h = 1e-6
	tested := 0
	for trial := 0; trial < 200; trial++ {
		X := [3]dense.Vec2{randVec2(rng), randVec2(rng), randVec2(rng)}
		r, err := elastic.NewMembraneRest(X[0], X[1], X[2])
		if err != nil || r.Area < 0.05 {
			continue
		}
		x := [3]dense.Vec3{randVec3(rng), randVec3(rng), randVec3(rng)}
		eps, g := PrincipalStrainGrad(&r, x[0], x[1], x[2])
		ref := elastic.PrincipalStrains(r.DeformationGradient(x[0], x[1], x[2]))
		if eps != ref {
			t.Fatalf("trial %d: strains %v, elastic.PrincipalStrains %v", trial, eps, ref)
		}
		// Skip near-degenerate singular values (the gradient is not defined
		// at sigma_0 = sigma_1 or sigma_1 = 0).
		if eps[0]-eps[1] < 0.05 || eps[1]+1 < 0.05 {
			continue
		}
		tested++
		for k := 0; k < 2; k++ {
			num, den := 0.0, 0.0
			for c := 0; c < 9; c++ {
				xp, xm := x, x
				xp[c/3][c%3] += h
				xm[c/3][c%3] -= h
				ep, _ := PrincipalStrainGrad(&r, xp[0], xp[1], xp[2])
				em, _ := PrincipalStrainGrad(&r, xm[0], xm[1], xm[2])
				fd := (ep[k] - em[k]) / (2 * h)
				num += (fd - g[k][c]) * (fd - g[k][c])
				den += g[k][c] * g[k][c]
			}
			if rel := math.Sqrt(num / den); rel > 1e-6 {
				t.Errorf("trial %d: d eps_%d/dx relative error %.3g", trial, k, rel)
			}
		}
	}
	if tested < 100 {
		t.Fatalf("only %d triangles tested", tested)
	}
}

// randomMesh returns a Figure7-like grid with random rest shape jitter and
// random deformation so that many constraints are active, some pinned nodes,
// and nonzero random multipliers.
func randomMesh(t testing.TB, rng *rand.Rand, n int) *Problem {
	t.Helper()
	p, err := Figure7(n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.X {
		p.X[i] = p.X[i].Add(randVec3(rng).Scale(0.3 / float64(n)))
	}
	p.Fixed = make([]bool, len(p.X))
	p.Fixed[0], p.Fixed[n] = true, true
	return p
}

// TestAugmentedLagrangianGradient checks the gradient of eq. 19 against
// central differences, with random multipliers so that all four constraint
// kinds contribute.
func TestAugmentedLagrangianGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const h = 1e-7
	for trial := 0; trial < 4; trial++ {
		p := randomMesh(t, rng, 3)
		if trial%2 == 1 {
			// Heavy nodes: the objective term (eq. 22) dominates the
			// gradient instead of the penalty.
			for i := range p.Mass {
				p.Mass[i] *= 1e6
			}
		}
		if err := p.validate(); err != nil {
			t.Fatal(err)
		}
		ev := newALEval(p, DefaultMu, sparse.Serial{})
		for k := range ev.lam {
			if rng.IntN(2) == 0 {
				ev.lam[k] = rng.Float64() * 0.5
			}
		}
		// Move away from xhat so the objective term contributes.
		x := append([]float64(nil), ev.xstart...)
		for i := range x {
			x[i] += 0.02 * (rng.Float64()*2 - 1)
		}
		g := make([]float64, len(x))
		ev.gradFn(g, x)
		L := func(y []float64) float64 {
			ev.valid = false
			return ev.fn(y)
		}
		num, den := 0.0, 0.0
		for c := range x {
			node := c / 3
			xp := append([]float64(nil), x...)
			xm := append([]float64(nil), x...)
			xp[c] += h
			xm[c] -= h
			fd := (L(xp) - L(xm)) / (2 * h)
			if p.Fixed[node] {
				if g[c] != 0 {
					t.Fatalf("pinned node %d has gradient %g", node, g[c])
				}
				continue
			}
			num += (fd - g[c]) * (fd - g[c])
			den += g[c] * g[c]
		}
		if den == 0 {
			t.Fatal("zero gradient")
		}
		if rel := math.Sqrt(num / den); rel > 1e-6 {
			t.Errorf("trial %d: gradient relative error %.3g", trial, rel)
		}
	}
}

// TestEvalNoAllocs checks that one evaluation of L_A and its gradient, and one
// Jacobi sweep, do not allocate.
func TestEvalNoAllocs(t *testing.T) {
	p, err := Figure7(20)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.validate(); err != nil {
		t.Fatal(err)
	}
	ev := newALEval(p, DefaultMu, sparse.Serial{})
	g := make([]float64, len(ev.xstart))
	x := ev.xstart
	if a := testing.AllocsPerRun(10, func() {
		x[0] += 1e-9 // defeat the cache
		ev.fn(x)
		ev.gradFn(g, x)
	}); a != 0 {
		t.Errorf("AL evaluation allocates %v times", a)
	}
	j := &jacobi{p: p, ws: p.ws}
	j.faceBody, j.nodeBody = j.faceBlocks, j.nodeBlocks
	if a := testing.AllocsPerRun(10, func() {
		j.sweep(sparse.Serial{})
		sparse.Serial{}.For(nblocks(p.ws.n), j.nodeBody)
	}); a != 0 {
		t.Errorf("Jacobi sweep allocates %v times", a)
	}
}
