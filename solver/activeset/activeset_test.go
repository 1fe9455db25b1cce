package activeset

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/internal/kkt"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// denseBSR stores the 3n x 3n matrix a with every block present.
func denseBSR(n int, a *mat.SymDense) *sparse.BSR {
	m := &sparse.BSR{N: n, RowPtr: make([]int32, n+1), Diag: make([]int32, n)}
	for i := range n {
		for j := range n {
			if i == j {
				m.Diag[i] = int32(len(m.Col))
			}
			m.Col = append(m.Col, int32(j))
			for r := range 3 {
				for c := range 3 {
					m.Val = append(m.Val, a.At(3*i+r, 3*j+c))
				}
			}
		}
		m.RowPtr[i+1] = int32(len(m.Col))
	}
	return m
}

// bruteForce is the dense brute-force optimum (kkt.Brute) of the QP with
// one row n^T v_i >= target per Row, with the rows' impulses. One-vertex
// rows on distinct free vertices are independent, so every active set's KKT
// system must solve.
func bruteForce(t *testing.T, a *mat.SymDense, b []float64, pinned map[int]dense.Vec3, rows []Row) ([]float64, []float64) {
	n3 := len(b)
	c := make([][]float64, len(rows))
	d := make([]float64, len(rows))
	for k, r := range rows {
		c[k] = make([]float64, n3)
		for j := range 3 {
			c[k][3*int(r.Vertex)+j] = r.Normal[j]
		}
		d[k] = r.Target
	}
	v, imp, singular, err := kkt.Brute(a, b, pinned, c, d)
	if singular > 0 {
		t.Fatalf("KKT solve: %d singular active sets", singular)
	}
	if err != nil {
		t.Fatal(err)
	}
	return v, imp
}

// TestSolveMatchesBruteForce compares Solve with bruteForce on random SPD
// systems of a few vertices with pins and one contact row on each of some
// free vertices, targets chosen so that some rows hold and some release.
func TestSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	var s Solver
	released, held := 0, 0
	for trial := range 60 {
		n := 2 + rng.Intn(5)
		g := mat.NewDense(3*n, 3*n, nil)
		for i := range 3 * n {
			for j := range 3 * n {
				g.Set(i, j, rng.NormFloat64()*0.3)
			}
		}
		a := mat.NewSymDense(3*n, nil)
		for i := range 3 * n {
			for j := i; j < 3*n; j++ {
				x := mat.Dot(g.RowView(i), g.RowView(j))
				if i == j {
					x += 1 + rng.Float64()
				}
				a.SetSym(i, j, x)
			}
		}
		b := make([]float64, 3*n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		pinned := map[int]dense.Vec3{}
		filter := make([]float64, 9*n)
		pz := make([]float64, 3*n)
		var rows []Row
		for i := range n {
			switch {
			case i > 0 && rng.Intn(4) == 0:
				z := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				pinned[i] = z
				copy(pz[3*i:], z[:])
			default:
				filter[9*i], filter[9*i+4], filter[9*i+8] = 1, 1, 1
				if rng.Intn(3) != 0 {
					nr := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
					nr = nr.Scale(1 / nr.Norm())
					rows = append(rows, Row{Vertex: int32(i), Normal: nr, Target: rng.NormFloat64()})
				}
			}
		}
		want, wantImp := bruteForce(t, a, b, pinned, rows)
		p := &Problem{A: denseBSR(n, a), B: b, PinFilter: filter, PinZ: pz, Rows: rows, Tolerance: 1e-12, MaxIterations: 1000}
		v := make([]float64, 3*n)
		imp := make([]float64, len(rows))
		res, err := s.Solve(sparse.Serial{}, sparse.NewPCG(n), p, v, imp)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		for i := range v {
			if math.Abs(v[i]-want[i]) > 1e-7*(1+math.Abs(want[i])) {
				t.Fatalf("trial %d (%d rows): v[%d] = %g, brute force %g", trial, len(rows), i, v[i], want[i])
			}
		}
		for k := range rows {
			if wantImp[k] > 0 {
				held++
			} else {
				released++
			}
			if math.Abs(imp[k]-wantImp[k]) > 1e-7*(1+math.Abs(wantImp[k])) {
				t.Fatalf("trial %d: impulse %d = %g, brute force %g", trial, k, imp[k], wantImp[k])
			}
		}
		if res.Residual > 1e-9 || !res.Last.Converged {
			t.Fatalf("trial %d: residual %g, last solve %+v", trial, res.Residual, res.Last)
		}
	}
	if released == 0 || held == 0 {
		t.Fatalf("%d rows held, %d free: the trials do not exercise the active set", held, released)
	}
	t.Logf("%d rows held, %d free", held, released)
}

