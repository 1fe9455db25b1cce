package systems

import (
	"math"
	"testing"
)

// TestWindMomentum checks the wind force against its definition: a free sheet
// without gravity or damping, facing a flow along its normal, gains in one
// step exactly the momentum h rho A |w_n| w_n (the elastic forces are internal
// and cancel in the sum).
func TestWindMomentum(t *testing.T) {
	sc := load(t, "drape",
		[2]string{"bodies.0.resolution", "6"}, [2]string{"bodies.0.pins", "[]"},
		[2]string{"bodies.0.orientation", "[0,0,0]"}, [2]string{"gravity", "[0,0,0]"},
		[2]string{"bodies.0.material.mass_damping", "0"}, [2]string{"bodies.0.material.stiffness_damping", "0"},
		[2]string{"wind", `{"velocity": [1, 2, 10], "density": 1.2, "drag": 0.3}`},
		[2]string{"solver.linear", "ldlt"}) // exact solve: PCG's residual would blur the sum
	sim := build(t, sc, 2)
	steps(t, sim, 1, nil)
	st := sim.State
	var p [3]float64
	for i, m := range st.Mass {
		for k := range 3 {
			p[k] += m * st.V[3*i+k]
		}
	}
	area := sc.Bodies[0].Size[0] * sc.Bodies[0].Size[1]
	h := sc.TimeStep
	// Normal +z: w_n = 10, w_t = (1, 2, 0).
	want := [3]float64{h * 0.3 * area * 1, h * 0.3 * area * 2, h * 1.2 * area * 10 * 10}
	for k := range 3 {
		if math.Abs(p[k]-want[k]) > 1e-9*math.Abs(want[2]) {
			t.Errorf("momentum[%d] = %.12g, want %.12g", k, p[k], want[k])
		}
	}
}

// TestPinRelease holds a sheet by two corners that let go at t = 0.1 s: until
// then the corners stay on their anchors, afterwards they fall.
func TestPinRelease(t *testing.T) {
	sc := load(t, "drape", [2]string{"bodies.0.resolution", "8"},
		[2]string{"bodies.0.pins.0.release", "0.1"}, [2]string{"bodies.0.pins.1.release", "0.1"})
	sim := build(t, sc, 1)
	if len(sim.State.Pins) != 2 {
		t.Fatalf("%d pins, want 2", len(sim.State.Pins))
	}
	v := sim.State.Pins[0].Vertex // a DOF index, stable until the release
	corner := func() float64 { return sim.State.X[3*v+2] }
	z0 := corner()
	n := int(math.Round(0.1 / sc.TimeStep))
	steps(t, sim, n, nil)
	if z := corner(); z != z0 {
		t.Fatalf("pinned corner moved before its release: z %v -> %v", z0, z)
	}
	e := sim.State.Verts[v]
	steps(t, sim, 20, nil)
	if len(sim.State.Pins) != 0 {
		t.Fatalf("%d pins left after the release time", len(sim.State.Pins))
	}
	dof := -1
	for i, x := range sim.State.Verts {
		if x == e {
			dof = i
		}
	}
	if z := sim.State.X[3*dof+2]; dof < 0 || !(z < z0-0.01) {
		t.Errorf("released corner did not fall: z %v -> %v", z0, z)
	}
}
