package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
)

// TestPotentialUsesSimulatedGravity checks potential_energy's gravity part
// against the field actually simulated: with the scene tilted by 90 degrees,
// gravity [0, 0, -9.81] becomes [0, 9.81, 0], so the energy is m g y summed
// over the vertices, not m g z.
func TestPotentialUsesSimulatedGravity(t *testing.T) {
	sim := build(t, load(t, "drape", [2]string{"incline_deg", "90"}, [2]string{"bodies.0.resolution", "8"}), 1)
	st := sim.Measure()
	var want, unrotated float64
	q := generic.NewFilter3[components.Position, components.Mass, components.Member]().Query(sim.World.ECS)
	for q.Next() {
		x, m, _ := q.Get()
		want -= float64(*m) * 9.81 * x[1]
		unrotated += float64(*m) * 9.81 * x[2]
	}
	got := st.Potential - st.ElasticEnergy
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("gravity potential %g J, want %g J (-sum m g.x with the tilted g); unrotated gravity would give %g J", got, want, unrotated)
	}
	if math.Abs(want-unrotated) < 1e-3 {
		t.Fatalf("test scene does not tell the two fields apart (%g vs %g J)", want, unrotated)
	}
}
