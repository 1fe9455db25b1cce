package ldlt

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var orderings = []Ordering{AMD, Natural}

func checkPerm(t *testing.T, p []int, n int) {
	t.Helper()
	if len(p) != n {
		t.Fatalf("perm length %d, want %d", len(p), n)
	}
	seen := make([]bool, n)
	for _, v := range p {
		if v < 0 || v >= n || seen[v] {
			t.Fatalf("not a permutation: entry %d", v)
		}
		seen[v] = true
	}
}

func TestRandomSPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 30; trial++ {
		n := 1 + rng.IntN(120)
		A := randSPD(rng, n, 1+rng.IntN(8))
		b := randVec(rng, n)
		want := denseSolve(t, A, b)
		for _, ord := range orderings {
			s, err := Analyze(A, ord)
			if err != nil {
				t.Fatal(err)
			}
			checkPerm(t, s.Perm(), n)
			f, err := s.Factor(A, nil)
			if err != nil {
				t.Fatalf("n=%d %v: %v", n, ord, err)
			}
			x := make([]float64, n)
			f.Solve(b, x)
			if e := relErr(x, want); e > 1e-10 {
				t.Errorf("trial %d n=%d %v: rel err %g", trial, n, ord, e)
			}
			// Aliased solve.
			y := append([]float64(nil), b...)
			f.Solve(y, y)
			if e := relErr(y, want); e > 1e-10 {
				t.Errorf("aliased solve rel err %g", e)
			}
		}
	}
}

func TestQuasiDefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 30; trial++ {
		n := 2 + rng.IntN(80)
		m := 1 + rng.IntN(n)
		A, signs := randQuasiDef(rng, n, m, 1e-2+rng.Float64())
		b := randVec(rng, n+m)
		want := denseSolve(t, A, b)
		for _, ord := range orderings {
			s, err := Analyze(A, ord)
			if err != nil {
				t.Fatal(err)
			}
			f, err := s.Factor(A, signs)
			if err != nil {
				t.Fatalf("n=%d m=%d %v: %v", n, m, ord, err)
			}
			x := make([]float64, n+m)
			f.Solve(b, x)
			if e := relErr(x, want); e > 1e-10 {
				t.Errorf("trial %d %v: rel err %g", trial, ord, e)
			}
			// D's signs follow signs in pivot order.
			perm := s.Perm()
			for k, dk := range f.D() {
				if (dk > 0) != (signs[perm[k]] > 0) {
					t.Fatalf("pivot %d sign %g, want %d", k, dk, signs[perm[k]])
				}
			}
			// Quasi-definite with signs nil must fail with a PivotError.
			if _, err := s.Factor(A, nil); err == nil {
				t.Fatalf("indefinite KKT factored with signs nil")
			} else {
				var pe *PivotError
				if !errors.As(err, &pe) {
					t.Fatalf("want *PivotError, got %v", err)
				}
			}
		}
	}
}

func TestReconstruction(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []*Matrix{randSPD(rng, 30, 4), randSPD(rng, 60, 6), clothMatrix(4, 1)}
	qd, qsigns := randQuasiDef(rng, 25, 10, 0.5)
	cases = append(cases, qd)
	for ci, A := range cases {
		var signs []int8
		if A == qd {
			signs = qsigns
		}
		for _, ord := range orderings {
			s, err := Analyze(A, ord)
			if err != nil {
				t.Fatal(err)
			}
			for _, simplicial := range []bool{false, true} {
				f, err := s.factor(A, signs, simplicial)
				if err != nil {
					t.Fatal(err)
				}
				R := reconstruct(f)
				P := permuted(A, s.Perm())
				var diff mat.Dense
				diff.Sub(R, P)
				if e := mat.Norm(&diff, math.Inf(1)) / mat.Norm(P, math.Inf(1)); e > 1e-13 {
					t.Errorf("case %d %v: ||LDL^T - PAP^T|| / ||A|| = %g", ci, ord, e)
				}
				// nnz(L) from the symbolic count equals what was stored.
				stored := A.N
				for j := 0; j < A.N; j++ {
					f.forEachL(j, func(int, float64) { stored++ })
				}
				if got := s.NnzL(); got != stored {
					t.Errorf("NnzL %d, stored %d", got, stored)
				}
			}
		}
	}
}

