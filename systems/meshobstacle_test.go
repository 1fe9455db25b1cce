package systems

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
)

// boxOBJ writes the box of centre c and half extents h as 12 triangles
// (counter-clockwise from outside), moved by dz along z.
func boxOBJ(c, h [3]float64, dz float64) string {
	var sb strings.Builder
	for k := range 8 {
		fmt.Fprintf(&sb, "v %.17g %.17g %.17g\n", c[0]+float64(2*(k&1)-1)*h[0], c[1]+float64(2*((k>>1)&1)-1)*h[1], c[2]+dz+float64(2*((k>>2)&1)-1)*h[2])
	}
	sb.WriteString("f 1 3 4\nf 1 4 2\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 3 7 8\nf 3 8 4\nf 1 5 7\nf 1 7 3\nf 2 4 8\nf 2 8 6\n")
	return sb.String()
}

// withMeshBox returns scene sc with its box obstacle 0 replaced by the same
// box as a triangle mesh (written about the origin, placed at the box's
// centre, with its orientation and motion): one OBJ file or, with a
// non-empty dz, a sequence of frames moved by dz[k] along z at fps.
func withMeshBox(t *testing.T, sc *scenes.Scene, dz []float64, fps float64) *scenes.Scene {
	t.Helper()
	dir := t.TempDir()
	o := &sc.Obstacles[0]
	write := func(name string, d float64) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(boxOBJ([3]float64{}, o.HalfExtents, d)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mesh := fmt.Sprintf(`{"name":%q, "type":"mesh", "center":%s, "orientation":%s`, o.Name, vec3JSON(o.Center), vec3JSON(o.Orientation))
	if len(dz) == 0 {
		write("box.obj", 0)
		mesh += `, "obj":"box.obj"`
		if o.Motion != nil {
			motion, err := json.Marshal(o.Motion)
			if err != nil {
				t.Fatal(err)
			}
			mesh += `, "motion":` + string(motion)
		}
	} else {
		for k, d := range dz {
			write(fmt.Sprintf("f%d.obj", k), d)
		}
		mesh += fmt.Sprintf(`, "sequence":{"files":"f%%d.obj", "count":%d, "fps":%g}`, len(dz), fps)
	}
	if err := sc.Set("obstacles.0", mesh+"}"); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := scenes.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func vec3JSON(v [3]float64) string { return fmt.Sprintf("[%g, %g, %g]", v[0], v[1], v[2]) }

// TestMeshObstacleMatchesBox runs cloth against a box and against the same
// box as a 12-triangle mesh (static on a rest, turning under the cloth with
// friction, and rising as a two-frame OBJ sequence against the box's
// velocity motion): the signed distances and normals agree (the
// pseudo-normals give the box's sign at its edges and corners) and so do
// the obstacle velocities, so the runs agree to the solvers' rounding, and
// no vertex goes into the mesh.
func TestMeshObstacleMatchesBox(t *testing.T) {
	base := [][2]string{{"bodies.0.pins", "[]"}, {"bodies.0.position", "[-0.3, 0, 0.003]"},
		{"bodies.0.size", "[0.6, 0.6]"}, {"bodies.0.resolution", "10"}}
	meshMatchesBox(t, base, []meshBoxCase{
		{"static turned", [][2]string{{"obstacles.0.orientation", "[0, 0, 17]"}}, nil, 0, 60},
		{"turning", [][2]string{{"solver.friction", "0.6"}, {"obstacles.0.motion", `{"angular_velocity": [0, 0, 45]}`}}, nil, 0, 60},
		{"rising sequence", [][2]string{{"obstacles.0.motion", `{"velocity": [0, 0, 0.1], "stop": 0.25}`}}, []float64{0, 0.025}, 4, 80},
	})
}

// meshBoxCase is a run of box-edge (with sets) against its box and against
// the box as a mesh (withMeshBox with dz and fps) for steps steps.
type meshBoxCase struct {
	name  string
	sets  [][2]string
	dz    []float64
	fps   float64
	steps int
}

// meshMatchesBox runs each case of box-edge with base's sets and checks
// that the box and mesh runs agree to the solvers' rounding (1e-3 of the
// largest vertex motion, and 10 um), that the mesh run has contact rows,
// and that no vertex goes 0.1 mm into the mesh.
func meshMatchesBox(t *testing.T, base [][2]string, cases []meshBoxCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			box := load(t, "box-edge", append(base, c.sets...)...)
			mesh := withMeshBox(t, load(t, "box-edge", append(base, c.sets...)...), c.dz, c.fps)
			a, b := build(t, box, 2), build(t, mesh, 2)
			worst, diff, contacts := 0.0, 0.0, 0
			steps(t, a, c.steps, nil)
			steps(t, b, c.steps, func(int) {
				worst = math.Max(worst, b.Measure().MaxVertexPen)
				contacts += len(b.State.Contacts)
			})
			xa, xb := a.Positions(0), b.Positions(0)
			moved := 0.0
			x0 := build(t, box, 1).Positions(0)
			for i := range xa {
				diff = math.Max(diff, dense.Vec3(xa[i]).Sub(dense.Vec3(xb[i])).Norm())
				moved = math.Max(moved, dense.Vec3(xa[i]).Sub(dense.Vec3(x0[i])).Norm())
			}
			t.Logf("%d contact rows over the mesh run; largest vertex moved %.3g m; box vs mesh differ by at most %.3g m; mesh vertex penetration %.3g mm", contacts, moved, diff, 1e3*worst)
			if contacts == 0 {
				t.Fatal("no contact rows against the mesh")
			}
			if diff > 1e-3*moved || diff > 1e-5 {
				t.Errorf("box and mesh runs differ by %.3g m (vertices moved up to %.3g m)", diff, moved)
			}
			if worst > 1e-4 {
				t.Errorf("vertex %.3g mm inside the mesh", 1e3*worst)
			}
		})
	}
}

