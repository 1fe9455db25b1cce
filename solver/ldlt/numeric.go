package ldlt

import (
	"fmt"
	"math"
)

// PivotError reports a pivot that is zero, not finite, or of the wrong sign.
// Column is the ORIGINAL row/column index (before permutation) of the pivot.
type PivotError struct {
	Column int
	Pivot  float64
	Reason string
}

func (e *PivotError) Error() string {
	return fmt.Sprintf("ldlt: bad pivot %g at column %d: %s", e.Pivot, e.Column, e.Reason)
}

// Factor is the numeric factorization P A P^T = L D L^T, with L unit lower
// triangular and D diagonal. A Factor is not safe for concurrent use (Solve
// uses internal workspace).
type Factor struct {
	sym *Symbolic
	li  []int32   // row indices of strictly-lower L, by column
	lx  []float64 // values of strictly-lower L
	d   []float64 // D

	sw *superWork // supernodal storage; nil in simplicial mode

	// workspace
	y       []float64
	pattern []int
	flag    []int
	lnz     []int
	work    []float64
}

// Symbolic returns the analysis the factor was computed with.
func (f *Factor) Symbolic() *Symbolic { return f.sym }

// D returns the diagonal of D in pivot (permuted) order. The slice is owned
// by the Factor and overwritten by Refactor.
func (f *Factor) D() []float64 { return f.d }

// Factor numerically factors P A P^T = L D L^T. signs == nil means every pivot
// must be > 0 (A symmetric positive definite). Otherwise len(signs) == N and
// signs[i] in {+1, -1} is the required sign of the pivot of ORIGINAL row/column
// i (quasi-definite KKT matrices: +1 for the H block, -1 for the -D block). A
// zero, non-finite or wrong-sign pivot returns a *PivotError naming the
// original column and the pivot value. A must have exactly the analyzed
// pattern.
func (s *Symbolic) Factor(A *Matrix, signs []int8) (*Factor, error) {
	return s.factor(A, signs, false)
}

// NewFactor returns a Factor with the memory of this analysis and no
// numeric factor yet: Refactor computes it. Unlike Factor, a first
// factorization that fails leaves the Factor for PivotDirection.
func (s *Symbolic) NewFactor() *Factor { return s.newFactor(false) }

// factor allocates a Factor and factors A; simplicial selects the
// up-looking (non-supernodal) algorithm, kept for testing and comparison.
func (s *Symbolic) factor(A *Matrix, signs []int8, simplicial bool) (*Factor, error) {
	f := s.newFactor(simplicial)
	if err := f.Refactor(A, signs); err != nil {
		return nil, err
	}
	return f, nil
}

func (s *Symbolic) newFactor(simplicial bool) *Factor {
	n := s.n
	f := &Factor{
		sym:  s,
		d:    make([]float64, n),
		work: make([]float64, n),
	}
	if simplicial {
		lnzTot := s.lp[n]
		f.li = make([]int32, lnzTot)
		f.lx = make([]float64, lnzTot)
		f.y = make([]float64, n)
		f.pattern = make([]int, n)
		f.flag = make([]int, n)
		f.lnz = make([]int, n)
	} else {
		f.sw = newSuperWork(s)
	}
	return f
}

// Refactor recomputes the numeric factor for new values of A with the same
// pattern, reusing all memory (no allocations unless an error is returned).
// On error the factor's contents are unspecified until a successful Refactor.
func (f *Factor) Refactor(A *Matrix, signs []int8) error {
	s := f.sym
	if err := s.samePattern(A); err != nil {
		return err
	}
	if signs != nil {
		if len(signs) != s.n {
			return fmt.Errorf("ldlt: len(signs) = %d, want %d", len(signs), s.n)
		}
		for i, v := range signs {
			if v != 1 && v != -1 {
				return fmt.Errorf("ldlt: signs[%d] = %d, want +1 or -1", i, v)
			}
		}
	}
	if err := A.checkFinite(); err != nil {
		return err
	}
	if f.sw != nil {
		return f.superFactor(A.Val, signs)
	}
	return f.upLooking(A.Val, signs)
}

func (f *Factor) checkPivot(k int, dk float64, signs []int8) error {
	s := f.sym
	orig := s.perm[k]
	if dk == 0 {
		return &PivotError{Column: orig, Pivot: dk, Reason: "zero pivot"}
	}
	if math.IsNaN(dk) || math.IsInf(dk, 0) {
		return &PivotError{Column: orig, Pivot: dk, Reason: "non-finite pivot"}
	}
	want := int8(1)
	if signs != nil {
		want = signs[orig]
	}
	if want > 0 && dk < 0 {
		return &PivotError{Column: orig, Pivot: dk, Reason: "negative pivot, expected positive (matrix not positive definite / not quasi-definite with the given signs)"}
	}
	if want < 0 && dk > 0 {
		return &PivotError{Column: orig, Pivot: dk, Reason: "positive pivot, expected negative (matrix not quasi-definite with the given signs)"}
	}
	return nil
}

