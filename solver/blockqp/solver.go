package blockqp

import (
	"fmt"
	"math"
	"sort"
)

// Runner runs body over [0, n) split into chunks, possibly concurrently, with
// body(lo, hi) called on disjoint ranges covering [0, n). *ecs.Pool and
// sparse.Serial satisfy it; a nil Runner runs serially.
type Runner interface {
	For(n int, body func(lo, hi int))
}

// screenStep is the factor by which the PCG tolerance tightens after a
// round that leaves the active set unchanged.
const screenStep = 1e-2

// minTol is the tightest PCG tolerance the active-set search asks for when
// its candidates stop falling (about where rounding takes over).
const minTol = 1e-12

// stallRounds is the number of bulk rounds at minTol without fewer
// candidates after which the search switches to the primal method.
const stallRounds = 4

// Solver solves Problems, keeping its buffers between calls. It is not safe
// for concurrent use.
type Solver struct {
	p   *Problem
	set Settings
	run Runner

	n, ng, nr, nb int
	// Structure: variables of group g are gvar[gptr[g]:gptr[g+1]] (in the
	// caller's numbering) and gptr[g] .. gptr[g+1]-1 internally (group
	// order, see blocks.go); variable i is entry gloc[i] of group gof[i];
	// the rows of group g are ridx[rptr[g]:rptr[g+1]], ascending.
	gof, gptr, gvar, rptr, ridx, next []int32
	gloc                              []int8
	fInf, aInf, bInf, a1              float64

	// H in block rows (see blocks.go); scratch, soff, bad and bnv are
	// buildBlocks' scratch.
	bptr, bdiag, bgrp, bcol, bvo []int32
	scratch, soff, bad, bnv      []int32
	bk                           []int8
	all3                         []bool
	bval                         []float64

	// Per-group dense data (see filter.go).
	hgg, qb, lt, pinv, cz, chol, dcor, pc []float64
	arow                                  []int32
	nact                                  []int8
	changed, reg                          []bool

	active   []bool    // per row: in the working set
	y, slack []float64 // per row
	// Vectors in group order; xo is X in the caller's order.
	x, r, c, q, t, v, z, f, hx, xo []float64
	part                           []float64
	bb                             float64 // |S (F - H z)|^2 of this round
	wantBB                         bool    // passInit computes bb (z has changed)
	hxOK                           bool    // hx holds H x (see pcg)
	seen                           []uint64
	toggled                        []int32
	x0                             []float64 // primal method: the point the solve started from
	locked                         []bool    // primal method: rows not to be released again
	relEpoch                       []int32   // primal method: when each row was last released

	// forcePrimal starts in the primal method; parallelAll hands every
	// pass to the Runner, however small; primalRounds, degenerate and
	// lockedRows count, in the last Solve, its rounds, its zero steps and
	// the rows it kept on a noise-level multiplier (for tests).
	forcePrimal, parallelAll             bool
	primalRounds, degenerate, lockedRows int

	// Sweep domains: domain d is groups dom[d] .. dom[d+1]-1 for d <
	// len(dom)-1, the separator dom[len(dom)-1] .. ng-1 (see
	// Problem.Domains); dpart holds the domains' partial sums of a sweep,
	// beta the sweepBack argument.
	dom         []int32
	dpart       []float64
	beta, alpha float64

	// The passes bound once, so handing them to the Runner does not allocate.
	fnProject, fnInit, fnMult, fnPattern, fnValues func(lo, hi int)
	fnStart, fnBack, fnFwd, fnUpdate               func(lo, hi int)
}

// NewSolver returns a Solver with no buffers yet.
func NewSolver() *Solver {
	s := &Solver{}
	s.bind()
	return s
}

func (s *Solver) bind() {
	s.fnProject = s.passProject
	s.fnInit = s.passInit
	s.fnMult = s.passMult
	s.fnPattern = s.passPattern
	s.fnValues = s.passValues
	s.fnStart = func(lo, hi int) {
		for d := lo; d < hi; d++ {
			s.dpart[d] = s.startRange(int(s.dom[d]), int(s.dom[d+1]))
		}
	}
	s.fnBack = func(lo, hi int) {
		for d := lo; d < hi; d++ {
			s.backRange(int(s.dom[d]), int(s.dom[d+1]))
		}
	}
	s.fnUpdate = func(lo, hi int) {
		for d := lo; d < hi; d++ {
			s.dpart[d] = s.updateRange(int(s.gptr[s.dom[d]]), int(s.gptr[s.dom[d+1]]))
		}
	}
	s.fnFwd = func(lo, hi int) {
		for d := lo; d < hi; d++ {
			s.dpart[d] = s.fwdRange(int(s.dom[d]), int(s.dom[d+1]))
		}
	}
}

