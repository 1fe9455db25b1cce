package strainlimit

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// InnerMethod selects the unconstrained minimizer of the augmented Lagrangian.
type InnerMethod int

const (
	// NonlinearCG is gonum's nonlinear conjugate gradient method (Hestenes-
	// Stiefel with More-Thuente line search), which the paper found cheaper.
	NonlinearCG InnerMethod = iota
	// LBFGS is gonum's limited-memory BFGS.
	LBFGS
)

// Default values of Settings (used for zero fields).
const (
	// DefaultMu is the penalty parameter mu of eq. 17-21; the paper uses 1e3.
	DefaultMu = 1e3
	// DefaultTolerance is the default stopping tolerance on the maximum
	// violation, in strain units (1e-3: a 5% limit ends below 5.1%).
	DefaultTolerance = 1e-3
	// DefaultMaxOuter is the default cap on multiplier updates (eq. 20).
	DefaultMaxOuter = 50
	// DefaultMaxInner is the default cap on optimizer iterations per inner
	// minimization.
	DefaultMaxInner = 200
	// DefaultInnerTolerance is the default relative gradient tolerance of the
	// inner minimization (see Settings.InnerTolerance).
	DefaultInnerTolerance = 0.1
)

// Settings configures AugmentedLagrangian. The zero value gives the defaults.
type Settings struct {
	// Mu is the penalty parameter mu of eq. 19-21 (0: DefaultMu). It is
	// relative to masses in kg and lengths in m, as in the paper.
	Mu float64
	// Tolerance stops the outer iteration once the maximum violation (the
	// largest amount by which a principal strain lies outside [Min, Max]) is
	// at most Tolerance after an inner minimization (0: DefaultTolerance).
	Tolerance float64
	// MaxOuter caps the outer iterations, each one inner minimization
	// followed by the multiplier update of eq. 20 (0: DefaultMaxOuter).
	MaxOuter int
	// MaxInner caps the optimizer's (major) iterations in one inner
	// minimization (0: DefaultMaxInner).
	MaxInner int
	// InnerTolerance ends an inner minimization when the infinity norm of
	// the gradient of eq. 19 falls below
	// InnerTolerance * Mu * Tolerance * mean_j(w_j): the force one face of
	// mean size exerts on a node when it violates a limit by
	// InnerTolerance*Tolerance (0: DefaultInnerTolerance).
	InnerTolerance float64
	// MaxStep caps the largest node displacement at the first trial point
	// of every line search, in m (0: DefaultStepFactor times the smallest
	// sqrt(rest area) of the mesh); see capDir.
	MaxStep float64
	// MaxTime bounds the wall time of the whole solve (0: no bound). It is
	// checked between optimizer iterations.
	MaxTime time.Duration
	// Method selects the inner minimizer (default NonlinearCG).
	Method InnerMethod
	// Trace, when non-nil, is called with iter = 0 and the initial maximum
	// violation, and then after every inner optimizer iteration with iter
	// the total number of optimizer iterations so far (over all outer
	// iterations), the time since the call started and the maximum
	// violation at the optimizer's current iterate.
	Trace func(iter int, elapsed time.Duration, maxViolation float64)
}

// Result reports a solve of AugmentedLagrangian or Jacobi.
type Result struct {
	// OuterIterations is the number of multiplier updates (AL) or of
	// projection-and-average sweeps (Jacobi).
	OuterIterations int
	// InnerIterations is the total number of optimizer iterations over all
	// inner minimizations (AL; 0 for Jacobi).
	InnerIterations int
	// FunctionEvaluations is the number of passes over all faces: evaluations
	// of the augmented Lagrangian with its gradient (AL) or sweeps (Jacobi).
	FunctionEvaluations int
	// MaxViolation is the maximum violation at the returned positions and
	// WorstFace the face where it occurs (-1 when every face is within the
	// limits).
	MaxViolation float64
	WorstFace    int
	// Converged reports MaxViolation <= the tolerance.
	Converged bool
	// Elapsed is the wall time of the call.
	Elapsed time.Duration
}

