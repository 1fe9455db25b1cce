// Package schwarz solves sparse symmetric positive definite systems by the
// conjugate gradient method preconditioned with one-level overlapping
// additive Schwarz (Smith, Bjørstad & Gropp 1996, "Domain Decomposition",
// sec. 1.3 and 2.2):
//
//	M^-1 = sum_b R_b^T A_b^-1 R_b,   A_b = R_b A R_b^T,
//
// R_b restricting to the unknowns of subdomain b (the subdomains may
// overlap), each A_b a principal submatrix of A factored exactly by sparse
// LDL^T (package ldlt). Unknowns in no subdomain are preconditioned by their
// diagonal entry. M^-1 is symmetric and, for positive definite A, positive
// definite, as conjugate gradients needs.
//
// It is written for the rod Newton systems of package rodstep, whose
// subdomains are the yarns: the stiff stretch and bending along a yarn are
// inverted exactly, the couplings between yarns (shared contact positions,
// penalties) are left to the Krylov iteration. A yarn's submatrix is banded,
// so its factor costs O(its unknowns), unlike the whole fabric's, whose
// fill grows like n log n and work like n^1.5 for a sheet.
//
// Every parallel loop writes disjoint entries and sums in a fixed order
// (subdomains are factored and solved independently; each unknown sums its
// subdomains' corrections in subdomain order; dot products use sparse.Dot's
// fixed blocks), so results are bitwise identical for any Runner.
package schwarz

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/sparse"
)

// Solver holds the subdomain factorizations and the conjugate gradient
// workspace for matrices of one sparsity pattern. It is not safe for
// concurrent use; Factor and Solve do not allocate after the first Factor
// and Solve.
type Solver struct {
	n      int
	colPtr []int // the analysed pattern (lower triangle, ldlt.Matrix form)
	rowIdx []int

	subs []subdomain
	// Per unknown, the subdomain-local positions summed into it by Apply:
	// memPtr[i]:memPtr[i+1] of memSub (subdomain) and memPos (position).
	memPtr         []int32
	memSub, memPos []int32
	lone           []int32   // unknowns in no subdomain (diagonal preconditioner)
	loneDiag       []int     // their diagonal entries' positions in A.Val
	loneInv        []float64 // their inverse diagonal entries
	subErr         []error   // per subdomain, the last Factor's failure

	// A in full symmetric CSR for the parallel product: row i is
	// rowPtr[i]:rowPtr[i+1] of col and val, val copied from A.Val[src].
	rowPtr []int32
	col    []int32
	src    []int32
	val    []float64

	// The call under way.
	aVal       []float64
	in, out    []float64
	cg         sparse.CG
	factorBody func(lo, hi int)
	applyBody  func(lo, hi int)
	gatherBody func(lo, hi int)
	mulBody    func(lo, hi int)
	copyBody   func(lo, hi int)
}

// subdomain is one A_b: its unknowns (ascending), its lower triangle with
// each entry's position in A.Val, and its factorization.
type subdomain struct {
	dofs []int32
	A    ldlt.Matrix
	src  []int32
	sym  *ldlt.Symbolic
	fac  *ldlt.Factor
	w    []float64 // its right-hand side and solution
}