// TestSolveReportsNonConvergence checks that a PCG cut short is an error
// that carries the last solve's result.
func TestSolveReportsNonConvergence(t *testing.T) {
	n := 3
	a := mat.NewSymDense(3*n, nil)
	for i := range 3 * n {
		a.SetSym(i, i, float64(1+i))
		if i > 0 {
			a.SetSym(i-1, i, 0.3)
		}
	}
	b := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	filter := make([]float64, 9*n)
	for i := range n {
		filter[9*i], filter[9*i+4], filter[9*i+8] = 1, 1, 1
	}
	p := &Problem{A: denseBSR(n, a), B: b, PinFilter: filter, PinZ: make([]float64, 3*n),
		Rows: []Row{{Vertex: 1, Normal: dense.Vec3{0, 0, 1}, Target: 100}}, Tolerance: 1e-14, MaxIterations: 1}
	var s Solver
	res, err := s.Solve(sparse.Serial{}, sparse.NewPCG(n), p, make([]float64, 3*n), make([]float64, 1))
	if err == nil || res.Last.Iterations != 1 || res.Last.Converged {
		t.Fatalf("err %v, last solve %+v", err, res.Last)
	}
}

// recorder is a Preparer that keeps the filters it is given.
type recorder struct{ filters [][]float64 }

func (r *recorder) Prepare(_ sparse.Runner, _ *sparse.BSR, filter []float64) error {
	r.filters = append(r.filters, append([]float64(nil), filter...))
	return nil
}

// TestPrepare: a Preparer is called before the first round and, when at
// least RePrepareRows rows changed state since, before the first round at
// the problem's tolerance, each time with that round's filter: per vertex
// the pins' filter, less n n^T where the vertex's row is active. Two chains
// of m vertices with a +z row each: the first chain is pushed up harder
// than its rows ask (active in the first guess, at rest; released), the
// other pulled down onto its rows (free at rest; activated). With m rows changing
// and m >= RePrepareRows the tight round prepares again, with the final
// set; with m < RePrepareRows it keeps the first.
func TestPrepare(t *testing.T) {
	for _, m := range []int{RePrepareRows, RePrepareRows/2 - 1} {
		n := 2 * m
		a := mat.NewSymDense(3*n, nil)
		for i := range 3 * n {
			a.SetSym(i, i, 4)
			if i >= 3 && i/3 != m { // two chains
				a.SetSym(i-3, i, -1)
			}
		}
		b := make([]float64, 3*n)
		filter := make([]float64, 9*n)
		z := dense.Vec3{0, 0, 1}
		var rows []Row
		for i := range n {
			filter[9*i], filter[9*i+4], filter[9*i+8] = 1, 1, 1
			if i < m {
				b[3*i+2] = 10
				rows = append(rows, Row{Vertex: int32(i), Normal: z, Target: 0.1})
			} else {
				b[3*i+2] = -1
				rows = append(rows, Row{Vertex: int32(i), Normal: z, Target: 0})
			}
		}
		rec := &recorder{}
		p := &Problem{A: denseBSR(n, a), B: b, PinFilter: filter, PinZ: make([]float64, 3*n), Rows: rows, Tolerance: 1e-12, MaxIterations: 1000, Prepare: rec}
		var s Solver
		v := make([]float64, 3*n)
		imp := make([]float64, len(rows))
		if _, err := s.Solve(sparse.Serial{}, sparse.NewPCG(n), p, v, imp); err != nil {
			t.Fatal(err)
		}
		want := 1
		if m >= RePrepareRows {
			want = 2
		}
		if len(rec.filters) != want {
			t.Fatalf("m = %d: %d Prepare calls, want %d", m, len(rec.filters), want)
		}
		for k, r := range rows {
			held := imp[k] > 0
			if held != (k >= m) {
				t.Errorf("m = %d: row %d impulse %g: want the first m released, the others held", m, k, imp[k])
			}
			first := rec.filters[0][9*int(r.Vertex)+8]
			if first != map[bool]float64{true: 0, false: 1}[k < m] {
				t.Errorf("m = %d: row %d: first filter z-z %g, want the first guess's set (the first m rows)", m, k, first)
			}
			if want == 2 {
				if last := rec.filters[1][9*int(r.Vertex)+8]; last != map[bool]float64{true: 0, false: 1}[held] {
					t.Errorf("m = %d: row %d (impulse %g): tight filter z-z %g", m, k, imp[k], last)
				}
			}
		}
		// KKT (too many rows for bruteForce): A v - b = sum of impulse
		// times normal per vertex, impulses >= 0, rows met, held rows
		// exactly.
		av := mat.NewVecDense(3*n, nil)
		av.MulVec(a, mat.NewVecDense(3*n, v))
		for k, r := range rows {
			i := int(r.Vertex)
			vn := v[3*i+2]
			for c := range 3 {
				if d := av.AtVec(3*i+c) - b[3*i+c] - imp[k]*r.Normal[c]; math.Abs(d) > 1e-8 {
					t.Fatalf("m = %d: vertex %d: (A v - b - impulse n)[%d] = %g", m, i, c, d)
				}
			}
			if imp[k] < 0 || vn < r.Target-1e-9 || (imp[k] > 0 && math.Abs(vn-r.Target) > 1e-9) {
				t.Fatalf("m = %d: row %d: impulse %g, n.v %g, target %g", m, k, imp[k], vn, r.Target)
			}
		}
	}
}