// AugmentedLagrangian limits the strains of p by the augmented Lagrangian
// method of Narain et al. 2012 sec. 5 and overwrites p.X with the result.
//
// The objective is f(x) = 1/2 sum_i m_i |x_i - xhat_i|^2 (eq. 22) with xhat
// the input p.X. Each face j has four constraints g <= 0 on its principal
// strains eps_ja = sigma_ja - 1 (eq. 23-24), weighted by w_j = sqrt(rest area):
// w_j (Min - eps_ja) and w_j (eps_ja - Max). With multipliers lambda (initially
// 0) each outer iteration minimizes the slack-eliminated augmented Lagrangian
//
//	L_A(x) = f(x) + mu/2 |gtilde(x)|^2 - |lambda|^2/(2 mu),         (eq. 19)
//	gtilde(x) = max(g(x) + lambda/mu, 0)                             (eq. 21)
//
// without constraints (gonum's nonlinear CG or L-BFGS directions with a
// More-Thuente line search, driven synchronously by inner, warm-started at the
// previous x; gradients by eq. 25-27), then sets lambda = mu gtilde(x) (eq. 20).
//
// The stopping rule is feasibility, as in the paper ("drives the strains
// close to the limits and soon terminates"), not stationarity: with mu = 1e3
// and cloth-like node masses (grams) the penalty dominates the mass term of
// eq. 22 by orders of magnitude, so the result is a feasible point near, but
// in general not exactly at, the mass-weighted closest one.
// It stops when the maximum violation is at most s.Tolerance after an inner
// minimization, or when MaxOuter or MaxTime is reached (Converged false; p.X
// then holds the last iterate, usually much improved). Fixed nodes never move.
//
// The gradient evaluation does not allocate: per-face gradients are computed
// in parallel over blocks of faces into a flat array, then summed per node
// over its incident faces in ascending face order, so results are bitwise
// identical for any Runner (nil means sparse.Serial).
//
// Errors (p.X untouched) for invalid input: mismatched lengths, non-finite
// positions, non-positive masses, bad face indices, degenerate rest
// triangles, bad limits or settings. Errors (p.X holds the last finite
// iterate) when the optimizer fails other than by stalling at round-off,
// e.g. on a non-finite deformation gradient, naming the face.
func AugmentedLagrangian(p *Problem, s Settings, r sparse.Runner) (Result, error) {
	res, ev, err := solveAL(p, s, r)
	if ev != nil {
		ev.release()
	}
	return res, err
}

// solveAL is AugmentedLagrangian; it also returns the evaluator (for tests).
func solveAL(p *Problem, s Settings, r sparse.Runner) (Result, *alEval, error) {
	start := time.Now()
	if r == nil {
		r = sparse.Serial{}
	}
	if err := s.fill(); err != nil {
		return Result{}, nil, err
	}
	if err := p.validate(); err != nil {
		return Result{}, nil, err
	}
	ev := newALEval(p, s.Mu, r)
	n3 := 3 * len(p.X)
	x := ev.xstart
	ev.evalAll(x)
	res := Result{FunctionEvaluations: 1}
	if s.Trace != nil {
		s.Trace(0, time.Since(start), ev.viol)
	}
	finish := func() (Result, *alEval, error) {
		for i := range p.X {
			p.X[i] = dense.Vec3{x[3*i], x[3*i+1], x[3*i+2]}
		}
		res.FunctionEvaluations = ev.evals
		res.MaxViolation, res.WorstFace = p.MaxViolation()
		res.Converged = res.MaxViolation <= s.Tolerance
		res.Elapsed = time.Since(start)
		return res, ev, nil
	}
	if ev.viol <= s.Tolerance || n3 == 0 {
		return finish()
	}
	meanW, minW := 0.0, math.Inf(1)
	for j := range p.Rest {
		w := math.Sqrt(p.Rest[j].Area)
		meanW += w
		minW = math.Min(minW, w)
	}
	meanW /= float64(len(p.Rest))
	if s.MaxStep == 0 {
		s.MaxStep = DefaultStepFactor * minW
	}
	in := newInner(ev, s, start, &res)
	gtol := s.InnerTolerance * s.Mu * s.Tolerance * meanW
	for res.OuterIterations < s.MaxOuter {
		if s.MaxTime > 0 && time.Since(start) >= s.MaxTime {
			break
		}
		iters, timeUp, err := in.minimize(x, gtol, s.MaxInner)
		res.OuterIterations++
		res.InnerIterations += iters
		if err != nil {
			r, _, _ := finish()
			return r, ev, fmt.Errorf("strainlimit: outer iteration %d: %v", res.OuterIterations, err)
		}
		if !ev.cached(x) {
			ev.evalAll(x)
		}
		if ev.viol <= s.Tolerance || timeUp {
			break
		}
		ev.updateMultipliers()
	}
	return finish()
}

