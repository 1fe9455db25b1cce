package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestEOLMeshObstacleMatchesBox: in EOL mode (solver.mode eol), cloth lying
// on the top of a box, away from its edges, meets a triangle-mesh obstacle
// through the same Lagrangian (smooth) contacts as the analytic box: on the
// 12-triangle mesh of the same box, static, turning under the cloth with
// friction, and rising as a two-frame OBJ sequence against the box's
// velocity motion, the runs agree to the solvers' rounding and no vertex
// goes into the mesh. (Mesh obstacles have no sharp features in EOL mode:
// the cloth stays where they would not be reached.)
func TestEOLMeshObstacleMatchesBox(t *testing.T) {
	base := [][2]string{{"bodies.0.pins", "[]"}, {"bodies.0.position", "[-0.3, 0, 0.003]"},
		{"bodies.0.size", "[0.6, 0.6]"}, {"bodies.0.resolution", "10"},
		{"solver.eol", `{"min_edge": 0.01, "min_angle": 10, "border_angle": 20, "flat_angle": 5, "reach": 0.005}`}, {"solver.mode", "eol"}}
	for _, c := range []struct {
		name  string
		sets  [][2]string
		dz    []float64
		fps   float64
		steps int
	}{
		{"static", nil, nil, 0, 40},
		{"turning", [][2]string{{"solver.friction", "0.6"}, {"obstacles.0.motion", `{"angular_velocity": [0, 0, 45]}`}}, nil, 0, 40},
		{"rising sequence", [][2]string{{"obstacles.0.motion", `{"velocity": [0, 0, 0.1], "stop": 0.25}`}}, []float64{0, 0.025}, 4, 60},
	} {
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
			x0 := build(t, box, 1).Positions(0)
			moved := 0.0
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
