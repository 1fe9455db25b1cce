package rodstep

import "github.com/loomsim/loom/solver/sparse"

// LinearLagged's conjugate gradients: lagTol is their relative residual
// (cgTol, an inexact Newton direction as on the iterative path),
// lagMaxIterations the iterations after which they give up and the matrix
// is factored, and lagRefresh the iterations beyond which a converged
// solve still has the next Newton matrix factored (its preconditioner has
// drifted from the matrices). On tablecloth with three 18 x 18 layers
// (about 17,000 unknowns, first 30 steps, 1 worker, this 2-core VM) a
// triangular solve costs about 1/25 of a factorization: with 40 and 12 the
// steps took 1.20x less time than direct ones (139 factorizations and 5,013
// iterations against 417 factorizations), with 20 and 8 1.51x (157 and
// 3,079), with 14 and 6 1.29x (200 and 2,712); lagTol 1e-4 instead of 1e-6
// saved nothing (144 and 3,158).
const (
	lagTol           = cgTol
	lagMaxIterations = 20
	lagRefresh       = 8
)

// lagMaxSkip bounds the Newton matrices factored without trying the lagged
// solve after lagged solves that gave up in a row (lagged.skip).
const lagMaxSkip = 15

// lagged is the state of LinearLagged: whether assembly.fac holds a good
// factor of an earlier Newton matrix of the current pattern, whether the
// next matrix should be factored anyway, the lagged solves that gave up in
// a row (fails) and the matrices still to be factored without trying one
// (skip), and the conjugate gradients' workspace.
//
// After k failures in a row the next 2^(k-1) - 1 matrices (at most
// lagMaxSkip) are factored straight away: where consecutive Newton matrices
// differ too much for a lagged factor (pocket's: from the last step's
// factor, 120 iterations left a relative residual of 4e-4), every try costs
// lagMaxIterations triangular solves before the factorization it ends in
// anyway. pocket with 80 x 80 and 74 x 74 yarns (69,716 nodes), first 6
// steps, 2 workers, two interleaved runs each: 73.7 and 74.4 s with 429
// conjugate gradient iterations and 22 factorizations over its 29 Newton
// iterations, against 63.9 and 63.6 s with 129 and 27 (a lagged try giving
// up took about 1.1 s there, a factorization 1.7 s); tablecloth with three
// 18 x 18 layers, first 30 steps, 1 worker: 4.86 and 4.56 against 4.49 and
// 4.50 s a step; pocket at the paper's 625,596 nodes, where the lagged
// tries mostly converge: 268 against 257 s median step (one run each).
type lagged struct {
	valid, stale bool
	fails, skip  int
	cg           sparse.CG
}

// tryNow reports whether the lagged solve is to be tried on this Newton
// matrix, counting down the matrices skipped after failures.
func (lg *lagged) tryNow() bool {
	if lg.skip > 0 {
		lg.skip--
		return false
	}
	return true
}

// gaveUp records a lagged solve that gave up: the next 2^(fails-1) - 1
// matrices, at most lagMaxSkip, are factored without a try.
func (lg *lagged) gaveUp() {
	lg.fails++
	lg.skip = min(1<<min(lg.fails-1, 8)-1, lagMaxSkip)
}

// converged records a lagged solve that converged in the given iterations:
// the run of failures ends, and the next matrix is factored anyway where
// they were more than lagRefresh.
func (lg *lagged) converged(iterations int) {
	lg.fails = 0
	lg.stale = iterations > lagRefresh
}

// solveLagged solves the assembled system A dq = -grad for w.dq by
// conjugate gradients from dq = 0, preconditioned by the factor of an
// earlier Newton matrix of the same pattern (a lagged factorization: the
// Newton matrices of consecutive iterations and steps differ little, and
// a triangular solve costs a small fraction of a factorization). It
// reports whether they reached lagTol within lagMaxIterations without
// meeting non-positive curvature; where they did not, the caller factors
// A, which decides whether A is positive definite as on the direct path.
// Where they converge, A is not proven positive definite: an exact
// Hessian with a direction of negative curvature outside the few Krylov
// vectors the iterations built is taken as the direct path would not have
// taken it (the line search still asks for descent; TestIterativeMatchesDirect
// finds the same Newton iterations on tablecloth).
//
// The factor's solves are the same for any Runner (a large factor's run
// its subtrees through the state's Runner in an order fixed by the
// matrix: ldlt's solveScheduled) and the dot products are sparse.Dot's,
// so the result does not depend on the worker count.
func (s *State) solveLagged() bool {
	w := &s.ws
	as := &w.asm
	lg := &as.lag
	if !lg.valid || lg.stale {
		return false
	}
	if !lg.tryNow() {
		return false
	}
	n := as.A.N
	rhs := w.newtonRHS(n)
	run := s.Runner
	if run == nil {
		run = sparse.Serial{}
	}
	res, err := lg.cg.Solve(run, (*laggedSystem)(as), (*laggedSystem)(as), rhs, w.dq[:n], lagTol, lagMaxIterations)
	w.cgIterations += res.Iterations
	if err != nil || !res.Converged {
		lg.gaveUp()
		return false
	}
	lg.converged(res.Iterations)
	return true
}

// laggedSystem is the assembly seen by sparse.CG: the Newton matrix as the
// operator and the factor of an earlier one as the preconditioner.
type laggedSystem assembly

// Mul sets out = A in.
func (a *laggedSystem) Mul(_ sparse.Runner, in, out []float64) { a.A.MulSym(in, out) }

// Apply sets z = A_lagged^-1 r by the kept factor.
func (a *laggedSystem) Apply(_ sparse.Runner, r, z []float64) { a.fac.Solve(r, z) }
