package systems

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
)

// TestEOLLayersOneOnFeature: in edge-layers the upper sheet lands on the
// lower one where that lies over the box edge, within the edge's reach (5
// mm) of the feature; only the lower sheet, which touches the edge, gets
// EOL vertices there (shieldHits), in every step.
func TestEOLLayersOneOnFeature(t *testing.T) {
	t.Parallel()
	sc := load(t, "edge-layers", [2]string{"duration", "0.2"})
	sim := build(t, sc, 2)
	if sim.Bodies[0].Name != "bottom" || sim.Bodies[1].Name != "top" {
		t.Fatalf("bodies %q, %q; want bottom, top", sim.Bodies[0].Name, sim.Bodies[1].Name)
	}
	eolF := generic.NewFilter1[components.EOL]()
	bottom := 0
	steps(t, sim, sc.NumSteps(), func(i int) {
		top := map[ecs.Entity]bool{}
		for _, e := range sim.Bodies[1].Verts {
			top[e] = true
		}
		q := eolF.Query(sim.World.ECS)
		for q.Next() {
			if top[q.Entity()] {
				q.Close()
				t.Fatalf("step %d: an EOL vertex on the upper sheet", i)
			}
			bottom++
		}
	})
	t.Logf("%d EOL vertex-steps on the lower sheet", bottom)
	if bottom == 0 {
		t.Fatal("no EOL vertices: the lower sheet never reached the edge")
	}
}
