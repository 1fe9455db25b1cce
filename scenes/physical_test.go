package scenes

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
)

// TestPhysicalRejections: the meaningless set-ups of issue 22 are errors at
// load naming the field, and every built-in scene still loads.
func TestPhysicalRejections(t *testing.T) {
	for _, info := range Builtins() {
		s, err := Builtin(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Model(); err != nil {
			t.Errorf("built-in %s: %v", info.Name, err)
		}
	}
	for _, c := range []struct {
		scene string
		set   [][2]string
		want  string
	}{
		{"sphere-drop", [][2]string{{"solver.contact_thickness", "10"}}, "solver.contact_thickness: 10 m is not less than half the 1 m shorter side"},
		{"sphere-drop", [][2]string{{"solver.contact_thickness", "0.5"}}, "solver.contact_thickness: 0.5 m is not less than half"},
		{"twist", [][2]string{{"solver.self_contact.thickness", "1"}}, "solver.self_contact.thickness: 1 m is not less than half"},
		{"sphere-drop", [][2]string{{"bodies.0.material.density", "1e-300"}}, "bodies[0].material.density: 1e-300 kg/m^2 gives vertices of"},
		{"sphere-drop", [][2]string{{"bodies.0.position", "[0,0,0.25]"}}, "bodies[0].position: vertex"},
		{"sphere-drop", [][2]string{{"bodies.0.position", "[0,0,-0.5]"}}, "inside obstacles[1] (plane \"ground\")"},
		{"edge", [][2]string{{"bodies.0.position", "[0.9,0.5,-0.6]"}}, "inside obstacles[0] (box \"box\")"},
		{"edge", [][2]string{{"solver.eol.reach", "10"}}, "solver.eol.reach: 10 m is not less than half the shortest edge of obstacles[0] (\"box\"), 1 m"},
		{"edge", [][2]string{{"solver.eol.reach", "0.5"}}, "solver.eol.reach: 0.5 m"},
		{"rod-table", [][2]string{{"rods.edge_nodes.0.a", "[-1,5,0]"}, {"rods.edge_nodes.0.b", "[1,5,0]"}}, "rods.edge_nodes[0].u: strand \"rod\"'s point there"},
	} {
		s, err := Builtin(c.scene)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range c.set {
			if err := s.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		_, err = s.Model()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %v: got %v, want an error containing %q", c.scene, c.set, err, c.want)
		}
	}
}

// TestMemoryEstimate: the largest sheet and strand the format allows get an
// error with the estimate, naming the field, before any mesh is built, when
// the memory available (here a GOMEMLIMIT of 64 MiB) is less than the
// estimate; the estimate is the measured per-vertex (per-node) cost times
// the count.
func TestMemoryEstimate(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(64 << 20))
	for _, c := range []struct {
		scene, path, field string
		value              int
		want               float64
	}{
		{"drape", "bodies.0.resolution", "bodies[0].resolution", MaxResolution, bytesPerVertexPCG * MaxResolution * MaxResolution},
		{"rod-hang", "rods.strands.0.nodes", "rods.strands[0].nodes", MaxRodNodes, bytesPerRodNode * MaxRodNodes},
	} {
		s, err := Builtin(c.scene)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Set(c.path, strconv.Itoa(c.value)); err != nil {
			t.Fatal(err)
		}
		need, field := s.MemoryEstimate()
		if field != c.field || need != c.want {
			t.Errorf("%s=%d: %.4g bytes for %q, want %.4g for %q", c.path, c.value, need, field, c.want, c.field)
		}
		_, err = s.Model()
		if want := fmt.Sprintf("%s: the scene needs about %.1f GB", c.field, need/1e9); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s=%d: got %v, want %q", c.path, c.value, err, want)
		}
	}
}
