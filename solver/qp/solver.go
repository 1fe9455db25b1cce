package qp

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/ldlt"
)

// Solver solves QPs, keeping the symbolic analysis of the KKT matrix (and the
// numeric factor storage) between calls while the sparsity patterns of H, Aeq
// and Ain stay the same. A Solver is not safe for concurrent use.
type Solver struct {
	pPat, aPat *CSR // patterns the analysis was built for
	kkt        *kktPattern
	sym        *ldlt.Symbolic
	fADMM      *ldlt.Factor
	fPol       *ldlt.Factor
	// Analyses counts symbolic analyses (for tests of pattern reuse).
	analyses int
	gw       *gmresWork
	w        workspace
}

// workspace holds a Solver's buffers between calls, so that a solve whose
// patterns are those of the previous one allocates nothing (SolveInto).
type workspace struct {
	hc, ht, p CSR // canonical H, its transpose, the symmetric H (scaled in place)
	ac, a     CSR // one constraint block made canonical, the stacked [Aeq; Ain] (scaled in place)
	ent       []csrEntry
	next      []int
	run       run
	res       residualWork
}

// NewSolver returns an empty solver.
func NewSolver() *Solver { return &Solver{} }

// stack writes the canonical [a; b] of two optional matrices with n columns
// into w.a and returns it.
func stack(a, b *CSR, n int, w *workspace) *CSR {
	out := &w.a
	out.Rows, out.Cols = 0, n
	out.RowPtr = append(out.RowPtr[:0], 0)
	out.Col, out.Val = out.Col[:0], out.Val[:0]
	for _, mm := range []*CSR{a, b} {
		if mm == nil {
			continue
		}
		c := &w.ac
		mm.canonicalInto(c, &w.ent)
		base := len(out.Col)
		out.Col = append(out.Col, c.Col...)
		out.Val = append(out.Val, c.Val...)
		for i := 1; i <= c.Rows; i++ {
			out.RowPtr = append(out.RowPtr, base+c.RowPtr[i])
		}
		out.Rows += c.Rows
	}
	return out
}

func copyPattern(m *CSR) *CSR {
	return &CSR{Rows: m.Rows, Cols: m.Cols, RowPtr: append([]int(nil), m.RowPtr...), Col: append([]int(nil), m.Col...)}
}

// run is the state of one Solve call.
type run struct {
	s    *Solver
	prob *Problem
	set  Settings

	n, meq, m int
	P, A      *CSR // scaled
	q, l      []float64
	D, E      []float64
	c         float64

	x, z, y, xPrev, yPrev []float64
	rho                   float64
	rhoInv                []float64 // 1/rho_i
	rhs, sol, dsol, res   []float64 // n+m
	tn, tn2, tm           []float64

	factorizations, polishSolves int
	pNorm, aNorm                 float64 // ||P||_inf, max(||A||_inf, ||A||_1), scaled

	best        *Result // nil or &bestR
	bestR, cand Result  // the best candidate so far; a candidate being scored
	actA, actB  []bool  // active-set guesses (m)
	tried       []bool  // the last active set polishing failed from
	cd          []float64
	xsA, ysA    []float64 // polished points (n, m), two pairs used in turn
	xsB, ysB    []float64
	bestScore   float64
}

// Solve solves p. warm may be nil; otherwise its X (and Yeq, Yin where their
// lengths match p) start the iteration, and its multipliers and X give the
// first active-set guess for polishing. Malformed input returns an error; a
// problem that is infeasible or unbounded returns a Result with the
// corresponding Status and a nil error.
func (s *Solver) Solve(p *Problem, warm *Result, set Settings) (*Result, error) {
	out := &Result{}
	if err := s.SolveInto(p, warm, set, out); err != nil {
		return nil, err
	}
	return out, nil
}