// DefaultStepFactor sets the default Settings.MaxStep: DefaultStepFactor
// times the smallest w_j = sqrt(rest area) of the mesh.
const DefaultStepFactor = 0.25

// maxLineEvals caps the evaluations of one line search; a line search that
// needs more has stalled at round-off.
const maxLineEvals = 40

// inner drives gonum's line-search methods (nonlinear CG or L-BFGS
// directions, More-Thuente line search) on L_A synchronously, so every
// evaluation runs on the caller's goroutine without allocating, and caps the
// first trial step of every line search (capDir).
type inner struct {
	ev    *alEval
	s     *Settings
	start time.Time
	res   *Result
	ls    optimize.LinesearchMethod
	dir   capDir
	mt    optimize.MoreThuente
	loc   optimize.Location
	xacc  []float64 // last accepted iterate
}

func newInner(ev *alEval, s Settings, start time.Time, res *Result) *inner {
	n3 := len(ev.xstart)
	in := &inner{ev: ev, s: &s, start: start, res: res}
	in.loc.Gradient = make([]float64, n3)
	in.xacc = make([]float64, n3)
	in.dir.maxStep = s.MaxStep
	switch s.Method {
	case LBFGS:
		in.dir.next = &optimize.LBFGS{Store: 15}
		in.mt = optimize.MoreThuente{DecreaseFactor: 1e-4, CurvatureFactor: 0.9}
	default:
		// gonum's CG defaults, set here because CG.initLocal is bypassed.
		in.dir.next = &optimize.CG{
			Variant:                &optimize.HestenesStiefel{},
			InitialStep:            &optimize.FirstOrderStepSize{},
			IterationRestartFactor: 6,
			AngleRestartThreshold:  -0.9,
		}
		in.mt = optimize.MoreThuente{DecreaseFactor: 1e-4, CurvatureFactor: 0.1}
	}
	in.ls.NextDirectioner = &in.dir
	in.ls.Linesearcher = &in.mt
	return in
}

// minimize runs at most maxIter optimizer iterations on L_A from x, stopping
// early when |grad L_A|_inf <= gtol, and leaves the last accepted iterate in
// x. A line search that fails or stalls ends the minimization without error
// (the iterate is then as good as round-off allows along that direction);
// non-finite values are errors.
func (in *inner) minimize(x []float64, gtol float64, maxIter int) (iters int, timeUp bool, err error) {
	ev, loc := in.ev, &in.loc
	loc.X = x
	eval := func(op optimize.Operation) error {
		if op&optimize.FuncEvaluation != 0 {
			loc.F = ev.fn(x)
		}
		if op&optimize.GradEvaluation != 0 {
			ev.gradFn(loc.Gradient, x)
		}
		if ev.bad >= 0 {
			return fmt.Errorf("face %d: non-finite deformation gradient", ev.bad)
		}
		if !finite(ev.f) {
			return fmt.Errorf("non-finite augmented Lagrangian %g", ev.f)
		}
		return nil
	}
	if err := eval(optimize.FuncEvaluation | optimize.GradEvaluation); err != nil {
		return 0, false, err
	}
	if infNorm(loc.Gradient) <= gtol {
		return 0, false, nil
	}
	copy(in.xacc, x)
	op, lerr := in.ls.Init(loc)
	lineEvals := 0
	for lerr == nil {
		switch {
		case op == optimize.MajorIteration:
			iters++
			lineEvals = 0
			copy(in.xacc, x)
			if in.s.Trace != nil {
				if !ev.cached(x) {
					ev.evalAll(x)
				}
				in.s.Trace(in.res.InnerIterations+iters, time.Since(in.start), ev.viol)
			}
			if infNorm(loc.Gradient) <= gtol || iters >= maxIter {
				return iters, false, nil
			}
			if in.s.MaxTime > 0 && time.Since(in.start) >= in.s.MaxTime {
				return iters, true, nil
			}
		case op&(optimize.FuncEvaluation|optimize.GradEvaluation) != 0:
			if lineEvals++; lineEvals > maxLineEvals {
				lerr = optimize.ErrLinesearcherFailure
				continue
			}
			if err := eval(op); err != nil {
				return iters, false, err
			}
		}
		op, lerr = in.ls.Iterate(loc)
	}
	// Stalled line search: go back to the last accepted iterate.
	copy(x, in.xacc)
	return iters, false, nil
}