func TestCloth(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, nv := range []int{3, 6, 10} {
		A := clothMatrix(nv, uint64(nv))
		b := randVec(rng, A.N)
		want := denseSolve(t, A, b)
		var nnz [2]int
		for oi, ord := range orderings {
			s, err := Analyze(A, ord)
			if err != nil {
				t.Fatal(err)
			}
			checkPerm(t, s.Perm(), A.N)
			nnz[oi] = s.NnzL()
			f, err := s.Factor(A, nil)
			if err != nil {
				t.Fatal(err)
			}
			x := make([]float64, A.N)
			f.Solve(b, x)
			if e := relErr(x, want); e > 1e-10 {
				t.Errorf("nv=%d %v: rel err %g", nv, ord, e)
			}
		}
		t.Logf("cloth %dx%d: nnz(L) AMD %d, natural %d", nv, nv, nnz[0], nnz[1])
	}
}

func TestAMDFill(t *testing.T) {
	// 2D 5-point grid: AMD must beat natural (banded) ordering clearly.
	for _, g := range []int{20, 40} {
		var r, c []int
		var v []float64
		id := func(x, y int) int { return y*g + x }
		for y := 0; y < g; y++ {
			for x := 0; x < g; x++ {
				r, c, v = append(r, id(x, y)), append(c, id(x, y)), append(v, 4)
				if x+1 < g {
					r, c, v = append(r, id(x+1, y)), append(c, id(x, y)), append(v, -1)
				}
				if y+1 < g {
					r, c, v = append(r, id(x, y+1)), append(c, id(x, y)), append(v, -1)
				}
			}
		}
		A, err := FromTriplets(g*g, r, c, v)
		if err != nil {
			t.Fatal(err)
		}
		sa, _ := Analyze(A, AMD)
		sn, _ := Analyze(A, Natural)
		checkPerm(t, sa.Perm(), g*g)
		t.Logf("grid %dx%d: nnz(L) AMD %d, natural %d", g, g, sa.NnzL(), sn.NnzL())
		if g == 40 && float64(sa.NnzL()) > 0.6*float64(sn.NnzL()) {
			t.Errorf("grid %d: AMD fill %d not much below natural %d", g, sa.NnzL(), sn.NnzL())
		}
	}
	A := cachedCloth(30)
	sa, _ := Analyze(A, AMD)
	sn, _ := Analyze(A, Natural)
	t.Logf("cloth 30x30: nnz(L) AMD %d, natural %d", sa.NnzL(), sn.NnzL())
	if float64(sa.NnzL()) > 0.6*float64(sn.NnzL()) {
		t.Errorf("cloth: AMD fill %d not much below natural %d", sa.NnzL(), sn.NnzL())
	}
}

// TestAMDReuse: the ordering keeps its storage between calls (amdPool): the
// same matrix gets the same ordering after an ordering of another one (of a
// different size, which regrows the storage), and once the storage has
// grown an ordering allocates only its result.
func TestAMDReuse(t *testing.T) {
	cloth, small := cachedCloth(30), cachedCloth(7)
	first := amdOrder(cloth)
	checkPerm(t, first, cloth.N)
	checkPerm(t, amdOrder(small), small.N)
	if again := amdOrder(cloth); !slices.Equal(again, first) {
		t.Fatal("the same matrix ordered differently after another ordering")
	}
	if raceEnabled {
		return
	}
	if n := testing.AllocsPerRun(10, func() { amdOrder(cloth) }); n > 1 {
		t.Fatalf("amdOrder allocates %v times a call (want its result only)", n)
	}
}

func TestRefactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	A := clothMatrix(8, 3)
	s, err := Analyze(A, AMD)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Factor(A, nil)
	if err != nil {
		t.Fatal(err)
	}
	// New values, same pattern.
	B := *A
	B.Val = append([]float64(nil), A.Val...)
	for p := range B.Val {
		B.Val[p] *= 1 + 0.1*rng.Float64()
	}
	for j := 0; j < B.N; j++ {
		B.Val[B.ColPtr[j]] += 1
	}
	if err := f.Refactor(&B, nil); err != nil {
		t.Fatal(err)
	}
	g, err := s.Factor(&B, nil)
	if err != nil {
		t.Fatal(err)
	}
	b := randVec(rng, A.N)
	x1 := make([]float64, A.N)
	x2 := make([]float64, A.N)
	f.Solve(b, x1)
	g.Solve(b, x2)
	for i := range x1 {
		if x1[i] != x2[i] {
			t.Fatalf("Refactor and Factor differ at %d: %g vs %g", i, x1[i], x2[i])
		}
	}
	if e := relErr(x1, denseSolve(t, &B, b)); e > 1e-10 {
		t.Errorf("refactored solve rel err %g", e)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if err := f.Refactor(A, nil); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("Refactor allocates %v", allocs)
	}
	allocs = testing.AllocsPerRun(10, func() { f.Solve(b, x1) })
	if allocs != 0 {
		t.Errorf("Solve allocates %v", allocs)
	}
	r := make([]float64, A.N)
	allocs = testing.AllocsPerRun(10, func() { f.SolveRefined(A, b, x1, 2, r) })
	if allocs != 0 {
		t.Errorf("SolveRefined allocates %v", allocs)
	}
	if e := relErr(x1, denseSolve(t, A, b)); e > 1e-12 {
		t.Errorf("SolveRefined rel err %g", e)
	}
}

func wantPivotErr(t *testing.T, err error, col int, reason string) {
	t.Helper()
	var pe *PivotError
	if !errors.As(err, &pe) {
		t.Fatalf("want *PivotError, got %v", err)
	}
	if col >= 0 && pe.Column != col {
		t.Errorf("PivotError column %d, want %d (%v)", pe.Column, col, err)
	}
	if !strings.Contains(pe.Error(), reason) {
		t.Errorf("error %q does not mention %q", pe.Error(), reason)
	}
}

