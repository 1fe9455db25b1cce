package rodstep

import (
	"math"
	"math/rand"
	"slices"
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
			s.ID = append(s.ID, uint64(6*int(r)+k))
		}
	}
	s.Kind = make([]rod.Kind, len(s.X))
	return s
}

// closeRest returns the rest distance of the one penalty pair closer than
// the radii.
func closeRest(t *testing.T, s *State) float64 {
	t.Helper()
	var re []float64
	for k, p := range s.ws.yarn.pairs {
		if s.ws.yarn.reff[k] < s.radii(p) {
			re = append(re, s.ws.yarn.reff[k])
		}
	}
	if len(re) != 1 {
		t.Fatalf("%d pairs closer than the radii, want 1", len(re))
	}
	return re[0]
}

// TestRestDistanceSurvivesRenumbering checks that a penalty pair's rest
// distance keeps ramping (+ (r_a + r_b)/rampSteps per solve) when the nodes
// are renumbered between solves, as the systems' gather does whenever the
// topology changes (a contact removed): with the memory keyed by node index
// it restarted at the pair's current distance, so pairs closer than the
// radii lost their push at every topology change.
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
	s.X, s.V, s.U, s.UDot, s.Rod, s.FixedU, s.Pinned, s.Target, s.Anchor, s.ID = r.X, r.V, r.U, r.UDot, r.Rod, r.FixedU, r.Pinned, r.Target, r.Anchor, r.ID
	s.Kind, s.Rods = r.Kind, r.Rods
	s.Assign()
	s.detect(1e-3)
	if re, want := closeRest(t, s), 0.01+0.04/rampSteps; math.Abs(re-want) > 1e-12 {
		t.Errorf("rest distance after renumbering %g, want %g (ramped)", re, want)
	}
}

// TestYarnPenaltyProjectedWhereIndefinite: two crossing yarns, the second
// passing 0.1 mm over a node of the first, while their pairs' rest distance
// is the full radii (0.04 m; as when a Newton iterate carries one yarn deep
// into another). There the closest point is a segment's end, and the
// penalty's curvature term phi'(d) Hess d, about -k r/d across the
// contact normal, dwarfs the masses and the stretch terms: no
// regularization up to the matrix's largest diagonal entry makes it
// positive definite (factorRegularized fails), and the solve stopped at its
// first iteration. factorNewton then projects the yarn Hessians
// (projectYarn): the solve converges and pushes the yarns apart.
func TestYarnPenaltyProjectedWhereIndefinite(t *testing.T) {
	const h = 1e-3
	deep := func() *State {
		s := crossingYarns(false)
		for i := range s.X {
			if s.Rod[i] == 1 {
				s.X[i][0], s.X[i][2] = -0.05, 1e-4 // over node 2 of rod 0
			}
		}
		for _, i := range []int32{0, 5, 6, 11} {
			s.Pinned[i], s.Target[i] = true, s.X[i]
		}
		s.Assign()
		s.detect(h)
		for k, p := range s.ws.yarn.pairs {
			s.ws.yarn.reff[k] = s.radii(p)
		}
		return s
	}
	// The exact Newton matrix at the start of the solve.
	r := deep()
	if err := r.begin(DefaultSettings(), func(i int) dense.Vec3 { return r.Target[i] }); err != nil {
		t.Fatal(err)
	}
	r.eval(r.ws.q, h, 2)
	if mu, err := r.factorRegularized(); err == nil {
		t.Fatalf("the exact Newton matrix factored (regularization %g): the setup does not test the fallback", mu)
	}
	s := deep()
	if _, err := s.solve(h, DefaultSettings(), func(i int) dense.Vec3 { return s.Target[i] }); err != nil {
		t.Fatalf("solve: %v", err)
	}
	if !s.ws.projectYarn {
		t.Error("the solve converged without projecting the yarn Hessians")
	}
	if gap := s.X[8][2] - s.X[2][2]; !(gap > 1e-3) {
		t.Errorf("the yarns %g apart at the crossing after the step, want pushed apart", gap)
	}
}

