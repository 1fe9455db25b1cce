package blockqp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/ecs"
)

// TestDeterminism solves the 30x30 cloth problem, as built and cut into 3
// sweep domains, serially and on pools of 1, 2 and 8 workers and requires
// bitwise identical X, Y, active sets and iteration counts.
func TestDeterminism(t *testing.T) {
	p := clothProblem(t, rand.New(rand.NewSource(5)), 30, 30)
	determinism(t, p)
	determinism(t, dissected(p, 3))
}

func determinism(t *testing.T, p *Problem) {
	ref, err := NewSolver().Solve(nil, p, nil, Settings{})
	if err != nil || !ref.Converged {
		t.Fatal(err, ref.Message)
	}
	x0 := append([]float64(nil), ref.X...)
	y0 := append([]float64(nil), ref.Y...)
	for _, w := range []int{1, 2, 8} {
		pool := ecs.NewPool(w)
		s := NewSolver()
		s.parallelAll = true
		// Twice on the same Solver: reused buffers must not change anything.
		for rep := 0; rep < 2; rep++ {
			res, err := s.Solve(pool, p, nil, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			if res.CGIterations != ref.CGIterations || res.Rounds != ref.Rounds {
				t.Errorf("%d workers: %d rounds, %d iterations; serial %d, %d", w, res.Rounds, res.CGIterations, ref.Rounds, ref.CGIterations)
			}
			for i := range x0 {
				if math.Float64bits(res.X[i]) != math.Float64bits(x0[i]) {
					t.Fatalf("%d workers: x[%d] = %v, serial %v", w, i, res.X[i], x0[i])
				}
			}
			for i := range y0 {
				if math.Float64bits(res.Y[i]) != math.Float64bits(y0[i]) || res.Active[i] != ref.Active[i] {
					t.Fatalf("%d workers: y[%d] = %v, serial %v", w, i, res.Y[i], y0[i])
				}
			}
		}
		pool.Close()
	}
}
