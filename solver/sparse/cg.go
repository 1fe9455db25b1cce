package sparse

import (
	"errors"
	"math"
)

// Operator is a symmetric linear operator: Mul sets out = A in.
type Operator interface {
	Mul(run Runner, in, out []float64)
}

// ErrCurvature is returned by CG.Solve when a search direction p has
// p^T A p <= 0: the operator (or the preconditioner) is not positive
// definite.
var ErrCurvature = errors.New("sparse: non-positive curvature in conjugate gradients")

// ErrNotFinite is returned by CG.Solve when the right-hand side or a
// curvature p^T A p is not finite.
var ErrNotFinite = errors.New("sparse: not finite in conjugate gradients")

// CG is the workspace of preconditioned conjugate gradients (Hestenes &
// Stiefel 1952) on an Operator and a Preconditioner given by their
// methods, for the solvers that keep their own operator (package PCG's
// is the 3x3 block-sparse one with filters). Its dot products are Dot's,
// fixed blocks added in order, so a solve depends on the Runner only
// through the operator and the preconditioner. The zero value is ready;
// Solve does not allocate once its vectors have the size.
type CG struct {
	r, z, p, q, partial []float64
}

// CGResult reports a CG solve.
type CGResult struct {
	Iterations int     // products A p taken, the one that met non-positive curvature included
	Residual   float64 // ||b - A x|| / ||b||, recursively updated
	Converged  bool
}

// Solve solves A x = b from x = 0 with the preconditioner M, until
// ||b - A x||^2 <= tol^2 ||b||^2 (Converged) or maxIter iterations (x is
// then the last iterate). b == 0 gives x = 0, converged. It stops with
// ErrCurvature, x the last iterate, where a direction has non-positive
// curvature, and with ErrNotFinite where b or a curvature is not finite.
func (c *CG) Solve(run Runner, A Operator, M Preconditioner, b, x []float64, tol float64, maxIter int) (CGResult, error) {
	n := len(b)
	c.r, c.z, c.p, c.q = fit(c.r, n), fit(c.z, n), fit(c.p, n), fit(c.q, n)
	c.partial = fit(c.partial, PartialLen(n))
	r, z, p, q := c.r, c.z, c.p, c.q
	x = x[:n]
	clear(x)
	copy(r, b)
	bb := Dot(run, b, b, c.partial)
	if math.IsNaN(bb) || math.IsInf(bb, 0) {
		return CGResult{}, ErrNotFinite
	}
	if bb == 0 {
		return CGResult{Converged: true}, nil
	}
	M.Apply(run, r, z)
	copy(p, z)
	rz := Dot(run, r, z, c.partial)
	res := CGResult{Residual: 1}
	for res.Iterations < maxIter {
		A.Mul(run, p, q)
		res.Iterations++
		pq := Dot(run, p, q, c.partial)
		if math.IsNaN(pq) {
			return res, ErrNotFinite
		}
		if !(pq > 0) {
			return res, ErrCurvature
		}
		alpha := rz / pq
		for i := range x {
			x[i] += alpha * p[i]
			r[i] -= alpha * q[i]
		}
		rr := Dot(run, r, r, c.partial)
		res.Residual = math.Sqrt(rr / bb)
		if rr <= tol*tol*bb {
			res.Converged = true
			return res, nil
		}
		M.Apply(run, r, z)
		rz1 := Dot(run, r, z, c.partial)
		beta := rz1 / rz
		rz = rz1
		for i := range p {
			p[i] = z[i] + beta*p[i]
		}
	}
	return res, nil
}

// fit returns v with length n, reallocated only when too short.
func fit(v []float64, n int) []float64 {
	if cap(v) < n {
		return make([]float64, n)
	}
	return v[:n]
}
