package schwarz

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/solver/internal/testrun"
	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/sparse"
)

// chains builds a symmetric matrix like a rod Newton system's: k chains of
// m unknowns each, coupled along the chain to their next two neighbours
// (stretch and bending stencils), plus random couplings between chains
// (contacts). It returns the dense matrix too and the chains' unknowns. The
// diagonal is shifted by shift times its row's off-diagonal magnitude sum
// (shift > 1: diagonally dominant, positive definite).
func chains(rng *rand.Rand, k, m, links int, shift float64) (*ldlt.Matrix, *mat.SymDense, [][]int32) {
	n := k * m
	d := mat.NewSymDense(n, nil)
	add := func(i, j int, v float64) {
		if i == j {
			return
		}
		d.SetSym(i, j, d.At(i, j)+v)
	}
	var sub [][]int32
	for c := 0; c < k; c++ {
		var dofs []int32
		for a := 0; a < m; a++ {
			i := c*m + a
			dofs = append(dofs, int32(i))
			for b := 1; b <= 2 && a+b < m; b++ {
				add(i, i+b, rng.Float64()*2-1)
			}
		}
		sub = append(sub, dofs)
	}
	for l := 0; l < links; l++ {
		add(rng.IntN(n), rng.IntN(n), 3*(rng.Float64()*2-1))
	}
	for i := 0; i < n; i++ {
		s := 0.0
		for j := 0; j < n; j++ {
			if j != i {
				s += math.Abs(d.At(i, j))
			}
		}
		d.SetSym(i, i, shift*s+0.01)
	}
	var rows, cols []int
	var vals []float64
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			if v := d.At(i, j); v != 0 || i == j {
				rows, cols, vals = append(rows, i), append(cols, j), append(vals, v)
			}
		}
	}
	A, err := ldlt.FromTriplets(n, rows, cols, vals)
	if err != nil {
		panic(err)
	}
	return A, d, sub
}

// denseSolve solves d x = b by gonum's Cholesky.
func denseSolve(t *testing.T, d *mat.SymDense, b []float64) []float64 {
	t.Helper()
	var ch mat.Cholesky
	if !ch.Factorize(d) {
		t.Fatal("dense Cholesky failed: test matrix not positive definite")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(len(b), slices.Clone(b))); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

func randVec(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.Float64()*2 - 1
	}
	return v
}

// relErr is ||x - ref|| / ||ref||.
func relErr(x, ref []float64) float64 {
	return floats.Distance(x, ref, 2) / floats.Norm(ref, 2)
}

// factored returns the solver for A over subdomains sub, factored by r.
func factored(t *testing.T, r sparse.Runner, A *ldlt.Matrix, sub [][]int32) *Solver {
	t.Helper()
	s, err := New(A, sub)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Factor(r, A); err != nil {
		t.Fatal(err)
	}
	return s
}

// The CG solution agrees with a dense Cholesky solve, with overlapping
// subdomains (each chain extended by its neighbour's first unknowns) and
// with unknowns in no subdomain.
func TestSolveMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	A, d, sub := chains(rng, 6, 20, 40, 1.05)
	n := A.N
	sub[0] = append(sub[0], sub[1][:5]...) // overlap
	sub[5] = sub[5][:15]                   // five unknowns in no subdomain
	s := factored(t, nil, A, sub)
	b := randVec(rng, n)
	x := make([]float64, n)
	res, err := s.Solve(nil, b, x, 1e-12, 1000)
	if err != nil || !res.Converged {
		t.Fatalf("Solve: %+v, %v", res, err)
	}
	if e := relErr(x, denseSolve(t, d, b)); e > 1e-10 {
		t.Errorf("relative error against dense Cholesky %.3g", e)
	}
	// The true residual, not CG's recursive one.
	y := make([]float64, n)
	s.Mul(nil, x, y)
	r := 0.0
	for i := range y {
		r = math.Max(r, math.Abs(y[i]-b[i]))
	}
	if r > 1e-10 {
		t.Errorf("residual %.3g", r)
	}
	t.Logf("%d iterations", res.Iterations)
}

// Mul agrees with the dense product (both triangles of the stored lower
// one).
func TestMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A, d, sub := chains(rng, 4, 10, 20, 1.1)
	s := factored(t, nil, A, sub)
	x := randVec(rng, A.N)
	y := make([]float64, A.N)
	s.Mul(nil, x, y)
	var want mat.VecDense
	want.MulVec(d, mat.NewVecDense(A.N, x))
	if e := relErr(y, want.RawVector().Data); e > 1e-14 {
		t.Errorf("relative error %.3g", e)
	}
}