// TestVerifyTouchingStart checks the step's pass-through test on two
// crossing yarns whose second rod moves from above the first to 0.01 below
// it. Starting 0.01 above, the yarns passed through each other: verify
// fails the step. Starting with the centrelines touching (a persistent
// contact just released leaves them so), the pair has no side yet and
// moving to either side is no pass-through: verify accepts it. (It used to
// fail such steps at every halving: tag stopped at step 86 of 250 on pairs
// that started 26 nm apart.)
func TestVerifyTouchingStart(t *testing.T) {
	for _, c := range []struct {
		z0      float64
		crossed bool
	}{{0.01, true}, {0, false}} {
		s := crossingYarns(false)
		for i := range s.X {
			if s.Rod[i] == 1 {
				s.X[i][2] = c.z0
			}
		}
		s.ws.size(len(s.X))
		copy(s.ws.xn, s.X)
		s.Assign()
		s.detect(1e-3)
		for i := range s.X {
			if s.Rod[i] == 1 {
				s.X[i][2] = -0.01
			}
		}
		err := s.verify()
		if got := err != nil; got != c.crossed {
			t.Errorf("from z %g to -0.01: verify says %v, want a crossing %v", c.z0, err, c.crossed)
		}
	}
}

// TestVerifyStretch checks that a step ending with two consecutive nodes
// farther apart than divergedStretch times the larger of their material
// distance and the rest spacing (0.1 m) fails as diverged: a 0.1 m segment
// pulled to 0.35 m fails, to 0.2 m passes; a 0.02 m segment next to a
// contact node stretched to 0.1 m (five times, but within three rest
// spacings) passes, to 0.35 m fails.
func TestVerifyStretch(t *testing.T) {
	for _, c := range []struct {
		u2, x2 float64 // node 2's u and x (nodes 0, 1 at u = x = 0, 0.1)
		fails  bool
	}{{0.2, 0.45, true}, {0.2, 0.3, false}, {0.12, 0.2, false}, {0.12, 0.45, true}} {
		s := &State{}
		s.Rods = []Rod{{Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 0.2}}
		addNode(s, 0, dense.Vec3{0, 0, 0}, 0, true)
		addNode(s, 0, dense.Vec3{0.1, 0, 0}, 0.1, true)
		addNode(s, 0, dense.Vec3{c.x2, 0, 0}, c.u2, true)
		s.Kind = make([]rod.Kind, len(s.X))
		s.ws.size(len(s.X))
		s.Assign()
		err := s.verify()
		if got := err != nil; got != c.fails {
			t.Errorf("segment of u %g to length %g: verify says %v, want failure %v", c.u2-0.1, c.x2-0.1, err, c.fails)
		}
	}
}

// TestPairFrictionThreshold lays a free yarn (radius 5 mm) across three
// fixed yarns 0.1 m apart with no persistent contact: only the penalty
// pairs carry it, with PairMu mu. Gravity is turned by theta about y, along
// the free yarn: Coulomb's law holds it for tan(theta) < mu and beyond lets
// it slide with acceleration a = g (sin(theta) - mu cos(theta)). Sticking
// (40 degrees, mu 1): its mean speed over the last 0.1 s of 0.4 s stays
// under 1 mm/s (0.1 mm/s). Sliding (50 degrees with mu 1, 40 without
// friction): that mean speed is within 10% of a t at t = 0.35 s (0.435
// against 0.424 m/s; 2.216 against 2.207). (With the rest distances of
// PairMu 0, which forget a pair at full rest distance so that its force is
// off every other step, the friction failed both: 3.8 mm/s at 40 degrees,
// 0.180 m/s at 50.)
func TestPairFrictionThreshold(t *testing.T) {
	const h, steps, r, g = 1e-3, 400, 0.005, 9.81
	run := func(theta, mu float64) float64 {
		th := theta * math.Pi / 180
		s := &State{Gravity: dense.Vec3{-g * math.Sin(th), 0, -g * math.Cos(th)}, PairMu: mu}
		for k := range 3 {
			s.Rods = append(s.Rods, Rod{Ks: 50, Kb: 1e-4, Rho: 0.01, RestSeg: 0.02, Length: 0.2, Fixed: true, Radius: r})
			for j := 0; j <= 10; j++ {
				i := addNode(s, int32(k), dense.Vec3{-0.1 + 0.1*float64(k), -0.1 + 0.02*float64(j), 0}, 0.02*float64(j), true)
				s.Pinned[i], s.Target[i] = true, s.X[i]
			}
		}
		s.Rods = append(s.Rods, Rod{Ks: 50, Kb: 1e-2, Rho: 0.01, RestSeg: 0.02, Length: 0.28, Radius: r})
		mid := len(s.X) + 7
		for j := 0; j <= 14; j++ {
			addNode(s, 3, dense.Vec3{-0.14 + 0.02*float64(j), 0.001, 2*r + 1e-4}, 0.02*float64(j), true)
		}
		var x0 float64
		for n := range steps {
			if n == steps-100 {
				x0 = s.X[mid][0]
			}
			if _, err := s.Step(h, DefaultSettings(), func(i int, _ float64) dense.Vec3 { return s.Target[i] }); err != nil {
				t.Fatalf("theta %g, mu %g, step %d: %v", theta, mu, n, err)
			}
		}
		return math.Abs(s.X[mid][0]-x0) / (100 * h)
	}
	for _, c := range []struct{ theta, mu float64 }{{40, 1}, {50, 1}, {40, 0}} {
		th := c.theta * math.Pi / 180
		v := run(c.theta, c.mu)
		a := g * (math.Sin(th) - c.mu*math.Cos(th))
		t.Logf("theta %g, mu %g: %.4f m/s over the last 0.1 s (Coulomb: a = %.3f m/s^2)", c.theta, c.mu, v, a)
		if a <= 0 {
			if v > 1e-3 {
				t.Errorf("theta %g, mu %g: the yarn creeps at %.4f m/s, want it to stick (under 1 mm/s)", c.theta, c.mu, v)
			}
		} else if want := a * 0.35; math.Abs(v-want) > 0.1*want {
			t.Errorf("theta %g, mu %g: the yarn slides at %.4f m/s, want %.4f (a t at 0.35 s) within 10%%", c.theta, c.mu, v, want)
		}
	}
}