func (s *Solver) alloc() {
	s.hgg = resize(s.hgg, s.ng*sq)
	s.qb = resize(s.qb, s.ng*sq)
	s.lt = resize(s.lt, s.ng*sq)
	s.pinv = resize(s.pinv, s.ng*sq)
	s.chol = resize(s.chol, s.ng*sq)
	s.dcor = resize(s.dcor, s.ng*sq)
	s.pc = resize(s.pc, s.ng*pc3)
	s.cz = resize(s.cz, s.ng*MaxGroupSize)
	s.arow = resize(s.arow, s.ng*MaxGroupSize)
	s.nact = resize(s.nact, s.ng)
	s.changed = resize(s.changed, s.ng)
	s.reg = resize(s.reg, s.ng)
	s.active = resize(s.active, s.nr)
	s.y = resize(s.y, s.nr)
	s.slack = resize(s.slack, s.nr)
	s.x = resize(s.x, s.n)
	s.r = resize(s.r, s.n)
	s.c = resize(s.c, s.n)
	s.q = resize(s.q, s.n)
	s.t = resize(s.t, s.n)
	s.v = resize(s.v, s.n)
	s.z = resize(s.z, s.n)
	s.f = resize(s.f, s.n)
	s.hx = resize(s.hx, s.n)
	s.xo = resize(s.xo, s.n)
	s.x0 = resize(s.x0, s.n)
	s.locked = resize(s.locked, s.nr)
	s.relEpoch = resize(s.relEpoch, s.nr)
	s.part = resize(s.part, s.nb*nPart)
}

