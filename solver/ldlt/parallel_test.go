package ldlt

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/internal/testrun"
)

// TestParallelBitwise checks that the parallel factorization gives exactly
// the serial factor (pivots and L, bit for bit) and the parallel triangular
// solve exactly the serial solution for several worker counts and splits,
// on cloth, random SPD and quasi-definite matrices, and that a factor
// switched back to serial still agrees. The 40 x 40 cloth ordered by
// Bisection has wide top supernodes (topNode: updates split by columns,
// panels' later columns through the Runner).
func TestParallelBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	qd, signs := randQuasiDef(rng, 300, 120, 1e-3)
	cloth40 := clothMatrix(40, 5)
	perm40, err := Bisection(cloth40, clothCoords(40))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		a     *Matrix
		signs []int8
		perm  []int // nil: AMD
	}{
		{"cloth-20", clothMatrix(20, 5), nil, nil},
		{"spd-600", randSPD(rng, 600, 4), nil, nil},
		{"quasidef", qd, signs, nil},
		{"cloth-40-bisection", cloth40, nil, perm40},
	}
	defer func(m int) { scheduledSolveMin = m }(scheduledSolveMin)
	for _, c := range cases {
		scheduledSolveMin = 1 << 20
		var sym *Symbolic
		var err error
		if c.perm != nil {
			sym, err = AnalyzePerm(c.a, c.perm)
		} else {
			sym, err = Analyze(c.a, AMD)
		}
		if err != nil {
			t.Fatal(err)
		}
		ref, err := sym.Factor(c.a, c.signs)
		if err != nil {
			t.Fatal(err)
		}
		b := make([]float64, c.a.N)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		// The column-by-column solve, then the scheduled one (for this
		// small factor only through the test's threshold): the same
		// solution to rounding.
		column := make([]float64, c.a.N)
		ref.Solve(b, column)
		scheduledSolveMin = 0
		want := make([]float64, c.a.N)
		ref.Solve(b, want)
		if d, scale := maxAbsDiff(column, want), maxAbs(column); d > 1e-9*scale {
			t.Fatalf("%s: scheduled and column solves differ by %.3g (largest entry %.3g)", c.name, d, scale)
		}
		if ref.sw.par != nil && ref.sw.par.r != nil {
			t.Fatalf("%s: serial factor has a Runner", c.name)
		}
		for _, r := range []testrun.Chunked{{Workers: 1, Grain: 1}, {Workers: 2, Grain: 1}, {Workers: 8, Grain: 1}, {Workers: 3, Grain: 2}} {
			f, err := sym.Factor(c.a, c.signs)
			if err != nil {
				t.Fatal(err)
			}
			f.SetRunner(r)
			if len(f.sw.par.task) < 3 {
				t.Fatalf("%s: %d subtrees, want at least 2", c.name, len(f.sw.par.task)-1)
			}
			if c.perm != nil && f.sw.par.wide == nil {
				t.Fatalf("%s: no wide top supernode", c.name)
			}
			for round := range 2 {
				clear(f.sw.x)
				if err := f.Refactor(c.a, c.signs); err != nil {
					t.Fatal(err)
				}
				if d := firstDiff(ref.sw.x, f.sw.x); d >= 0 {
					t.Fatalf("%s, %+v, round %d: L differs at %d: %v vs %v", c.name, r, round, d, ref.sw.x[d], f.sw.x[d])
				}
				if d := firstDiff(ref.d, f.d); d >= 0 {
					t.Fatalf("%s, %+v, round %d: D differs at %d", c.name, r, round, d)
				}
				got := make([]float64, c.a.N)
				f.Solve(b, got)
				if d := firstDiff(want, got); d >= 0 {
					t.Fatalf("%s, %+v, round %d: solution differs at %d: %v vs %v", c.name, r, round, d, want[d], got[d])
				}
			}
			f.SetRunner(nil)
			if err := f.Refactor(c.a, c.signs); err != nil || firstDiff(ref.sw.x, f.sw.x) >= 0 {
				t.Fatalf("%s: serial again: %v", c.name, err)
			}
		}
	}
}

func maxAbsDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

func maxAbs(a []float64) float64 {
	m := 0.0
	for _, v := range a {
		m = max(m, math.Abs(v))
	}
	return m
}

func firstDiff(a, b []float64) int {
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// TestParallelPivotError checks that a matrix that is not positive
// definite fails in the parallel factorization with the serial one's
// error (the first bad pivot in pivot order), wherever the bad pivots lie,
// also when several subtrees and the top hold one.
func TestParallelPivotError(t *testing.T) {
	a := clothMatrix(16, 2)
	sym, err := Analyze(a, AMD)
	if err != nil {
		t.Fatal(err)
	}
	n := a.N
	for _, cols := range [][]int{{0}, {n / 2}, {n - 1}, {n / 5, 4 * n / 5}, {n - 1, n / 3, 2 * n / 3}, {n / 7, 3 * n / 7, 5 * n / 7, n - 2}} {
		b := *a
		b.Val = append([]float64(nil), a.Val...)
		for _, col := range cols {
			b.Val[b.ColPtr[col]] = -1e6 // the diagonal comes first in each column
		}
		ser, err := sym.Factor(a, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := ser.Refactor(&b, nil)
		var pe *PivotError
		if !errors.As(want, &pe) {
			t.Fatalf("columns %v: serial error %v, want a *PivotError", cols, want)
		}
		par, err := sym.Factor(a, nil)
		if err != nil {
			t.Fatal(err)
		}
		par.SetRunner(testrun.Chunked{Workers: 4, Grain: 1})
		got := par.Refactor(&b, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("columns %v: parallel error %v, serial %v", cols, got, want)
		}
	}
}

// TestDot4x2 checks that dot4x2 gives each of its two dot products with the
// same bits as dot4, for lengths around the four lanes and shorter y.
func TestDot4x2(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	for n := range 14 {
		x0, x1, y := make([]float64, n+3), make([]float64, n+1), make([]float64, n)
		for _, v := range [][]float64{x0, x1, y} {
			for i := range v {
				v[i] = rng.NormFloat64() * math.Exp(8*rng.Float64())
			}
		}
		a, b := dot4x2(x0, x1, y)
		if wa, wb := dot4(x0, y), dot4(x1, y); math.Float64bits(a) != math.Float64bits(wa) || math.Float64bits(b) != math.Float64bits(wb) {
			t.Errorf("n %d: dot4x2 = %v, %v; dot4 = %v, %v", n, a, b, wa, wb)
		}
	}
}
