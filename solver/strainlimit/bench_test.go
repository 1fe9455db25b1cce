package strainlimit

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

type tracePoint struct {
	iter int
	t    time.Duration
	v    float64
}

func benchRunner(tb testing.TB) (sparse.Runner, func()) {
	w, err := strconv.Atoi(os.Getenv("SL_WORKERS"))
	if err != nil || w <= 1 {
		return sparse.Serial{}, func() {}
	}
	p := ecs.NewPool(w)
	return p, p.Close
}

// TestFigure7Table runs the paper's Fig. 7 comparison at full size when
// SL_FIG7=n is set (n = 100: 20000 faces), e.g.
//
//	SL_FIG7=100 go test -run Figure7Table -v ./solver/strainlimit/
//
// It solves with the augmented Lagrangian (CG and L-BFGS inner solvers) to
// the default tolerance, then gives Jacobi the same wall time as the slower
// of the two, and prints the maximum violation against iterations and
// seconds. SL_WORKERS=k uses an ecs.Pool of k workers.
func TestFigure7Table(t *testing.T) {
	n, err := strconv.Atoi(os.Getenv("SL_FIG7"))
	if err != nil {
		t.Skip("set SL_FIG7=n to run the Fig. 7 comparison on an n x n grid")
	}
	r, done := benchRunner(t)
	defer done()
	record := func(tr *[]tracePoint) func(int, time.Duration, float64) {
		return func(it int, el time.Duration, v float64) { *tr = append(*tr, tracePoint{it, el, v}) }
	}
	var budget time.Duration
	var traces [3][]tracePoint
	var results [3]Result
	names := [3]string{"AL (nonlinear CG)", "AL (L-BFGS)", "Jacobi"}
	for m := 0; m < 3; m++ {
		p, err := Figure7(n)
		if err != nil {
			t.Fatal(err)
		}
		switch m {
		case 0, 1:
			method := NonlinearCG
			if m == 1 {
				method = LBFGS
			}
			results[m], err = AugmentedLagrangian(p, Settings{Method: method, Trace: record(&traces[m]), MaxTime: 120 * time.Second}, r)
			budget = max(budget, results[m].Elapsed)
		default:
			results[m], err = Jacobi(p, JacobiSettings{MaxIterations: math.MaxInt32, MaxTime: budget, Trace: record(&traces[m])}, r)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("Figure 7: %dx%d grid, %d faces, limits [-5%%, 5%%], tolerance %g, runner %T\n", n, n, 2*n*n, DefaultTolerance, r)
	for m := 0; m < 3; m++ {
		res := results[m]
		fmt.Printf("\n%s: %+v\n", names[m], res)
		fmt.Printf("%8s %10s %12s\n", "iter", "seconds", "max viol")
		tr := traces[m]
		// About 10 rows: the start, then the first point past each tenth of
		// the run (and the end).
		next := time.Duration(0)
		step := tr[len(tr)-1].t / 10
		for k, pt := range tr {
			if pt.t >= next || k == len(tr)-1 {
				fmt.Printf("%8d %10.3f %12.4g\n", pt.iter, pt.t.Seconds(), pt.v)
				next = pt.t + step
			}
		}
	}
}

// mildProblem is a typical per-step use: an n x n sheet (2n^2 faces) whose
// horizontal stretch varies smoothly between 1.00 and 1.08 along v, so the
// middle third exceeds the 5% limit by up to 3%.
func mildProblem(n int) (*Problem, error) {
	p, err := Figure7(n)
	if err != nil {
		return nil, err
	}
	for k := 0; k <= n; k++ {
		for i := 0; i <= n; i++ {
			u, v := float64(i)/float64(n), float64(k)/float64(n)
			id := k*(n+1) + i
			p.X[id] = dense.Vec3{u * (1 + 0.08*math.Sin(math.Pi*v)), v, p.X[id][2]}
		}
	}
	return p, nil
}

func benchAL(b *testing.B, mk func() (*Problem, error), s Settings) {
	r, done := benchRunner(b)
	defer done()
	var res Result
	for b.Loop() {
		b.StopTimer()
		p, err := mk()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err = AugmentedLagrangian(p, s, r)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(res.OuterIterations), "outer")
	b.ReportMetric(float64(res.InnerIterations), "inner")
	b.ReportMetric(float64(res.FunctionEvaluations), "evals")
	b.ReportMetric(res.MaxViolation, "viol")
}

// BenchmarkFigure7AL: the full-size Fig. 7 problem (20000 faces) to the
// default tolerance.
func BenchmarkFigure7AL(b *testing.B) {
	benchAL(b, func() (*Problem, error) { return Figure7(100) }, Settings{})
}

func BenchmarkFigure7ALLBFGS(b *testing.B) {
	benchAL(b, func() (*Problem, error) { return Figure7(100) }, Settings{Method: LBFGS})
}

// BenchmarkFigure7Jacobi: 100 Jacobi sweeps on the full-size problem.
func BenchmarkFigure7Jacobi(b *testing.B) {
	r, done := benchRunner(b)
	defer done()
	var res Result
	for b.Loop() {
		b.StopTimer()
		p, err := Figure7(100)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err = Jacobi(p, JacobiSettings{MaxIterations: 100}, r)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(res.MaxViolation, "viol")
}

// BenchmarkMild5k: one solve on a 50x50 sheet (5000 faces) mildly over the
// limits, the typical per-time-step use.
func BenchmarkMild5k(b *testing.B) {
	benchAL(b, func() (*Problem, error) { return mildProblem(50) }, Settings{})
}

func BenchmarkMild5kLBFGS(b *testing.B) {
	benchAL(b, func() (*Problem, error) { return mildProblem(50) }, Settings{Method: LBFGS})
}

// BenchmarkEval: one evaluation of L_A and its gradient at 20000 faces.
func BenchmarkEval(b *testing.B) {
	r, done := benchRunner(b)
	defer done()
	p, err := Figure7(100)
	if err != nil {
		b.Fatal(err)
	}
	if err := p.validate(); err != nil {
		b.Fatal(err)
	}
	ev := newALEval(p, DefaultMu, r)
	x := ev.xstart
	for b.Loop() {
		ev.evalAll(x)
	}
}
