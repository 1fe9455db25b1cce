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
}

// NewSolver returns an empty solver.
func NewSolver() *Solver { return &Solver{} }

// stack returns the canonical [a; b] of two optional matrices with n columns.
func stack(a, b *CSR, n int) *CSR {
	out := &CSR{Cols: n, RowPtr: []int{0}}
	for _, mm := range []*CSR{a, b} {
		if mm == nil {
			continue
		}
		c := mm.canonical()
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

	best      *Result
	bestScore float64
}

// Solve solves p. warm may be nil; otherwise its X (and Yeq, Yin where their
// lengths match p) start the iteration, and its multipliers and X give the
// first active-set guess for polishing. Malformed input returns an error; a
// problem that is infeasible or unbounded returns a Result with the
// corresponding Status and a nil error.
func (s *Solver) Solve(p *Problem, warm *Result, set Settings) (*Result, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	set = set.withDefaults()
	P, err := symmetricH(p.H)
	if err != nil {
		return nil, err
	}
	n := len(p.F)
	A := stack(p.Aeq, p.Ain, n)
	meq, m := len(p.Beq), A.Rows

	if s.kkt == nil || !samePattern(s.pPat, P) || !samePattern(s.aPat, A) {
		s.kkt = newKKTPattern(P, A)
		sym, err := ldlt.Analyze(s.kkt.mat, ldlt.AMD)
		if err != nil {
			s.kkt = nil
			return nil, fmt.Errorf("qp: analysing KKT matrix: %w", err)
		}
		s.sym = sym
		s.pPat, s.aPat = copyPattern(P), copyPattern(A)
		s.fADMM, s.fPol = nil, nil
		s.analyses++
	}

	r := &run{s: s, prob: p, set: set, n: n, meq: meq, m: m, P: P, A: A}
	r.q = make([]float64, n)
	for i, f := range p.F {
		r.q[i] = -f
	}
	r.D = make([]float64, n)
	r.E = make([]float64, m)
	r.tn = make([]float64, n)
	r.tn2 = make([]float64, n)
	r.tm = make([]float64, m)
	r.c = ruiz(P, A, r.q, r.D, r.E, set.ScalingIter, r.tn)
	r.pNorm, r.aNorm = P.normInf(), math.Max(A.normInf(), A.norm1())
	r.l = make([]float64, m)
	for i := 0; i < m; i++ {
		if i < meq {
			r.l[i] = p.Beq[i] * r.E[i]
		} else {
			r.l[i] = p.Bin[i-meq] * r.E[i]
		}
	}
	r.x = make([]float64, n)
	r.xPrev = make([]float64, n)
	r.z = make([]float64, m)
	r.y = make([]float64, m)
	r.yPrev = make([]float64, m)
	r.rhoInv = make([]float64, m)
	r.rhs = make([]float64, n+m)
	r.sol = make([]float64, n+m)
	r.dsol = make([]float64, n+m)
	r.res = make([]float64, n+m)
	r.bestScore = math.Inf(1)
	return r.solve(warm)
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

// unscaled returns the iterate in the caller's units and sign convention.
func (r *run) unscaled(xs, ys []float64) (x, yeq, yin []float64) {
	x = make([]float64, r.n)
	for i := range x {
		x[i] = r.D[i] * xs[i]
	}
	yeq = make([]float64, r.meq)
	yin = make([]float64, r.m-r.meq)
	for i := 0; i < r.m; i++ {
		v := -r.E[i] * ys[i] / r.c
		if i < r.meq {
			yeq[i] = v
		} else {
			yin[i-r.meq] = v
		}
	}
	return
}

// consider records a candidate answer and reports whether it meets Tol.
func (r *run) consider(xs, ys []float64, polished bool) bool {
	x, yeq, yin := r.unscaled(xs, ys)
	res := Residuals(r.prob, x, yeq, yin)
	score := res.Max()
	if math.IsNaN(score) {
		return false
	}
	if score < r.bestScore || (polished && score <= r.set.Tol && !r.best.Polished) {
		r.bestScore = score
		r.best = &Result{X: x, Yeq: yeq, Yin: yin, Polished: polished, Residuals: res}
	}
	return score <= r.set.Tol
}

func (r *run) finish(st Status, iter int) *Result {
	out := r.best
	if out == nil {
		x, yeq, yin := r.unscaled(r.x, r.y)
		out = &Result{X: x, Yeq: yeq, Yin: yin, Residuals: Residuals(r.prob, x, yeq, yin)}
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
			act := r.pdasActive(r.x, r.y)
			if ok, err := r.polishRounds(act, r.x, r.y); err != nil {
				return nil, err
			} else if ok {
				return r.finish(Solved, 0), nil
			}
		}
	} else if set.Polish && m == r.meq {
		// Equality constraints only: the active set is known.
		act := make([]bool, m)
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
	var lastTried []bool
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
			if r.consider(r.x, r.y, false) {
				return r.finish(Solved, iter), nil
			}
			if set.Polish {
				act := r.admmActive()
				// retry a failed set only from a better converged ADMM point
				if converged || !sameBools(act, lastTried) {
					lastTried = act
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
	act := make([]bool, r.m)
	for i := range act {
		act[i] = i < r.meq || r.z[i]-r.l[i] < -r.y[i]
	}
	return act
}

// pdasActive is the primal-dual active-set rule: constraint i is active when
// its multiplier exceeds its slack (scaled units, OSQP sign of y).
func (r *run) pdasActive(xs, ys []float64) []bool {
	ax := r.tm
	r.A.mulVec(xs, ax)
	act := make([]bool, r.m)
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