func TestErrors(t *testing.T) {
	// Zero pivot: [[1,1],[1,1]] -> second pivot 0.
	A, _ := FromTriplets(2, []int{0, 1, 1}, []int{0, 0, 1}, []float64{1, 1, 1})
	s, _ := Analyze(A, Natural)
	_, err := s.Factor(A, nil)
	wantPivotErr(t, err, 1, "zero")

	// Zero diagonal present explicitly.
	Z, _ := FromTriplets(3, []int{0, 1, 2}, []int{0, 1, 2}, []float64{1, 0, 2})
	for _, ord := range orderings {
		s, _ := Analyze(Z, ord)
		_, err = s.Factor(Z, nil)
		wantPivotErr(t, err, 1, "zero")
	}

	// Indefinite with signs nil: [[1,2],[2,1]].
	I, _ := FromTriplets(2, []int{0, 1, 1}, []int{0, 0, 1}, []float64{1, 2, 1})
	s, _ = Analyze(I, Natural)
	_, err = s.Factor(I, nil)
	wantPivotErr(t, err, 1, "negative")
	// Wrong sign with signs given: SPD matrix but signs say -1.
	P, _ := FromTriplets(2, []int{0, 1}, []int{0, 1}, []float64{1, 1})
	s, _ = Analyze(P, Natural)
	_, err = s.Factor(P, []int8{1, -1})
	wantPivotErr(t, err, 1, "expected negative")
	// Negative pivot in original column 2 under AMD: reported in original numbering.
	N3, _ := FromTriplets(3, []int{0, 1, 2}, []int{0, 1, 2}, []float64{1, 2, -3})
	s, _ = Analyze(N3, AMD)
	_, err = s.Factor(N3, nil)
	wantPivotErr(t, err, 2, "negative")
	var pe *PivotError
	if errors.As(err, &pe) && pe.Pivot != -3 {
		t.Errorf("pivot value %g, want -3", pe.Pivot)
	}
	// Bad signs.
	if _, err = s.Factor(N3, []int8{1, 0, 1}); err == nil {
		t.Error("signs with 0 accepted")
	}
	if _, err = s.Factor(N3, []int8{1}); err == nil {
		t.Error("short signs accepted")
	}

	// NaN value.
	NA, _ := FromTriplets(2, []int{0, 1, 1}, []int{0, 0, 1}, []float64{1, math.NaN(), 1})
	s, _ = Analyze(NA, AMD)
	if _, err = s.Factor(NA, nil); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("NaN: got %v", err)
	}
	NI, _ := FromTriplets(2, []int{0, 1}, []int{0, 1}, []float64{1, math.Inf(1)})
	s, _ = Analyze(NI, AMD)
	if _, err = s.Factor(NI, nil); err == nil || !strings.Contains(err.Error(), "non-finite") {
		t.Errorf("Inf: got %v", err)
	}

	// Pattern mismatch.
	B := clothMatrix(3, 1)
	C := clothMatrix(4, 1)
	s, _ = Analyze(B, AMD)
	if _, err = s.Factor(C, nil); err == nil || !strings.Contains(err.Error(), "pattern mismatch") {
		t.Errorf("dimension mismatch: got %v", err)
	}
	B2 := *B
	B2.RowIdx = append([]int(nil), B.RowIdx...)
	B2.RowIdx[1]++ // same counts, different rows (column 0 second entry)
	if _, err = s.Factor(&B2, nil); err == nil || !strings.Contains(err.Error(), "pattern mismatch") {
		t.Errorf("row mismatch: got %v", err)
	}
	f, _ := s.Factor(B, nil)
	if err = f.Refactor(&B2, nil); err == nil {
		t.Error("Refactor accepted a different pattern")
	}
	if _, err = s.Factor(nil, nil); err == nil {
		t.Error("nil matrix accepted")
	}

	// Bad input to Analyze.
	bad := []struct {
		name string
		m    *Matrix
		msg  string
	}{
		{"nil", nil, "nil"},
		{"short colptr", &Matrix{N: 2, ColPtr: []int{0, 1}, RowIdx: []int{0}, Val: []float64{1}}, "ColPtr"},
		{"unsorted", &Matrix{N: 3, ColPtr: []int{0, 3, 4, 5}, RowIdx: []int{0, 2, 1, 1, 2}, Val: []float64{1, 1, 1, 1, 1}}, "ascending"},
		{"duplicate", &Matrix{N: 2, ColPtr: []int{0, 3, 4}, RowIdx: []int{0, 1, 1, 1}, Val: []float64{1, 1, 1, 1}}, "ascending"},
		{"missing diag", &Matrix{N: 2, ColPtr: []int{0, 1, 1}, RowIdx: []int{0}, Val: []float64{1}}, "diagonal"},
		{"missing diag 2", &Matrix{N: 2, ColPtr: []int{0, 1, 2}, RowIdx: []int{1, 1}, Val: []float64{1, 1}}, "diagonal"},
		{"out of range", &Matrix{N: 2, ColPtr: []int{0, 2, 3}, RowIdx: []int{0, 5, 1}, Val: []float64{1, 1, 1}}, "out of range"},
		{"negative", &Matrix{N: 2, ColPtr: []int{0, 2, 3}, RowIdx: []int{0, -1, 1}, Val: []float64{1, 1, 1}}, "range"},
		{"upper", &Matrix{N: 2, ColPtr: []int{0, 1, 3}, RowIdx: []int{0, 1, 0}, Val: []float64{1, 1, 1}}, "above the diagonal"},
		{"short val", &Matrix{N: 2, ColPtr: []int{0, 1, 2}, RowIdx: []int{0, 1}, Val: []float64{1}}, "len"},
		{"decreasing colptr", &Matrix{N: 2, ColPtr: []int{0, 2, 1}, RowIdx: []int{0, 1}, Val: []float64{1, 1}}, "decreases"},
		{"bad colptr0", &Matrix{N: 1, ColPtr: []int{1, 1}, RowIdx: []int{0}, Val: []float64{1}}, "ColPtr[0]"},
	}
	for _, tc := range bad {
		for _, ord := range orderings {
			_, err := Analyze(tc.m, ord)
			if err == nil {
				t.Errorf("%s: accepted", tc.name)
				continue
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, tc.msg)
			}
		}
	}
	if _, err := Analyze(B, Ordering(7)); err == nil {
		t.Error("unknown ordering accepted")
	}
	// Triplets.
	if _, err := FromTriplets(2, []int{0, 2}, []int{0, 0}, []float64{1, 1}); err == nil {
		t.Error("out-of-range triplet accepted")
	}
	if _, err := FromTriplets(2, []int{0}, []int{0, 1}, []float64{1}); err == nil {
		t.Error("mismatched triplet lengths accepted")
	}
	if _, err := FromTriplets(-1, nil, nil, nil); err == nil {
		t.Error("negative n accepted")
	}
}

