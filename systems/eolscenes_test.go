package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
)

// hookSystem is a system that calls fn (a test's probe between two systems).
type hookSystem struct {
	name string
	fn   func()
}

func (h hookSystem) Name() string            { return h.name }
func (h hookSystem) Step(w *ecs.World) error { h.fn(); return nil }

// eolShort coarsens an EOL scene for CI: the remesher's sizes are scaled up
// (fewer faces, the QP is the cost) and the run is cut to the given time.
func eolShort(t *testing.T, name string, duration, sizeMin, sizeMax float64) *scenes.Scene {
	t.Helper()
	sc, err := scenes.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	b := &sc.Bodies[0]
	b.Resolution = min(b.Resolution, 16)
	if b.Remesh != nil {
		b.Remesh.SizeMin = max(b.Remesh.SizeMin, sizeMin)
		b.Remesh.SizeMax = max(b.Remesh.SizeMax, sizeMax)
	}
	sc.Duration = min(sc.Duration, duration)
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// eolRun steps a scene through its duration and checks what every EOL scene
// must show: no step fails, finite positions, EOL vertices at some step, no
// vertex more than 0.1 mm inside an obstacle (max_vertex_penetration: the
// contacts hold vertices; the surface measure sees more), and no
// sliver face (principal strain above 2). It
// returns the sim for scene-specific checks.
func eolRun(t *testing.T, sc *scenes.Scene) *Sim {
	t.Helper()
	sim := build(t, sc, 2)
	n := sc.NumSteps()
	worst, eolMax, facesMax, strain := 0.0, 0, 0, 0.0
	steps(t, sim, n, func(i int) {
		st := sim.Measure()
		worst = math.Max(worst, st.MaxVertexPen)
		strain = math.Max(strain, st.MaxStrain)
		facesMax = max(facesMax, st.Faces)
		if st.EOLVertices != nil {
			eolMax = max(eolMax, *st.EOLVertices)
		}
		for k, x := range sim.State.X {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("step %d: coordinate %d is %v", i, k, x)
			}
		}
	})
	t.Logf("%s: %d steps, up to %d faces and %d EOL vertices, max penetration %.3g mm, max strain %.3g", sc.Name, n, facesMax, eolMax, 1e3*worst, strain)
	if eolMax == 0 {
		t.Errorf("no EOL vertex at any step")
	}
	if worst > 1e-4 {
		t.Errorf("max penetration %.3g mm > 0.1 mm", 1e3*worst)
	}
	// A guard against material slivers and runaway EOL vertices, not a
	// physical bound: a face whose material triangle is squeezed thin while
	// its world triangle is not shows as a huge principal strain (1e3 to 1e5
	// in the full scenes before EOL vertices lifted off on any separating
	// row or at the cloth's border, the cleanup could dissolve trapped nodes
	// and Eulerian steps were bounded in stretch). These short runs stay
	// below 0.9; before those changes throw reached 34 and push 24 here.
	if strain > 2 {
		t.Errorf("max principal strain %.3g > 2: a sliver face or a runaway EOL vertex", strain)
	}
	return sim
}

// TestEOLScenes runs short, coarse forms of the Weidner 2018 sec. 7 scenes
// (the full ones take minutes at about 2000 faces): each must run without
// error, create EOL vertices and keep the cloth out of the obstacles.
func TestEOLScenes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		full    float64 // s simulated
		short   float64 // s simulated with -short
		sizeMin float64 // m, remesh size_min at least
		sizeMax float64 // m, remesh size_max at least
	}{
		// Pulls start at 0.35 s (edge) and 0.5 s (wire, nails, jaws).
		{"edge", 0.5, 0.25, 0.06, 0.12},
		// edge with its box turned 17 degrees about z: the EOL vertices sit
		// on a box edge diagonal to the cloth's grid.
		{"edge-turned", 0.5, 0.25, 0.06, 0.12},
		// edge over a 60-degree wedge mesh: the EOL vertices sit on its
		// ridge, a sharp edge of the mesh.
		{"edge-wedge", 0.5, 0.25, 0.06, 0.12},
		{"wire", 0.6, 0.25, 0.06, 0.12},
		{"nails", 0.6, 0.25, 0.08, 0.15},
		{"jaws", 0.55, 0.25, 0.08, 0.15},
		// The box meets the cloth at about 0.28 s.
		{"push", 0.8, 0.4, 0.08, 0.15},
		// The thrown cloth lands on the box's top from about 0.44 s.
		{"throw", 0.7, 0.55, 0.06, 0.12},
		{"lo-res", 1.5, 0.6, 0, 0},
		// friction: TestEOLSceneFriction (two runs, both checked by eolRun).
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.full
			if testing.Short() {
				d = c.short
			}
			eolRun(t, eolShort(t, c.name, d, c.sizeMin, c.sizeMax))
		})
	}
}

