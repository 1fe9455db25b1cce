package blockqp

import (
	"math/rand"
	"testing"
)

// TestRandomAgainstQP compares Solve with solver/qp on random small problems
// of the package's structure (singular H, scattered groups, mixed rows), and
// checks the KKT conditions of the answer directly.
func TestRandomAgainstQP(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	s := NewSolver()
	rounds, active := 0, 0
	for trial := 0; trial < 300; trial++ {
		p := randomProblem(t, rng, 2+rng.Intn(12))
		set := Settings{} // defaults on even trials, a tighter Tol on odd ones
		if trial%2 == 1 {
			set.Tol = 1e-12
		}
		res, err := s.Solve(nil, p, nil, set)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if !res.Converged {
			t.Fatalf("trial %d: not converged: %s", trial, res.Message)
		}
		xr, yr := reference(t, p)
		t.Run("", func(t *testing.T) {
			compare(t, res.X, res.Y, xr, yr, 1e-6)
			checkKKT(t, p, res.X, res.Y, 1e-8)
		})
		rounds += res.Rounds
		for i, a := range res.Active {
			if a && !p.Rows[i].Eq {
				active++
			}
		}
	}
	t.Logf("300 problems: %d rounds, %d active inequalities", rounds, active)
}