func infNorm(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}

// capDir wraps a direction method (CG or L-BFGS) and shortens its proposed
// initial step so that no node moves more than maxStep at the first trial
// point of a line search. The line search still extrapolates beyond it when
// L_A keeps decreasing, but it no longer jumps past the nearest minimizer
// along the line into far, e.g. flipped, configurations that the weak mass
// term cannot rule out (the jump Fig. 6 warns about for Jacobi).
type capDir struct {
	next    optimize.NextDirectioner
	maxStep float64
}

func (c *capDir) InitDirection(loc *optimize.Location, dir []float64) float64 {
	return c.limit(c.next.InitDirection(loc, dir), dir)
}

func (c *capDir) NextDirection(loc *optimize.Location, dir []float64) float64 {
	return c.limit(c.next.NextDirection(loc, dir), dir)
}

func (c *capDir) limit(step float64, dir []float64) float64 {
	m := 0.0
	for i := 0; i+2 < len(dir); i += 3 {
		m = math.Max(m, dir[i]*dir[i]+dir[i+1]*dir[i+1]+dir[i+2]*dir[i+2])
	}
	if m = math.Sqrt(m); step*m > c.maxStep {
		return c.maxStep / m
	}
	return step
}

func (s *Settings) fill() error {
	if s.Mu == 0 {
		s.Mu = DefaultMu
	}
	if s.Tolerance == 0 {
		s.Tolerance = DefaultTolerance
	}
	if s.MaxOuter == 0 {
		s.MaxOuter = DefaultMaxOuter
	}
	if s.MaxInner == 0 {
		s.MaxInner = DefaultMaxInner
	}
	if s.InnerTolerance == 0 {
		s.InnerTolerance = DefaultInnerTolerance
	}
	switch {
	case !finite(s.Mu) || s.Mu <= 0:
		return fmt.Errorf("strainlimit: Settings.Mu = %g, want finite > 0", s.Mu)
	case !finite(s.Tolerance) || s.Tolerance <= 0:
		return fmt.Errorf("strainlimit: Settings.Tolerance = %g, want finite > 0", s.Tolerance)
	case !finite(s.MaxStep) || s.MaxStep < 0:
		return fmt.Errorf("strainlimit: Settings.MaxStep = %g, want finite >= 0", s.MaxStep)
	case !finite(s.InnerTolerance) || s.InnerTolerance <= 0:
		return fmt.Errorf("strainlimit: Settings.InnerTolerance = %g, want finite > 0", s.InnerTolerance)
	case s.MaxOuter < 0 || s.MaxInner < 0 || s.MaxTime < 0:
		return fmt.Errorf("strainlimit: negative Settings.MaxOuter, MaxInner or MaxTime")
	case s.Method != NonlinearCG && s.Method != LBFGS:
		return fmt.Errorf("strainlimit: unknown Settings.Method %d", s.Method)
	}
	return nil
}

