package sparse

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// denseOp is a dense symmetric matrix as an Operator, and its diagonal as
// a Jacobi Preconditioner.
type denseOp struct {
	n int
	a []float64
}

func (d denseOp) Mul(_ Runner, in, out []float64) {
	for i := range d.n {
		s := 0.0
		for j := range d.n {
			s += d.a[i*d.n+j] * in[j]
		}
		out[i] = s
	}
}

func (d denseOp) Apply(_ Runner, r, z []float64) {
	for i := range d.n {
		z[i] = r[i] / d.a[i*d.n+i]
	}
}

// TestCGSolve checks CG.Solve against gonum's dense solve on a random SPD
// matrix, and its errors: non-positive curvature on an indefinite matrix,
// a non-finite right-hand side, and b = 0.
func TestCGSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 40
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	var a mat.Dense
	a.Mul(g.T(), g)
	for i := range n {
		a.Set(i, i, a.At(i, i)+1)
	}
	op := denseOp{n, a.RawMatrix().Data}
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	var want mat.VecDense
	if err := want.SolveVec(&a, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	var cg CG
	x := make([]float64, n)
	res, err := cg.Solve(Serial{}, op, op, b, x, 1e-12, 500)
	if err != nil || !res.Converged || !(res.Residual <= 1e-12) {
		t.Fatalf("SPD: %+v, %v", res, err)
	}
	for i := range x {
		if d := math.Abs(x[i] - want.AtVec(i)); d > 1e-8*(1+math.Abs(want.AtVec(i))) {
			t.Fatalf("x[%d] = %v, dense %v", i, x[i], want.AtVec(i))
		}
	}
	if res, err := cg.Solve(Serial{}, op, op, b, x, 1e-12, 3); err != nil || res.Converged || res.Iterations != 3 {
		t.Errorf("3 iterations: %+v, %v", res, err)
	}
	ind := denseOp{2, []float64{1, 2, 2, 1}} // eigenvalues 3 and -1
	if _, err := cg.Solve(Serial{}, ind, ind, []float64{1, -1}, x[:2], 1e-10, 10); !errors.Is(err, ErrCurvature) {
		t.Errorf("indefinite: %v, want ErrCurvature", err)
	}
	if _, err := cg.Solve(Serial{}, op, op, append([]float64{math.NaN()}, b[1:]...), x, 1e-10, 10); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN right-hand side: %v, want ErrNotFinite", err)
	}
	zero := make([]float64, n)
	if res, err := cg.Solve(Serial{}, op, op, zero, x, 1e-10, 10); err != nil || !res.Converged || maxAbsOf(x) != 0 {
		t.Errorf("b = 0: %+v, %v, |x| %v", res, err, maxAbsOf(x))
	}
}

func maxAbsOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}
