package blockqp

import (
	"math/rand"
	"testing"

	"github.com/loomsim/loom/ecs"
)

// TestNoAllocations: a repeated solve on the same Solver allocates nothing,
// serially and on a pool.
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	p := clothProblem(t, rand.New(rand.NewSource(3)), 10, 10)
	pool := ecs.NewPool(2)
	defer pool.Close()
	for _, r := range []Runner{nil, pool} {
		s := NewSolver()
		s.parallelAll = true
		res, err := s.Solve(r, p, nil, Settings{})
		if err != nil || !res.Converged {
			t.Fatal(err, res.Message)
		}
		if a := testing.AllocsPerRun(5, func() { s.Solve(r, p, nil, Settings{}) }); a != 0 {
			t.Errorf("%d allocations per solve (runner %T)", int(a), r)
		}
	}
}
