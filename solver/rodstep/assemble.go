package rodstep

import (
	"errors"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/schwarz"
)

// Assembly of the Newton system, deterministic for any worker count (the
// two-pass scheme of package sparse):
//
//  1. every term (segment, bend triple, soft contact, anchor, edge, obstacle
//     node, yarn contact pair, crossing shear) evaluates its energy, local gradient and the lower triangle of its
//     local Hessian into its own slots of flat arrays, in parallel over terms;
//  2. every global entry (gradient entry, per-node x gradient, matrix entry)
//     sums its contributions from those slots in a fixed order (term order),
//     in parallel over entries; the energy is summed over terms serially.
//
// The term list, its local-to-global maps, the matrix pattern, the
// contribution lists and the symbolic LDL^T analysis (AMD or nested
// dissection ordering, supernodes) are rebuilt only when the term connectivity changes (nodes
// switching kind, contacts appearing or going, a different DOF numbering):
// every solve rebuilds the term list (cheap) and compares it with the cached
// one. A Newton iteration of an unchanged system does not allocate.

type termKind uint8

const (
	termSegment termKind = iota
	termBend
	termContact
	termAnchor
	termEdge
	termObstacle
	termYarn
	termShear
)

// term is one energy term of the incremental potential.
type term struct {
	kind    termKind
	n       int32 // local coordinates
	rod     int32
	id      int32 // segment: its mass index; contact, edge, yarn pair: index; anchor, obstacle: node
	a, b, c int32 // nodes of a segment or bend triple
	loc     int   // offset of its local coordinates in locIdx/locNode and its gradient in tgrad
	hess    int   // offset of its packed lower Hessian (n(n+1)/2 entries) in thess
}

// assembly holds the term list, the cached pattern and the per-term slots.
type assembly struct {
	terms   []term
	locIdx  []int32 // per local coordinate: the unknown, -1 for a constant
	locNode []int32 // per local coordinate: the node whose x it is, -1 otherwise
	nloc    int
	nhess   int

	// The pattern was built for these (copies of n, term sizes and maps).
	patN, patNodes  int
	patSize         []int32
	patIdx, patNode []int32
	valid           bool
	A               ldlt.Matrix
	sym             *ldlt.Symbolic
	fac             *ldlt.Factor
	// iter replaces sym and fac where the pattern is solved iteratively
	// (Settings.Linear): conjugate gradients preconditioned by the yarns'
	// own submatrices (package schwarz).
	iter                     *schwarz.Solver
	lag                      lagged  // LinearLagged's state: fac as a preconditioner
	solved                   bool    // factorOnce left the Newton update in w.dq (lagged)
	hPtr, gPtr, xPtr         []int32 // contributions of matrix entry / unknown / node x component
	hCon, gCon, xCon         []int32 // offsets into thess / tgrad / tgrad
	diagOrig                 []float64
	dir                      []float64 // the last failed factorization's direction (pivotDirection)
	tphi, tgrad, thess       []float64
	fillFn, hReduce, gReduce func(lo, hi int)
	massFn                   func(lo, hi int)
	owner                    *State
	q                        []float64 // arguments of the running fill
	h                        float64
	level                    int
	phiAbs                   float64 // sum of |term energies| at the last eval
	obsLo, obsHi             int     // the obstacle terms' range in terms
}

// runner runs body over [0, n), on the state's Runner when it has one.
func (s *State) runFor(n int, body func(lo, hi int)) {
	if s.Runner == nil {
		body(0, n)
		return
	}
	s.Runner.For(n, body)
}

func (as *assembly) addTerm(t term, l *local) {
	t.n = int32(l.n)
	t.loc = as.nloc
	t.hess = as.nhess
	for k := 0; k < l.n; k++ {
		as.locIdx = append(as.locIdx, int32(l.idx[k]))
		as.locNode = append(as.locNode, l.node[k])
	}
	as.nloc += l.n
	as.nhess += l.n * (l.n + 1) / 2
	as.terms = append(as.terms, t)
}

