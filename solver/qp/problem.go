package qp

import (
	"fmt"
	"math"
	"slices"
)

// Problem is the convex QP
//
//	minimize 1/2 v^T H v - F^T v  subject to  Aeq v = Beq,  Ain v >= Bin.
//
// H must be symmetric positive semi-definite and stored in full (both
// triangles). Aeq/Beq and Ain/Bin may be nil or empty (zero rows). All values
// must be finite.
type Problem struct {
	H   *CSR
	F   []float64
	Aeq *CSR
	Beq []float64
	Ain *CSR
	Bin []float64
}

// N returns the number of variables.
func (p *Problem) N() int { return len(p.F) }

func rowsOf(m *CSR) int {
	if m == nil {
		return 0
	}
	return m.Rows
}

// validate checks dimensions, finiteness and the symmetry of H.
func (p *Problem) validate() error {
	if p == nil {
		return fmt.Errorf("qp: nil problem")
	}
	n := len(p.F)
	if p.H == nil {
		return fmt.Errorf("qp: H is nil")
	}
	if err := p.H.validate("H", n, n); err != nil {
		return err
	}
	if err := checkVec("F", p.F, n); err != nil {
		return err
	}
	if p.Aeq != nil {
		if err := p.Aeq.validate("Aeq", len(p.Beq), n); err != nil {
			return err
		}
	} else if len(p.Beq) != 0 {
		return fmt.Errorf("qp: Aeq is nil but len(Beq) = %d", len(p.Beq))
	}
	if err := checkVec("Beq", p.Beq, len(p.Beq)); err != nil {
		return err
	}
	if p.Ain != nil {
		if err := p.Ain.validate("Ain", len(p.Bin), n); err != nil {
			return err
		}
	} else if len(p.Bin) != 0 {
		return fmt.Errorf("qp: Ain is nil but len(Bin) = %d", len(p.Bin))
	}
	return checkVec("Bin", p.Bin, len(p.Bin))
}

