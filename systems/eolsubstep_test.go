package systems

import (
	"math"
	"testing"
)

// TestEOLSubstepCount checks the CFL-like substep count: a point at the
// given speed moves at most minEdge/2 per substep, between 1 and
// maxEOLSubsteps.
func TestEOLSubstepCount(t *testing.T) {
	for _, c := range []struct {
		speed float64
		want  int
	}{
		{0, 1}, {1, 1}, {1.0001, 2}, {3.4, 4}, {7.9, 8}, {100, maxEOLSubsteps}, {math.NaN(), 1}, {math.Inf(1), maxEOLSubsteps},
	} {
		// h = 5 ms, MinEdge = 1 cm: 1 m/s moves MinEdge/2 per step.
		if got := eolSubsteps(c.speed, 0.005, 0.01); got != c.want {
			t.Errorf("speed %g m/s: %d substeps, want %d", c.speed, got, c.want)
		}
	}
}