// SolveInto is Solve writing its result into out, whose slices it reuses:
// with out, warm and the Solver kept from call to call and the patterns of
// H, Aeq and Ain unchanged, a solve that ends Solved allocates nothing. out
// must not share storage with warm or p.
func (s *Solver) SolveInto(p *Problem, warm *Result, set Settings, out *Result) error {
	if err := p.validate(); err != nil {
		return err
	}
	set = set.withDefaults()
	P, err := symmetricH(p.H, &s.w)
	if err != nil {
		return err
	}
	n := len(p.F)
	A := stack(p.Aeq, p.Ain, n, &s.w)
	meq, m := len(p.Beq), A.Rows

	if s.kkt == nil || !samePattern(s.pPat, P) || !samePattern(s.aPat, A) {
		s.kkt = newKKTPattern(P, A)
		sym, err := ldlt.Analyze(s.kkt.mat, ldlt.AMD)
		if err != nil {
			s.kkt = nil
			return fmt.Errorf("qp: analysing KKT matrix: %w", err)
		}
		s.sym = sym
		s.pPat, s.aPat = copyPattern(P), copyPattern(A)
		s.fADMM, s.fPol = nil, nil
		s.analyses++
	}

	r := s.w.run.reset(s, p, set, n, meq, m, P, A)
	for i, f := range p.F {
		r.q[i] = -f
	}
	r.c = ruiz(P, A, r.q, r.D, r.E, set.ScalingIter, r.tn, r.tm)
	r.pNorm, r.aNorm = P.normInf(), math.Max(A.normInf(), A.norm1(&s.w.res.col))
	for i := 0; i < m; i++ {
		if i < meq {
			r.l[i] = p.Beq[i] * r.E[i]
		} else {
			r.l[i] = p.Bin[i-meq] * r.E[i]
		}
	}
	res, err := r.solve(warm)
	if err != nil {
		return err
	}
	copyResult(out, res)
	return nil
}

// reset readies r for a solve of the given sizes, keeping its buffers: the
// iterates start at zero.
func (r *run) reset(s *Solver, p *Problem, set Settings, n, meq, m int, P, A *CSR) *run {
	keep := *r
	*r = run{s: s, prob: p, set: set, n: n, meq: meq, m: m, P: P, A: A, bestScore: math.Inf(1)}
	r.q, r.D, r.tn, r.tn2 = resize(keep.q, n), resize(keep.D, n), resize(keep.tn, n), resize(keep.tn2, n)
	r.E, r.tm, r.l = resize(keep.E, m), resize(keep.tm, m), resize(keep.l, m)
	r.x, r.xPrev = resize(keep.x, n), resize(keep.xPrev, n)
	r.z, r.y, r.yPrev, r.rhoInv = resize(keep.z, m), resize(keep.y, m), resize(keep.yPrev, m), resize(keep.rhoInv, m)
	r.rhs, r.sol, r.dsol, r.res = resize(keep.rhs, n+m), resize(keep.sol, n+m), resize(keep.dsol, n+m), resize(keep.res, n+m)
	for _, v := range [][]float64{r.x, r.z, r.y} {
		clear(v)
	}
	r.bestR, r.cand = keep.bestR, keep.cand
	r.actA, r.actB, r.tried = resize(keep.actA, m), resize(keep.actB, m), keep.tried[:0]
	r.cd = resize(keep.cd, m)
	r.xsA, r.ysA, r.xsB, r.ysB = resize(keep.xsA, n), resize(keep.ysA, m), resize(keep.xsB, n), resize(keep.ysB, m)
	return r
}

// copyResult copies src into dst, reusing dst's slices.
func copyResult(dst, src *Result) {
	x, yeq, yin := append(dst.X[:0], src.X...), append(dst.Yeq[:0], src.Yeq...), append(dst.Yin[:0], src.Yin...)
	*dst = *src
	dst.X, dst.Yeq, dst.Yin = x, yeq, yin
}

// project clamps v onto [l_i, u_i] (u_i = l_i for equalities, +inf otherwise).
func (r *run) project(i int, v float64) float64 {
	if i < r.meq || v < r.l[i] {
		return r.l[i]
	}
	return v
}

func (r *run) setRho(rho float64) {
	r.rho = rho
	for i := range r.rhoInv {
		if i < r.meq {
			r.rhoInv[i] = 1 / (1e3 * rho)
		} else {
			r.rhoInv[i] = 1 / rho
		}
	}
}

// factorADMM (re)factors the ADMM KKT matrix for the current rho.
func (r *run) factorADMM() error {
	k := r.s.kkt
	k.fill(r.P, r.A, r.set.Sigma, nil, r.rhoInv)
	r.factorizations++
	if r.s.fADMM == nil {
		f, err := r.s.sym.Factor(k.mat, k.signs)
		if err != nil {
			return fmt.Errorf("qp: factoring ADMM KKT matrix: %w", err)
		}
		r.s.fADMM = f
		return nil
	}
	if err := r.s.fADMM.Refactor(k.mat, k.signs); err != nil {
		return fmt.Errorf("qp: factoring ADMM KKT matrix: %w", err)
	}
	return nil
}

