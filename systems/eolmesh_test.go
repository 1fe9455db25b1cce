package systems

import "testing"

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
	meshMatchesBox(t, base, []meshBoxCase{
		{"static", nil, nil, 0, 40},
		{"turning", [][2]string{{"solver.friction", "0.6"}, {"obstacles.0.motion", `{"angular_velocity": [0, 0, 45]}`}}, nil, 0, 40},
		{"rising sequence", [][2]string{{"obstacles.0.motion", `{"velocity": [0, 0, 0.1], "stop": 0.25}`}}, []float64{0, 0.025}, 4, 60},
	})
}