// buildTerms lists the terms of this solve (after number) and
// rebuilds the pattern if their connectivity changed.
func (s *State) buildTerms() error {
	w := &s.ws
	as := &w.asm
	as.terms, as.locIdx, as.locNode = as.terms[:0], as.locIdx[:0], as.locNode[:0]
	as.nloc, as.nhess = 0, 0
	seg := int32(0)
	for r := range s.Rods {
		R := &s.Rods[r]
		if R.Fixed {
			continue
		}
		nodes := R.nonEIL
		for k := 0; k+1 < len(nodes); k++ {
			a, b := nodes[k], nodes[k+1]
			var l local
			l.addX(s, a)
			l.addX(s, b)
			l.addU(s, a)
			l.addU(s, b)
			as.addTerm(term{kind: termSegment, rod: int32(r), id: seg, a: a, b: b}, &l)
			seg++
		}
		if R.Kb > 0 {
			for k := 0; k+2 < len(nodes); k++ {
				a, b, c := nodes[k], nodes[k+1], nodes[k+2]
				var l local
				l.addX(s, a)
				l.addX(s, b)
				l.addX(s, c)
				l.addU(s, a)
				l.addU(s, b)
				l.addU(s, c)
				as.addTerm(term{kind: termBend, rod: int32(r), a: a, b: b, c: c}, &l)
			}
		}
	}
	s.shearTerms()
	for k, c := range s.Contacts {
		if s.shared(c) {
			continue
		}
		var l local
		s.pointLocals(c.P, &l)
		s.pointLocals(c.Q, &l)
		as.addTerm(term{kind: termContact, id: int32(k)}, &l)
	}
	for i := range s.Anchor {
		if s.Anchor[i].Kf == 0 || w.udof[i] < 0 {
			continue
		}
		var l local
		l.addU(s, int32(i))
		as.addTerm(term{kind: termAnchor, id: int32(i)}, &l)
	}
	for k, e := range s.Edges {
		var l local
		s.pointLocals(e.Node, &l)
		if l.n == 9 { // EIL: the foot of the point on the line is a constant
			for j := 0; j < 3; j++ {
				l.idx[l.n], l.node[l.n] = -1, -1
				l.n++
			}
		}
		as.addTerm(term{kind: termEdge, id: int32(k)}, &l)
	}
	as.obsLo = len(as.terms)
	if len(s.Obstacles) > 0 {
		for i := range s.X {
			if w.xdof[i] < 0 {
				continue
			}
			var l local
			l.addX(s, int32(i))
			as.addTerm(term{kind: termObstacle, id: int32(i)}, &l)
		}
	}
	as.obsHi = len(as.terms)
	for k, p := range w.yarn.pairs {
		a, b := w.yarn.segs[p.A], w.yarn.segs[p.B]
		var l local
		for _, i := range [4]int32{a.a, a.b, b.a, b.b} {
			l.addX(s, i)
		}
		as.addTerm(term{kind: termYarn, id: int32(k)}, &l)
	}
	as.tphi = resize(as.tphi, len(as.terms))
	as.tgrad = resize(as.tgrad, as.nloc)
	as.thess = resize(as.thess, as.nhess)
	if as.valid && as.patN == w.n && as.patNodes == len(s.X) && len(as.patSize) == len(as.terms) &&
		slices.Equal(as.patIdx, as.locIdx) && slices.Equal(as.patNode, as.locNode) {
		same := true
		for t := range as.terms {
			if as.patSize[t] != as.terms[t].n {
				same = false
				break
			}
		}
		if same {
			return nil
		}
	}
	return s.buildPattern()
}

// pointLocals appends node i's contact point coordinates (see point).
func (s *State) pointLocals(i int32, l *local) {
	if s.Kind[i] != rod.EIL {
		l.addX(s, i)
		return
	}
	a, c := s.ws.interpA[i], s.ws.interpC[i]
	l.addX(s, a)
	l.addX(s, c)
	l.addU(s, a)
	l.addU(s, c)
	l.addU(s, i)
	// The EIL point's x coordinates are its neighbours', not its own.
	for k := l.n - 9; k < l.n-3; k++ {
		l.node[k] = -1
	}
}