func TestFromTriplets(t *testing.T) {
	// Upper entries mirrored, duplicates summed, diagonal created.
	A, err := FromTriplets(3, []int{0, 2, 0, 1, 2}, []int{1, 0, 1, 0, 2}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := A.Validate(); err != nil {
		t.Fatal(err)
	}
	if A.At(1, 0) != 8 || A.At(0, 2) != 2 || A.At(1, 1) != 0 || A.At(2, 2) != 5 || A.At(0, 0) != 0 {
		t.Errorf("unexpected matrix %+v", A)
	}
}

func TestEmpty(t *testing.T) {
	A, err := FromTriplets(0, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Analyze(A, AMD)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Factor(A, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Solve(nil, nil)
}

func TestSupernodalMatchesSimplicial(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	qd, qs := randQuasiDef(rng, 300, 120, 0.3)
	cases := []struct {
		A     *Matrix
		signs []int8
	}{{clothMatrix(12, 5), nil}, {randSPD(rng, 500, 6), nil}, {qd, qs}}
	for ci, c := range cases {
		for _, ord := range orderings {
			s, err := Analyze(c.A, ord)
			if err != nil {
				t.Fatal(err)
			}
			f1, err := s.factor(c.A, c.signs, false)
			if err != nil {
				t.Fatal(err)
			}
			f2, err := s.factor(c.A, c.signs, true)
			if err != nil {
				t.Fatal(err)
			}
			var maxd float64
			for j := 0; j < c.A.N; j++ {
				col := map[int]float64{}
				f2.forEachL(j, func(i int, v float64) { col[i] = v })
				n1 := 0
				f1.forEachL(j, func(i int, v float64) {
					n1++
					v2, ok := col[i]
					if !ok {
						t.Fatalf("case %d: L(%d,%d) missing in simplicial", ci, i, j)
					}
					maxd = math.Max(maxd, math.Abs(v-v2)/(1+math.Abs(v2)))
				})
				if n1 != len(col) {
					t.Fatalf("case %d col %d: %d vs %d entries", ci, j, n1, len(col))
				}
				maxd = math.Max(maxd, math.Abs(f1.d[j]-f2.d[j])/math.Abs(f2.d[j]))
			}
			if maxd > 1e-9 {
				t.Errorf("case %d %v: supernodal vs simplicial differ by %g", ci, ord, maxd)
			}
			b := randVec(rng, c.A.N)
			want := denseSolve(t, c.A, b)
			x := make([]float64, c.A.N)
			f1.Solve(b, x)
			if e := relErr(x, want); e > 1e-10 {
				t.Errorf("case %d %v: rel err %g", ci, ord, e)
			}
		}
	}
}

// TestMulSym checks A x against gonum's dense product of the full matrix.
func TestMulSym(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	A := randSPD(rng, 40, 4)
	x := randVec(rng, 40)
	y := make([]float64, 40)
	for i := range y {
		y[i] = math.NaN() // overwritten, not accumulated into
	}
	A.MulSym(x, y)
	var want mat.VecDense
	want.MulVec(toDense(A), mat.NewVecDense(40, x))
	if e := relErr(y, want.RawVector().Data); e > 1e-14 {
		t.Errorf("relative error %g against the dense product", e)
	}
}
