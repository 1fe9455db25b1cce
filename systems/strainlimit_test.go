package systems

import (
	"math"
	"testing"
)

// TestStrainLimitScene runs the Fig. 7 set-up at a small resolution through
// the pipeline: after the step every face's principal strains are within
// [-5%, 5%] to the limiter's tolerance of 1e-3, measured independently by
// Measure, and the velocities are those that land on the limited positions
// (eq. 14), so kinetic energy is consistent with the positions moved.
func TestStrainLimitScene(t *testing.T) {
	sc := load(t, "strain-limit", [2]string{"bodies.0.resolution", "21"})
	sim := build(t, sc, 2)
	before := sim.Measure()
	if before.MaxStrain < 0.4 {
		t.Fatalf("initial max strain %.3f: the set-up should stretch by 50%%", before.MaxStrain)
	}
	x0 := append([]float64(nil), sim.State.X...)
	steps(t, sim, 1, nil)
	st := sim.Measure()
	if st.MaxStrain > 0.05+1e-3 {
		t.Errorf("max strain after limiting %.5f > 0.051", st.MaxStrain)
	}
	if st.StrainViolation == nil || *st.StrainViolation > 1e-3 {
		t.Errorf("reported violation %v", st.StrainViolation)
	}
	h := sc.TimeStep
	for j := range x0 {
		if v := (sim.State.X[j] - x0[j]) / h; math.Abs(v-sim.State.V[j]) > 1e-9*math.Max(1, math.Abs(v)) {
			t.Fatalf("dof %d: velocity %v does not land on the limited position (%v)", j, sim.State.V[j], v)
		}
	}
}
