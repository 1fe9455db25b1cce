package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
)

// TestEOLMeshObstacleMatchesBox: in EOL mode (solver.mode eol), cloth lying
// on the top of a box, away from its edges, meets a triangle-mesh obstacle
// through the same Lagrangian (smooth) contacts as the analytic box: on the
// 12-triangle mesh of the same box, static, turning under the cloth with
// friction, and rising as a two-frame OBJ sequence against the box's
// velocity motion, the runs agree to the solvers' rounding and no vertex
// goes into the mesh. (The cloth stays away from the mesh's sharp edges and
// corners here: TestEOLMeshBoxCorner takes it over them.)
func TestEOLMeshObstacleMatchesBox(t *testing.T) {
	base := [][2]string{{"bodies.0.pins", "[]"}, {"bodies.0.position", "[-0.3, 0, 0.003]"},
		{"bodies.0.size", "[0.6, 0.6]"}, {"bodies.0.resolution", "10"},
		{"solver.eol", `{"min_edge": 0.01, "min_angle": 10, "border_angle": 20, "flat_angle": 5, "reach": 0.005}`}, {"solver.mode", "eol"}}
	meshMatchesBox(t, base, []meshBoxCase{
		{"static", nil, nil, 0, 40},
		{"turning", [][2]string{{"solver.friction", "0.6"}, {"obstacles.0.motion", `{"angular_velocity": [0, 0, 45]}`}}, nil, 0, 40},
		{"rising sequence", [][2]string{{"obstacles.0.motion", `{"velocity": [0, 0, 0.1], "stop": 0.25}`}}, []float64{0, 0.025}, 4, 60},
	})
}

// TestEOLMeshBoxCorner: the friction scene's cloth dropped on the corner of
// one box (its inner top corner under the cloth's centre, no friction)
// slides off it over the corner and two edges. With the box as a 12-triangle
// mesh, the mesh's trihedral corner is an EOL corner feature as the box's is
// (geom.MarkSharpEdges): the cloth gets an EOL vertex on it in as many steps
// (within a tenth), no point of the surface enters the mesh (0.48 mm did
// when the mesh's edges ended at the corner with no feature there), and its
// centre of mass follows the box run's to within 1% of the distance it
// travels in the 0.3 s (2% without the corner feature: 6.6 mm of 0.33 m).
func TestEOLMeshBoxCorner(t *testing.T) {
	one := [2]string{"obstacles", `[{"name": "box00", "type": "box", "center": [-0.35, -0.35, -0.25], "half_extents": [0.25, 0.25, 0.25]}]`}
	box, mesh := build(t, load(t, "friction", one), 2), build(t, withMeshBox(t, load(t, "friction", one), nil, 0), 2)
	onCorner := func(s *Sim) bool {
		for _, ev := range s.EOL.verts {
			if s.EOL.features[ev.feature].Kind == components.FeatureCorner {
				return true
			}
		}
		return false
	}
	centre := func(s *Sim) dense.Vec3 {
		var c dense.Vec3
		m := 0.0
		for v := range s.State.NumVerts() {
			c = c.Add(vec(s.State.X, int32(v)).Scale(s.State.Mass[v]))
			m += s.State.Mass[v]
		}
		return c.Scale(1 / m)
	}
	start := centre(box)
	var boxSteps, meshSteps int
	pen := 0.0
	for range 60 {
		for _, s := range []*Sim{box, mesh} {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		if onCorner(box) {
			boxSteps++
		}
		if onCorner(mesh) {
			meshSteps++
		}
		pen = math.Max(pen, mesh.Measure().MaxPenetration)
	}
	moved, diff := centre(box).Sub(start).Norm(), centre(box).Sub(centre(mesh)).Norm()
	t.Logf("steps with a corner EOL vertex: box %d, mesh %d; centres %.3g mm apart after moving %.3g m; surface penetration of the mesh %.3g mm",
		boxSteps, meshSteps, 1e3*diff, moved, 1e3*pen)
	if boxSteps == 0 || math.Abs(float64(meshSteps-boxSteps)) > 0.1*float64(boxSteps) {
		t.Errorf("a corner EOL vertex in %d steps over the mesh, %d over the box", meshSteps, boxSteps)
	}
	if pen > 1e-4 {
		t.Errorf("the cloth's surface %.3g mm inside the mesh", 1e3*pen)
	}
	if diff > 0.01*moved {
		t.Errorf("centres of mass %.3g mm apart after moving %.3g m", 1e3*diff, moved)
	}
}