// The preconditioner is symmetric positive definite, as CG needs, and is
// the sum of the subdomain inverses and the lone unknowns' inverse
// diagonal entries, computed here from dense submatrices.
func TestApplyIsAdditiveSchwarz(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A, d, sub := chains(rng, 3, 8, 10, 1.2)
	n := A.N
	sub[0] = append(sub[0], 8, 9) // overlap with chain 1
	sub[2] = sub[2][:6]           // unknowns 22, 23 alone
	s := factored(t, nil, A, sub)
	in := randVec(rng, n)
	out := make([]float64, n)
	s.Apply(nil, in, out)
	want := make([]float64, n)
	for _, dofs := range sub {
		m := len(dofs)
		db := mat.NewSymDense(m, nil)
		rb := mat.NewVecDense(m, nil)
		for a, i := range dofs {
			rb.SetVec(a, in[i])
			for b, j := range dofs {
				db.SetSym(a, b, d.At(int(i), int(j)))
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(db) {
			t.Fatal("subdomain not positive definite")
		}
		var z mat.VecDense
		if err := ch.SolveVecTo(&z, rb); err != nil {
			t.Fatal(err)
		}
		for a, i := range dofs {
			want[i] += z.AtVec(a)
		}
	}
	for _, i := range []int{22, 23} {
		want[i] = in[i] / d.At(i, i)
	}
	if e := relErr(out, want); e > 1e-12 {
		t.Errorf("Apply differs from the dense additive Schwarz operator: relative error %.3g", e)
	}
	x, y := randVec(rng, n), randVec(rng, n)
	mx, my := make([]float64, n), make([]float64, n)
	s.Apply(nil, x, mx)
	s.Apply(nil, y, my)
	if a, b := floats.Dot(y, mx), floats.Dot(x, my); math.Abs(a-b) > 1e-12*math.Abs(a) {
		t.Errorf("not symmetric: y.Mx %v, x.My %v", a, b)
	}
	if floats.Dot(x, mx) <= 0 {
		t.Error("not positive")
	}
}

// One subdomain holding every unknown is the exact inverse: CG converges in
// one iteration.
func TestOneSubdomainIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	A, _, _ := chains(rng, 3, 10, 15, 1.1)
	all := make([]int32, A.N)
	for i := range all {
		all[i] = int32(i)
	}
	s, err := New(A, [][]int32{all})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Factor(nil, A); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, A.N)
	res, err := s.Solve(nil, randVec(rng, A.N), x, 1e-10, 10)
	if err != nil || !res.Converged || res.Iterations != 1 {
		t.Errorf("Solve: %+v, %v; want convergence in 1 iteration", res, err)
	}
}

// Results are bitwise the same for any Runner.
func TestRunnersBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	A, _, sub := chains(rng, 12, 30, 100, 1.02)
	b := randVec(rng, A.N)
	var ref []float64
	for _, r := range []sparse.Runner{nil, sparse.Serial{}, testrun.Chunked{Workers: 3, Grain: 1}, testrun.Chunked{Workers: 8, Grain: 5}} {
		s := factored(t, r, A, sub)
		x := make([]float64, A.N)
		if _, err := s.Solve(r, b, x, 1e-10, 1000); err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = x
		} else if !slices.Equal(x, ref) {
			t.Errorf("runner %T: solution differs bitwise", r)
		}
	}
}

// A matrix that is not positive definite is reported: by its subdomain's
// pivot (naming the unknown in A's numbering) where a subdomain's submatrix
// is not, by sparse.ErrCurvature where only the couplings between subdomains make
// it so.
func TestIndefinite(t *testing.T) {
	// [[1, 2], [2, 1]]: eigenvalues 3 and -1.
	A, err := ldlt.FromTriplets(3, []int{0, 1, 1, 2}, []int{0, 0, 1, 2}, []float64{1, 2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(A, [][]int32{{0}, {1}, {2}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Factor(nil, A); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 3)
	if _, err := s.Solve(nil, []float64{1, -1, 0}, x, 1e-10, 10); !errors.Is(err, sparse.ErrCurvature) {
		t.Errorf("split subdomains: %v, want sparse.ErrCurvature", err)
	}
	s, err = New(A, [][]int32{{2}, {1, 0}})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Factor(nil, A)
	var pe *ldlt.PivotError
	if !errors.As(err, &pe) || pe.Column > 1 {
		t.Errorf("joint subdomain: %v, want a pivot error at unknown 0 or 1", err)
	}
}

// Malformed input gets an error naming it, not a panic.
func TestBadInput(t *testing.T) {
	A, err := ldlt.FromTriplets(2, []int{0, 1}, []int{0, 1}, []float64{1, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range [][][]int32{{{0, 2}}, {{1, 1}}, {{-1}}} {
		if _, err := New(A, sub); err == nil {
			t.Errorf("subdomains %v: no error", sub)
		}
	}
	s, err := New(A, [][]int32{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	B, _ := ldlt.FromTriplets(2, []int{0, 1, 1}, []int{0, 0, 1}, []float64{1, 0.5, 1})
	if err := s.Factor(nil, B); err == nil {
		t.Error("Factor of another pattern: no error")
	}
	if err := s.Factor(nil, A); err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 2)
	if _, err := s.Solve(nil, []float64{math.NaN(), 0}, x, 1e-10, 10); err == nil {
		t.Error("NaN right-hand side: no error")
	}
}