// TestSampleMesh: frames at k/fps, linear blends in between, the last held
// or, looping, blended back to the first; advance's velocity is the step's
// finite difference, which inside a frame interval is the frames'
// difference times fps.
func TestSampleMesh(t *testing.T) {
	m := &model.MeshObstacle{Faces: [][3]int32{{0, 1, 2}}, FPS: 10,
		Frames: [][][3]float64{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}, {{0, 0, 3}, {1, 0, 3}, {0, 1, 3}}}}
	z := func(tm float64) float64 {
		dst := make([]float64, 9)
		sampleMesh(m, tm, dst)
		return dst[2]
	}
	for _, c := range []struct{ t, hold, loop float64 }{
		{-1, 0, 0}, {0, 0, 0}, {0.05, 0.5, 0.5}, {0.1, 1, 1}, {0.15, 2, 2}, {0.2, 3, 3}, {0.25, 3, 1.5}, {0.3, 3, 0}, {0.35, 3, 0.5},
	} {
		m.Loop = false
		if got := z(c.t); math.Abs(got-c.hold) > 1e-12 {
			t.Errorf("t %v: z %v, want %v", c.t, got, c.hold)
		}
		m.Loop = true
		if got := z(c.t); math.Abs(got-c.loop) > 1e-12 {
			t.Errorf("t %v looping: z %v, want %v", c.t, got, c.loop)
		}
	}
	m.Loop = false
	sc := &Scripts{}
	surf, seq, err := newMeshObstacle(nil, m, sc)
	if err != nil || seq != 0 {
		t.Fatal(seq, err)
	}
	sc.Sequences[0].advance(nil, 0.12, 0.13)
	if v := surf.Vel[2]; math.Abs(v-20) > 1e-9 {
		t.Errorf("velocity %v between frames 1 and 2, want 20", v)
	}
	sc.Sequences[0].advance(nil, 0.3, 0.31)
	if v := surf.Vel[2]; v != 0 {
		t.Errorf("velocity %v after the last frame, want 0", v)
	}
}