// unscaledInto writes the iterate in the caller's units and sign
// convention into out's X, Yeq and Yin, reusing their storage.
func (r *run) unscaledInto(out *Result, xs, ys []float64) {
	out.X = resize(out.X, r.n)
	for i := range out.X {
		out.X[i] = r.D[i] * xs[i]
	}
	out.Yeq = resize(out.Yeq, r.meq)
	out.Yin = resize(out.Yin, r.m-r.meq)
	for i := 0; i < r.m; i++ {
		v := -r.E[i] * ys[i] / r.c
		if i < r.meq {
			out.Yeq[i] = v
		} else {
			out.Yin[i-r.meq] = v
		}
	}
}

// unscaled returns the iterate in the caller's units and sign convention, in
// new slices.
func (r *run) unscaled(xs, ys []float64) (x, yeq, yin []float64) {
	var out Result
	r.unscaledInto(&out, xs, ys)
	return out.X, out.Yeq, out.Yin
}

// consider records a candidate answer and reports whether it meets Tol, and
// its largest residual.
func (r *run) consider(xs, ys []float64, polished bool) (bool, float64) {
	c := &r.cand
	r.unscaledInto(c, xs, ys)
	res := residuals(r.prob, c.X, c.Yeq, c.Yin, &r.s.w.res)
	score := res.Max()
	if math.IsNaN(score) {
		return false, score
	}
	if score < r.bestScore || (polished && score <= r.set.Tol && !r.best.Polished) {
		r.bestScore = score
		r.cand, r.bestR = r.bestR, r.cand
		b := &r.bestR
		b.Polished, b.Residuals = polished, res
		r.best = b
	}
	return score <= r.set.Tol, score
}

func (r *run) finish(st Status, iter int) *Result {
	out := r.best
	if out == nil {
		out = &r.bestR
		r.unscaledInto(out, r.x, r.y)
		out.Polished, out.Residuals = false, residuals(r.prob, out.X, out.Yeq, out.Yin, &r.s.w.res)
	}
	out.Status = st
	out.Iterations = iter
	out.Factorizations = r.factorizations
	out.PolishSolves = r.polishSolves
	out.Rho = r.rho
	return out
}

