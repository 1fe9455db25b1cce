package systems

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
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

// TestTriangleCoverRadius: every point of a triangle lies within L/sqrt(3)
// of one of its corners, L its longest edge (markApart's bound), on random
// triangles of every shape sampled on a barycentric grid; the equilateral
// triangle's centre attains it.
func TestTriangleCoverRadius(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for trial := range 2000 {
		var c [3]dense.Vec3
		for k := range c {
			c[k] = dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		}
		if trial == 0 {
			c = [3]dense.Vec3{{0, 0, 0}, {1, 0, 0}, {0.5, math.Sqrt(3) / 2, 0}}
		}
		L := max(c[1].Sub(c[0]).Norm(), c[2].Sub(c[1]).Norm(), c[0].Sub(c[2]).Norm())
		const n = 60
		for i := 0; i <= n; i++ {
			for j := 0; i+j <= n; j++ {
				a, b := float64(i)/n, float64(j)/n
				p := c[0].Scale(1 - a - b).Add(c[1].Scale(a)).Add(c[2].Scale(b))
				near := min(p.Sub(c[0]).Norm(), p.Sub(c[1]).Norm(), p.Sub(c[2]).Norm())
				if r := near / (L / math.Sqrt(3)); r > 1+1e-12 {
					t.Fatalf("triangle %v: a point %g times L/sqrt(3) from every corner", c, r)
				} else {
					worst = max(worst, r)
				}
			}
		}
	}
	if worst < 1-1e-9 {
		t.Fatalf("the bound is never attained (worst %g): the equilateral centre is not sampled", worst)
	}
}

// apartScene is markApart's test bed: a square sheet of the given size
// (m) and, around the origin, a capsule, a sphere, a turned box and a
// tilted plane.
func apartScene(size float64) *scenes.Scene {
	return &scenes.Scene{Name: "apart", Gravity: [3]float64{0, 0, -9.81}, TimeStep: 1.0 / 120, Duration: 1, FrameRate: 60,
		Solver: scenes.Solver{Tolerance: 1e-3, MaxIterations: 100, Thickness: 0.02, Linear: scenes.LinearPCG, ContactSolver: scenes.ContactFilter},
		Bodies: []scenes.Body{{Name: "sheet", Size: [2]float64{size, size}, Resolution: 4, Position: [3]float64{0, 0, 1},
			Material: scenes.Material{Density: 0.2, StretchStiffness: 1000, ShearStiffness: 1000, BendingStiffness: 1e-4}}},
		Obstacles: []scenes.Obstacle{
			{Name: "capsule", Type: scenes.Capsule, A: [3]float64{-0.6, 0, 0}, B: [3]float64{-0.5, 0.05, 0}, Radius: 0.05},
			{Name: "sphere", Type: scenes.Sphere, Center: [3]float64{0, 0, 0}, Radius: 0.06},
			{Name: "box", Type: scenes.Box, Center: [3]float64{0.6, 0, 0}, HalfExtents: [3]float64{0.05, 0.04, 0.03}, Orientation: [3]float64{10, 20, 30}},
			{Name: "ground", Type: scenes.Plane, Center: [3]float64{0, 0, -0.3}, Normal: [3]float64{0, 0.3, 1}},
		},
	}
}

// apartCentres are the centres of apartScene's obstacles (the capsule's
// midpoint; a point of the plane), in obstacle order.
var apartCentres = []dense.Vec3{{-0.55, 0.025, 0}, {0, 0, 0}, {0.6, 0, 0}, {0, 0, -0.3}}

// apartPlacement sets how placeNearObstacle places the sheet: its centre
// dist[0] + dist[1] U(0,1) m from the obstacle's centre in a random
// direction (plane[0] + plane[1] U(0,1) m straight over the plane's point),
// its vertices jittered by jitter m with velocities 0.5 N(0,1) m/s, the
// obstacles moving at vel N(0,1) m/s and turning at omega N(0,1) rad/s.
type apartPlacement struct {
	dist, plane        [2]float64
	jitter, vel, omega float64
}