// Solve solves p. run supplies the parallel loops (nil: serial). warm, if not
// nil, is a starting point of len(p.F) (typically the previous step's X): the
// inequalities tight or violated there form the first active set, and the
// first PCG solve starts from it. Malformed input returns an error; a solve
// that does not converge returns Converged = false with a Message and a nil
// error. The returned slices belong to the Solver (see Result).
func (s *Solver) Solve(run Runner, p *Problem, warm []float64, set Settings) (Result, error) {
	set, err := set.withDefaults()
	if err != nil {
		return Result{}, err
	}
	if s.fnInit == nil {
		s.bind() // a zero Solver works too
	}
	if err := s.setup(p); err != nil {
		return Result{}, err
	}
	s.p, s.set, s.run = p, set, run
	defer func() { s.p, s.run = nil, nil }()
	s.alloc()

	if warm != nil {
		if len(warm) != s.n {
			return Result{}, fmt.Errorf("blockqp: len(warm) = %d, want %d", len(warm), s.n)
		}
		for i, v := range warm {
			if !finite(v) {
				return Result{}, fmt.Errorf("blockqp: warm[%d] is %v", i, v)
			}
		}
		for k, i := range s.gvar {
			s.x[k] = warm[i]
		}
	} else {
		clear(s.x)
	}
	for k, i := range s.gvar {
		s.f[k] = p.F[i]
	}

	if k := s.buildBlocks(); k >= 0 && p.HG != nil {
		g := sort.Search(s.ng, func(g int) bool { return p.HG.Ptr[g+1] > int32(k) })
		return Result{}, fmt.Errorf("blockqp: HG: block %d (of group %d): %s", k, g, s.groupBlockError(g, int32(k)))
	} else if k >= 0 {
		i := sort.Search(s.n, func(i int) bool { return p.H.RowPtr[i+1] > k })
		return Result{}, fmt.Errorf("blockqp: H: entry %d (row %d, column %d) is %v or outside %d columns", k, i, p.H.Col[k], p.H.Val[k], s.n)
	}
	if err := s.checkDomains(); err != nil {
		return Result{}, err
	}

	// First working set: the equalities, the inequalities tight or violated
	// at the warm start, and those the caller marks Warm.
	xInf := 0.0
	for _, v := range s.x {
		xInf = math.Max(xInf, math.Abs(v))
	}
	ptol := set.FeasTol * math.Max(s.aInf*xInf, s.bInf)
	for i := range p.Rows {
		r := &p.Rows[i]
		if r.Eq {
			s.active[i] = true
			continue
		}
		s.active[i] = r.Warm || s.rowDot(i, s.x)-r.Target <= ptol
	}
	for g := range s.changed {
		s.changed[g] = true
	}
	s.wantBB = true
	s.seen = append(s.seen[:0], s.activeHash())

	if s.forcePrimal {
		s.restoreFeasibility(ptol)
	}
	var res Result
	// primal: the bulk (primal-dual) steps have stalled or cycled, and the
	// search goes on as a primal feasible active-set method (see ratioTest).
	primal, bland := s.forcePrimal, false
	// epoch counts the primal method's moves (steps of nonzero length); a
	// row released since the last move has relEpoch == epoch.
	epoch := int32(1)
	clear(s.locked)
	clear(s.relEpoch)
	s.primalRounds, s.degenerate, s.lockedRows = 0, 0, 0
	screen := math.Max(set.Tol, set.ScreenTol)
	tol := screen
	if primal {
		tol = set.Tol
	}
	// fewest is the fewest candidates seen at this tolerance; stalled counts
	// the rounds since it last fell.
	fewest, stalled := math.MaxInt, 0
	for round := 1; ; round++ {
		s.project()
		if primal {
			copy(s.x0, s.x)
		}
		it, ok, rel, msg := s.pcg(tol, set.MaxCG)
		res.CGIterations += it
		res.Rounds = round
		res.Residual = rel
		s.parallel(s.fnMult)
		ps := math.Max(s.aInf*s.maxPart(0), s.bInf)
		ys := s.maxPart(2)
		if s.a1 > 0 {
			ys = math.Max(ys, math.Max(s.maxPart(1), s.fInf)/s.a1)
		}
		ptol, dtol := set.FeasTol*ps, set.DualTol*ys

		// Candidates: working inequalities with negative multipliers and
		// violated inactive inequalities. Of the former, iRel is the most
		// negative and bRel the first by index (Bland's rule).
		nRel, nAdd := 0, 0
		worstY := 0.0
		iRel, bRel := -1, -1
		res.Violation, res.NegMultiplier = 0, 0
		for i := range p.Rows {
			if p.Rows[i].Eq {
				continue
			}
			if y := s.y[i]; y < 0 && ys > 0 {
				res.NegMultiplier = math.Max(res.NegMultiplier, -y/ys)
			}
			if sl := s.slack[i]; sl < 0 && ps > 0 {
				res.Violation = math.Max(res.Violation, -sl/ps)
			}
			if s.active[i] {
				if s.y[i] < -dtol && !s.locked[i] {
					nRel++
					if bRel < 0 {
						bRel = i
					}
					if s.y[i] < worstY {
						worstY, iRel = s.y[i], i
					}
				}
			} else if s.slack[i] < -ptol {
				nAdd++
			}
		}
		if !ok {
			res.Message = msg
			break
		}
		if nRel == 0 && nAdd == 0 && tol <= set.Tol {
			res.Converged = true
			break
		}
		if round >= set.MaxRounds {
			if nRel == 0 && nAdd == 0 {
				res.Message = fmt.Sprintf("MaxRounds = %d reached before the final solve to Tol (the last was a screening solve to %.1e)", round, tol)
				break
			}
			res.Message = fmt.Sprintf("active set not settled after %d rounds: %d working inequalities with negative multipliers, %d violated inequalities", round, nRel, nAdd)
			break
		}
		if primal {
			s.primalRounds++
			if nAdd > 0 {
				// Step from x0 towards the new solution up to the first
				// inactive row it would violate, and add that row.
				i, alpha := s.ratioTest(ptol)
				if alpha == 0 && s.relEpoch[i] == epoch {
					// Released on a negative multiplier and blocking
					// before x has moved: in exact arithmetic a row
					// released with y < 0 is left at a positive rate, so
					// its y was solve noise about zero (a degenerate row).
					// Keep it: this bounds the re-adding, and with it the
					// cycling that noisy signs would cause.
					s.locked[i] = true
					s.lockedRows++
				}
				// Zero steps switch the release rule to Bland's (first by
				// index), under which degenerate steps cannot cycle.
				bland = alpha == 0
				if bland {
					s.degenerate++
				} else {
					epoch++
				}
				s.active[i] = true
				s.changed[p.Rows[i].Group] = true
				continue
			}
			if nRel > 0 {
				i := iRel
				if bland {
					i = bRel
				}
				s.active[i] = false
				s.changed[p.Rows[i].Group] = true
				// The full step to this solution moved x (unless it
				// started there).
				if it > 0 {
					epoch++
				}
				s.relEpoch[i] = epoch
			}
			continue
		}
		if nRel == 0 && nAdd == 0 {
			// Stable at this accuracy: tighten. After a change the tolerance
			// stays, so late corrections do not repeat the loose solves.
			tol = math.Max(set.Tol, tol*screenStep)
			fewest, stalled = math.MaxInt, 0
			continue
		}
		if nRel+nAdd < fewest {
			fewest, stalled = nRel+nAdd, 0
		} else {
			stalled++
		}
		if stalled > 0 && tol > minTol {
			// The candidates did not fall: at this accuracy the multipliers'
			// signs and the slacks are noise (a loose solve does not resolve
			// H's soft directions, such as an EOL vertex's material motion).
			// Re-solve the same set tighter, below Tol if need be: Tol only
			// says how accurate the answer must be, not the decisions.
			tol = math.Max(minTol, tol*screenStep)
			fewest, stalled = math.MaxInt, 0
			continue
		}
		if stalled < stallRounds {
			s.applyBulk(ptol, dtol)
			h := s.activeHash()
			if !s.wasSeen(h) {
				s.seen = append(s.seen, h)
				continue
			}
			// The bulk step cycles: undo it.
			for _, i := range s.toggled {
				s.active[i] = !s.active[i]
			}
		}
		// Cycling or stalled: go on as a primal feasible method from a
		// feasible point, solving to Tol or tighter.
		primal, tol = true, math.Min(tol, set.Tol)
		s.restoreFeasibility(ptol)
	}
	for g := 0; g < s.ng; g++ {
		if s.reg[g] {
			res.RegularizedGroups++
		}
	}
	for k, i := range s.gvar {
		s.xo[i] = s.x[k]
	}
	res.X, res.Y, res.Active = s.xo, s.y, s.active
	return res, nil
}