// New analyses A's pattern (a lower triangle with diagonal, as ldlt takes
// it; the values are not read) with the given subdomains: each a list of
// distinct unknowns in [0, A.N). Unknowns may lie in several subdomains or
// in none.
func New(A *ldlt.Matrix, subdomains [][]int32) (*Solver, error) {
	if err := A.Validate(); err != nil {
		return nil, fmt.Errorf("schwarz: %w", err)
	}
	n := A.N
	s := &Solver{n: n, colPtr: slices.Clone(A.ColPtr), rowIdx: slices.Clone(A.RowIdx)}
	loc := make([]int32, n)
	for i := range loc {
		loc[i] = -1
	}
	count := make([]int32, n+1)
	for b, dofs := range subdomains {
		d := slices.Clone(dofs)
		slices.Sort(d)
		for k, i := range d {
			if i < 0 || int(i) >= n {
				return nil, fmt.Errorf("schwarz: subdomain %d: unknown %d out of range [0, %d)", b, i, n)
			}
			if k > 0 && d[k-1] == i {
				return nil, fmt.Errorf("schwarz: subdomain %d: unknown %d listed twice", b, i)
			}
			count[i+1]++
		}
		if len(d) == 0 {
			continue
		}
		sd, err := newSubdomain(A, d, loc)
		if err != nil {
			return nil, fmt.Errorf("schwarz: subdomain %d: %w", b, err)
		}
		s.subs = append(s.subs, sd)
	}
	// Memberships, in subdomain order for each unknown.
	s.memPtr = make([]int32, n+1)
	for i := 0; i < n; i++ {
		s.memPtr[i+1] = s.memPtr[i] + count[i+1]
	}
	s.memSub = make([]int32, s.memPtr[n])
	s.memPos = make([]int32, s.memPtr[n])
	next := slices.Clone(s.memPtr[:n])
	for b := range s.subs {
		for k, i := range s.subs[b].dofs {
			s.memSub[next[i]], s.memPos[next[i]] = int32(b), int32(k)
			next[i]++
		}
	}
	for i := 0; i < n; i++ {
		if s.memPtr[i] == s.memPtr[i+1] {
			s.lone = append(s.lone, int32(i))
			s.loneDiag = append(s.loneDiag, A.ColPtr[i])
		}
	}
	s.loneInv = make([]float64, len(s.lone))
	s.subErr = make([]error, len(s.subs))
	s.buildCSR(A)
	return s, nil
}

// newSubdomain extracts the principal submatrix on dofs (ascending) and
// analyses it. loc is an all -1 scratch array of length A.N, left so.
func newSubdomain(A *ldlt.Matrix, dofs []int32, loc []int32) (subdomain, error) {
	for k, i := range dofs {
		loc[i] = int32(k)
	}
	defer func() {
		for _, i := range dofs {
			loc[i] = -1
		}
	}()
	m := len(dofs)
	sd := subdomain{dofs: dofs, A: ldlt.Matrix{N: m, ColPtr: make([]int, m+1)}, w: make([]float64, m)}
	for k, j := range dofs {
		// Rows of column j ascend, and so do their local indices (dofs
		// ascend): the diagonal comes first.
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			if li := loc[A.RowIdx[p]]; li >= 0 {
				sd.A.RowIdx = append(sd.A.RowIdx, int(li))
				sd.src = append(sd.src, int32(p))
			}
		}
		sd.A.ColPtr[k+1] = len(sd.A.RowIdx)
	}
	sd.A.Val = make([]float64, len(sd.A.RowIdx))
	sym, err := ldlt.Analyze(&sd.A, ldlt.AMD)
	if err != nil {
		return sd, err
	}
	sd.sym = sym
	return sd, nil
}

// buildCSR builds the full symmetric row form of A's pattern.
func (s *Solver) buildCSR(A *ldlt.Matrix) {
	n := s.n
	s.rowPtr = make([]int32, n+1)
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			s.rowPtr[i+1]++
			if i != j {
				s.rowPtr[j+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		s.rowPtr[i+1] += s.rowPtr[i]
	}
	nnz := s.rowPtr[n]
	s.col, s.src, s.val = make([]int32, nnz), make([]int32, nnz), make([]float64, nnz)
	next := slices.Clone(s.rowPtr[:n])
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			s.col[next[i]], s.src[next[i]] = int32(j), int32(p)
			next[i]++
			if i != j {
				s.col[next[j]], s.src[next[j]] = int32(i), int32(p)
				next[j]++
			}
		}
	}
}

// Matches reports whether A has the pattern New analysed.
func (s *Solver) Matches(A *ldlt.Matrix) bool {
	return A.N == s.n && slices.Equal(A.ColPtr, s.colPtr) && slices.Equal(A.RowIdx, s.rowIdx)
}

func (s *Solver) bind() {
	if s.factorBody == nil {
		s.factorBody, s.applyBody, s.gatherBody = s.factorRange, s.applyRange, s.gatherRange
		s.mulBody, s.copyBody = s.mulRange, s.copyRange
	}
}