// TestMeshSurfacesInWorld: the world vertices MeshSurfaces gives for a
// turned mesh on a rotating motion are the model's initial vertices moved by
// the motion (model.Pose), and their velocities the pose's finite
// difference over the step to second order.
func TestMeshSurfacesInWorld(t *testing.T) {
	sc := withMeshBox(t, load(t, "box-edge", [2]string{"bodies.0.resolution", "4"}, [2]string{"bodies.0.pins", "[]"},
		[2]string{"obstacles.0.orientation", "[10, 0, 17]"},
		[2]string{"obstacles.0.motion", `{"angular_velocity": [0, 30, 45], "velocity": [0.1, 0, 0]}`}), nil, 0)
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	mo := m.Obstacles[0]
	sim := build(t, sc, 2)
	h := sc.TimeStep
	steps(t, sim, 10, nil)
	km := MeshSurfaces(sim.World, nil)
	if len(km) != 1 || len(km[0].Faces) != 36 {
		t.Fatalf("mesh surfaces %+v", km)
	}
	t1 := 10 * h
	for i, x := range mo.Mesh.Frames[0] {
		x0 := mo.Center.Add(mo.Rotation.MulVec(dense.Vec3(x).Sub(mo.Center)))
		want := model.Pose(mo.Motion, mo.Pivot, x0, t1)
		got := dense.Vec3(km[0].Pos[3*i : 3*i+3])
		if d := got.Sub(want).Norm(); d > 1e-12 {
			t.Fatalf("vertex %d at %v, want %v", i, got, want)
		}
		fd := want.Sub(model.Pose(mo.Motion, mo.Pivot, x0, t1-h)).Scale(1 / h)
		if d := dense.Vec3(km[0].Vel[3*i : 3*i+3]).Sub(fd).Norm(); d > 0.01*fd.Norm() {
			t.Errorf("vertex %d velocity %v, finite difference %v", i, km[0].Vel[3*i:3*i+3], fd)
		}
	}
}

// dressSmall is the dress scene at a coarse resolution (18 vertices around
// the waist, all pinned) for the quick tests.
func dressSmall(t *testing.T) *scenes.Scene {
	pins := make([]string, 18)
	for i := range pins {
		pins[i] = fmt.Sprintf(`{"at": [%d, -1]}`, i)
	}
	return load(t, "dress", [2]string{"bodies.0.pins", "[" + strings.Join(pins, ",") + "]"}, [2]string{"bodies.0.resolution", "19"})
}

// TestDressDeterministicAndOutOfBody runs a coarse dress (the skirt on the
// walking body sequence, self-contact on): with 1, 2 and 8 workers the
// state after 40 steps is the same bit for bit; over 100 steps (the legs
// swing forward and back, pushing the hem) the skirt touches the body (mesh
// contact rows) and no cloth vertex ever ends deeper in the body than the
// contact thickness (the budget the rows keep: see the note on receding
// surfaces in the report of issue 16; it measures 0.46 mm here).
func TestDressDeterministicAndOutOfBody(t *testing.T) {
	t.Parallel()
	const det, n = 40, 100
	var ref []float64
	for _, workers := range workerCounts(t) {
		sc := dressSmall(t)
		sim := build(t, sc, workers)
		steps(t, sim, det, nil)
		got := append(append([]float64(nil), sim.State.X...), sim.State.V...)
		if ref == nil {
			ref = got
			contacts, worst, surface := 0, 0.0, 0.0
			steps(t, sim, n-det, func(int) {
				st := sim.Measure()
				contacts += st.Contacts
				worst, surface = math.Max(worst, st.MaxVertexPen), math.Max(surface, st.MaxPenetration)
			})
			t.Logf("steps %d-%d: %d contact rows in all, max vertex penetration %.3g mm, surface %.3g mm", det, n, contacts, 1e3*worst, 1e3*surface)
			if contacts == 0 {
				t.Fatalf("the skirt never touched the body in %d steps", n)
			}
			if th := sc.Solver.Thickness; worst > th {
				t.Errorf("a cloth vertex went %.3g mm into the body, deeper than the contact thickness %.3g mm", 1e3*worst, 1e3*th)
			}
			continue
		}
		for i := range ref {
			if math.Float64bits(ref[i]) != math.Float64bits(got[i]) {
				t.Fatalf("workers=%d: entry %d differs: %v vs %v (1 worker)", workers, i, got[i], ref[i])
			}
		}
	}
}