// TestEOLSceneFriction drops the FRICTION cloth onto the four boxes with
// solver.friction 0 and 0.5. Without friction nothing balances the tension
// that pulls the cloth on the box tops towards the gaps (the tops are
// horizontal, the EOL vertices slide freely over the edges and corners):
// there is no equilibrium, so the cloth keeps sliding into the gaps. With
// friction the tops hold it (Weidner 2018 sec. 7: "the cloth stops rather
// than falling"): it comes to rest. So 0.7 s after landing (at about 0.1 s)
// the cloth's rms speed sqrt(2 KE / M) must be below 1 mm/s with friction
// (at rest) and above 1 cm/s without (sliding), and its centre of mass
// lower without friction. The speed is that of the vertices' Lagrangian
// velocities (as stats' kinetic_energy): an EOL vertex's world velocity
// subtracts F Xdot from it (eq. 2), so at rest this can only overstate the
// motion, and the 1 mm/s bound is conservative.
func TestEOLSceneFriction(t *testing.T) {
	t.Parallel()
	type result struct{ speed, zc float64 }
	run := func(mu float64) result {
		sc := eolShort(t, "friction", 0.8, 0.04, 0.1)
		sc.Solver.Friction = mu
		sim := eolRun(t, sc)
		st := sim.State
		var m, mz, ke float64
		for k, mk := range st.Mass {
			m += mk
			mz += mk * st.X[3*k+2]
			v := st.V[3*k : 3*k+3]
			ke += 0.5 * mk * (v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		}
		r := result{speed: math.Sqrt(2 * ke / m), zc: mz / m}
		t.Logf("friction %v: rms speed %.3g m/s, centre of mass at z = %.4f m", mu, r.speed, r.zc)
		return r
	}
	slide, stick := run(0), run(0.5)
	if !(stick.speed < 1e-3) {
		t.Errorf("with friction 0.5 the cloth still moves at %.3g m/s rms, want < 1 mm/s (at rest)", stick.speed)
	}
	if !(slide.speed > 1e-2) {
		t.Errorf("without friction the cloth moves at %.3g m/s rms, want > 1 cm/s (sliding into the gaps)", slide.speed)
	}
	if !(slide.zc < stick.zc) {
		t.Errorf("centre of mass without friction at z = %.4f m, not below the one with friction (%.4f m)", slide.zc, stick.zc)
	}
}

// frictionScene is the full-resolution FRICTION scene with
// solver.friction mu, run for duration seconds.
func frictionScene(t *testing.T, mu string, duration float64) *scenes.Scene {
	t.Helper()
	sc, err := scenes.Builtin("friction")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("solver.friction", mu); err != nil {
		t.Fatal(err)
	}
	sc.Duration = duration
	return sc
}

// TestEOLFrictionComesToRest runs FRICTION with solver.friction 0.5 at full
// resolution to 1.3 s, 0.9 s after the cloth has stopped on the boxes: in
// the last 20 steps kinetic_energy (world and material velocities, eq. 7)
// must stay below 5e-9 J (an rms speed of 0.75 mm/s; at rest it decays from
// 1e-10 J, with one bump to 1.1e-9 J at 1.275 s). The adaptive remesher
// once split the edge between two EOL vertices next to box11's inner corner
// (one on each of its two top edges) every step, 9.3 mm from a free vertex,
// and the conformal preprocessing collapsed that split again the next step
// (a non-conformal edge shorter than min_edge at a conformal vertex): the
// re-made vertex moved at 0.16 m/s for ever, kinetic energy 3.5e-8 J from
// 1 s to 3 s. The remesher's LockedClearance now also refuses such a split
// (solver/remesh TestLockedClearanceBetweenLocked).
func TestEOLFrictionComesToRest(t *testing.T) {
	t.Parallel()
	sc := frictionScene(t, "0.5", 1.3)
	sim := build(t, sc, 2)
	n := sc.NumSteps()
	most, at := 0.0, 0
	steps(t, sim, n, func(i int) {
		if i < n-20 {
			return
		}
		if ke := sim.Measure().KineticEnergy; !(ke <= most) {
			most, at = ke, i
		}
	})
	t.Logf("last 20 of %d steps: kinetic energy at most %.3g J (step %d)", n, most, at)
	if !(most < 5e-9) {
		t.Errorf("kinetic energy %.3g J at step %d, 0.9 s after the cloth stopped; want < 5e-9 J (at rest)", most, at)
	}
}

// TestEOLThrowCrossesBox runs THROW (Weidner 2018 sec. 7: the thrown cloth
// makes contact with the box, slides over it and lifts off its far side, "no
// snagging behavior is observed"): the cloth's centre of mass must pass the
// box's far edge, with EOL vertices on the box's features before it does,
// and between its first EOL vertex and the crossing its x velocity may not
// fall below half the one it landed with (on the frictionless box only the
// cloth hanging off the near side pulls it back). Short: the coarse scene
// (eolShort) up to the crossing; it passes with and without the fix below.
// Long: the full scene through its lift-off, where also no step may stretch a
// face beyond principal stretch 2 (max_strain 1). Before border vertices
// locked on an edge along the border lifted off (alongBorder), the full
// scene's trailing border stuck on the box's near corner at 0.62 s and the
// cloth slowed from 1.5 to about 0.4 m/s (crossing at 0.87 s, 0.71 s now).
func TestEOLThrowCrossesBox(t *testing.T) {
	t.Parallel()
	sc := eolShort(t, "throw", 1, 0.08, 0.16)
	if long() {
		var err error
		if sc, err = scenes.Builtin("throw"); err != nil {
			t.Fatal(err)
		}
	}
	far := math.Inf(1)
	for _, o := range sc.Obstacles {
		if o.Type == "box" {
			far = o.Center[0] + o.HalfExtents[0]
		}
	}
	sim := build(t, sc, 2)
	crossed, worst, at, eolMax := -1.0, 0.0, 0, 0
	landing, slowest := 0.0, math.Inf(1) // the centre of mass's x velocity
	// The short form stops at the crossing; the long one runs on through the
	// lift-off for the strain bound.
	for i := 0; i < sc.NumSteps() && (long() || crossed < 0); i++ {
		if err := sim.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		st := sim.State
		var m, mx, mv float64
		for k, mk := range st.Mass {
			m += mk
			mx += mk * st.X[3*k]
			mv += mk * st.V[3*k]
		}
		ms := sim.Measure()
		if ms.EOLVertices != nil && *ms.EOLVertices > 0 && crossed < 0 {
			if eolMax == 0 {
				landing = mv / m
			}
			eolMax = max(eolMax, *ms.EOLVertices)
			slowest = math.Min(slowest, mv/m)
		}
		if crossed < 0 && mx/m > far {
			crossed = float64(i+1) * sc.TimeStep
		}
		if ms.MaxStrain > worst {
			worst, at = ms.MaxStrain, i
		}
	}
	t.Logf("throw (%d steps at most): centre of mass past the far edge x = %.2f at %.3f s, up to %d EOL vertices before, its x velocity %.3f m/s at the first and %.3f at the slowest, max strain %.3f at step %d", sc.NumSteps(), far, crossed, eolMax, landing, slowest, worst, at)
	// On the frictionless box nothing but the hanging cloth pulls the cloth
	// back; no snagging (sec. 7) means it keeps most of its speed.
	if slowest < landing/2 {
		t.Errorf("the cloth slowed from %.3f to %.3f m/s on the box before crossing it: snagged", landing, slowest)
	}
	if crossed < 0 {
		t.Errorf("the cloth's centre of mass never passed the box's far edge (x = %.2f) in %.2f s", far, sc.Duration)
	}
	if eolMax == 0 {
		t.Errorf("no EOL vertex before the crossing")
	}
	if long() && worst > 1+1e-9 {
		t.Errorf("max strain %.3f at step %d > 1 (principal stretch 2)", worst, at)
	}
}

// TestEOLStrainBound drops the FRICTION cloth with friction 0.2 and 0.5 and
// requires max_strain below 1 (principal stretch 2) after every step of its
// landing (0.17 s; the coarse eolShort form stays near 0.5 without limits). The cause of the strain it guards against: with
// friction, the corner EOL vertices stick (their Eulerian velocity is
// stopped, their world position is the box's corner), so they act as point
// supports, and the landing cloth's Lagrangian neighbours stretch the faces
// around them in the solve itself (the Eulerian step had not changed those
// faces: strain 1.32 at 0.16 s with mu 0.5, 1.80 with mu 0.2, full scene).
// The scene's strain limits (Narain 2012 sec. 5) now bound the Lagrangian
// motion with the EOL vertices fixed (StrainLimit in the EOL pipeline), and
// the Eulerian step by the same limit (eulerStretch); before, the EOL
// pipeline had no strain-limiting stage and the scene could not ask for one.
func TestEOLStrainBound(t *testing.T) {
	t.Parallel()
	for _, mu := range []float64{0.2, 0.5} {
		sc, err := scenes.Builtin("friction")
		if err != nil {
			t.Fatal(err)
		}
		sc.Duration = 0.17
		sc.Solver.Friction = mu
		if sc.Bodies[0].StrainLimits == nil {
			t.Fatal("friction has no strain_limits")
		}
		sim := build(t, sc, 2)
		// Around strain-limit: it must act (sweeps) and leave the velocities
		// of the EOL vertices that stay on their features as solved.
		var before []float64
		sweeps, moved := 0, 0
		var sys []ecs.System
		for _, x := range sim.Scheduler.Systems() {
			if x.Name() == "strain-limit" {
				sys = append(sys, hookSystem{"before", func() { before = append(before[:0], sim.State.VNew...) }})
				sys = append(sys, x, hookSystem{"after", func() {
					sweeps += sim.StrainLimit.Last[0].OuterIterations
					for k := range sim.EOL.verts {
						if ev := &sim.EOL.verts[k]; !ev.lifted {
							for d := range 3 {
								if j := 3*ev.v + int32(d); sim.State.VNew[j] != before[j] {
									moved++
								}
							}
						}
					}
				}})
				continue
			}
			sys = append(sys, x)
		}
		sim.Scheduler = ecs.NewScheduler(sys...)
		worst, at := 0.0, 0
		steps(t, sim, sc.NumSteps(), func(i int) {
			if s := sim.Measure().MaxStrain; s > worst {
				worst, at = s, i
			}
		})
		t.Logf("friction %v: max strain %.4f at step %d, %d strain-limit sweeps", mu, worst, at, sweeps)
		if !(worst < 1) {
			t.Errorf("friction %v: max strain %.4f at step %d, want < 1", mu, worst, at)
		}
		if sweeps == 0 {
			t.Errorf("friction %v: the strain limiter never acted", mu)
		}
		if moved > 0 {
			t.Errorf("friction %v: strain-limit changed %d velocity components of EOL vertices on their features", mu, moved)
		}
	}
}

// TestEOLWireWraps runs WIRE until the cloth has slid over the wire for
// 0.9 s (1.4 s) and requires
// the cloth's surface, not only its vertices, to stay out of the wire: the
// EOL vertices on it are held where their faces clear the wire's radius plus
// the contact thickness (geom.Feature.WireHold). Held at that radius straight
// out from the axis, the faces to the side hanging down cut through the
// 3 mm wire: max_penetration 3.0 mm at 0.44 s.
//
// No face may pass principal stretch 2 at any step (the Eulerian step's
// bound, materialStepLimit): the bound must see each EOL vertex where its
// hold puts it. Bounded before the hold, which moves a wire's vertex with
// its neighbours by up to a millimetre a step, faces at them reached
// max_strain 1.0017 at step 267 (1.68 at step 361, later in the run).
func TestEOLWireWraps(t *testing.T) {
	t.Parallel()
	sc, err := scenes.Builtin("wire")
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 1.4
	// Without the scene's self-contact: the trajectory the bound was
	// traced on (and 4x quicker); TestEOLScenes runs wire with it.
	sc.Solver.SelfContact = nil
	sim := build(t, sc, 2)
	worst, worstStep, eolMax := 0.0, 0, 0
	strain, strainStep := 0.0, 0
	steps(t, sim, sc.NumSteps(), func(i int) {
		st := sim.Measure()
		if st.MaxPenetration > worst {
			worst, worstStep = st.MaxPenetration, i+1
		}
		if st.MaxStrain > strain {
			strain, strainStep = st.MaxStrain, i+1
		}
		if st.EOLVertices != nil {
			eolMax = max(eolMax, *st.EOLVertices)
		}
	})
	t.Logf("max surface penetration %.3g mm (step %d), max strain %.6f (step %d), up to %d EOL vertices", 1e3*worst, worstStep, strain, strainStep, eolMax)
	if eolMax < 20 {
		t.Errorf("up to %d EOL vertices: the cloth is not on the wire", eolMax)
	}
	if worst > 1e-4 {
		t.Errorf("surface penetration %.3g mm at step %d > 0.1 mm", 1e3*worst, worstStep)
	}
	if strain > 1 {
		t.Errorf("max strain %.6f at step %d > 1 (principal stretch 2)", strain, strainStep)
	}
}

// TestEOLThrowStrainLimited runs THROW, which has strain limits, until its
// trailing border has slipped over the box's near edge (0.66 s): the cloth's
// surface stays out of the box and no face passes principal stretch 2. A
// border hit within MinEdge of the interior end of the edge's chain was a
// duplicate of that node, so the border edge beside it crossed the box's
// edge without a node and the face there cut it: 1.03 mm at step 128.
func TestEOLThrowStrainLimited(t *testing.T) {
	t.Parallel()
	sc, err := scenes.Builtin("throw")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Bodies[0].StrainLimits == nil {
		t.Fatal("throw has no strain limits")
	}
	sc.Duration = 0.66
	sim := build(t, sc, 2)
	worst, worstStep, strain, eolMax := 0.0, 0, 0.0, 0
	steps(t, sim, sc.NumSteps(), func(i int) {
		if i < 80 { // the cloth meets the box at about 0.44 s (step 88)
			return
		}
		st := sim.Measure()
		if st.MaxPenetration > worst {
			worst, worstStep = st.MaxPenetration, i
		}
		strain = math.Max(strain, st.MaxStrain)
		if st.EOLVertices != nil {
			eolMax = max(eolMax, *st.EOLVertices)
		}
	})
	t.Logf("max surface penetration %.3g mm (step %d), max strain %.3g, up to %d EOL vertices", 1e3*worst, worstStep, strain, eolMax)
	if eolMax < 20 {
		t.Errorf("up to %d EOL vertices: the cloth did not slide over the box's edges", eolMax)
	}
	if worst > 1e-4 {
		t.Errorf("surface penetration %.3g mm at step %d > 0.1 mm", 1e3*worst, worstStep)
	}
	if strain >= 1 {
		t.Errorf("max principal strain %.3g, want below 1", strain)
	}
}
