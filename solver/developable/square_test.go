package developable

import (
	"testing"
)

func TestPinnedSquareQuick(t *testing.T) {
	n := 11
	m, x0 := grid(t, n, 1)
	b, err := NewBody(m, x0, Params{Density: 0.1, Bending: 1e-4, Gravity: [3]float64{0, 0, -9.81}, Dt: 0.005, Scheme: BDF2, Tolerance: 1e-4, MaxIter: 50})
	if err != nil {
		t.Fatal(err)
	}
	tl, tr := int32((n-1)*n), int32(n*n-1)
	pins := []Pin{{tl, [3]float64{x0[3*tl], x0[3*tl+1], x0[3*tl+2]}}, {tr, [3]float64{x0[3*tr], x0[3*tr+1], x0[3*tr+2]}}}
	// push it out of plane a little so it swings
	for i := range b.V {
		if i%3 == 1 {
			b.V[i] = 0.5
		}
	}
	if err := b.Constraints.SetPins(pins); err != nil {
		t.Fatal(err)
	}
	xc := make([]float64, 3*n*n)
	for s := range 400 {
		if err := b.Predict(); err != nil {
			t.Fatal(err)
		}
		if err := b.Project(); err != nil {
			t.Fatalf("step %d: %v", s, err)
		}
		b.EndStep(nil)
		if s%40 == 0 {
			b.Ghost.Map(b.X, xc)
			t.Logf("step %d it %d res %.2g err %.2g ke %.4g pe %.4g mid z %.5f", s, b.LastIt.Iterations, b.LastIt.Residual, inPlaneError(m, b.X), b.KineticEnergy(), b.GravityEnergy(), xc[3*(tl+int32(n/2))+2])
		}
	}
}