// rowDot returns a_i . v, v in group order.
func (s *Solver) rowDot(i int, v []float64) float64 {
	r := &s.p.Rows[i]
	v = v[s.gptr[r.Group]:s.gptr[r.Group+1]]
	d := 0.0
	for a, c := range r.Coef {
		d += c * v[a]
	}
	return d
}

// ratioTest is the primal method's step: the solve went from x0 (feasible)
// to x, which violates some inactive rows by more than ptol. It finds the
// largest alpha in [0, 1] for which x0 + alpha (x - x0) violates none, moves
// x there and returns the blocking row (the first by index among ties,
// Bland's rule) and alpha. Along the segment the objective falls, as every
// PCG iterate from x0 lowers it.
func (s *Solver) ratioTest(ptol float64) (int, float64) {
	best, alpha := -1, 1.0
	for i := range s.p.Rows {
		if s.p.Rows[i].Eq || s.active[i] || !(s.slack[i] < -ptol) {
			continue
		}
		s0 := s.rowDot(i, s.x0) - s.p.Rows[i].Target
		t := 0.0
		if s0 > ptol { // else tight at x0: a degenerate (zero) step
			t = s0 / (s0 - s.slack[i])
		}
		if best < 0 || t < alpha {
			best, alpha = i, t
		}
	}
	for j, v := range s.x0 {
		s.x[j] = v + alpha*(s.x[j]-v)
	}
	return best, alpha
}

// project runs passProject. z, and with it the reference residual bb, changes
// only where a group's working rows have, so pcg recomputes bb only then.
func (s *Solver) project() {
	s.parallel(s.fnProject)
	if s.maxPart(0) > 0 {
		s.wantBB = true
	}
}

// restoreFeasibility makes x feasible for the primal method: it adds every
// inactive inequality violated by more than ptol to the working set and
// projects x onto the working rows, until none is violated. A group's rows
// are independent, so this ends with at most all of a group's rows working.
func (s *Solver) restoreFeasibility(ptol float64) {
	for pass := 0; pass <= MaxGroupSize; pass++ {
		s.project()
		added := false
		for i := range s.p.Rows {
			r := &s.p.Rows[i]
			if r.Eq || s.active[i] || !(s.rowDot(i, s.x)-r.Target < -ptol) {
				continue
			}
			s.active[i] = true
			s.changed[r.Group] = true
			added = true
		}
		if !added {
			return
		}
	}
}

// applyBulk toggles every working inequality with y < -dtol and every
// inactive inequality with slack < -ptol, listing them in s.toggled.
func (s *Solver) applyBulk(ptol, dtol float64) {
	s.toggled = s.toggled[:0]
	for i := range s.p.Rows {
		r := &s.p.Rows[i]
		if r.Eq {
			continue
		}
		if (s.active[i] && s.y[i] < -dtol) || (!s.active[i] && s.slack[i] < -ptol) {
			s.active[i] = !s.active[i]
			s.changed[r.Group] = true
			s.toggled = append(s.toggled, int32(i))
		}
	}
}

// activeHash is an FNV-1a hash of the indices of the working inequalities.
func (s *Solver) activeHash() uint64 {
	h := uint64(14695981039346656037)
	for i, a := range s.active {
		if a && !s.p.Rows[i].Eq {
			for v := uint64(i) + 1; v != 0; v >>= 8 {
				h ^= v & 0xff
				h *= 1099511628211
			}
			h ^= 0xff
			h *= 1099511628211
		}
	}
	return h
}

func (s *Solver) wasSeen(h uint64) bool {
	for _, x := range s.seen {
		if x == h {
			return true
		}
	}
	return false
}
