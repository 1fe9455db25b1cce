package rodstep

import (
	"slices"
	"testing"
)

// TestLaggedBackoff checks the lagged solve's backoff: after k lagged
// solves in a row that gave up, the next 2^(k-1) - 1 Newton matrices (at
// most lagMaxSkip) are factored without a try, and a lagged solve that
// converged ends the run of failures.
func TestLaggedBackoff(t *testing.T) {
	var lg lagged
	// Each matrix: tried or not, and, where tried, whether it gave up.
	var tried []bool
	outcome := func(giveUp bool) {
		ok := lg.tryNow()
		tried = append(tried, ok)
		switch {
		case ok && giveUp:
			lg.gaveUp()
		case ok:
			lg.converged(1)
		}
	}
	for range 64 {
		outcome(true)
	}
	// Tries at matrices 0, 1, 3, 7, 15, 31 (skips 0, 1, 3, 7, 15), then
	// every 16th (lagMaxSkip): 47, 63.
	var at []int
	for i, ok := range tried {
		if ok {
			at = append(at, i)
		}
	}
	if want := []int{0, 1, 3, 7, 15, 31, 47, 63}; !slices.Equal(at, want) {
		t.Errorf("64 matrices whose lagged solves give up: tried at %v, want %v", at, want)
	}
	lg = lagged{fails: 3, skip: 0}
	tried = tried[:0]
	outcome(false) // converged: the run of failures ends
	outcome(true)  // one failure: the next matrix is tried again
	outcome(true)
	if want := []bool{true, true, true}; !slices.Equal(tried, want) {
		t.Errorf("after a converged lagged solve: tried %v, want %v", tried, want)
	}
}
