package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// topEdgeSag returns the largest distance of body 0's grid row j = ny-1
// (the pinned edge of pinned-square) from the straight line through its
// end vertices, over that line's length.
func topEdgeSag(sim *Sim) float64 {
	b := sim.Model.Bodies[0]
	x := sim.Positions(0)
	row := (b.NY - 1) * b.NX
	a, c := dense.Vec3(x[row]), dense.Vec3(x[row+b.NX-1])
	d := c.Sub(a)
	l := d.Norm()
	u := d.Scale(1 / l)
	worst := 0.0
	for i := range b.NX {
		r := dense.Vec3(x[row+i]).Sub(a)
		worst = math.Max(worst, r.Sub(u.Scale(r.Dot(u))).Norm())
	}
	return worst / l
}

// TestPinnedSquare is English & Bridson 2008 Fig. 3: the square swings
// down from horizontal, pinned at two corners. Every step must end with
// every face's midpoint distances within 1e-4 of rest (relative, measured
// by Mesh.InPlaneError, independent of the projection's own residual), and
// the top edge must sag far less than the Lagrangian body's at the scene's
// stiffness (under a tenth of it), which sags visibly (> 1% of its length).
//
// The "< 0.1% of its length" is not met at the default tolerance
// 1e-4, and the long form (the scene as shipped, resolution 21, 3 s)
// asserts it and fails: a chain of segments each stretched by e bows by
// up to L sqrt(3e/8), and the projection stops where gravity leaves the
// top edge, at the tolerance (measured: 0.35% at resolution 11, 0.273% at
// 21; at tolerance 1e-5, 0.1004%; at 2e-6 and 1e-6 the projection stalls
// at |C| 3e-6 to 1e-5 within 100 steps, the dependent rows of the straight
// edge making J M^-1 J^T singular up to its 1e-8 shift). The test logs the
// numbers.
func TestPinnedSquare(t *testing.T) {
	res, n := "11", 200
	if long() {
		res, n = "21", 600
	}
	sets := [][2]string{{"bodies.0.resolution", res}}
	sim := build(t, load(t, "pinned-square", sets...), 2)
	worstErr, worstSag, iters := 0.0, 0.0, 0
	steps(t, sim, n, func(i int) {
		d := sim.Developable
		if d.InPlaneError > 1e-4 {
			t.Fatalf("step %d: in-plane error %g > 1e-4", i, d.InPlaneError)
		}
		worstErr = math.Max(worstErr, d.InPlaneError)
		worstSag = math.Max(worstSag, topEdgeSag(sim))
		iters += d.Iterations
	})
	lag := build(t, load(t, "pinned-square", append(sets, [2]string{"bodies.0.model", "lagrangian"})...), 2)
	lagSag := 0.0
	steps(t, lag, n, func(int) { lagSag = math.Max(lagSag, topEdgeSag(lag)) })
	if lagSag <= 1e-2 {
		t.Errorf("Lagrangian top edge sags by only %.3g of its length; the comparison needs visible sag", lagSag)
	}
	if worstSag >= lagSag/10 {
		t.Errorf("developable top edge sags by %.3g of its length, the Lagrangian %.3g: want under a tenth", worstSag, lagSag)
	}
	if long() && worstSag >= 1e-3 {
		t.Errorf("developable top edge sags by %.3g%% of its length: the issue asks for under 0.1%%", 100*worstSag)
	}
	t.Logf("resolution %s, %d steps: in-plane error <= %.3g, top edge sag <= %.3g (developable) vs %.3g (Lagrangian); %.2f projection steps per step",
		res, n, worstErr, worstSag, lagSag, float64(iters)/float64(n))
}

// developableEnergy returns the developable body's total energy: kinetic,
// gravity and bending, on its edge-midpoint state.
func developableEnergy(sim *Sim) float64 {
	b := sim.Developable.bodies[0].solver
	return b.KineticEnergy() + b.GravityEnergy() + b.Bend.Energy(b.X)
}