// placeNearObstacle places fs's sheet (rest: its vertices' rest positions,
// centred at z = 1) by p near obstacle trial mod 4 and sets every
// obstacle's motion, drawing from rng.
func placeNearObstacle(fs *SelfCollision, rest []float64, rng *rand.Rand, trial int, p apartPlacement) {
	s := fs.state
	c := apartCentres[trial%len(apartCentres)]
	dir := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	dir = dir.Scale((p.dist[0] + p.dist[1]*rng.Float64()) / dir.Norm())
	if trial%len(apartCentres) == 3 {
		dir = dense.Vec3{0, 0, p.plane[0] + p.plane[1]*rng.Float64()}
	}
	for i := range s.NumVerts() {
		for k := range 3 {
			s.X[3*i+k] = rest[3*i+k] - []float64{0, 0, 1}[k] + c[k] + dir[k] + p.jitter*rng.NormFloat64()
			s.VNew[3*i+k] = 0.5 * rng.NormFloat64()
		}
	}
	for i := range fs.obs {
		o := &fs.obs[i]
		o.Vel = dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(p.vel)
		o.Omega = dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(p.omega)
		if o.Kind == geom.Plane {
			fs.planeQuad(i)
		}
	}
}

// TestMarkApartSound: on random placements and motions of a small sheet
// near a capsule, a sphere, a box and a plane (each moving and turning),
// every obstacle markApart leaves out of the fail-safe is farther than the
// kinematic thickness from the cloth over the whole step, checked by brute
// force on the fail-safe's own view of the step (the obstacle meshes moving
// linearly from x1 - h v to x1, the cloth from x to x + h v): sample points
// of the cloth's triangles against the mesh triangles, and the mesh vertices
// against the cloth triangles, at five times of the step. Both outcomes
// occur.
func TestMarkApartSound(t *testing.T) {
	sc := apartScene(0.12)
	sim, fs := failSafeFixture(t, sc)
	s := sim.State
	rest := append([]float64(nil), s.X...)
	rng := rand.New(rand.NewPCG(5, 6))
	apart, near := 0, 0
	for trial := range 80 {
		// The sheet's centre 10 to 25 cm from one obstacle's centre (2
		// to 12 cm over the plane), its vertices jittered by 1 cm.
		placeNearObstacle(fs, rest, rng, trial, apartPlacement{dist: [2]float64{0.1, 0.15}, plane: [2]float64{0.02, 0.1}, jitter: 0.01, vel: 0.5, omega: 1})
		fs.markApart(true)
		i := trial % len(apartCentres) // the obstacle the sheet is placed at
		if !fs.apart[i] {
			near++
			continue
		}
		apart++
		if d := bruteStepDistance(fs, i); d <= fs.params.KinematicThickness {
			t.Fatalf("trial %d: obstacle %s marked apart comes within %g m of the cloth (thickness %g)", trial, fs.obs[i].Name, d, fs.params.KinematicThickness)
		}
	}
	t.Logf("%d obstacle-steps apart, %d not", apart, near)
	if apart < 10 || near < 10 {
		t.Fatalf("%d apart and %d not: the trials do not test both outcomes", apart, near)
	}
}

// TestMarkApartMatchesBound: markApart's early exit (an obstacle within
// reach of one vertex is not apart), its start at the vertex that decided
// the last step and its squared maxima decide as the bound evaluated over
// every vertex and edge does (boundApart), on placements of a small sheet
// whose bound lands near the threshold, one after the other (so the
// remembered vertices are those of other placements).
func TestMarkApartMatchesBound(t *testing.T) {
	sc := apartScene(0.06)
	sim, fs := failSafeFixture(t, sc)
	s := sim.State
	rest := append([]float64(nil), s.X...)
	rng := rand.New(rand.NewPCG(7, 8))
	// The sheet's centre 8 to 20 cm from an obstacle's centre (2 to 10 cm
	// over the plane): its bound (about 1.4 cm short of the least
	// distance, 2.2 cm needed) ends on either side of the threshold.
	apart, near := 0, 0
	for trial := range 400 {
		placeNearObstacle(fs, rest, rng, trial, apartPlacement{dist: [2]float64{0.08, 0.12}, plane: [2]float64{0.02, 0.08}, jitter: 0.002, vel: 0.3, omega: 0.2})
		fs.markApart(true)
		for i := range fs.obs {
			want := boundApart(fs, i)
			if fs.apart[i] != want {
				t.Fatalf("trial %d: obstacle %s apart %v, its bound over every vertex says %v", trial, fs.obs[i].Name, fs.apart[i], want)
			}
			if i == trial%len(apartCentres) {
				if want {
					apart++
				} else {
					near++
				}
			}
		}
	}
	t.Logf("%d obstacle-steps apart, %d not", apart, near)
	if apart < 50 || near < 50 {
		t.Fatalf("%d apart and %d not: the trials do not test both outcomes", apart, near)
	}
}

