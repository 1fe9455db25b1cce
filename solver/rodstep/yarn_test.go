package rodstep

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
)

// crossingYarns builds two straight rods of radius 0.02 crossing 0.01 apart
// (closer than the sum of the radii: a penalty pair whose rest distance
// ramps), their nodes numbered rod 0 first, or rod 1 first when swapped;
// ID names each node the same way in both numberings.
func crossingYarns(swapped bool) *State {
	s := &State{}
	for range 2 {
		s.Rods = append(s.Rods, Rod{Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 0.5, Radius: 0.02})
	}
	order := []int32{0, 1}
	if swapped {
		order = []int32{1, 0}
	}
	for _, r := range order {
		for k := 0; k <= 5; k++ {
			c := -0.25 + 0.1*float64(k)
			x := dense.Vec3{c, 0, 0}
			if r == 1 {
				x = dense.Vec3{0, c, 0.01}
			}
			addNode(s, r, x, 0.1*float64(k), true)
		}
	}
	s.Kind = make([]rod.Kind, len(s.X))
	return s
}

// closeRest returns the rest distance of the crossing pair: the smallest
// of the penalty pairs (the others are at least the sum of the radii, or
// the crossing's neighbours inheriting its ramp after a split).
func closeRest(t *testing.T, s *State) float64 {
	t.Helper()
	re := math.Inf(1)
	for k := range s.ws.yarn.pairs {
		re = min(re, s.ws.yarn.reff[k])
	}
	return re
}

// TestRestDistanceSurvivesRenumbering checks that a penalty pair's rest
// distance keeps ramping (+ (r_a + r_b)/rampSteps per solve) when the nodes
// are renumbered between solves, as the systems' gather does whenever the
// topology changes (a contact removed), and when a node appears inside one
// of its segments (an EIL node turning EoL splits the segment): with the
// memory keyed by the segments' node indices it restarted at the pair's
// current distance each time, so pairs closer than the radii lost their
// push.
func TestRestDistanceSurvivesRenumbering(t *testing.T) {
	s := crossingYarns(false)
	s.Assign()
	s.detect(1e-3)
	if re := closeRest(t, s); math.Abs(re-0.01) > 1e-12 {
		t.Fatalf("first rest distance %g, want the distance 0.01", re)
	}
	// Renumber in place, as the gather does: the State (and its
	// workspace) stays, its per-node arrays are replaced.
	r := crossingYarns(true)
	s.X, s.V, s.U, s.UDot, s.Rod, s.FixedU, s.Pinned, s.Target, s.Anchor = r.X, r.V, r.U, r.UDot, r.Rod, r.FixedU, r.Pinned, r.Target, r.Anchor
	s.Kind, s.Rods = r.Kind, r.Rods
	s.Assign()
	s.detect(1e-3)
	if re, want := closeRest(t, s), 0.01+0.04/rampSteps; math.Abs(re-want) > 1e-12 {
		t.Errorf("rest distance after renumbering %g, want %g (ramped)", re, want)
	}
	// A free node at u = 0.27 of rod 0 splits its crossing segment
	// [0.2, 0.3] (x -0.05 to 0.05).
	addNode(s, 0, dense.Vec3{0.02, 0, 0}, 0.27, false)
	s.Kind = append(s.Kind, rod.EoL)
	s.Assign()
	s.detect(1e-3)
	if re, want := closeRest(t, s), 0.01+2*0.04/rampSteps; math.Abs(re-want) > 1e-12 {
		t.Errorf("rest distance after a split %g, want %g (ramped)", re, want)
	}
}