// forEachHessEntry calls fn(col, row, slot) with col <= row for every
// lower-triangle entry of every term's local Hessian, in term order, skipping
// constant coordinates. An off-diagonal local entry whose two coordinates are
// the same unknown lands on the diagonal twice (both symmetric halves), so fn
// sees it twice.
func (as *assembly) forEachHessEntry(fn func(c, r, slot int32)) {
	for t := range as.terms {
		tm := &as.terms[t]
		idx := as.locIdx[tm.loc : tm.loc+int(tm.n)]
		for a := range idx {
			for b := 0; b <= a; b++ {
				ia, ib := idx[a], idx[b]
				if ia < 0 || ib < 0 {
					continue
				}
				c, r := min(ia, ib), max(ia, ib)
				slot := int32(tm.hess + a*(a+1)/2 + b)
				fn(c, r, slot)
				if a != b && ia == ib {
					fn(c, r, slot)
				}
			}
		}
	}
}

// buildPattern builds the lower-triangular CSC pattern of the Newton matrix,
// the contribution lists of the two-pass assembly and the symbolic analysis.
func (s *State) buildPattern() error {
	w := &s.ws
	as := &w.asm
	n := w.n
	type rec struct{ row, slot int32 }
	// Count the Hessian contributions per column.
	cnt := make([]int32, n+1)
	as.forEachHessEntry(func(c, _, _ int32) { cnt[c+1]++ })
	for j := 0; j < n; j++ {
		cnt[j+1] += cnt[j]
	}
	recs := make([]rec, cnt[n])
	cur := slices.Clone(cnt[:n])
	as.forEachHessEntry(func(c, r, slot int32) {
		recs[cur[c]] = rec{r, slot}
		cur[c]++
	})
	A := &as.A
	A.N = n
	A.ColPtr = make([]int, n+1)
	A.RowIdx = A.RowIdx[:0]
	as.hPtr = append(as.hPtr[:0], 0)
	as.hCon = as.hCon[:0]
	for j := 0; j < n; j++ {
		col := recs[cnt[j]:cnt[j+1]]
		slices.SortStableFunc(col, func(x, y rec) int { return int(x.row) - int(y.row) })
		if len(col) == 0 || col[0].row != int32(j) {
			// No term touches this diagonal: an explicit zero entry.
			A.RowIdx = append(A.RowIdx, j)
			as.hPtr = append(as.hPtr, int32(len(as.hCon)))
		}
		for k, r := range col {
			if k == 0 || r.row != col[k-1].row {
				if k > 0 {
					as.hPtr = append(as.hPtr, int32(len(as.hCon)))
				}
				A.RowIdx = append(A.RowIdx, int(r.row))
			}
			as.hCon = append(as.hCon, r.slot)
		}
		if len(col) > 0 {
			as.hPtr = append(as.hPtr, int32(len(as.hCon)))
		}
		A.ColPtr[j+1] = len(A.RowIdx)
	}
	A.Val = make([]float64, len(A.RowIdx))
	as.diagOrig = make([]float64, n)

	// Gradient contributions per unknown and per node x component.
	build := func(nrows int, key func(k int) int32) (ptr, con []int32) {
		ptr = make([]int32, nrows+1)
		for k := 0; k < as.nloc; k++ {
			if r := key(k); r >= 0 {
				ptr[r+1]++
			}
		}
		for r := 0; r < nrows; r++ {
			ptr[r+1] += ptr[r]
		}
		con = make([]int32, ptr[nrows])
		c := slices.Clone(ptr[:nrows])
		for k := 0; k < as.nloc; k++ {
			if r := key(k); r >= 0 {
				con[c[r]] = int32(k)
				c[r]++
			}
		}
		return ptr, con
	}
	as.gPtr, as.gCon = build(n, func(k int) int32 { return as.locIdx[k] })
	as.xPtr, as.xCon = build(3*len(s.X), func(k int) int32 {
		if i := as.locNode[k]; i >= 0 {
			return 3*i + int32(k-localStart(as, k))%3
		}
		return -1
	})

	as.sym, as.fac, as.iter = nil, nil, nil
	as.lag.valid = false
	if w.linear.iterative(n) {
		it, err := schwarz.New(A, s.yarnSubdomains())
		if err != nil {
			as.valid = false
			return err
		}
		as.iter = it
	} else {
		sym, err := s.analyze(A)
		if err != nil {
			as.valid = false
			return err
		}
		as.sym = sym
	}
	as.patN, as.patNodes = n, len(s.X)
	as.patIdx = append(as.patIdx[:0], as.locIdx...)
	as.patNode = append(as.patNode[:0], as.locNode...)
	as.patSize = as.patSize[:0]
	for t := range as.terms {
		as.patSize = append(as.patSize, as.terms[t].n)
	}
	as.valid = true
	return nil
}