// Factor factors every subdomain's submatrix of A (A must have the analysed
// pattern; see Matches). A submatrix that is not positive definite (so
// neither is A) returns its *ldlt.PivotError, the first in subdomain order,
// with Column the unknown's index in A.
func (s *Solver) Factor(r sparse.Runner, A *ldlt.Matrix) error {
	if !s.Matches(A) {
		return errors.New("schwarz: matrix pattern differs from the analysed one")
	}
	s.bind()
	s.aVal = A.Val
	run(r, len(s.rowPtr)-1, s.copyBody)
	run(r, len(s.subs), s.factorBody)
	s.aVal = nil
	for b, err := range s.subErr {
		if err == nil {
			continue
		}
		var pe *ldlt.PivotError
		if errors.As(err, &pe) {
			return &ldlt.PivotError{Column: int(s.subs[b].dofs[pe.Column]), Pivot: pe.Pivot, Reason: pe.Reason}
		}
		return fmt.Errorf("schwarz: subdomain %d: %w", b, err)
	}
	for k, p := range s.loneDiag {
		d := A.Val[p]
		if !(d > 0) || math.IsInf(d, 0) {
			return &ldlt.PivotError{Column: int(s.lone[k]), Pivot: d, Reason: "diagonal entry not positive"}
		}
		s.loneInv[k] = 1 / d
	}
	return nil
}

func run(r sparse.Runner, n int, body func(lo, hi int)) {
	if r == nil {
		body(0, n)
		return
	}
	r.For(n, body)
}

func (s *Solver) copyRange(lo, hi int) {
	for i := lo; i < hi; i++ {
		for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
			s.val[k] = s.aVal[s.src[k]]
		}
	}
}

func (s *Solver) factorRange(lo, hi int) {
	for b := lo; b < hi; b++ {
		sd := &s.subs[b]
		for k, p := range sd.src {
			sd.A.Val[k] = s.aVal[p]
		}
		if sd.fac == nil {
			sd.fac, s.subErr[b] = sd.sym.Factor(&sd.A, nil)
			if s.subErr[b] != nil {
				sd.fac = nil
			}
			continue
		}
		s.subErr[b] = sd.fac.Refactor(&sd.A, nil)
	}
}

// Apply sets out = M^-1 in (the subdomain solves, summed).
func (s *Solver) Apply(r sparse.Runner, in, out []float64) {
	s.bind()
	s.in, s.out = in, out
	run(r, len(s.subs), s.applyBody)
	run(r, s.n, s.gatherBody)
	for k, i := range s.lone {
		out[i] = s.loneInv[k] * in[i]
	}
	s.in, s.out = nil, nil
}

func (s *Solver) applyRange(lo, hi int) {
	for b := lo; b < hi; b++ {
		sd := &s.subs[b]
		for k, i := range sd.dofs {
			sd.w[k] = s.in[i]
		}
		sd.fac.Solve(sd.w, sd.w)
	}
}

func (s *Solver) gatherRange(lo, hi int) {
	for i := lo; i < hi; i++ {
		v := 0.0
		for m := s.memPtr[i]; m < s.memPtr[i+1]; m++ {
			v += s.subs[s.memSub[m]].w[s.memPos[m]]
		}
		s.out[i] = v
	}
}

// Mul sets y = A x with the values of the last Factor.
func (s *Solver) Mul(r sparse.Runner, x, y []float64) {
	s.bind()
	s.in, s.out = x, y
	run(r, s.n, s.mulBody)
	s.in, s.out = nil, nil
}

func (s *Solver) mulRange(lo, hi int) {
	x, y := s.in, s.out
	for i := lo; i < hi; i++ {
		v := 0.0
		for k := s.rowPtr[i]; k < s.rowPtr[i+1]; k++ {
			v += s.val[k] * x[s.col[k]]
		}
		y[i] = v
	}
}

// Solve solves A x = b (A as of the last Factor) by conjugate gradients
// preconditioned by the additive Schwarz operator (sparse.CG) from x = 0,
// until ||b - A x|| <= tol ||b|| or maxIter iterations (then Converged is
// false and x is the last iterate, which for positive definite A still has
// b^T x > 0). It returns sparse.ErrCurvature (wrapped) where a search
// direction has non-positive curvature, and sparse.ErrNotFinite for
// non-finite values.
func (s *Solver) Solve(r sparse.Runner, b, x []float64, tol float64, maxIter int) (sparse.CGResult, error) {
	n := s.n
	if len(b) < n || len(x) < n {
		return sparse.CGResult{}, fmt.Errorf("schwarz: vectors of length %d, %d for %d unknowns", len(b), len(x), n)
	}
	if r == nil {
		r = sparse.Serial{}
	}
	res, err := s.cg.Solve(r, s, s, b[:n], x[:n], tol, maxIter)
	if err != nil {
		return res, fmt.Errorf("schwarz: %w", err)
	}
	return res, nil
}