func (r *run) solve(warm *Result) (*Result, error) {
	n, m, set := r.n, r.m, r.set
	if warm != nil {
		if len(warm.X) == n {
			for i := range r.x {
				r.x[i] = warm.X[i] / r.D[i]
			}
		}
		if len(warm.Yeq) == r.meq && len(warm.Yin) == m-r.meq {
			for i := 0; i < m; i++ {
				var v float64
				if i < r.meq {
					v = warm.Yeq[i]
				} else {
					v = warm.Yin[i-r.meq]
				}
				r.y[i] = -r.c * v / r.E[i]
			}
		}
		r.A.mulVec(r.x, r.z)
		for i := range r.z {
			r.z[i] = r.project(i, r.z[i])
		}
		if set.Polish {
			act := r.pdasActive(r.x, r.y, nil)
			if ok, err := r.polishRounds(act, r.x, r.y); err != nil {
				return nil, err
			} else if ok {
				return r.finish(Solved, 0), nil
			}
		}
	} else if set.Polish && m == r.meq {
		// Equality constraints only: the active set is known.
		act := r.actA
		for i := range act {
			act[i] = true
		}
		if ok, err := r.polishRounds(act, r.x, r.y); err != nil {
			return nil, err
		} else if ok {
			return r.finish(Solved, 0), nil
		}
	}

	r.setRho(set.Rho)
	if err := r.factorADMM(); err != nil {
		return nil, err
	}
	epsAbs, epsRel := set.EpsAbs, set.EpsRel
	lastRhoUpdate := 0
	adaptInterval := 25
	nextPolish := 200
	alpha := set.Alpha
	f := r.s.fADMM
	px, aty, ax := r.tn, r.tn2, r.tm
	for iter := 1; iter <= set.MaxIter; iter++ {
		copy(r.xPrev, r.x)
		copy(r.yPrev, r.y)
		for i := 0; i < n; i++ {
			r.rhs[i] = set.Sigma*r.x[i] - r.q[i]
		}
		for i := 0; i < m; i++ {
			r.rhs[n+i] = r.z[i] - r.y[i]*r.rhoInv[i]
		}
		f.Solve(r.rhs, r.sol)
		for i := 0; i < n; i++ {
			r.x[i] = alpha*r.sol[i] + (1-alpha)*r.x[i]
		}
		for i := 0; i < m; i++ {
			zt := r.z[i] + (r.sol[n+i]-r.y[i])*r.rhoInv[i]
			zr := alpha*zt + (1-alpha)*r.z[i]
			zn := r.project(i, zr+r.y[i]*r.rhoInv[i])
			r.y[i] += (zr - zn) / r.rhoInv[i]
			r.z[i] = zn
		}
		if iter%set.CheckEvery != 0 && iter != set.MaxIter {
			continue
		}

		// unscaled residuals, OSQP definitions
		r.A.mulVec(r.x, ax)
		prim, nAx, nZ := 0.0, 0.0, 0.0
		for i := 0; i < m; i++ {
			ie := 1 / r.E[i]
			prim = math.Max(prim, math.Abs(ax[i]-r.z[i])*ie)
			nAx = math.Max(nAx, math.Abs(ax[i])*ie)
			nZ = math.Max(nZ, math.Abs(r.z[i])*ie)
		}
		r.P.mulVec(r.x, px)
		for i := range aty {
			aty[i] = 0
		}
		r.A.mulTransAdd(r.y, aty)
		dual, nPx, nATy, nq := 0.0, 0.0, 0.0, 0.0
		ic := 1 / r.c
		for j := 0; j < n; j++ {
			id := ic / r.D[j]
			dual = math.Max(dual, math.Abs(px[j]+r.q[j]+aty[j])*id)
			nPx = math.Max(nPx, math.Abs(px[j])*id)
			nATy = math.Max(nATy, math.Abs(aty[j])*id)
			nq = math.Max(nq, math.Abs(r.q[j])*id)
		}
		if st, ok := r.infeasible(); ok {
			return r.certificate(st, iter), nil
		}
		epsP := epsAbs + epsRel*math.Max(nAx, nZ)
		epsD := epsAbs + epsRel*math.Max(nPx, math.Max(nATy, nq))
		converged := prim <= epsP && dual <= epsD
		// Slow ADMM (degenerate problems): also polish periodically, at
		// doubling intervals, so that a correct active-set guess is used
		// early.
		stalled := iter >= nextPolish
		if stalled {
			nextPolish *= 2
		}
		if converged || stalled {
			if ok, _ := r.consider(r.x, r.y, false); ok {
				return r.finish(Solved, iter), nil
			}
			if set.Polish {
				act := r.admmActive()
				// retry a failed set only from a better converged ADMM point
				if converged || !sameBools(act, r.tried) {
					r.tried = append(r.tried[:0], act...)
					ok, err := r.polishRounds(act, r.x, r.y)
					if err != nil {
						return nil, err
					}
					if ok {
						return r.finish(Solved, iter), nil
					}
				}
			}
			if converged {
				epsAbs *= 0.1
				epsRel *= 0.1
			}
		}
		if set.AdaptiveRho && m > 0 && iter >= lastRhoUpdate+adaptInterval {
			pn := prim / (math.Max(nAx, nZ) + 1e-30)
			dn := dual / (math.Max(nPx, math.Max(nATy, nq)) + 1e-30)
			nr := r.rho * math.Sqrt(pn/(dn+1e-30))
			nr = math.Min(math.Max(nr, 1e-6), 1e6)
			if nr > 5*r.rho || nr < r.rho/5 {
				lastRhoUpdate = iter
				r.setRho(nr)
				if err := r.factorADMM(); err != nil {
					return nil, err
				}
			}
		}
	}
	r.consider(r.x, r.y, false)
	return r.finish(IterationLimit, set.MaxIter), nil
}