// upLooking computes L and D row by row (Davis' LDL algorithm): row k of L
// solves a sparse triangular system whose pattern is the reach of column k of
// the upper triangle of C in the elimination tree.
func (f *Factor) upLooking(ax []float64, signs []int8) error {
	s := f.sym
	n := s.n
	cp, ci, cmap, parent, lp := s.cp, s.ci, s.cmap, s.parent, s.lp
	li, lx, d, y, pattern, flag, lnz := f.li, f.lx, f.d, f.y, f.pattern, f.flag, f.lnz
	for k := 0; k < n; k++ {
		y[k] = 0
		top := n
		flag[k] = k
		lnz[k] = 0
		for p := cp[k]; p < cp[k+1]; p++ {
			i := int(ci[p])
			y[i] += ax[cmap[p]]
			ln := 0
			for ; flag[i] != k; i = parent[i] {
				pattern[ln] = i
				ln++
				flag[i] = k
			}
			for ln > 0 {
				top--
				ln--
				pattern[top] = pattern[ln]
			}
		}
		dk := y[k]
		y[k] = 0
		for ; top < n; top++ {
			i := pattern[top]
			yi := y[i]
			y[i] = 0
			p0 := lp[i]
			p2 := p0 + lnz[i]
			rows := li[p0:p2]
			vals := lx[p0:p2]
			for q, r := range rows {
				y[r] -= vals[q] * yi
			}
			lki := yi / d[i]
			dk -= lki * yi
			li[p2] = int32(k)
			lx[p2] = lki
			lnz[i]++
		}
		if err := f.checkPivot(k, dk, signs); err != nil {
			return err
		}
		d[k] = dk
	}
	return nil
}

// Solve solves A x = b. b and x may alias. It does not allocate. len(b) and
// len(x) must be at least N.
func (f *Factor) Solve(b, x []float64) {
	s := f.sym
	n := s.n
	w := f.work[:n]
	perm := s.perm[:n]
	for k, i := range perm {
		w[k] = b[i]
	}
	f.solvePerm(w)
	for k, i := range perm {
		x[i] = w[k]
	}
}

// solvePerm solves L D L^T w = w in place (pivot order).
func (f *Factor) solvePerm(w []float64) {
	if f.sw != nil {
		f.superSolve(w)
		return
	}
	s := f.sym
	n := s.n
	lp, li, lx, d := s.lp, f.li, f.lx, f.d
	for j := 0; j < n; j++ {
		wj := w[j]
		if wj == 0 {
			continue
		}
		p0, p1 := lp[j], lp[j+1]
		vals := lx[p0:p1]
		for q, r := range li[p0:p1] {
			w[r] -= vals[q] * wj
		}
	}
	for j := 0; j < n; j++ {
		w[j] /= d[j]
	}
	for j := n - 1; j >= 0; j-- {
		p0, p1 := lp[j], lp[j+1]
		vals := lx[p0:p1]
		wj := w[j]
		for q, r := range li[p0:p1] {
			wj -= vals[q] * w[r]
		}
		w[j] = wj
	}
}

// Residual computes r = b - A x for the symmetric matrix A stored as its lower
// triangle. r must not alias b or x.
func Residual(A *Matrix, x, b, r []float64) {
	n := A.N
	copy(r[:n], b[:n])
	for j := 0; j < n; j++ {
		xj := x[j]
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			v := A.Val[p]
			r[i] -= v * xj
			if i != j {
				r[j] -= v * x[i]
			}
		}
	}
}

// QuadForm returns x^T A x for the symmetric matrix A stored as its lower
// triangle.
func QuadForm(A *Matrix, x []float64) float64 {
	var q float64
	for j := 0; j < A.N; j++ {
		xj := x[j]
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			if i == j {
				q += A.Val[p] * xj * xj
			} else {
				q += 2 * A.Val[p] * x[i] * xj
			}
		}
	}
	return q
}

// SolveRefined solves A x = b followed by steps rounds of iterative
// refinement (x += A^-1 (b - A x)); A must be the matrix last factored (same
// values). b and x may alias (then a copy of b is allocated). r is scratch of
// length N (nil allocates); otherwise it does not allocate.
func (f *Factor) SolveRefined(A *Matrix, b, x []float64, steps int, r []float64) {
	n := f.sym.n
	if r == nil {
		r = make([]float64, n)
	}
	var bb []float64
	if steps > 0 && n > 0 && &b[0] == &x[0] {
		bb = make([]float64, n)
		copy(bb, b[:n])
		b = bb
	}
	f.Solve(b, x)
	for it := 0; it < steps; it++ {
		Residual(A, x, b, r)
		f.Solve(r, r)
		for i := 0; i < n; i++ {
			x[i] += r[i]
		}
	}
}

// forEachL calls fn(i, L[i][j]) for the stored strictly-lower entries of
// column j of L (pivot order).
func (f *Factor) forEachL(j int, fn func(i int, v float64)) {
	if f.sw != nil {
		f.superForEachL(j, fn)
		return
	}
	lp := f.sym.lp
	for p := lp[j]; p < lp[j+1]; p++ {
		fn(int(f.li[p]), f.lx[p])
	}
}
