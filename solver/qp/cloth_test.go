package qp

import (
	"math"
	"math/rand"
	"testing"
	"time"

	"github.com/loomsim/loom/solver/ldlt"
)

// clothQP builds H = M + h^2 K for an nx x ny triangulated grid (lumped mass,
// graph Laplacian of the triangle edges times stiffness, Kronecker I3), F =
// M v0 + h M g with v0 falling onto obstacles, and a contact constraint
// n^T v_i >= -d_i/h at a fraction frac of the vertices with random upward
// normals.
func clothQP(rng *rand.Rand, nx, ny int, frac float64) *testQP {
	nv := nx * ny
	n := 3 * nv
	const (
		h     = 1e-2
		mass  = 1e-3
		stiff = 1e3
	)
	idx := func(i, j int) int { return i*ny + j }
	deg := make([]float64, nv)
	q := &testQP{h: &triplets{r: n, c: n}}
	edge := func(a, b int) {
		w := h * h * stiff
		for k := 0; k < 3; k++ {
			q.h.add(3*a+k, 3*b+k, -w)
			q.h.add(3*b+k, 3*a+k, -w)
		}
		deg[a] += w
		deg[b] += w
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			if i+1 < nx {
				edge(idx(i, j), idx(i+1, j))
			}
			if j+1 < ny {
				edge(idx(i, j), idx(i, j+1))
			}
			if i+1 < nx && j+1 < ny {
				edge(idx(i, j), idx(i+1, j+1))
			}
		}
	}
	for v := 0; v < nv; v++ {
		for k := 0; k < 3; k++ {
			q.h.add(3*v+k, 3*v+k, mass+deg[v])
		}
	}
	q.f = make([]float64, n)
	for v := 0; v < nv; v++ {
		v0 := [3]float64{0.1 * rng.NormFloat64(), 0.1 * rng.NormFloat64(), -1 + 0.1*rng.NormFloat64()}
		for k := 0; k < 3; k++ {
			q.f[3*v+k] = mass * v0[k]
		}
		q.f[3*v+2] -= h * mass * 9.81
	}
	q.ain = &triplets{c: n}
	for v := 0; v < nv; v++ {
		if rng.Float64() >= frac {
			continue
		}
		nz := 0.5 + 0.5*rng.Float64()
		nx := rng.NormFloat64() * 0.3
		ny := rng.NormFloat64() * 0.3
		l := math.Sqrt(nx*nx + ny*ny + nz*nz)
		for k, c := range []float64{nx, ny, nz} {
			q.ain.add(q.ain.r, 3*v+k, c/l)
		}
		d := 0.01 * rng.Float64() // distance to the obstacle
		q.bin = append(q.bin, -d/h)
		q.ain.r++
	}
	q.obj = math.NaN()
	return q
}

