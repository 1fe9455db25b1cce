package rodstep

import (
	"math"

	"github.com/loomsim/loom/solver/sparse"
)

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

// lagged is the state of LinearLagged: whether assembly.fac holds a good
// factor of an earlier Newton matrix of the current pattern, whether the
// next matrix should be factored anyway, and the conjugate gradient
// vectors.
type lagged struct {
	valid, stale bool
	r, z, p, q   []float64
	partial      []float64 // sparse.Dot's block sums
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
// The conjugate gradient loop has the shape of schwarz.Solver.Solve's
// (seen, not yet shared: that one reports unconverged iterates, this one
// gives up).
// The factor's solves are serial and the dot products sparse.Dot's, so
// the result does not depend on the worker count.
func (s *State) solveLagged() bool {
	w := &s.ws
	as := &w.asm
	lg := &as.lag
	if !lg.valid || lg.stale {
		return false
	}
	n := as.A.N
	lg.r, lg.z, lg.p, lg.q = resize(lg.r, n), resize(lg.z, n), resize(lg.p, n), resize(lg.q, n)
	lg.partial = resize(lg.partial, sparse.PartialLen(n))
	run := s.Runner
	if run == nil {
		run = sparse.Serial{}
	}
	r, z, p, q, x := lg.r, lg.z, lg.p, lg.q, w.dq[:n]
	for k, g := range w.grad[:n] {
		r[k] = -g
	}
	bb := sparse.Dot(run, r, r, lg.partial)
	clear(x)
	if bb == 0 {
		return true
	}
	if math.IsInf(bb, 0) || math.IsNaN(bb) {
		return false
	}
	as.fac.Solve(r, z)
	copy(p, z)
	rz := sparse.Dot(run, r, z, lg.partial)
	for it := 1; it <= lagMaxIterations; it++ {
		as.A.MulSym(p, q)
		pq := sparse.Dot(run, p, q, lg.partial)
		if !(pq > 0) {
			w.cgIterations += it
			return false
		}
		alpha := rz / pq
		for k := range x {
			x[k] += alpha * p[k]
			r[k] -= alpha * q[k]
		}
		if sparse.Dot(run, r, r, lg.partial) <= lagTol*lagTol*bb {
			w.cgIterations += it
			lg.stale = it > lagRefresh
			return true
		}
		as.fac.Solve(r, z)
		rz1 := sparse.Dot(run, r, z, lg.partial)
		beta := rz1 / rz
		rz = rz1
		for k := range p {
			p[k] = z[k] + beta*p[k]
		}
	}
	w.cgIterations += lagMaxIterations
	return false
}
