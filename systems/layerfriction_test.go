package systems

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// TestLayerFriction puts a small sheet on a larger, fully pinned sheet tilted
// by theta about x, 3 mm above it (inside the 4 mm self-contact layer), with
// friction mu between the layers (solver.self_contact): Coulomb friction
// holds the top sheet below atan(mu) (26.6 degrees for mu = 0.5) and lets it
// slide above, as far as a block sliding with Coulomb friction (0.3 s, so
// that it stays on the slope); without
// friction it slides at 15 degrees too.
func TestLayerFriction(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		deg, mu float64
		slide   bool
	}{{15, 0.5, false}, {40, 0.5, true}, {15, 0, true}} {
		mu := c.mu
		th := c.deg * math.Pi / 180
		n := [3]float64{0, -math.Sin(th), math.Cos(th)} // the tilted sheets' normal
		down := [3]float64{0, -math.Cos(th), -math.Sin(th)}
		var pins []string
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				pins = append(pins, fmt.Sprintf(`{"at": [%d, %d]}`, i, j))
			}
		}
		mat := `{"density": 0.1, "stretch_stiffness": 1000, "shear_stiffness": 1000, "bending_stiffness": 1e-5, "mass_damping": 0, "stiffness_damping": 0.001}`
		src := fmt.Sprintf(`{"name": "layer-friction", "gravity": [0, 0, -9.81], "dt": 0.005, "duration": 0.3, "fps": 25,
			"solver": {"tolerance": 1e-6, "max_iterations": 2000, "contact_thickness": 0.002, "friction": 0, "linear": "pcg",
				"self_contact": {"thickness": 0.004, "friction": %g}},
			"bodies": [
				{"name": "slope", "size": [0.4, 0.4], "resolution": 9, "position": [0, 0, 0], "orientation": [%g, 0, 0], "material": %s, "pins": [%s]},
				{"name": "block", "size": [0.16, 0.16], "resolution": 5, "position": [0, %g, %g], "orientation": [%g, 0, 0], "material": %s, "pins": []}
			]}`, mu, c.deg, mat, strings.Join(pins, ", "), 0.003*n[1], 0.003*n[2], c.deg, mat)
		sc, err := scenes.Parse([]byte(src), "layer-friction.json")
		if err != nil {
			t.Fatal(err)
		}
		sim := build(t, sc, 2)
		centroid := func() (x [3]float64) {
			p := sim.Positions(1)
			for _, q := range p {
				for k := range 3 {
					x[k] += q[k] / float64(len(p))
				}
			}
			return x
		}
		x0 := centroid()
		steps(t, sim, int(math.Round(0.3/sc.TimeStep)), nil)
		x1 := centroid()
		var slid, lift float64
		for k := range 3 {
			slid += (x1[k] - x0[k]) * down[k]
			lift += (x1[k] - x0[k]) * n[k]
		}
		// Sliding freely from rest: 0.5 g (sin - mu cos) t^2 down the slope.
		free := 0.5 * 9.81 * (math.Sin(th) - mu*math.Cos(th)) * 0.3 * 0.3
		t.Logf("%g deg, mu %g: slid %.4f m down the slope (Coulomb sliding: %.4f m), moved %.4f m along the normal", c.deg, mu, slid, free, lift)
		if math.Abs(lift) > 0.004 {
			t.Errorf("%g deg: the block left the slope's contact layer (%.4f m along the normal)", c.deg, lift)
		}
		if c.slide && math.Abs(slid-free) > 0.05*free {
			t.Errorf("%g deg, mu %g (above atan(mu)): slid %.4f m, Coulomb sliding %.4f m", c.deg, mu, slid, free)
		}
		if !c.slide && math.Abs(slid) > 0.002 {
			t.Errorf("%g deg, mu %g (below atan(mu)): slid %.4f m, want it to stick", c.deg, mu, slid)
		}
	}
}
