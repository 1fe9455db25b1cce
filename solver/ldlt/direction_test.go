package ldlt

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/solver/internal/testrun"
)

// TestPivotDirection shifts a cloth matrix by -sigma I so that its
// factorization fails partway, and checks the failed pivot's direction x
// against the dense matrix: x is 1 at the failing column, x^T A x equals
// the failed pivot, and its Rayleigh quotient is at least A's smallest
// eigenvalue (gonum's EigenSym) and not positive. Simplicial, supernodal and
// parallel supernodal factors (the same pivot fails in each) give the same
// direction to rounding. A shift just below the bound -x^T A x / x^T x fails
// again, as the bound promises.
func TestPivotDirection(t *testing.T) {
	a := clothMatrix(10, 3)
	n := a.N
	var eig mat.EigenSym
	dense := toDense(a)
	sym := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, dense.At(i, j))
		}
	}
	if !eig.Factorize(sym, false) {
		t.Fatal("eigen decomposition failed")
	}
	ev := eig.Values(nil)
	for _, ord := range orderings {
		s, err := Analyze(a, ord)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []float64{0.02, 0.2, 0.6} {
			sigma := ev[int(q*float64(n))] // about q n eigenvalues below the shift
			b := *a
			b.Val = append([]float64(nil), a.Val...)
			for j := range n {
				b.Val[b.ColPtr[j]] -= sigma
			}
			lmin := ev[0] - sigma
			var dirs [][]float64
			for mode := range 3 {
				f, err := s.factor(a, nil, mode == 0)
				if err != nil {
					t.Fatal(err)
				}
				if mode == 2 {
					f.SetRunner(testrun.Chunked{Workers: 4, Grain: 1})
				}
				var pe *PivotError
				if err := f.Refactor(&b, nil); !errors.As(err, &pe) {
					t.Fatalf("%v q %g mode %d: error %v, want a *PivotError", ord, q, mode, err)
				}
				x := make([]float64, n)
				if err := f.PivotDirection(pe, x); err != nil {
					t.Fatal(err)
				}
				if x[pe.Column] != 1 {
					t.Fatalf("%v q %g mode %d: x at the failing column %g, want 1", ord, q, mode, x[pe.Column])
				}
				ax := make([]float64, n)
				Residual(&b, x, make([]float64, n), ax) // ax = -B x
				var xax, xx, scale float64
				for i := range x {
					xax -= x[i] * ax[i]
					xx += x[i] * x[i]
					scale += math.Abs(x[i] * ax[i])
				}
				if math.Abs(xax-pe.Pivot) > 1e-9*scale {
					t.Errorf("%v q %g mode %d: x^T A x = %g, failed pivot %g", ord, q, mode, xax, pe.Pivot)
				}
				rq := xax / xx
				if rq > 0 || rq < lmin*(1+1e-9) {
					t.Errorf("%v q %g mode %d: Rayleigh quotient %g outside [%g, 0]", ord, q, mode, rq, lmin)
				}
				// A shift just below the bound still fails.
				c := b
				c.Val = append([]float64(nil), b.Val...)
				for j := range n {
					c.Val[c.ColPtr[j]] -= rq * (1 - 1e-6)
				}
				if err := f.Refactor(&c, nil); err == nil {
					t.Errorf("%v q %g mode %d: the shift %g below the bound factored", ord, q, mode, -rq*(1-1e-6))
				}
				dirs = append(dirs, x)
			}
			for mode := 1; mode < 3; mode++ {
				if e := relErr(dirs[mode], dirs[0]); e > 1e-9 {
					t.Errorf("%v q %g: mode %d direction differs from the simplicial one by %g", ord, q, mode, e)
				}
			}
		}
	}
}

// TestQuadForm checks x^T A x from the lower triangle against gonum's dense
// product.
func TestQuadForm(t *testing.T) {
	a := clothMatrix(6, 4)
	x := make([]float64, a.N)
	for i := range x {
		x[i] = math.Sin(float64(3*i + 1))
	}
	xv := mat.NewVecDense(a.N, x)
	want := mat.Inner(xv, toDense(a), xv)
	if got := QuadForm(a, x); math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("QuadForm %v, dense %v", got, want)
	}
}