// alEval evaluates the augmented Lagrangian (eq. 19) and its gradient.
type alEval struct {
	p    *Problem
	ws   *workspace
	r    sparse.Runner
	mu   float64
	xhat []float64 // 3 per node
	// xstart is the optimizer's start / result buffer.
	xstart []float64
	lam    []float64 // 4 per face: sigma_0 lower, sigma_0 upper, sigma_1 lower, sigma_1 upper
	sig    []float64 // 2 per face: singular values at lastX
	lamC   float64   // |lambda|^2 / (2 mu)

	// The last evaluation.
	lastX []float64
	grad  []float64
	valid bool
	f     float64
	viol  float64
	bad   int
	evals int

	x                  []float64 // argument of the running pass
	faceBody, nodeBody func(lo, hi int)
}

func newALEval(p *Problem, mu float64, r sparse.Runner) *alEval {
	n, nf := len(p.X), len(p.Faces)
	e := &alEval{p: p, ws: p.ws, r: r, mu: mu, bad: -1}
	buf := make([]float64, 12*n+6*nf)
	e.xhat, buf = buf[:3*n:3*n], buf[3*n:]
	e.xstart, buf = buf[:3*n:3*n], buf[3*n:]
	e.lastX, buf = buf[:3*n:3*n], buf[3*n:]
	e.grad, buf = buf[:3*n:3*n], buf[3*n:]
	e.lam, buf = buf[:4*nf:4*nf], buf[4*nf:]
	e.sig = buf[: 2*nf : 2*nf]
	for i, x := range p.X {
		copy(e.xhat[3*i:3*i+3], x[:])
	}
	copy(e.xstart, e.xhat)
	e.faceBody = e.faceBlocks
	e.nodeBody = e.nodeBlocks
	return e
}

func (e *alEval) release() { e.p, e.ws, e.r = nil, nil, nil }

// cached reports whether the last evaluation was at x (bitwise).
func (e *alEval) cached(x []float64) bool {
	if !e.valid {
		return false
	}
	for i, v := range x {
		if v != e.lastX[i] {
			return false
		}
	}
	return true
}

func (e *alEval) fn(x []float64) float64 {
	if !e.cached(x) {
		e.evalAll(x)
	}
	return e.f
}

func (e *alEval) gradFn(g, x []float64) {
	if !e.cached(x) {
		e.evalAll(x)
	}
	copy(g, e.grad)
}

// evalAll evaluates L_A, its gradient and the maximum violation at x. It does
// not allocate.
func (e *alEval) evalAll(x []float64) {
	ws := e.ws
	e.x = x
	e.r.For(nblocks(ws.nf), e.faceBody)
	e.r.For(nblocks(ws.n), e.nodeBody)
	e.x = nil
	f, viol, bad := -e.lamC, 0.0, -1
	for b := range ws.facePart {
		f += ws.facePart[b]
		viol = math.Max(viol, ws.faceViol[b])
		if bad < 0 && ws.faceBad[b] >= 0 {
			bad = int(ws.faceBad[b])
		}
	}
	for _, v := range ws.nodePart {
		f += v
	}
	if bad >= 0 {
		f, viol = math.NaN(), math.NaN()
	}
	e.f, e.viol, e.bad = f, viol, bad
	copy(e.lastX, x)
	e.valid = true
	e.evals++
}

