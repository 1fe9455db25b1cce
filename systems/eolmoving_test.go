package systems

import (
	"math"
	"strconv"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
)

// TestEOLMovingBox lays the coarse EDGE cloth (no pins) over the box edge
// and then moves the box at a constant velocity u, from t = 0.15 s: up into
// the cloth, which must ride on it, or down and away from it at a speed the
// cloth can follow under gravity (0.2 m/s: g h = 0.05 m/s per step), or
// sideways into the hanging part. An EOL vertex that stays on the edge after
// a step moves with the edge: along both face normals n_k of the edge its
// world velocity is n_k . u (it is not pressed into, nor lifted off, the
// faces). u comes from the scene here, sharing nothing with the rows. (The
// EOL rows measured the drift to the end-of-step feature and added the
// feature's velocity again, as the Lagrangian rows once did: the rising box
// threw its EOL vertices up at 2u, the sinking one lifted every one of them
// off at each step.)
func TestEOLMovingBox(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		u    [3]float64
	}{{"rising", [3]float64{0, 0, 0.2}}, {"sinking", [3]float64{0, 0, -0.2}}, {"sideways", [3]float64{-0.2, 0, 0}}} {
		t.Run(c.name, func(t *testing.T) {
			motion := `{"velocity": [` + strconv.FormatFloat(c.u[0], 'g', -1, 64) + `, 0, ` + strconv.FormatFloat(c.u[2], 'g', -1, 64) + `], "start": 0.15}`
			sc := load(t, "edge", [2]string{"bodies.0.resolution", "16"},
				[2]string{"bodies.0.remesh.size_min", "0.02"}, [2]string{"bodies.0.remesh.size_max", "0.08"},
				[2]string{"bodies.0.pins", "[]"}, [2]string{"obstacles.0.motion", motion})
			sim := build(t, sc, 2)
			eolF := generic.NewFilter1[components.EOL]()
			vel := generic.NewMap1[components.Velocity](sim.World.ECS)
			// The edge along y at x = 0.3175, z = -0.049: its faces' normals
			// are +z (top) and -x (side).
			normals := [2][3]float64{{0, 0, 1}, {-1, 0, 0}}
			worst, checked := 0.0, 0
			steps(t, sim, 60, func(i int) {
				if i < 31 { // the box starts at step 30
					return
				}
				q := eolF.Query(sim.World.ECS)
				for q.Next() {
					if q.Get().Kind != components.FeatureEdge {
						continue
					}
					v := vel.Get(q.Entity())
					for _, n := range normals {
						var d float64
						for k := range 3 {
							d += n[k] * (v[k] - c.u[k])
						}
						worst = math.Max(worst, math.Abs(d))
					}
					checked++
				}
			})
			t.Logf("%d EOL vertex-steps after the box started; largest |n . (v - u)| %.3g m/s", checked, worst)
			if checked < 100 {
				t.Fatalf("only %d EOL vertex-steps on the moving edge: the cloth left it", checked)
			}
			if worst > 2e-3 {
				t.Errorf("an EOL vertex on the edge moves at %.3g m/s relative to it along a face normal", worst)
			}
		})
	}
}
