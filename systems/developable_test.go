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

// topEdgeExcess returns how much longer body 0's pinned grid row (j =
// ny-1) is, as a polyline of ghost vertices, than the distance between its
// end vertices, relative to that distance.
func topEdgeExcess(sim *Sim) float64 {
	b := sim.Model.Bodies[0]
	x := sim.Positions(0)
	row := (b.NY - 1) * b.NX
	length := 0.0
	for i := 1; i < b.NX; i++ {
		length += dense.Vec3(x[row+i]).Sub(dense.Vec3(x[row+i-1])).Norm()
	}
	return length/dense.Vec3(x[row+b.NX-1]).Sub(dense.Vec3(x[row])).Norm() - 1
}

// sagBound is the largest sag (over the pin distance L) of an edge that
// is a chain of segments each at most sqrt(1 + tol) times its rest length
// (a face's midpoint distances 2|m_a - m_b| within the scaled tolerance
// tol of C = |x_i - x_j|^2/d^2 - 1) between pins L = its rest length
// apart: every point P of a polyline of length l between A and B has
// |PA| + |PB| <= l, so P lies in the ellipse with foci A, B and major axis
// l, whose semi-minor axis is (L/2) sqrt((l/L)^2 - 1) <= (L/2) sqrt(tol).
// (The corner positions of neighbouring faces may also disagree by the
// boundary rows' tolerance; that adds length at first order in tol, but
// in directions that do not line up along the edge, and is left out.)
func sagBound(tol float64) float64 { return 0.5 * math.Sqrt(tol) }