// faceBlocks computes, for the faces of blocks [lo, hi), the singular values,
// the penalty term mu/2 |gtilde_j|^2 and its gradient with respect to the
// face's three nodes (into ws.faceBuf).
func (e *alEval) faceBlocks(lo, hi int) {
	p, ws, x, mu := e.p, e.ws, e.x, e.mu
	lmin, lmax := p.Min, p.Max
	for b := lo; b < hi; b++ {
		j1 := min((b+1)*block, ws.nf)
		sum, viol, bad := 0.0, 0.0, int32(-1)
		for j := b * block; j < j1; j++ {
			f := p.Faces[j]
			rest := &p.Rest[j]
			i0, i1, i2 := 3*int(f[0]), 3*int(f[1]), 3*int(f[2])
			F := rest.DeformationGradient(
				dense.Vec3{x[i0], x[i0+1], x[i0+2]},
				dense.Vec3{x[i1], x[i1+1], x[i1+2]},
				dense.Vec3{x[i2], x[i2+1], x[i2+2]})
			U, s, V := dense.SVD32(F)
			e.sig[2*j], e.sig[2*j+1] = s[0], s[1]
			v := Violation(s, lmin, lmax)
			if !finite(v) {
				if bad < 0 {
					bad = int32(j)
				}
				continue
			}
			viol = math.Max(viol, v)
			w := math.Sqrt(rest.Area)
			lam := e.lam[4*j : 4*j+4 : 4*j+4]
			// coef[k] = d(mu/2 |gtilde|^2)/d sigma_k.
			var coef [2]float64
			for k := 0; k < 2; k++ {
				eps := s[k] - 1
				gl := math.Max(w*(lmin-eps)+lam[2*k]/mu, 0)
				gu := math.Max(w*(eps-lmax)+lam[2*k+1]/mu, 0)
				sum += 0.5 * mu * (gl*gl + gu*gu)
				coef[k] = mu * w * (gu - gl)
			}
			out := ws.faceBuf[9*j : 9*j+9 : 9*j+9]
			c := cRows(&rest.DmInv)
			for a := 0; a < 3; a++ {
				// grad_{x_a} sigma_k = (c_a . v_k) u_k (eq. 27).
				d0 := coef[0] * (c[a][0]*V[0][0] + c[a][1]*V[1][0])
				d1 := coef[1] * (c[a][0]*V[0][1] + c[a][1]*V[1][1])
				for m := 0; m < 3; m++ {
					out[3*a+m] = d0*U[m][0] + d1*U[m][1]
				}
			}
		}
		ws.facePart[b], ws.faceViol[b], ws.faceBad[b] = sum, viol, bad
	}
}

// nodeBlocks sums, for the nodes of blocks [lo, hi), the objective term
// m_i (x_i - xhat_i) and the incident faces' penalty gradients in ascending
// face order, and the partial objective 1/2 m_i |x_i - xhat_i|^2.
func (e *alEval) nodeBlocks(lo, hi int) {
	p, ws, x := e.p, e.ws, e.x
	for b := lo; b < hi; b++ {
		i1 := min((b+1)*block, ws.n)
		sum := 0.0
		for i := b * block; i < i1; i++ {
			m := p.Mass[i]
			d0, d1, d2 := x[3*i]-e.xhat[3*i], x[3*i+1]-e.xhat[3*i+1], x[3*i+2]-e.xhat[3*i+2]
			sum += 0.5 * m * (d0*d0 + d1*d1 + d2*d2)
			g := e.grad[3*i : 3*i+3 : 3*i+3]
			if p.Fixed != nil && p.Fixed[i] {
				g[0], g[1], g[2] = 0, 0, 0
				continue
			}
			g0, g1, g2 := m*d0, m*d1, m*d2
			for _, c := range ws.inc[ws.incStart[i]:ws.incStart[i+1]] {
				fg := ws.faceBuf[3*c : 3*c+3 : 3*c+3]
				g0 += fg[0]
				g1 += fg[1]
				g2 += fg[2]
			}
			g[0], g[1], g[2] = g0, g1, g2
		}
		ws.nodePart[b] = sum
	}
}

// updateMultipliers applies eq. 20, lambda = mu gtilde(x) = max(mu g(x) +
// lambda, 0), at the last evaluated x, and updates |lambda|^2/(2 mu).
func (e *alEval) updateMultipliers() {
	p, mu := e.p, e.mu
	ss := 0.0
	for j := range p.Faces {
		w := math.Sqrt(p.Rest[j].Area)
		lam := e.lam[4*j : 4*j+4 : 4*j+4]
		for k := 0; k < 2; k++ {
			eps := e.sig[2*j+k] - 1
			lam[2*k] = math.Max(mu*w*(p.Min-eps)+lam[2*k], 0)
			lam[2*k+1] = math.Max(mu*w*(eps-p.Max)+lam[2*k+1], 0)
			ss += lam[2*k]*lam[2*k] + lam[2*k+1]*lam[2*k+1]
		}
	}
	e.lamC = ss / (2 * mu)
	e.valid = false // L_A changed
}