func TestCloth(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	q := clothQP(rng, 30, 30, 0.05)
	p := q.problem(t)
	s := NewSolver()
	res, err := s.Solve(p, nil, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != Solved {
		t.Fatalf("status %v, residuals %v", res.Status, res.Residuals)
	}
	kktCheck(t, "cloth", q, res.X, nil, res.Yin, 1e-8)
	active := 0
	for _, y := range res.Yin {
		if y > 0 {
			active++
		}
	}
	if active == 0 {
		t.Errorf("no active contact: test does not exercise constraints")
	}
	t.Logf("%d contacts, %d active, %d iterations, %d factorisations, polished %v, %v", len(q.bin), active, res.Iterations, res.Factorizations, res.Polished, res.Residuals)

	// warm start on a perturbed problem takes fewer iterations
	q2 := *q
	q2.f = append([]float64(nil), q.f...)
	for i := range q2.f {
		q2.f[i] *= 1 + 1e-3*rng.NormFloat64()
	}
	p2 := q2.problem(t)
	cold, err := NewSolver().Solve(p2, nil, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	warm, err := s.Solve(p2, res, DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if cold.Status != Solved || warm.Status != Solved {
		t.Fatalf("status cold %v warm %v", cold.Status, warm.Status)
	}
	kktCheck(t, "cloth warm", &q2, warm.X, nil, warm.Yin, 1e-8)
	kktCheck(t, "cloth cold", &q2, cold.X, nil, cold.Yin, 1e-8)
	if warm.Iterations >= cold.Iterations {
		t.Errorf("warm start took %d iterations, cold %d", warm.Iterations, cold.Iterations)
	}
	if s.analyses != 1 {
		t.Errorf("symbolic analyses = %d, want 1 (pattern unchanged)", s.analyses)
	}
	t.Logf("perturbed: cold %d iterations / %d factorisations, warm %d / %d", cold.Iterations, cold.Factorizations, warm.Iterations, warm.Factorizations)
}

// benchCloth is the 100x100-vertex problem of the benchmarks (30k variables,
// about 1200 contacts of which about 300 are active).
func benchCloth(b *testing.B) (*testQP, *Problem) {
	rng := rand.New(rand.NewSource(11))
	q := clothQP(rng, 100, 100, 0.12)
	return q, q.problem(b)
}

func BenchmarkClothQPCold(b *testing.B) {
	q, p := benchCloth(b)
	var res *Result
	for i := 0; i < b.N; i++ {
		var err error
		res, err = NewSolver().Solve(p, nil, DefaultSettings())
		if err != nil || res.Status != Solved {
			b.Fatal(err, res.Status)
		}
	}
	reportQP(b, q, res)
}

func BenchmarkClothQPReuse(b *testing.B) {
	q, p := benchCloth(b)
	s := NewSolver()
	res, _ := s.Solve(p, nil, DefaultSettings())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var err error
		res, err = s.Solve(p, nil, DefaultSettings())
		if err != nil || res.Status != Solved {
			b.Fatal(err, res.Status)
		}
	}
	reportQP(b, q, res)
}

func BenchmarkClothQPWarm(b *testing.B) {
	q, p := benchCloth(b)
	s := NewSolver()
	res0, _ := s.Solve(p, nil, DefaultSettings())
	q2 := *q
	q2.f = append([]float64(nil), q.f...)
	rng := rand.New(rand.NewSource(3))
	for i := range q2.f {
		q2.f[i] *= 1 + 1e-3*rng.NormFloat64()
	}
	p2 := q2.problem(b)
	b.ResetTimer()
	var res *Result
	for i := 0; i < b.N; i++ {
		var err error
		res, err = s.Solve(p2, res0, DefaultSettings())
		if err != nil || res.Status != Solved {
			b.Fatal(err, res.Status)
		}
	}
	reportQP(b, &q2, res)
}

func reportQP(b *testing.B, q *testQP, res *Result) {
	active := 0
	for _, y := range res.Yin {
		if y > 0 {
			active++
		}
	}
	b.ReportMetric(float64(len(q.f)), "vars")
	b.ReportMetric(float64(len(q.bin)), "contacts")
	b.ReportMetric(float64(active), "active")
	b.ReportMetric(float64(res.Iterations), "admm-iters")
	b.ReportMetric(float64(res.Factorizations), "factorizations")
	kktCheck(b, "bench", q, res.X, nil, res.Yin, 1e-8)
}

// clothKKT is the ADMM KKT matrix of the benchmark problem.
func clothKKT(b *testing.B) (*ldlt.Matrix, []int8) {
	_, p := benchCloth(b)
	var w workspace
	P, err := symmetricH(p.H, &w)
	if err != nil {
		b.Fatal(err)
	}
	A := stack(p.Aeq, p.Ain, len(p.F), &w)
	k := newKKTPattern(P, A)
	cd := make([]float64, A.Rows)
	for i := range cd {
		cd[i] = 10
	}
	k.fill(P, A, 1e-6, nil, cd)
	return k.mat, k.signs
}

func BenchmarkClothKKTAnalyzeFactor(b *testing.B) {
	mat, signs := clothKKT(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sym, err := ldlt.Analyze(mat, ldlt.AMD)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sym.Factor(mat, signs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClothKKTFactor(b *testing.B) {
	mat, signs := clothKKT(b)
	sym, err := ldlt.Analyze(mat, ldlt.AMD)
	if err != nil {
		b.Fatal(err)
	}
	f, err := sym.Factor(mat, signs)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(sym.NnzL()), "nnzL")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := f.Refactor(mat, signs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClothKKTSolve(b *testing.B) {
	mat, signs := clothKKT(b)
	sym, _ := ldlt.Analyze(mat, ldlt.AMD)
	f, err := sym.Factor(mat, signs)
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, mat.N)
	for i := range x {
		x[i] = 1
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.Solve(x, x)
	}
}

var _ = time.Now