// TestPinnedSquare is English & Bridson 2008 Fig. 3: the square swings
// down from horizontal, pinned at two corners. Every step must end with
// every face's midpoint distances within 1e-4 of rest (relative, measured
// by Mesh.InPlaneError, independent of the projection's own residual).
// The top edge must sag far less than the Lagrangian body's at the scene's
// stiffness (under a tenth of it), which sags visibly (> 1% of its
// length), and no more than the rigidity bound sagBound of the projection
// tolerance allows: with exact inextensibility the pinned edge, a chain at
// exactly its rest length between the pins, cannot sag at all, and what it
// sags is the constraint error the tolerance leaves along it (a chain
// stretched by e bows by up to L sqrt(e/2)).
//
// Two tolerances: the format's default, 1e-4, whose bound (0.5%) is above
// the "< 0.1% of its length" (measured 0.302% at resolution 21),
// and the scene's own, 5e-6 (bound 0.11%), at which the edge must stay
// under 0.1% in every step: measured 0.083% (resolution 11), 0.076% (21),
// 0.076% (31) over 3 s, with up to 153, 289 and 230 projection steps in a
// time step (the pinned edge has no Lagrange multipliers that balance a
// load across it, so the projection converges slowly there; at 2e-6 it did
// not converge within 400 at resolution 21, step 293). The long form is
// the scene as shipped (resolution 21, 3 s).
func TestPinnedSquare(t *testing.T) {
	t.Parallel()
	res, n := "11", 200
	if long() {
		res, n = "21", 600
	}
	sets := [][2]string{{"bodies.0.resolution", res}}
	lag := build(t, load(t, "pinned-square", append(sets, [2]string{"bodies.0.model", "lagrangian"})...), 2)
	lagSag := 0.0
	steps(t, lag, n, func(int) { lagSag = math.Max(lagSag, topEdgeSag(lag)) })
	if lagSag <= 1e-2 {
		t.Errorf("Lagrangian top edge sags by only %.3g of its length; the comparison needs visible sag", lagSag)
	}
	for _, c := range []struct {
		tol   float64
		sets  [][2]string
		under bool // the 0.1% required
	}{
		{1e-4, [][2]string{{"bodies.0.developable", "null"}}, false},
		{5e-6, nil, true},
	} {
		sc := load(t, "pinned-square", append(append([][2]string{}, sets...), c.sets...)...)
		if got := sc.Bodies[0].Developable; c.under && (got == nil || got.Tolerance != c.tol) {
			t.Fatalf("the scene's developable settings %+v, want tolerance %g", got, c.tol)
		}
		sim := build(t, sc, 2)
		tol := c.tol
		worstErr, worstSag, worstExcess, iters := 0.0, 0.0, 0.0, 0
		steps(t, sim, n, func(i int) {
			d := sim.Developable
			if d.InPlaneError > 1e-4 {
				t.Fatalf("tolerance %g, step %d: in-plane error %g > 1e-4", tol, i, d.InPlaneError)
			}
			worstErr = math.Max(worstErr, d.InPlaneError)
			worstSag = math.Max(worstSag, topEdgeSag(sim))
			worstExcess = math.Max(worstExcess, topEdgeExcess(sim))
			iters += d.Iterations
		})
		if worstSag >= lagSag/10 {
			t.Errorf("tolerance %g: developable top edge sags by %.3g of its length, the Lagrangian %.3g: want under a tenth", tol, worstSag, lagSag)
		}
		if b := sagBound(tol); worstSag > b {
			t.Errorf("tolerance %g: developable top edge sags by %.3g of its length, more than the rigidity bound %.3g", tol, worstSag, b)
		}
		if c.under && worstSag >= 1e-3 {
			t.Errorf("tolerance %g: developable top edge sags by %.4g%% of its length, want under 0.1%%", tol, 100*worstSag)
		}
		t.Logf("resolution %s, %d steps, tolerance %g: in-plane error <= %.3g; top edge sag <= %.3g%% (bound %.3g%%; under 0.1%%: %v, final %.3g%%), its length over the pin distance <= 1 + %.3g; Lagrangian sag %.3g%%; %.2f projection steps per step",
			res, n, tol, worstErr, 100*worstSag, 100*sagBound(tol), worstSag < 1e-3, 100*topEdgeSag(sim), worstExcess, 100*lagSag, float64(iters)/float64(n))
	}
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
// test requires less, and logs the measured ratio. At the format's default
// tolerance, 1e-4: at the scene's 5e-6 the undamped swing's projection did
// not converge in 400 steps at step 309 (resolution 9, BDF2).
func TestBDF2Dissipation(t *testing.T) {
	res := "9"
	if long() {
		res = "21"
	}
	lost := map[string]float64{}
	for _, scheme := range []string{"first-order", "bdf2"} {
		sim := build(t, load(t, "pinned-square", [2]string{"bodies.0.resolution", res}, [2]string{"bodies.0.material.mass_damping", "0"},
			[2]string{"bodies.0.developable", `{"scheme": "` + scheme + `"}`}), 2)
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
// deeper than 0.1 mm), contacts must occur, and the faces must stay rigid
// through them: the in-plane error after every step within the projection
// tolerance (the contacts are rows of the projection after the ghost
// correction; the correction alone left up to 1.9% here). (Collisions act on the ghost vertices
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
	if tol := sim.Model.Bodies[0].Developable.Tolerance; worstErr > tol {
		t.Errorf("in-plane error up to %.3g during contact, want <= the tolerance %g", worstErr, tol)
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

// ghostRun is what runGhost measured over a developable run.
type ghostRun struct {
	worstPen, worstErr, meanErr float64
	acted                       int // self-collision proximities and impacts
}

// runGhost steps a developable sim n times. Every `every` steps it checks
// that the ghost meshes of all bodies (as one mesh) have no crossing face
// pairs (bruteCrossings, which shares no code with solver/selfcontact); every
// step it records the deepest obstacle penetration (vertex or surface), the
// in-plane error and the self-collision stage's activity.
func runGhost(t *testing.T, sim *Sim, n, every int) ghostRun {
	t.Helper()
	var faces []int32
	base := int32(0)
	for bi := range sim.Model.Bodies {
		for _, f := range sim.Model.Bodies[bi].Faces {
			faces = append(faces, base+f[0], base+f[1], base+f[2])
		}
		base += int32(len(sim.Positions(bi)))
	}
	var r ghostRun
	var x []float64
	steps(t, sim, n, func(i int) {
		r.acted += sim.SelfCollision.Last.Proximities + sim.SelfCollision.Last.Impacts
		vertex, surface := sim.maxPenetration()
		r.worstPen = math.Max(r.worstPen, math.Max(vertex, surface))
		e := sim.Developable.InPlaneError
		r.worstErr, r.meanErr = math.Max(r.worstErr, e), r.meanErr+e/float64(n)
		if i%every != every-1 {
			return
		}
		x = x[:0]
		for bi := range sim.Model.Bodies {
			for _, p := range sim.Positions(bi) {
				x = append(x, p[:]...)
			}
		}
		if c := bruteCrossings(x, faces); c > 0 {
			t.Fatalf("step %d: %d crossing face pairs in the ghost meshes", i, c)
		}
	})
	if r.worstPen > 1e-4 {
		t.Errorf("ghost meshes penetrate obstacles by %.3g m, want <= 1e-4", r.worstPen)
	}
	return r
}

// TestDevelopableLayers drops two developable sheets of layers (resolution
// 11, so faces of 0.1 m) onto the sphere and onto each other: the ghost
// meshes must stay free of crossings and out of the obstacles, and the
// faces must stay close to rigid while the sheets press on each other.
// The self-collision pushes the sheets apart and the ghost correction
// bends faces to do so; the reprojection must not draw them back together
// (touchSelf, holdDrawnBack), else the last round's unprojected correction
// leaves the faces strained: without the self-collision rows, mean in-plane
// error 0.0063 and worst 0.0875 over these 120 steps; with them 0.0012 and
// 0.028.
func TestDevelopableLayers(t *testing.T) {
	t.Parallel()
	sc := load(t, "layers")
	sc.Bodies = sc.Bodies[:2]
	for i := range sc.Bodies {
		sc.Bodies[i].Model, sc.Bodies[i].Resolution = "developable", 11
	}
	const n = 120
	r := runGhost(t, build(t, sc, 2), n, 1)
	if r.acted == 0 {
		t.Fatal("the sheets never came within the self-contact thickness")
	}
	if r.meanErr > 0.003 || r.worstErr > 0.05 {
		t.Errorf("in-plane error mean %.4f, worst %.4f over %d steps; want <= 0.003 and <= 0.05", r.meanErr, r.worstErr, n)
	}
	t.Logf("%d steps: in-plane error mean %.4f, worst %.4f; max penetration %.3g m", n, r.meanErr, r.worstErr, r.worstPen)
}

// TestDevelopableDress runs dress's skirt, a tube, as a developable body
// (--set bodies.0.model=developable) on the walking body mesh: the seam is
// an interior edge of the nonconforming mesh (solver/developable
// TestTubeMesh), so the skirt must keep its faces rigid to 1% (0.0069 at
// worst over the scene's 2 s), stay free of crossings (every 10 steps) and
// out of the body mesh, while the legs reach it through the self-collision
// stage's kinematic pairs.
func TestDevelopableDress(t *testing.T) {
	t.Parallel()
	n := 100
	if long() {
		n = 400
	}
	r := runGhost(t, build(t, load(t, "dress", [2]string{"bodies.0.model", "developable"}), 2), n, 10)
	if r.acted == 0 {
		t.Fatal("the self-collision stage never acted: the legs never reached the skirt")
	}
	if r.worstErr > 0.01 {
		t.Errorf("in-plane error up to %.4f, want <= 0.01", r.worstErr)
	}
	t.Logf("%d steps: in-plane error <= %.4f, max penetration %.3g m, %d self-collision proximities and impacts", n, r.worstErr, r.worstPen, r.acted)
}