// boundApart evaluates markApart's bound for obstacle i over every cloth
// vertex and edge, on vectors, without its early exit and squared maxima
// (TestMarkApartSound): markApart must decide as it does.
func boundApart(fs *SelfCollision, i int) bool {
	s, o := fs.state, &fs.obs[i]
	switch o.Kind {
	case geom.Plane, geom.Sphere, geom.Box, geom.Capsule:
	default:
		return false
	}
	h := s.H
	dmin, slip := math.Inf(1), 0.0
	for j := 0; j+2 < len(s.X); j += 3 {
		v := dense.Vec3(s.VNew[j : j+3])
		d, _ := geom.SignedDistance(&o.Shape, o.Offset, dense.Vec3(s.X[j:j+3]).Add(v.Scale(h)))
		dmin = min(dmin, d)
		slip = max(slip, h*v.Sub(o.Vel).Norm())
	}
	L := 0.0
	for f := 0; f+2 < len(s.Faces); f += 3 {
		for k := range 3 {
			a, b := 3*int(s.Faces[f+k]), 3*int(s.Faces[f+(k+1)%3])
			e := dense.Vec3(s.X[b : b+3]).Sub(dense.Vec3(s.X[a : a+3]))
			du := dense.Vec3(s.VNew[b : b+3]).Sub(dense.Vec3(s.VNew[a : a+3]))
			L = max(L, e.Add(du.Scale(h)).Norm())
		}
	}
	need := apartMargin*fs.params.KinematicThickness + 2*fs.params.Tolerance()
	return dmin-L/math.Sqrt(3)-slip-h*o.Omega.Norm()*fs.meshes[i].radius > need
}

// failSafeFixture builds scene sc (Lagrangian, with obstacles and no
// self-contact) and readies its obstacle fail-safe's meshes.
func failSafeFixture(t *testing.T, sc *scenes.Scene) (*Sim, *SelfCollision) {
	t.Helper()
	sim := build(t, sc, 1)
	fs := sim.SelfCollision
	if fs == nil {
		t.Fatal("no obstacle fail-safe in a Lagrangian scene with obstacles")
	}
	if err := fs.prepare(sim.World, false); err != nil {
		t.Fatal(err)
	}
	return sim, fs
}

