package systems

import (
	"math"
	"testing"
)

// TestContactFilterMatchesQP solves the same contact steps (a sheet falling
// onto a sphere and the ground, with friction) with the QP solver and with the
// filtered-PCG active-set iteration, both to a tight tolerance: the two are
// solutions of the same QP, so after 120 steps the positions agree to well
// under a micrometre and the contact sets are equal. The filter's impulses
// are non-negative and every row is met. The obstacle fail-safe after the
// solve (self-collision) is taken out: its impulses are not part of the QP,
// and they amplify differences at the solve tolerance.
func TestContactFilterMatchesQP(t *testing.T) {
	run := func(solver string) *Sim {
		sc := load(t, "sphere-drop", [2]string{"bodies.0.resolution", "16"}, [2]string{"solver.contact_solver", solver},
			[2]string{"solver.tolerance", "1e-8"})
		sim := build(t, sc, 2)
		withoutStage(sim, "self-collision")
		steps(t, sim, 120, nil)
		return sim
	}
	qp, filter := run("qp"), run("filter")
	st := filter.State
	if len(st.Contacts) == 0 || len(st.Contacts) != len(qp.State.Contacts) {
		t.Fatalf("contact rows: filter %d, QP %d", len(st.Contacts), len(qp.State.Contacts))
	}
	d := 0.0
	for i := range qp.State.X {
		d = math.Max(d, math.Abs(qp.State.X[i]-st.X[i]))
	}
	if d > 1e-6 {
		t.Errorf("positions differ by %g m between the QP and the filtered solve", d)
	}
	for k, r := range st.Contacts {
		if st.Impulse[k] < 0 {
			t.Errorf("row %d: impulse %g < 0", k, st.Impulse[k])
		}
		// The row n.v >= target held before friction acted on the
		// tangential part, which leaves n.v unchanged.
		i := int(r.Vertex)
		vn := r.Normal[0]*st.VNew[3*i] + r.Normal[1]*st.VNew[3*i+1] + r.Normal[2]*st.VNew[3*i+2]
		if vn < r.Target-1e-9*(1+math.Abs(r.Target)) {
			t.Errorf("row %d: n.v = %g < target %g", k, vn, r.Target)
		}
	}
	t.Logf("max position difference %.3g m over %d contact rows", d, len(st.Contacts))
}