// TestBDF2Dissipation compares BDF2 with first-order projection on the
// pinned square swinging freely (no damping) for 2 s from horizontal: the
// energy each loses, and projection steps per time step. English &
// Bridson report BDF2 dissipating about an order of magnitude less; the
// test requires less, and logs the measured ratio.
func TestBDF2Dissipation(t *testing.T) {
	res := "9"
	if long() {
		res = "21"
	}
	lost := map[string]float64{}
	for _, scheme := range []string{"first-order", "bdf2"} {
		sim := build(t, load(t, "pinned-square", [2]string{"bodies.0.resolution", res}, [2]string{"bodies.0.material.mass_damping", "0"},
			[2]string{"bodies.0.developable.scheme", scheme}), 2)
		e0, iters := 0.0, 0
		n := int(math.Round(2 / sim.Model.Dt))
		steps(t, sim, n, func(i int) {
			if i == 0 {
				// After the first step, so both schemes start from the same
				// first-order step.
				e0 = developableEnergy(sim)
			}
			iters += sim.Developable.Iterations
		})
		lost[scheme] = e0 - developableEnergy(sim)
		t.Logf("%s: energy %.5g J -> %.5g J (lost %.4g J), %.2f projection steps per step", scheme, e0, developableEnergy(sim), lost[scheme], float64(iters)/float64(n))
	}
	if !(lost["bdf2"] < lost["first-order"]) {
		t.Errorf("BDF2 lost %.4g J, first order %.4g J: BDF2 should dissipate less", lost["bdf2"], lost["first-order"])
	}
	t.Logf("first order / BDF2 dissipation: %.3g", lost["first-order"]/lost["bdf2"])
}

// TestPaperDrape drops the paper on the sphere at the scene's resolution:
// the ghost mesh must stay out of the obstacles (no vertex and no face
// deeper than 0.1 mm), and contacts must occur; it logs the in-plane error
// left after the ghost correction. (Collisions act on the ghost vertices
// only: at resolution 15, 43 mm edges, the sphere pokes 1.2 mm through
// faces between vertices held 2 mm off it.)
func TestPaperDrape(t *testing.T) {
	t.Parallel()
	n := 70
	if long() {
		n = 750
	}
	sim := build(t, load(t, "paper-drape"), 2)
	worstPen, worstErr, contacts := 0.0, 0.0, 0
	steps(t, sim, n, func(i int) {
		vertex, surface := sim.maxPenetration()
		worstPen = math.Max(worstPen, math.Max(vertex, surface))
		worstErr = math.Max(worstErr, sim.Developable.InPlaneError)
		contacts = max(contacts, len(sim.State.Contacts))
	})
	if contacts == 0 {
		t.Fatalf("no contacts in %d steps: the paper never reached the sphere", n)
	}
	if worstPen > 1e-4 {
		t.Errorf("ghost mesh penetrates obstacles by %.3g m, want <= 1e-4", worstPen)
	}
	t.Logf("%d steps: max penetration %.3g m, up to %d contacts, in-plane error after correction <= %.3g", n, worstPen, contacts, worstErr)
}

// TestPaperFold pushes the sheet of paper-fold into the slot with the bar
// until one half folds over the other: in every step the ghost mesh must
// be free of crossings (counted by bruteCrossings, which shares no code
// with solver/selfcontact) and no deeper than 0.1 mm in any obstacle, the
// self-contact stage must have acted, and the sheet must have folded (its
// extent along x under three quarters of its 0.4 m).
func TestPaperFold(t *testing.T) {
	res, n, every := "11", 450, 1
	if long() {
		res, n, every = "21", 600, 5
	}
	sim := build(t, load(t, "paper-fold", [2]string{"bodies.0.resolution", res}), 2)
	var faces []int32
	for _, f := range sim.Model.Bodies[0].Faces {
		faces = append(faces, f[:]...)
	}
	worstPen, acted := 0.0, 0
	var x []float64
	steps(t, sim, n, func(i int) {
		acted += sim.SelfCollision.Last.Proximities + sim.SelfCollision.Last.Impacts
		vertex, surface := sim.maxPenetration()
		worstPen = math.Max(worstPen, math.Max(vertex, surface))
		if i%every != 0 && i != n-1 {
			return
		}
		x = x[:0]
		for _, p := range sim.Positions(0) {
			x = append(x, p[:]...)
		}
		if c := bruteCrossings(x, faces); c > 0 {
			t.Fatalf("step %d: %d crossing face pairs in the ghost mesh", i, c)
		}
	})
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := 0; i < len(x); i += 3 {
		lo, hi = math.Min(lo, x[i]), math.Max(hi, x[i])
	}
	if acted == 0 {
		t.Errorf("self-contact never acted in %d steps", n)
	}
	if worstPen > 1e-4 {
		t.Errorf("ghost mesh penetrates obstacles by %.3g m, want <= 1e-4", worstPen)
	}
	if hi-lo > 0.3 {
		t.Errorf("sheet spans %.3g m along x after %d steps: it did not fold", hi-lo, n)
	}
	t.Logf("resolution %s, %d steps: no crossings, max penetration %.3g m, %d self-contact proximities and impacts, x extent %.3g m", res, n, worstPen, acted, hi-lo)
}