// localStart returns the offset of the term owning local coordinate k (the
// x coordinates of a node start at a multiple of 3 within their term).
func localStart(as *assembly, k int) int {
	t, _ := slices.BinarySearchFunc(as.terms, k, func(tm term, k int) int {
		switch {
		case tm.loc+int(tm.n) <= k:
			return -1
		case tm.loc > k:
			return 1
		}
		return 0
	})
	return as.terms[t].loc
}

// eval returns the incremental potential at q. level 1 also assembles the
// gradient and the per-node x gradients, level 2 also the Newton matrix
// (into asm.A). The kernels are the same at every level, so energies
// compare exactly between levels.
func (s *State) eval(q []float64, h float64, level int) float64 {
	as := &s.ws.asm
	s.bind()
	as.q, as.h, as.level = q, h, level
	s.runFor(len(as.terms), as.fillFn)
	phi, abs := 0.0, 0.0
	for _, e := range as.tphi {
		phi += e
		abs += math.Abs(e)
	}
	as.phiAbs = abs
	if level >= 1 {
		s.runFor(len(s.ws.grad)+3*len(s.X), as.gReduce)
	}
	if level >= 2 && s.ws.predictOn {
		s.predictObstacles()
	}
	if level >= 2 {
		s.runFor(len(as.A.Val), as.hReduce)
		s.holdEIL()
	}
	as.q = nil
	return phi
}

// bind makes the parallel loop bodies (method values, made once so that the
// loops do not allocate) refer to this State, also after it was copied.
func (s *State) bind() {
	as := &s.ws.asm
	if as.owner != s {
		as.owner = s
		as.fillFn, as.hReduce, as.gReduce, as.massFn = s.fillRange, s.hessReduce, s.gradReduce, s.massRange
	}
}

// fillRange is pass 1 over terms [lo, hi).
func (s *State) fillRange(lo, hi int) {
	as := &s.ws.asm
	var g [18]float64
	var H [324]float64
	for t := lo; t < hi; t++ {
		tm := &as.terms[t]
		n := int(tm.n)
		as.tphi[t] = s.evalTerm(tm, as.q, as.h, as.level == 0, &g, &H)
		if as.level >= 1 {
			copy(as.tgrad[tm.loc:tm.loc+n], g[:n])
		}
		if as.level >= 2 {
			p := as.thess[tm.hess : tm.hess+n*(n+1)/2]
			k := 0
			for a := 0; a < n; a++ {
				for b := 0; b <= a; b++ {
					p[k] = H[a*n+b]
					k++
				}
			}
		}
	}
}

// gradReduce is pass 2 over the unknowns, then the node x components.
func (s *State) gradReduce(lo, hi int) {
	w := &s.ws
	as := &w.asm
	ng := len(w.grad)
	for r := lo; r < hi; r++ {
		if r < ng {
			v := 0.0
			for _, k := range as.gCon[as.gPtr[r]:as.gPtr[r+1]] {
				v += as.tgrad[k]
			}
			w.grad[r] = v
			continue
		}
		j := r - ng
		v := 0.0
		for _, k := range as.xCon[as.xPtr[j]:as.xPtr[j+1]] {
			v += as.tgrad[k]
		}
		w.gx[j/3][j%3] = v
	}
}

// hessReduce is pass 2 over the matrix entries.
func (s *State) hessReduce(lo, hi int) {
	as := &s.ws.asm
	val := as.A.Val
	for k := lo; k < hi; k++ {
		v := 0.0
		for _, c := range as.hCon[as.hPtr[k]:as.hPtr[k+1]] {
			v += as.thess[c]
		}
		val[k] = v
	}
}

