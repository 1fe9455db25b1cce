package systems

import (
	"math"
	"strconv"
	"testing"
)

// TestContactMovingPlane lays a sheet on the contact layer of a ground plane
// that moves along its normal: up at 0.2 m/s (into the cloth), which must
// carry the cloth at its own speed, or down at 1 m/s (away from it), which
// the cloth falls after under gravity and lands on again after 0.2 s; at
// the end (0.4 s) it moves with the plane. In
// neither may a vertex end a step inside the layer of the plane's pose at
// that time: the gap z - z_plane(t) - thickness is computed here from the
// motion, sharing nothing with the contact code. (Before the contact rows
// measured the gap to the end-of-step pose without also adding the
// obstacle's normal velocity to the target, the sinking plane let the cloth
// 5 mm, h times its speed, into the layer.)
func TestContactMovingPlane(t *testing.T) {
	const thick = 0.002
	for _, c := range []struct {
		name  string
		speed float64 // m/s along +z
	}{{"rising", 0.2}, {"sinking", -1}} {
		t.Run(c.name, func(t *testing.T) {
			sc := load(t, "drape", [2]string{"bodies.0.resolution", "6"}, [2]string{"bodies.0.pins", "[]"},
				[2]string{"bodies.0.position", "[0, 0, 0.002]"}, [2]string{"solver.contact_thickness", "0.002"},
				[2]string{"obstacles", `[{"name": "ground", "type": "plane", "center": [0, 0, 0], "normal": [0, 0, 1],
					"motion": {"velocity": [0, 0, ` + strconv.FormatFloat(c.speed, 'g', -1, 64) + `]}}]`})
			sim := build(t, sc, 1)
			h := sc.TimeStep
			lowest, vz := math.Inf(1), 0.0
			steps(t, sim, 80, func(i int) {
				plane := c.speed * float64(i+1) * h
				st := sim.State
				for k := 2; k < len(st.X); k += 3 {
					lowest = math.Min(lowest, st.X[k]-plane-thick)
				}
				vz = st.V[2]
			})
			t.Logf("lowest gap to the layer %.3g m; last v_z %.6g m/s", lowest, vz)
			if lowest < -1e-6 {
				t.Errorf("a vertex went %.3g m into the contact layer", -lowest)
			}
			if math.Abs(vz-c.speed) > 1e-6 {
				t.Errorf("the cloth on the plane moves at %.6g m/s, want the plane's %.6g", vz, c.speed)
			}
		})
	}
}

// TestContactStepAllocs: a sheet resting on the ground, every vertex with a
// contact row that stays from step to step, takes whole steps without
// allocating, with the QP solver and with the filtered-PCG active set.
func TestContactStepAllocs(t *testing.T) {
	for _, solver := range []string{"qp", "filter"} {
		t.Run(solver, func(t *testing.T) {
			sim := build(t, load(t, "drape", [2]string{"bodies.0.resolution", "12"}, [2]string{"bodies.0.pins", "[]"},
				[2]string{"bodies.0.position", "[0, 0, 0.002]"}, [2]string{"solver.contact_thickness", "0.002"},
				[2]string{"solver.contact_solver", solver},
				[2]string{"obstacles", `[{"name": "ground", "type": "plane", "center": [0, 0, 0], "normal": [0, 0, 1]}]`}), 2)
			steps(t, sim, 20, nil)
			rows := len(sim.State.Contacts)
			allocs := testing.AllocsPerRun(10, func() {
				if err := sim.Step(); err != nil {
					t.Fatal(err)
				}
				if len(sim.State.Contacts) != rows {
					t.Fatalf("contact rows %d -> %d: the set changed", rows, len(sim.State.Contacts))
				}
			})
			if rows != 144 {
				t.Fatalf("%d contact rows, want all 144 vertices", rows)
			}
			if allocs != 0 {
				t.Errorf("%.0f allocations per contact step, want 0", allocs)
			}
		})
	}
}