// TestVerifyStalledClosePair: two crossing yarns (radii 0.02) 0.01 apart,
// under half the sum of their radii, with a penalty term between them. A
// converged solve may leave them so (the penalty balances the load); a
// stalled one, with more unbalanced force than its step began with, may
// not: verify fails it, so the step is solved again projected and then
// halved.
func TestVerifyStalledClosePair(t *testing.T) {
	for _, stalled := range []bool{false, true} {
		s := crossingYarns(false)
		s.ws.size(len(s.X))
		copy(s.ws.xn, s.X)
		s.Assign()
		s.detect(1e-3)
		if len(s.ws.yarn.pairs) == 0 {
			t.Fatal("no penalty pair between the crossing yarns")
		}
		s.ws.stalled = stalled
		err := s.verify()
		if got := err != nil; got != stalled {
			t.Errorf("stalled %v: verify says %v, want a failure %v", stalled, err, stalled)
		}
	}
}

// TestLayersBruteForce checks layers against the definition, pair by pair:
// rods a < b are layered when some rod touches both (persistent contacts)
// with normals of negative dot product. Random contacts among 40 rods, with
// repeated pairs, contacts of a rod with itself, and rods without contacts.
func TestLayersBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 50; trial++ {
		nr := 1 + rng.Intn(40)
		s := &State{Rods: make([]Rod, nr)}
		for range 3 * nr {
			s.Rod = append(s.Rod, int32(rng.Intn(nr)))
		}
		for range rng.Intn(4 * nr) {
			n := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			s.Contacts = append(s.Contacts, Contact{P: int32(rng.Intn(len(s.Rod))), Q: int32(rng.Intn(len(s.Rod))), Normal: n})
		}
		// sides[r]: (rod, normal pointing away from r) of each contact touching r.
		type side struct {
			rod int32
			n   dense.Vec3
		}
		sides := make([][]side, nr)
		for _, c := range s.Contacts {
			rp, rq := s.Rod[c.P], s.Rod[c.Q]
			sides[rq] = append(sides[rq], side{rp, c.Normal})
			sides[rp] = append(sides[rp], side{rq, c.Normal.Scale(-1)})
		}
		var want []uint64
		for a := range int32(nr) {
			for b := a + 1; b < int32(nr); b++ {
				found := false
				for _, sd := range sides {
					for _, x := range sd {
						for _, y := range sd {
							found = found || (x.rod == a && y.rod == b && x.n.Dot(y.n) < 0)
						}
					}
				}
				if found {
					want = append(want, uint64(a)<<32|uint64(b))
				}
			}
		}
		s.layers()
		if !slices.Equal(s.ws.yarn.layered, want) {
			t.Fatalf("trial %d (%d rods, %d contacts): layered %v, want %v", trial, nr, len(s.Contacts), s.ws.yarn.layered, want)
		}
	}
}