// factorOnce factors the assembled matrix as it is: a PivotError where it
// is not positive definite. An iteratively solved pattern factors its
// yarns' submatrices and solves for the Newton update w.dq right away
// (solveIterative), for its conjugate gradients are what find a matrix
// that is not positive definite (notPositive) though every yarn's
// submatrix is. With LinearLagged (or LinearAuto from AutoLagged
// unknowns) it first tries conjugate gradients preconditioned by the
// factor it holds (solveLagged) and, where they converge, leaves the
// update in w.dq (assembly.solved) without factoring.
func (s *State) factorOnce() error {
	as := &s.ws.asm
	as.solved = false
	if s.ws.linear.lagged(as.A.N) && s.solveLagged() {
		as.solved = true
		return nil
	}
	s.ws.factorizations++
	if as.iter != nil {
		if err := as.iter.Factor(s.Runner, &as.A); err != nil {
			return err
		}
		return s.solveIterative()
	}
	if as.fac == nil {
		as.fac = as.sym.NewFactor()
	}
	// Independent subtrees of the elimination tree in parallel, bitwise
	// the serial factor. Set before every refactorization: a restored
	// state image holds the factor without its Runner.
	as.fac.SetRunner(s.Runner)
	err := as.fac.Refactor(&as.A, nil)
	as.lag.valid, as.lag.stale = err == nil, false
	return err
}

// factorRegularized factors the assembled matrix plus mu I with the smallest
// mu in 0, 1e-10, 1e-9, ... (relative to the largest diagonal entry) that
// gives positive pivots: far from equilibrium stretch and bending Hessians
// can be indefinite. It reuses the symbolic analysis and, after the first
// time, the factor's memory. It returns the mu used.
//
// A failed direct factorization certifies a direction x of non-positive
// curvature (ldlt.Factor.PivotDirection): A + mu' I is not positive
// definite for mu' <= mu - x^T (A + mu I) x / x^T x, so the rungs below that
// bound are skipped without factoring (curvatureBound). The last failure's
// direction is tried on the next matrix before its first factorization: a
// Rayleigh quotient of any vector bounds the smallest eigenvalue, and
// consecutive Newton matrices are often indefinite along the same
// direction. The mu returned is the one the full ladder would reach, with
// fewer factorizations.
func (s *State) factorRegularized() (float64, error) {
	as := &s.ws.asm
	A := &as.A
	scale := 0.0
	for j := 0; j < A.N; j++ {
		as.diagOrig[j] = A.Val[A.ColPtr[j]] // diagonal first in each column
		scale = math.Max(scale, math.Abs(as.diagOrig[j]))
	}
	mu, bound := 0.0, s.curvatureBound(0)
	for try := 0; try < 12; try++ {
		if try > 0 {
			if mu == 0 {
				mu = 1e-10 * scale
			} else {
				mu *= 10
			}
		}
		if mu < bound {
			continue // this rung cannot give positive pivots
		}
		for j := 0; j < A.N; j++ {
			A.Val[A.ColPtr[j]] = as.diagOrig[j] + mu
		}
		err := s.factorOnce()
		if err == nil {
			return mu, nil
		}
		if !notPositive(err) {
			return mu, err
		}
		if s.pivotDirection(err) {
			bound = math.Max(bound, s.curvatureBound(mu))
		}
	}
	return mu, &notPDError{mu}
}

// pivotDirection sets the kept direction (assembly.dir) to the one the
// failed direct factorization err certifies, and reports whether there is
// one: not on the iterative path, nor for a pivot that is not negative
// (zero or not finite).
func (s *State) pivotDirection(err error) bool {
	as := &s.ws.asm
	var pe *ldlt.PivotError
	if as.iter != nil || !errors.As(err, &pe) || !(pe.Pivot < 0) {
		return false
	}
	as.dir = resize(as.dir, as.A.N)
	return as.fac.PivotDirection(pe, as.dir) == nil
}

