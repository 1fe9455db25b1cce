package developable

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestJacobianFD compares J (rigidity rows at a random configuration,
// linear rows constant) with central differences of C, and J M^-1 J^T as
// assembled with the dense product of that J.
func TestJacobianFD(t *testing.T) {
	m, x0 := grid(t, 5, 1)
	b, err := NewBody(m, x0, Params{Density: 0.3, Dt: 0.01, Tolerance: 1e-4, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	k := b.Constraints
	if err := k.SetPins([]Pin{{3, [3]float64{0.1, 0.2, 0.3}}}); err != nil {
		t.Fatal(err)
	}
	// A conforming configuration (midpoints of moved vertices), where the
	// conformity rows' frozen directions are exact, off the rigid rest.
	rng := rand.New(rand.NewPCG(1, 2))
	xv := append([]float64(nil), x0...)
	for i := range xv {
		xv[i] += 0.05 * rng.NormFloat64()
	}
	x := m.Midpoints(xv)
	nr, nx := k.NumRows(), len(x)
	k.Eval(x, make([]float64, nr))
	k.jacobian(x)
	dense := make([][]float64, nr)
	for r := range nr {
		dense[r] = make([]float64, nx)
		for a := k.rowStart[r]; a < k.rowStart[r+1]; a++ {
			for c := range 3 {
				dense[r][3*int(k.entEdge[a])+c] += k.jv[3*int(a)+c]
			}
		}
	}
	cp, cm := make([]float64, nr), make([]float64, nr)
	const h = 1e-6
	worst := 0.0
	for i := range nx {
		shifted(x, i, h, func(plus bool) {
			if plus {
				k.Eval(x, cp)
			} else {
				k.Eval(x, cm)
			}
		})
		for r := range nr {
			fd := (cp[r] - cm[r]) / (2 * h)
			worst = math.Max(worst, math.Abs(fd-dense[r][i]))
		}
	}
	if worst > 1e-6 {
		t.Fatalf("J differs from central differences of C by %g", worst)
	}
	if err := k.factorS(); err != nil {
		t.Fatal(err)
	}
	// The diagonal carries the regularization shift: regularization times
	// the mean of the product's diagonal.
	want := make([][]float64, nr)
	mean := 0.0
	for r := range nr {
		want[r] = make([]float64, r+1)
		for s := 0; s <= r; s++ {
			for i := range nx {
				want[r][s] += dense[r][i] * dense[s][i] * k.invM[i/3]
			}
		}
		mean += want[r][r] / float64(nr)
	}
	worst = 0
	for r := range nr {
		want[r][r] += regularization * mean
		for s := 0; s <= r; s++ {
			worst = math.Max(worst, math.Abs(k.s.At(r, s)-want[r][s]))
		}
	}
	if worst > 1e-9 {
		t.Fatalf("J M^-1 J^T differs from the dense product by %g", worst)
	}
}
