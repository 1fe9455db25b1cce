package systems

import (
	"math"
	"slices"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// crossings counts the pairs of faces sharing no vertex that intersect at
// positions x: a box prefilter written here, then geom.TrianglesIntersect
// (which shares no code with the collision solver's CCD).
func crossings(x []float64, faces []int32) int {
	nt := len(faces) / 3
	lo := make([][3]float64, nt)
	hi := make([][3]float64, nt)
	for f := range nt {
		for k := range 3 {
			lo[f][k], hi[f][k] = math.Inf(1), math.Inf(-1)
			for j := range 3 {
				c := x[3*faces[3*f+j]+int32(k)]
				lo[f][k], hi[f][k] = math.Min(lo[f][k], c), math.Max(hi[f][k], c)
			}
		}
	}
	p := func(f, j int) dense.Vec3 {
		v := faces[3*f+j]
		return dense.Vec3{x[3*v], x[3*v+1], x[3*v+2]}
	}
	n := 0
	for a := range nt {
	next:
		for b := a + 1; b < nt; b++ {
			for k := range 3 {
				if lo[a][k] > hi[b][k] || lo[b][k] > hi[a][k] {
					continue next
				}
			}
			for i := range 3 {
				for j := range 3 {
					if faces[3*a+i] == faces[3*b+j] {
						continue next
					}
				}
			}
			if geom.TrianglesIntersect(p(a, 0), p(a, 1), p(a, 2), p(b, 0), p(b, 1), p(b, 2)) {
				n++
			}
		}
	}
	return n
}

// TestSelfCollisionFold: a 0.5 m sheet of 16 x 16 vertices, released
// horizontally and pinned at one vertex next to its centre, collapses
// around the pin like a closing umbrella, its folds meeting. Without self-contact its folds
// pass through each other; with it every step ends with no crossing.
func TestSelfCollisionFold(t *testing.T) {
	sets := [][2]string{
		{"bodies.0.size", "[0.5, 0.5]"},
		{"bodies.0.resolution", "16"},
		{"bodies.0.pins", `[{"at": [7, 7]}]`},
		{"bodies.0.material.mass_damping", "0.1"},
		{"bodies.0.material.bending_stiffness", "1e-6"},
	}
	const n = 150
	run := func(on bool, workers int) (worst, total int, x []float64) {
		ss := sets
		if on {
			ss = append(ss, [2]string{"solver.self_contact", `{"thickness": 0.003, "friction": 0.2}`})
		}
		sim := build(t, load(t, "drape", ss...), workers)
		maxZone, impacts := 0, 0
		steps(t, sim, n, func(i int) {
			c := crossings(sim.State.X, sim.State.Faces)
			worst = max(worst, c)
			total += c
			if on {
				maxZone = max(maxZone, sim.SelfCollision.Last.ZoneVerts)
				impacts += sim.SelfCollision.Last.Impacts
			}
		})
		if on {
			t.Logf("workers %d: %d impacts, largest impact zone %d of %d vertices", workers, impacts, maxZone, sim.State.NumVerts())
		}
		return worst, total, append([]float64(nil), sim.State.X...)
	}
	worstOff, totalOff, _ := run(false, 2)
	t.Logf("off: worst %d crossings in a step, %d over %d steps", worstOff, totalOff, n)
	if worstOff == 0 {
		t.Fatal("setup: the sheet never crosses itself without self-contact")
	}
	worstOn, totalOn, x2 := run(true, 2)
	t.Logf("on: worst %d, total %d", worstOn, totalOn)
	if worstOn != 0 {
		t.Fatalf("with self-contact a step ended with %d crossings", worstOn)
	}
	if _, _, x1 := run(true, 1); !slices.Equal(x1, x2) {
		t.Fatal("positions differ between 1 and 2 workers")
	}
}

// withoutStage takes the named system out of sim's pipeline: a test's
// baseline without a stage the scene would run.
func withoutStage(sim *Sim, name string) {
	var kept []ecs.System
	for _, sys := range sim.Scheduler.Systems() {
		if sys.Name() != name {
			kept = append(kept, sys)
		}
	}
	sim.Scheduler = ecs.NewScheduler(kept...)
}

// TestSelfCollisionObstacleEdge: Lagrangian cloth falling onto the box of
// `edge` (lag-regular) has the box's top edge poke through its faces between
// vertices by about 10 mm once it lands (0.12 s) when nothing but the vertex
// contacts holds it (the self-collision stage taken out of the pipeline);
// with the stage, which a scene with obstacles runs for the obstacles alone
// (self_contact null) or with cloth self-contact, the box is kinematic
// geometry of the collision solve and the surface penetration (the stat's
// box-triangle depth, which shares no code with the solver) stays at zero.
func TestSelfCollisionObstacleEdge(t *testing.T) {
	for _, c := range []struct {
		self  string
		stage bool
	}{{"null", false}, {"null", true}, {`{"thickness": 0.004, "friction": 0.3}`, true}} {
		sim := build(t, load(t, "edge", [2]string{"solver.mode", "lag-regular"}, [2]string{"solver.self_contact", c.self}), 2)
		if !c.stage {
			withoutStage(sim, "self-collision")
		}
		worst := 0.0
		steps(t, sim, 32, func(i int) {
			if i%4 == 3 {
				worst = max(worst, sim.Measure().MaxPenetration)
			}
		})
		t.Logf("self_contact %s, self-collision stage %v: max surface penetration %.3g mm", c.self, c.stage, 1e3*worst)
		if !c.stage && worst < 5e-3 {
			t.Fatalf("without the kinematic box the edge pokes only %g m through: the test checks nothing", worst)
		}
		if c.stage && worst > 1e-4 {
			t.Fatalf("with the kinematic box: surface penetration %g m", worst)
		}
	}
}

// TestSelfCollisionPlaneSquare: the fail-safe holds cloth above a plane
// obstacle (planeQuad's square under the cloth): a 5x5 sheet 3 mm over the
// ground, 5 m from the plane's point, with solved velocities that would
// carry it 7 mm through the plane in one step, ends the step on or above
// it. Without the square it ends 7 mm below (checked).
func TestSelfCollisionPlaneSquare(t *testing.T) {
	sim := build(t, load(t, "crumple", [2]string{"bodies.0.pins", "[]"}, [2]string{"bodies.0.resolution", "5"}, [2]string{"bodies.0.position", "[5, 5, 0.003]"}), 1)
	s := sim.State
	s.H = 0.005
	for i := range s.NumVerts() {
		s.VNew[3*i], s.VNew[3*i+1], s.VNew[3*i+2] = 0.1, 0, -2
	}
	lowest := func() float64 {
		z := math.Inf(1)
		for i := range s.NumVerts() {
			z = math.Min(z, s.X[3*i+2]+s.H*s.VNew[3*i+2])
		}
		return z
	}
	if z := lowest(); z > -0.006 {
		t.Fatalf("the solved velocities end at z = %g: the test checks nothing", z)
	}
	if err := sim.SelfCollision.Step(sim.World); err != nil {
		t.Fatal(err)
	}
	if z := lowest(); z < 0 {
		t.Fatalf("after the fail-safe the sheet ends %g m below the plane", -z)
	}
}