// TestMarkApartEachTerm: three steps in which the cloth comes within the
// thickness of an obstacle only through one term of markApart's bound, and
// which it must not mark apart (each is marked apart with that term left
// out): a coarse sheet's face centre over a sphere, its corners farther
// (L / sqrt(3)); a sheet that ends the step far from a sphere after
// starting it close (the relative motion); a capsule turning fast under a
// sheet near its end (omega r).
func TestMarkApartEachTerm(t *testing.T) {
	sheet := func(size float64, res int, z float64) *scenes.Scene {
		return &scenes.Scene{Name: "term", Gravity: [3]float64{0, 0, -9.81}, TimeStep: 1.0 / 120, Duration: 1, FrameRate: 60,
			Solver: scenes.Solver{Tolerance: 1e-3, MaxIterations: 100, Thickness: 0.02, Linear: scenes.LinearPCG, ContactSolver: scenes.ContactFilter},
			Bodies: []scenes.Body{{Name: "sheet", Size: [2]float64{size, size}, Resolution: res, Position: [3]float64{0, 0, z},
				Material: scenes.Material{Density: 0.2, StretchStiffness: 1000, ShearStiffness: 1000, BendingStiffness: 1e-4}}},
		}
	}
	sphere := scenes.Obstacle{Name: "ball", Type: scenes.Sphere, Radius: 0.06}
	for _, c := range []struct {
		name string
		sc   *scenes.Scene
		set  func(s *ClothState, o *components.Obstacle)
	}{
		{"face centre", sheet(0.12, 2, 0.079), func(s *ClothState, o *components.Obstacle) {
			// The 2x2 sheet's vertices lie on a 6 cm grid: the ball
			// under the centre of a face, 1.9 cm below it.
			o.Offset = dense.Vec3{0.02, -0.02, 0}
		}},
		{"relative motion", sheet(0.05, 5, 0.1), func(s *ClothState, o *components.Obstacle) {
			// 4 cm over the ball at the step's end, moving up at 3 m/s
			// (2.5 cm in the step).
			for i := range s.NumVerts() {
				s.VNew[3*i+2] = 3
			}
			for i := range s.NumVerts() {
				s.X[3*i+2] -= 3 * s.H
			}
		}},
		{"turning", sheet(0.06, 6, 0.035), func(s *ClothState, o *components.Obstacle) {
			// A 0.5 m capsule along x 3.5 cm under the sheet, its end
			// under the sheet's centre, turning at 20 rad/s about y: the
			// end was 4.2 cm higher at the step's start.
			o.Omega = dense.Vec3{0, 20, 0}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := c.sc
			if c.name == "turning" {
				sc.Obstacles = []scenes.Obstacle{{Name: "arm", Type: scenes.Capsule, A: [3]float64{-0.5, 0, -0.02}, B: [3]float64{0, 0, -0.02}, Radius: 0.02}}
			} else {
				sc.Obstacles = []scenes.Obstacle{sphere}
			}
			sim, fs := failSafeFixture(t, sc)
			c.set(sim.State, &fs.obs[0])
			if d := bruteStepDistance(fs, 0); d >= fs.params.KinematicThickness {
				t.Fatalf("the cloth stays %g m from the obstacle (thickness %g): the case tests nothing", d, fs.params.KinematicThickness)
			}
			fs.markApart(true)
			if fs.apart[0] {
				t.Fatal("marked apart")
			}
		})
	}
}

// bruteStepDistance is the least distance between the cloth and obstacle
// i's mesh over the fail-safe's step, sampled (TestMarkApartSound).
func bruteStepDistance(fs *SelfCollision, i int) float64 {
	s, o, m := fs.state, &fs.obs[i], &fs.meshes[i]
	pl := placementOf(o)
	h := s.H
	var q1, qv []dense.Vec3
	for _, p := range m.pos {
		x0, x1, x2, v0, v1, v2 := pl.at(p[0], p[1], p[2], 0, 0, 0)
		q1, qv = append(q1, dense.Vec3{x0, x1, x2}), append(qv, dense.Vec3{v0, v1, v2})
	}
	best := math.Inf(1)
	for _, t := range []float64{0, 0.25, 0.5, 0.75, 1} {
		q := make([]dense.Vec3, len(q1))
		for k := range q {
			q[k] = q1[k].Sub(qv[k].Scale((1 - t) * h))
		}
		x := func(v int32) dense.Vec3 {
			return dense.Vec3(s.X[3*v : 3*v+3]).Add(dense.Vec3(s.VNew[3*v : 3*v+3]).Scale(t * h))
		}
		for f := 0; f+2 < len(s.Faces); f += 3 {
			a, b, c := x(s.Faces[f]), x(s.Faces[f+1]), x(s.Faces[f+2])
			for _, w := range [][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {1.0 / 3, 1.0 / 3, 1.0 / 3}} {
				p := a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
				for g := 0; g+2 < len(m.faces); g += 3 {
					_, d := geom.PointTriangleClosest(p, q[m.faces[g]], q[m.faces[g+1]], q[m.faces[g+2]])
					best = min(best, d)
				}
			}
			for _, p := range q {
				_, d := geom.PointTriangleClosest(p, a, b, c)
				best = min(best, d)
			}
		}
	}
	return best
}
