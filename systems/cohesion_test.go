package systems

import (
	"fmt"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// hangingWeave is a 6 x 6-yarn plain weave (tablecloth's yarns: 5.6 mm
// spacing, 5 g/m) hung from its top edge, its crossings with friction 0.3
// and the given cohesion (N).
func hangingWeave(cohesion float64) string {
	return fmt.Sprintf(`{"name": "hanging-weave", "gravity": [0, 0, -9.81], "dt": 0.001, "duration": 0.1, "fps": 25,
 "solver": {"tolerance": 1e-4, "max_iterations": 2000, "contact_thickness": 0.001, "friction": 0, "linear": "pcg"},
 "bodies": [], "obstacles": [],
 "rods": {"eil": true, "friction": 0.3, "contact_distance": 0.0005, "strands": [],
  "fabrics": [{"name": "weave", "type": "woven", "weave": "plain", "warps": 6, "wefts": 6, "spacing": 0.0056, "crimp": 0,
   "yarn_radius": 0.00225, "node_spacing": 0.0028, "position": [0, 0, 0], "orientation": [90, 0, 0],
   "material": {"stretch_stiffness": 500, "bending_stiffness": 1e-5, "linear_density": 0.005, "damping": 0.5},
   "pins": [{"edge": "top"}], "cohesion": %g}]}}`, cohesion)
}

// TestHangingWeaveCohesion: hung from its top edge, a weave of straight
// yarns crossing at shared points has no normal force at its crossings, so
// friction alone (mu 0.3) lets every weft slide down the warps and off
// (Coulomb: |f| <= mu N = 0). A crossing's cohesion c holds it while its
// load stays under c: each weft weighs 0.0336 m x 5 g/m x 9.81 = 1.65 mN,
// 0.27 mN on each of its six crossings, so c = 0.1 mN lets the wefts slide
// and c = 1 mN holds the weave as it hangs.
func TestHangingWeaveCohesion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cohesion float64
		holds    bool
	}{{0, false}, {1e-4, false}, {1e-3, true}} {
		sc, err := scenes.Parse([]byte(hangingWeave(c.cohesion)), "hanging-weave")
		if err != nil {
			t.Fatal(err)
		}
		sim := build(t, sc, 1)
		lowest := func() float64 {
			z := 1.0
			for _, x := range sim.Rods.Step.X {
				z = min(z, x[2])
			}
			return z
		}
		z0, n0 := lowest(), len(sim.Rods.Step.Contacts)
		for range 60 {
			if err := sim.Step(); err != nil {
				t.Fatalf("cohesion %g: %v", c.cohesion, err)
			}
		}
		z, n := lowest(), len(sim.Rods.Step.Contacts)
		sim.Close()
		t.Logf("cohesion %g N: crossings %d -> %d, lowest point %.1f -> %.1f mm", c.cohesion, n0, n, 1e3*z0, 1e3*z)
		if held := n == n0 && z0-z < 1e-3; held != c.holds {
			t.Errorf("cohesion %g N: crossings %d -> %d, lowest point dropped %.1f mm: held %v, want %v", c.cohesion, n0, n, 1e3*(z0-z), held, c.holds)
		}
	}
}