func sameBools(a, b []bool) bool {
	if len(a) != len(b) || a == nil {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// admmActive guesses the active set from the ADMM iterate (OSQP's rule).
func (r *run) admmActive() []bool {
	act := r.actA
	for i := range act {
		act[i] = i < r.meq || r.z[i]-r.l[i] < -r.y[i]
	}
	return act
}

// pdasActive is the primal-dual active-set rule: constraint i is active when
// its multiplier exceeds its slack (scaled units, OSQP sign of y). It writes
// into whichever of r.actA and r.actB is not other.
func (r *run) pdasActive(xs, ys []float64, other []bool) []bool {
	ax := r.tm
	r.A.mulVec(xs, ax)
	act := r.actA
	if len(other) > 0 && len(act) > 0 && &other[0] == &act[0] {
		act = r.actB
	}
	for i := range act {
		act[i] = i < r.meq || -ys[i]-(ax[i]-r.l[i]) > 0
	}
	return act
}

// infeasible checks OSQP's primal and dual infeasibility certificates on the
// last iterate differences.
func (r *run) infeasible() (Status, bool) {
	n, m := r.n, r.m
	set := r.set
	if m > 0 {
		dy := r.tm
		norm := 0.0
		for i := 0; i < m; i++ {
			d := r.y[i] - r.yPrev[i]
			if i >= r.meq && d > 0 { // no upper bound: component cannot certify
				d = 0
			}
			dy[i] = d
			norm = math.Max(norm, math.Abs(d*r.E[i]))
		}
		if norm > 1e-30 {
			lin := 0.0
			for i := 0; i < m; i++ {
				lin += r.l[i] * dy[i]
			}
			if lin < -set.EpsPrimInf*norm {
				aty := r.tn
				for i := range aty {
					aty[i] = 0
				}
				r.A.mulTransAdd(dy, aty)
				ok := true
				for j := 0; j < n; j++ {
					if math.Abs(aty[j]/r.D[j]) >= set.EpsPrimInf*norm {
						ok = false
						break
					}
				}
				if ok {
					return Infeasible, true
				}
			}
		}
	}
	dx := r.tn
	norm := 0.0
	for j := 0; j < n; j++ {
		dx[j] = r.x[j] - r.xPrev[j]
		norm = math.Max(norm, math.Abs(dx[j]*r.D[j]))
	}
	if norm <= 1e-30 {
		return 0, false
	}
	qdx := 0.0
	for j := 0; j < n; j++ {
		qdx += r.q[j] * dx[j]
	}
	eps := set.EpsDualInf * norm
	if qdx >= -r.c*eps {
		return 0, false
	}
	pdx := r.tn2
	r.P.mulVec(dx, pdx)
	for j := 0; j < n; j++ {
		if math.Abs(pdx[j]/r.D[j]) >= r.c*eps {
			return 0, false
		}
	}
	adx := r.tm
	r.A.mulVec(dx, adx)
	for i := 0; i < m; i++ {
		v := adx[i] / r.E[i]
		if i < r.meq {
			if math.Abs(v) >= eps {
				return 0, false
			}
		} else if v <= -eps {
			return 0, false
		}
	}
	return DualInfeasible, true
}

// certificate builds the Result for an infeasibility status from the last
// iterate differences.
func (r *run) certificate(st Status, iter int) *Result {
	out := &Result{Status: st, Iterations: iter, Factorizations: r.factorizations, PolishSolves: r.polishSolves, Rho: r.rho}
	if st == Infeasible {
		dy := make([]float64, r.m)
		for i := range dy {
			d := r.y[i] - r.yPrev[i]
			if i >= r.meq && d > 0 {
				d = 0
			}
			dy[i] = d
		}
		_, out.Yeq, out.Yin = r.unscaled(make([]float64, r.n), dy)
		s := math.Max(vecNormInf(out.Yeq), vecNormInf(out.Yin))
		for i := range out.Yeq {
			out.Yeq[i] /= s
		}
		for i := range out.Yin {
			out.Yin[i] /= s
		}
		out.X = make([]float64, r.n)
		return out
	}
	dx := make([]float64, r.n)
	for j := range dx {
		dx[j] = r.x[j] - r.xPrev[j]
	}
	out.X, _, _ = r.unscaled(dx, make([]float64, r.m))
	s := vecNormInf(out.X)
	for j := range out.X {
		out.X[j] /= s
	}
	out.Yeq = make([]float64, r.meq)
	out.Yin = make([]float64, r.m-r.meq)
	return out
}