// curvatureBound returns a shift below which A + mu' I is certainly not
// positive definite, from the kept direction x and the assembled matrix,
// which holds A + mu I: mu - x^T (A + mu I) x / x^T x, less a relative
// margin of 1e-6 for rounding (a rung that close to the bound is factored).
// It returns 0 (no rung skipped) without a direction of this size, or
// where the quotient is not negative and finite.
func (s *State) curvatureBound(mu float64) float64 {
	as := &s.ws.asm
	if len(as.dir) != as.A.N || as.iter != nil {
		return 0
	}
	var xx float64
	for _, x := range as.dir {
		xx += x * x
	}
	rq := ldlt.QuadForm(&as.A, as.dir) / xx
	if !(rq < 0) || math.IsInf(rq, 0) {
		return 0
	}
	return (mu - rq) * (1 - 1e-6)
}

// bisectionUnknowns is the system size from which the direct solver orders
// the Newton matrix by coordinate bisection (ldlt.Bisection) instead of
// AMD. nnz(L) of tablecloth's first Newton matrix (three plain-weave
// layers of k x k yarns), AMD against bisection: k = 4 (870 unknowns)
// 35k / 44k; 6 (2,046) 187k / 156k; 8 (3,726) 676k / 345k; 10 (5,910)
// 1.50M / 0.64M; 24 (35,310) 36.4M / 6.0M. Below the crossover AMD fills
// less (pocket, 936 unknowns: 47k / 54k; tag 977: 35k / 48k; knit-sphere
// 558: 10k / 16k), and the built-in scenes keep it.
const bisectionUnknowns = 4000

// analyze orders and analyses the Newton matrix's pattern for the direct
// solver: by coordinate bisection at the unknowns' node positions (a
// node's position and Eulerian coordinate at the node) from
// bisectionUnknowns unknowns on, by AMD below.
func (s *State) analyze(A *ldlt.Matrix) (*ldlt.Symbolic, error) {
	if A.N < bisectionUnknowns {
		return ldlt.Analyze(A, ldlt.AMD)
	}
	w := &s.ws
	coord := make([]float64, 3*A.N)
	for i, x := range s.X {
		if b := int(w.xdof[i]); b >= 0 {
			for k := range 3 {
				copy(coord[3*(3*b+k):], x[:])
			}
		}
		if j := int(w.udof[i]); j >= 0 {
			copy(coord[3*j:], x[:])
		}
	}
	perm, err := ldlt.Bisection(A, coord)
	if err != nil {
		return nil, err
	}
	return ldlt.AnalyzePerm(A, perm)
}

// shearTerms adds the shear term (rod.CrossingShear) of every contact with
// Shear > 0 whose nodes share their position, over the chords between
// their non-EIL neighbours on each rod; a crossing at a rod's end has none.
// The first time a contact has the term, its rest cosine is the chords' at
// the start of the step. A solve without such contacts skips the
// neighbour map.
func (s *State) shearTerms() {
	if !slices.ContainsFunc(s.Contacts, func(c Contact) bool { return c.Shear != 0 }) {
		return
	}
	w := &s.ws
	for i := range w.prevN {
		w.prevN[i], w.nextN[i] = -1, -1
	}
	for r := range s.Rods {
		nodes := s.Rods[r].nonEIL
		for k, i := range nodes {
			if k > 0 {
				w.prevN[i] = nodes[k-1]
			}
			if k+1 < len(nodes) {
				w.nextN[i] = nodes[k+1]
			}
		}
	}
	as := &w.asm
	for k := range s.Contacts {
		c := &s.Contacts[k]
		if c.Shear == 0 || !s.shared(*c) {
			continue
		}
		ends := [4]int32{w.prevN[c.P], w.nextN[c.P], w.prevN[c.Q], w.nextN[c.Q]}
		if slices.Contains(ends[:], -1) {
			continue
		}
		if !c.ShearRest {
			a, b := w.xn[ends[1]].Sub(w.xn[ends[0]]), w.xn[ends[3]].Sub(w.xn[ends[2]])
			c.ShearCos0 = a.Dot(b) / (a.Norm() * b.Norm())
			c.ShearRest = true
		}
		var l local
		for _, i := range ends {
			l.addX(s, i)
		}
		as.addTerm(term{kind: termShear, id: int32(k)}, &l)
	}
}