// symmetricH writes the canonical form of H into w.p after checking that it
// is symmetric to within 1e-10 relative to its largest entry. The result is
// exactly symmetric, (H + H^T)/2, with the union pattern. It reuses w's
// buffers.
func symmetricH(h *CSR, w *workspace) (*CSR, error) {
	c, t, out := &w.hc, &w.ht, &w.p
	h.canonicalInto(c, &w.ent)
	c.transposeInto(t, &w.next)
	maxAbs := 0.0
	for _, v := range c.Val {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	tol := 1e-10 * maxAbs
	out.Rows, out.Cols = c.Rows, c.Cols
	out.RowPtr = resize(out.RowPtr, c.Rows+1)
	out.RowPtr[0] = 0
	out.Col = slices.Grow(out.Col[:0], len(c.Col))
	out.Val = slices.Grow(out.Val[:0], len(c.Col))
	for i := 0; i < c.Rows; i++ {
		a, ae := c.RowPtr[i], c.RowPtr[i+1]
		b, be := t.RowPtr[i], t.RowPtr[i+1]
		for a < ae || b < be {
			var j int
			var va, vb float64
			switch {
			case b >= be || (a < ae && c.Col[a] < t.Col[b]):
				j, va = c.Col[a], c.Val[a]
				a++
			case a >= ae || t.Col[b] < c.Col[a]:
				j, vb = t.Col[b], t.Val[b]
				b++
			default:
				j, va, vb = c.Col[a], c.Val[a], t.Val[b]
				a++
				b++
			}
			if math.Abs(va-vb) > tol {
				return nil, fmt.Errorf("qp: H is not symmetric: H[%d][%d] = %g but H[%d][%d] = %g", i, j, va, j, i, vb)
			}
			out.Col = append(out.Col, j)
			out.Val = append(out.Val, 0.5*(va+vb))
		}
		out.RowPtr[i+1] = len(out.Col)
	}
	return out, nil
}

// Status is the outcome of a solve.
type Status int

const (
	// Solved: the returned point meets Settings.Tol on every KKT residual.
	Solved Status = iota
	// Infeasible: the constraints admit no point. Yeq and Yin hold a primal
	// infeasibility certificate y (Yin >= 0, ||y||_inf = 1) with
	// ||Aeq^T Yeq + Ain^T Yin||_inf small and Beq^T Yeq + Bin^T Yin > 0.
	Infeasible
	// IterationLimit: MaxIter ADMM iterations ran without meeting Tol; the
	// result holds the best point found (smallest largest residual).
	IterationLimit
	// DualInfeasible: the objective is unbounded below on the feasible set. X
	// holds a certificate direction d (||d||_inf = 1) with H d ~ 0, F^T d > 0,
	// Aeq d ~ 0 and Ain d >= ~0.
	DualInfeasible
)

func (s Status) String() string {
	switch s {
	case Solved:
		return "Solved"
	case Infeasible:
		return "Infeasible"
	case IterationLimit:
		return "IterationLimit"
	case DualInfeasible:
		return "DualInfeasible"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Settings controls a solve. Zero numeric fields are replaced by the values of
// DefaultSettings; the booleans are taken as given.
type Settings struct {
	// MaxIter bounds the number of ADMM iterations (default 100000).
	MaxIter int
	// EpsAbs and EpsRel are the initial ADMM stopping tolerances (defaults
	// 1e-6 and 1e-4, OSQP's definitions on unscaled residuals). When the ADMM
	// iterate meets them, polishing is tried; if polishing does not reach Tol
	// they are divided by 10 and ADMM continues.
	EpsAbs, EpsRel float64
	// Tol is the accuracy asked of the answer: every component of
	// Result.Residuals must be <= Tol for status Solved (default 1e-8).
	Tol float64
	// EpsPrimInf and EpsDualInf are the tolerances of the infeasibility
	// certificates (default 1e-5 each).
	EpsPrimInf, EpsDualInf float64
	// Rho is the initial ADMM penalty (default 0.1), Sigma the proximal
	// regularisation of H (default 1e-6), Alpha the over-relaxation (default
	// 1.6).
	Rho, Sigma, Alpha float64
	// AdaptiveRho enables OSQP's residual-balancing rho update (each update
	// costs one numeric refactorisation).
	AdaptiveRho bool
	// ScalingIter is the number of Ruiz equilibration passes (default 10;
	// negative disables scaling).
	ScalingIter int
	// CheckEvery is the number of ADMM iterations between termination,
	// infeasibility and polish checks (default 5).
	CheckEvery int
	// Polish enables the active-set polishing step.
	Polish bool
	// PolishDelta is the regularisation of the polishing KKT matrix (default
	// 1e-7); PolishRefine bounds its iterative refinement steps (default 25);
	// PolishRounds bounds the active-set corrections after one failed polish
	// (default 4).
	PolishDelta  float64
	PolishRefine int
	PolishRounds int
}

// DefaultSettings returns the defaults described on Settings, with AdaptiveRho
// and Polish enabled.
func DefaultSettings() Settings {
	return Settings{
		MaxIter:      100000,
		EpsAbs:       1e-6,
		EpsRel:       1e-4,
		Tol:          1e-8,
		EpsPrimInf:   1e-5,
		EpsDualInf:   1e-5,
		Rho:          0.1,
		Sigma:        1e-6,
		Alpha:        1.6,
		AdaptiveRho:  true,
		ScalingIter:  10,
		CheckEvery:   5,
		Polish:       true,
		PolishDelta:  1e-7,
		PolishRefine: 25,
		PolishRounds: 4,
	}
}

func (s Settings) withDefaults() Settings {
	d := DefaultSettings()
	if s.MaxIter <= 0 {
		s.MaxIter = d.MaxIter
	}
	if s.EpsAbs <= 0 {
		s.EpsAbs = d.EpsAbs
	}
	if s.EpsRel <= 0 {
		s.EpsRel = d.EpsRel
	}
	if s.Tol <= 0 {
		s.Tol = d.Tol
	}
	if s.EpsPrimInf <= 0 {
		s.EpsPrimInf = d.EpsPrimInf
	}
	if s.EpsDualInf <= 0 {
		s.EpsDualInf = d.EpsDualInf
	}
	if s.Rho <= 0 {
		s.Rho = d.Rho
	}
	if s.Sigma <= 0 {
		s.Sigma = d.Sigma
	}
	if s.Alpha <= 0 || s.Alpha >= 2 {
		s.Alpha = d.Alpha
	}
	if s.ScalingIter == 0 {
		s.ScalingIter = d.ScalingIter
	}
	if s.CheckEvery <= 0 {
		s.CheckEvery = d.CheckEvery
	}
	if s.PolishDelta <= 0 {
		s.PolishDelta = d.PolishDelta
	}
	if s.PolishRefine <= 0 {
		s.PolishRefine = d.PolishRefine
	}
	if s.PolishRounds <= 0 {
		s.PolishRounds = d.PolishRounds
	}
	return s
}

// Result is the outcome of Solver.Solve.
type Result struct {
	// X is the primal solution (or the unboundedness certificate).
	X []float64
	// Yeq and Yin are the multipliers of Aeq v = Beq and Ain v >= Bin in the
	// sign convention H X - F = Aeq^T Yeq + Ain^T Yin, Yin >= 0.
	Yeq, Yin []float64
	Status   Status
	// Iterations counts ADMM iterations.
	Iterations int
	// Polished reports that X, Yeq, Yin come from the polishing (reduced KKT)
	// solve rather than from the ADMM iterate.
	Polished bool
	// PolishSolves counts polishing KKT factorisations.
	PolishSolves int
	// Factorizations counts numeric KKT factorisations (ADMM and polish).
	Factorizations int
	// Rho is the final ADMM penalty.
	Rho float64
	// Residuals are the relative KKT residuals of (X, Yeq, Yin); not
	// meaningful for Infeasible and DualInfeasible.
	Residuals KKTResiduals
}

// KKTResiduals are relative KKT residuals, all in the infinity norm; see the
// package documentation for the exact definitions.
type KKTResiduals struct {
	Stationarity    float64
	PrimalEq        float64
	PrimalIn        float64
	DualIn          float64
	Complementarity float64
}

// Max returns the largest residual.
func (r KKTResiduals) Max() float64 {
	return math.Max(math.Max(math.Max(r.Stationarity, r.PrimalEq), math.Max(r.PrimalIn, r.DualIn)), r.Complementarity)
}

func (r KKTResiduals) String() string {
	return fmt.Sprintf("stat %.2e eq %.2e in %.2e dual %.2e comp %.2e", r.Stationarity, r.PrimalEq, r.PrimalIn, r.DualIn, r.Complementarity)
}

func safeDiv(a, b float64) float64 {
	if b == 0 {
		if a == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return a / b
}

// Residuals returns the relative KKT residuals of (x, yeq, yin) for p, as
// defined in the package documentation. It does not validate p; yeq and yin
// must have lengths len(Beq) and len(Bin) (nil is read as zero).
func Residuals(p *Problem, x, yeq, yin []float64) KKTResiduals {
	return residuals(p, x, yeq, yin, &residualWork{})
}

// residualWork holds Residuals' scratch vectors between calls.
type residualWork struct {
	yeq, yin, hx, geq, gin, ax, col []float64
}

// residuals is Residuals with its scratch vectors in w.
func residuals(p *Problem, x, yeq, yin []float64, w *residualWork) KKTResiduals {
	n := len(p.F)
	meq, min := len(p.Beq), len(p.Bin)
	if yeq == nil {
		w.yeq = resize(w.yeq, meq)
		clear(w.yeq)
		yeq = w.yeq
	}
	if yin == nil {
		w.yin = resize(w.yin, min)
		clear(w.yin)
		yin = w.yin
	}
	xn := vecNormInf(x)
	eqn1, inn1 := p.Aeq.norm1(&w.col), p.Ain.norm1(&w.col)
	eqnI, innI := p.Aeq.normInf(), p.Ain.normInf()

	// stationarity: H x - F - Aeq^T yeq - Ain^T yin, relative to the largest
	// of its four terms
	w.hx, w.geq, w.gin = resize(w.hx, n), resize(w.geq, n), resize(w.gin, n)
	hx, geq, gin := w.hx, w.geq, w.gin
	p.H.mulVec(x, hx)
	clear(geq)
	clear(gin)
	p.Aeq.mulTransAdd(yeq, geq)
	p.Ain.mulTransAdd(yin, gin)
	st := 0.0
	for i := range hx {
		st = math.Max(st, math.Abs(hx[i]-p.F[i]-geq[i]-gin[i]))
	}
	hxn, fn := vecNormInf(hx), vecNormInf(p.F)
	yeqn, yinn := vecNormInf(yeq), vecNormInf(yin)
	statScale := math.Max(math.Max(hxn, fn), math.Max(vecNormInf(geq), vecNormInf(gin)))
	var res KKTResiduals
	res.Stationarity = safeDiv(st, statScale)

	if meq > 0 {
		w.ax = resize(w.ax, meq)
		ax := w.ax
		p.Aeq.mulVec(x, ax)
		e := 0.0
		for i := range ax {
			e = math.Max(e, math.Abs(ax[i]-p.Beq[i]))
		}
		res.PrimalEq = safeDiv(e, math.Max(eqnI*xn, vecNormInf(p.Beq)))
	}
	if min > 0 {
		w.ax = resize(w.ax, min)
		ax := w.ax
		p.Ain.mulVec(x, ax)
		pscale := math.Max(innI*xn, vecNormInf(p.Bin))
		// multiplier scale: the multipliers themselves, or the size of
		// multiplier that balances the forces H x and F.
		yscale := math.Max(yeqn, yinn)
		if an := math.Max(eqn1, inn1); an > 0 {
			yscale = math.Max(yscale, math.Max(hxn, fn)/an)
		}
		viol, dneg, comp := 0.0, 0.0, 0.0
		for i := range ax {
			s := ax[i] - p.Bin[i]
			viol = math.Max(viol, -s)
			dneg = math.Max(dneg, -yin[i])
			comp = math.Max(comp, math.Min(safeDiv(math.Abs(yin[i]), yscale), safeDiv(math.Abs(s), pscale)))
		}
		res.PrimalIn = safeDiv(viol, pscale)
		res.DualIn = safeDiv(dneg, yscale)
		res.Complementarity = comp
	}
	return res
}
