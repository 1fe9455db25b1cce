package sparse

import (
	"errors"
	"fmt"
	"math"
)

// pcgBlock is the number of vertices per reduction block in PCG. Every PCG kernel
// runs over whole reduction blocks, so the partial sums, and hence the iterates,
// do not depend on how the Runner splits the work.
const pcgBlock = 128

// PCG is a preconditioned (block-Jacobi, or a Preconditioner such as an AMG
// V-cycle) conjugate gradient solver with Baraff &
// Witkin (1998) constraint filtering, sized for n vertices (3n unknowns). All
// workspace is allocated by NewPCG and Resize; Solve does not allocate (except to build an
// error). A PCG is not safe for concurrent use; it may be reused for any number
// of solves of the same size.
type PCG struct {
	n, nb int

	r, s, c, q []float64 // residual, preconditioned residual, direction, S A c
	minv       []float64 // 9n: filtered block-Jacobi preconditioner per vertex
	p1, p2     []float64 // per-reduction-block partial sums
	bad        []int32   // per-reduction-block first failing vertex, or -1

	// arguments of the current solve, read by the kernels
	a           *BSR
	b, x, f, z  []float64
	alpha, beta float64

	pre   Preconditioner // nil: block-Jacobi
	first bool           // the preconditioned residual also sets the direction

	kPrep, kInit, kMul, kUpd, kDir, kFinal func(lo, hi int)
	kStep, kPrec                           func(lo, hi int)
}

// Preconditioner is an approximation M^-1 of A^-1 that PCG applies in place
// of block-Jacobi (e.g. an algebraic multigrid V-cycle, package amg). Apply
// sets z = M^-1 r; it must be linear, symmetric and positive definite, must
// not allocate, and must be bitwise identical for any Runner. With a filter
// S, PCG uses S M^-1 S, symmetric and positive definite on the range of S.
// The caller prepares it for the matrix before Solve.
type Preconditioner interface {
	Apply(run Runner, r, z []float64)
}

// SetPreconditioner makes later solves use p; nil restores block-Jacobi.
func (s *PCG) SetPreconditioner(p Preconditioner) { s.pre = p }

// PCGResult reports the outcome of a solve.
type PCGResult struct {
	// Iterations is the number of CG iterations performed.
	Iterations int
	// Residual is the relative residual ||S r|| / ||S b|| of the final iterate,
	// where r = b - A x is the recursively updated residual. When S b = 0 the
	// initial filtered residual norm is used as the denominator instead.
	Residual float64
	// Converged reports Residual <= tol.
	Converged bool
}

// NewPCG returns a solver with workspace for n vertices.
func NewPCG(n int) *PCG {
	s := &PCG{}
	s.kPrep = s.prep
	s.kInit = s.initKernel
	s.kMul = s.mul
	s.kUpd = s.update
	s.kDir = s.direction
	s.kFinal = s.final
	s.kStep = s.step
	s.kPrec = s.precondition
	s.Resize(n)
	return s
}

// Resize sizes the solver for n vertices. It keeps the workspace where it is
// large enough and otherwise allocates it with a quarter to spare, so a
// solver that follows a remeshed cloth settles without allocating every
// step. Every buffer is written before a solve reads it.
func (s *PCG) Resize(n int) {
	if n < 0 {
		panic("sparse: PCG.Resize: negative size")
	}
	nb := (n + pcgBlock - 1) / pcgBlock
	s.n, s.nb = n, nb
	s.r, s.s = reuse(s.r, 3*n), reuse(s.s, 3*n)
	s.c, s.q = reuse(s.c, 3*n), reuse(s.q, 3*n)
	s.minv = reuse(s.minv, 9*n)
	s.p1, s.p2 = reuse(s.p1, nb), reuse(s.p2, nb)
	s.bad = reuse(s.bad, nb)
}

// N returns the number of vertices the solver was sized for.
func (s *PCG) N() int { return s.n }

// Solve solves the filtered system of Baraff & Witkin's modified PCG: it finds x
// with S (A x - b) = 0 and (I - S) x = (I - S) z, where S is block diagonal with
// per-vertex 3x3 filters. Each filter must be a symmetric projection: identity
// for a free vertex, I - sum n n^T over orthonormal constrained directions n,
// zero for a fully pinned vertex. filter == nil means no constraints (S = I);
// otherwise len(filter) = 9n, row-major 3x3 per vertex. z holds the prescribed
// values (len 3n); nil means zero. It is ignored when filter is nil.
//
// x holds the initial guess on entry (warm start; its constrained components are
// replaced by z's) and the solution on return. A must be symmetric and positive
// definite on the range of S. The preconditioner is the exact inverse of each
// filtered diagonal block, P_i = S_i (S_i D_i S_i + I - S_i)^-1 S_i, or S M^-1 S
// when one is set by SetPreconditioner.
//
// Iteration stops when ||S r|| <= tol ||S b|| or after maxIter iterations
// (Converged false, nil error). Solve returns an error for size mismatches, NaN
// or Inf in A, b, x, filter or z, a diagonal block that is not positive definite
// on the filter's range, or non-positive curvature c^T A c <= 0 (A not SPD),
// naming the (1-based) iteration; x then holds the iterate reached so far.
//
// Results are bitwise identical for any Runner.
func (s *PCG) Solve(r Runner, A *BSR, b, x []float64, filter []float64, z []float64, tol float64, maxIter int) (PCGResult, error) {
	var res PCGResult
	n := s.n
	switch {
	case A == nil:
		return res, errors.New("sparse: PCG: nil matrix")
	case A.N != n:
		return res, fmt.Errorf("sparse: PCG: matrix has %d block rows, solver sized for %d", A.N, n)
	case len(A.RowPtr) != n+1 || len(A.Diag) != n || len(A.Val) != 9*len(A.Col) || (n > 0 && int(A.RowPtr[n]) != len(A.Col)):
		return res, errors.New("sparse: PCG: malformed matrix")
	case len(b) != 3*n:
		return res, fmt.Errorf("sparse: PCG: len(b)=%d, want %d", len(b), 3*n)
	case len(x) != 3*n:
		return res, fmt.Errorf("sparse: PCG: len(x)=%d, want %d", len(x), 3*n)
	case filter != nil && len(filter) != 9*n:
		return res, fmt.Errorf("sparse: PCG: len(filter)=%d, want %d", len(filter), 9*n)
	case z != nil && len(z) != 3*n:
		return res, fmt.Errorf("sparse: PCG: len(z)=%d, want %d", len(z), 3*n)
	case math.IsNaN(tol) || tol < 0:
		return res, fmt.Errorf("sparse: PCG: invalid tolerance %v", tol)
	case maxIter < 0:
		return res, fmt.Errorf("sparse: PCG: negative maxIter %d", maxIter)
	}
	if n == 0 {
		res.Converged = true
		return res, nil
	}
	if filter == nil {
		z = nil
	}
	s.a, s.b, s.x, s.f, s.z = A, b, x, filter, z
	defer s.release()

	// Pass 1: validate inputs, build the preconditioner, project x, ||S b||^2.
	r.For(s.nb, s.kPrep)
	if !isFinite(sum(s.p1)) {
		return res, s.nonFiniteError()
	}
	for _, v := range s.bad {
		if v >= 0 {
			return res, fmt.Errorf("sparse: PCG: diagonal block %d is missing or not positive definite (matrix not SPD)", v)
		}
	}
	bnorm2 := sum(s.p2)

	// Pass 2: r = S(b - A x), s = P r, c = s.
	r.For(s.nb, s.kInit)
	if s.pre != nil { // s and c again, from the preconditioner
		s.first = true
		s.applyPre(r)
	}
	delta := sum(s.p1)
	rnorm2 := sum(s.p2)
	if !isFinite(delta) || !isFinite(rnorm2) {
		return res, errors.New("sparse: PCG: non-finite initial residual (overflow)")
	}
	den := math.Sqrt(bnorm2)
	if den == 0 {
		den = math.Sqrt(rnorm2)
	}
	rel := func(r2 float64) float64 {
		if r2 == 0 {
			return 0
		}
		return math.Sqrt(r2) / den
	}
	res.Residual = rel(rnorm2)
	for res.Residual > tol && res.Iterations < maxIter {
		// q = S A c, curvature c^T q.
		r.For(s.nb, s.kMul)
		cq := sum(s.p1)
		if !(cq > 0) || math.IsInf(cq, 0) {
			s.finish(r)
			return res, fmt.Errorf("sparse: PCG: non-positive curvature c^T A c = %g in iteration %d (matrix not SPD)", cq, res.Iterations+1)
		}
		s.alpha = delta / cq
		// x += alpha c, r -= alpha q, s = P r.
		if s.pre == nil {
			r.For(s.nb, s.kUpd)
		} else {
			r.For(s.nb, s.kStep)
			s.first = false
			s.applyPre(r)
		}
		res.Iterations++
		dnew := sum(s.p1)
		rnorm2 = sum(s.p2)
		// Converged first: at a residual near zero r^T P r can round to a
		// tiny negative number, which is no breakdown.
		if isFinite(rnorm2) && rel(rnorm2) <= tol {
			res.Residual = rel(rnorm2)
			break
		}
		if !isFinite(dnew) || !isFinite(rnorm2) || dnew < 0 {
			s.finish(r)
			return res, fmt.Errorf("sparse: PCG: breakdown (r^T P r = %g) in iteration %d", dnew, res.Iterations)
		}
		res.Residual = rel(rnorm2)
		s.beta = dnew / delta
		delta = dnew
		// c = s + beta c.
		r.For(s.nb, s.kDir)
	}
	res.Converged = res.Residual <= tol
	s.finish(r)
	return res, nil
}

func (s *PCG) release() {
	s.a, s.b, s.x, s.f, s.z = nil, nil, nil, nil, nil
}

// finish re-imposes the constraints exactly: x = S x + (I - S) z.
func (s *PCG) finish(r Runner) {
	if s.f != nil {
		r.For(s.nb, s.kFinal)
	}
}

func sum(p []float64) float64 {
	t := 0.0
	for _, v := range p {
		t += v
	}
	return t
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// nonFinite returns 0 for finite v and NaN otherwise, without overflow.
func nonFinite(v []float64) float64 {
	t := 0.0
	for _, x := range v {
		t += x - x
	}
	return t
}

// nonFiniteError locates the first non-finite input (error path only).
func (s *PCG) nonFiniteError() error {
	find := func(name string, v []float64) error {
		for i, x := range v {
			if !isFinite(x) {
				return fmt.Errorf("sparse: PCG: %s[%d] is %v", name, i, x)
			}
		}
		return nil
	}
	if err := find("A.Val", s.a.Val[:9*int(s.a.RowPtr[s.n])]); err != nil {
		return err
	}
	for _, e := range []struct {
		name string
		v    []float64
	}{{"b", s.b}, {"filter", s.f}, {"z", s.z}, {"x", s.x}} {
		if err := find(e.name, e.v); err != nil {
			return err
		}
	}
	return errors.New("sparse: PCG: non-finite input")
}

func (s *PCG) blockRange(blk int) (int, int) {
	return blk * pcgBlock, min((blk+1)*pcgBlock, s.n)
}

// mat3 is a row-major 3x3 matrix.
type mat3 = [9]float64

func mul3(a, b *mat3) (c mat3) {
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return
}

// InvSPD3 inverts a symmetric positive definite 3x3 matrix (row-major, using
// its symmetrised entries) by Cholesky factorisation; ok is false if a pivot
// is not positive or the inverse is not finite.
func InvSPD3(a *[9]float64) (inv [9]float64, ok bool) {
	a01 := 0.5 * (a[1] + a[3])
	a02 := 0.5 * (a[2] + a[6])
	a12 := 0.5 * (a[5] + a[7])
	d0 := a[0]
	if !(d0 > 0) || math.IsInf(d0, 0) {
		return inv, false
	}
	l00 := math.Sqrt(d0)
	l10 := a01 / l00
	l20 := a02 / l00
	d1 := a[4] - l10*l10
	if !(d1 > 0) {
		return inv, false
	}
	l11 := math.Sqrt(d1)
	l21 := (a12 - l20*l10) / l11
	d2 := a[8] - l20*l20 - l21*l21
	if !(d2 > 0) {
		return inv, false
	}
	l22 := math.Sqrt(d2)
	// W = L^-1 (lower triangular); A^-1 = W^T W.
	w00 := 1 / l00
	w11 := 1 / l11
	w22 := 1 / l22
	w10 := -l10 * w00 / l11
	w21 := -l21 * w11 / l22
	w20 := -(l20*w00 + l21*w10) / l22
	inv[0] = w00*w00 + w10*w10 + w20*w20
	inv[1] = w10*w11 + w20*w21
	inv[2] = w20 * w22
	inv[4] = w11*w11 + w21*w21
	inv[5] = w21 * w22
	inv[8] = w22 * w22
	inv[3], inv[6], inv[7] = inv[1], inv[2], inv[5]
	for _, v := range inv {
		if !isFinite(v) {
			return inv, false
		}
	}
	return inv, true
}

// apply3 returns m v for the 3x3 matrix at m[0:9].
func apply3(m []float64, v0, v1, v2 float64) (float64, float64, float64) {
	m = m[:9:9]
	return m[0]*v0 + m[1]*v1 + m[2]*v2, m[3]*v0 + m[4]*v1 + m[5]*v2, m[6]*v0 + m[7]*v1 + m[8]*v2
}

// prep: finiteness checks (p1), preconditioner, x = S x + (I-S) z, ||S b||^2 (p2).
func (s *PCG) prep(lo, hi int) {
	A, f := s.a, s.f
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		nf := nonFinite(A.Val[9*int(A.RowPtr[i0]) : 9*int(A.RowPtr[i1])])
		nf += nonFinite(s.b[3*i0:3*i1]) + nonFinite(s.x[3*i0:3*i1])
		if f != nil {
			nf += nonFinite(f[9*i0 : 9*i1])
			if s.z != nil {
				nf += nonFinite(s.z[3*i0 : 3*i1])
			}
		}
		bad := int32(-1)
		bb := 0.0
		for i := i0; i < i1; i++ {
			var d mat3
			dj := int(A.Diag[i])
			if dj < int(A.RowPtr[i]) || dj >= int(A.RowPtr[i+1]) || int(A.Col[dj]) != i {
				if bad < 0 {
					bad = int32(i)
				}
				continue
			}
			copy(d[:], A.Val[9*dj:9*dj+9])
			b0, b1, b2 := s.b[3*i], s.b[3*i+1], s.b[3*i+2]
			var ok bool
			var m mat3
			if f == nil || IdentityFilter(f[9*i:9*i+9]) {
				// A free vertex: S_i = I, and the general form below
				// reduces to this one.
				m, ok = InvSPD3(&d)
			} else {
				var S mat3
				copy(S[:], f[9*i:9*i+9])
				t := mul3(&S, &d)
				t = mul3(&t, &S)
				for k := 0; k < 9; k++ {
					e := -S[k]
					if k%4 == 0 {
						e++
					}
					t[k] += e
				}
				var ti mat3
				ti, ok = InvSPD3(&t)
				ti = mul3(&S, &ti)
				m = mul3(&ti, &S)
				b0, b1, b2 = apply3(S[:], b0, b1, b2)
				// x = S x + (I-S) z
				x0, x1, x2 := s.x[3*i], s.x[3*i+1], s.x[3*i+2]
				var z0, z1, z2 float64
				if s.z != nil {
					z0, z1, z2 = s.z[3*i], s.z[3*i+1], s.z[3*i+2]
				}
				s.x[3*i], s.x[3*i+1], s.x[3*i+2] = project(&S, x0, x1, x2, z0, z1, z2)
			}
			if !ok && bad < 0 {
				bad = int32(i)
			}
			copy(s.minv[9*i:9*i+9], m[:])
			bb += b0*b0 + b1*b1 + b2*b2
		}
		s.p1[blk] = nf
		s.p2[blk] = bb
		s.bad[blk] = bad
	}
}

// IdentityFilter reports whether the 3x3 filter s (row-major, s[0:9]) is
// the identity: a free vertex.
func IdentityFilter(s []float64) bool {
	s = s[:9:9]
	return s[0] == 1 && s[4] == 1 && s[8] == 1 && s[1] == 0 && s[2] == 0 && s[3] == 0 && s[5] == 0 && s[6] == 0 && s[7] == 0
}

// project returns S x + (I - S) z.
func project(S *mat3, x0, x1, x2, z0, z1, z2 float64) (float64, float64, float64) {
	// The explicit form (rather than z + S (x - z)) makes S_i = 0 give exactly z
	// and keeps axis-aligned constraints exact.
	y0 := S[0]*x0 + S[1]*x1 + S[2]*x2 + ((1-S[0])*z0 - S[1]*z1 - S[2]*z2)
	y1 := S[3]*x0 + S[4]*x1 + S[5]*x2 + (-S[3]*z0 + (1-S[4])*z1 - S[5]*z2)
	y2 := S[6]*x0 + S[7]*x1 + S[8]*x2 + (-S[6]*z0 - S[7]*z1 + (1-S[8])*z2)
	return y0, y1, y2
}

// initKernel: r = S(b - A x), s = P r, c = s; p1 = r.s, p2 = r.r.
func (s *PCG) initKernel(lo, hi int) {
	A, f := s.a, s.f
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		rs, rr := 0.0, 0.0
		for i := i0; i < i1; i++ {
			y0, y1, y2 := A.rowMul(i, s.x)
			r0, r1, r2 := s.b[3*i]-y0, s.b[3*i+1]-y1, s.b[3*i+2]-y2
			if f != nil {
				r0, r1, r2 = apply3(f[9*i:], r0, r1, r2)
			}
			s0, s1, s2 := apply3(s.minv[9*i:], r0, r1, r2)
			s.r[3*i], s.r[3*i+1], s.r[3*i+2] = r0, r1, r2
			s.s[3*i], s.s[3*i+1], s.s[3*i+2] = s0, s1, s2
			s.c[3*i], s.c[3*i+1], s.c[3*i+2] = s0, s1, s2
			rs += r0*s0 + r1*s1 + r2*s2
			rr += r0*r0 + r1*r1 + r2*r2
		}
		s.p1[blk], s.p2[blk] = rs, rr
	}
}

// applyPre sets s = S M^-1 r, p1 = r.s (and c = s when first).
func (s *PCG) applyPre(r Runner) {
	s.pre.Apply(r, s.r, s.s)
	r.For(s.nb, s.kPrec)
}

// step: x += alpha c, r -= alpha q; p2 = r.r.
func (s *PCG) step(lo, hi int) {
	al := s.alpha
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		x, c := s.x[3*i0:3*i1], s.c[3*i0:3*i1]
		rv, q := s.r[3*i0:3*i1], s.q[3*i0:3*i1]
		c, rv, q = c[:len(x)], rv[:len(x)], q[:len(x)]
		rr := 0.0
		for k := range x {
			x[k] += al * c[k]
			rv[k] -= al * q[k]
			rr += rv[k] * rv[k]
		}
		s.p2[blk] = rr
	}
}

// precondition: s = S s (the preconditioner's output filtered), c = s when
// first; p1 = r.s.
func (s *PCG) precondition(lo, hi int) {
	f := s.f
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		rs := 0.0
		for i := i0; i < i1; i++ {
			s0, s1, s2 := s.s[3*i], s.s[3*i+1], s.s[3*i+2]
			if f != nil {
				s0, s1, s2 = apply3(f[9*i:], s0, s1, s2)
				s.s[3*i], s.s[3*i+1], s.s[3*i+2] = s0, s1, s2
			}
			rs += s.r[3*i]*s0 + s.r[3*i+1]*s1 + s.r[3*i+2]*s2
		}
		if s.first {
			copy(s.c[3*i0:3*i1], s.s[3*i0:3*i1])
		}
		s.p1[blk] = rs
	}
}

// mul: q = S A c; p1 = c.q.
func (s *PCG) mul(lo, hi int) {
	A, f := s.a, s.f
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		cq := 0.0
		for i := i0; i < i1; i++ {
			q0, q1, q2 := A.rowMul(i, s.c)
			if f != nil {
				q0, q1, q2 = apply3(f[9*i:], q0, q1, q2)
			}
			s.q[3*i], s.q[3*i+1], s.q[3*i+2] = q0, q1, q2
			cq += s.c[3*i]*q0 + s.c[3*i+1]*q1 + s.c[3*i+2]*q2
		}
		s.p1[blk] = cq
	}
}

// update: x += alpha c, r -= alpha q, s = P r; p1 = r.s, p2 = r.r.
func (s *PCG) update(lo, hi int) {
	al := s.alpha
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		x := s.x[3*i0 : 3*i1]
		c := s.c[3*i0 : 3*i1]
		c = c[:len(x)]
		for k := range x {
			x[k] += al * c[k]
		}
		rs, rr := 0.0, 0.0
		for i := i0; i < i1; i++ {
			r0 := s.r[3*i] - al*s.q[3*i]
			r1 := s.r[3*i+1] - al*s.q[3*i+1]
			r2 := s.r[3*i+2] - al*s.q[3*i+2]
			s0, s1, s2 := apply3(s.minv[9*i:], r0, r1, r2)
			s.r[3*i], s.r[3*i+1], s.r[3*i+2] = r0, r1, r2
			s.s[3*i], s.s[3*i+1], s.s[3*i+2] = s0, s1, s2
			rs += r0*s0 + r1*s1 + r2*s2
			rr += r0*r0 + r1*r1 + r2*r2
		}
		s.p1[blk], s.p2[blk] = rs, rr
	}
}

// direction: c = s + beta c.
func (s *PCG) direction(lo, hi int) {
	be := s.beta
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		c := s.c[3*i0 : 3*i1]
		sv := s.s[3*i0 : 3*i1]
		sv = sv[:len(c)]
		for k := range c {
			c[k] = sv[k] + be*c[k]
		}
	}
}

// final: x = S x + (I - S) z.
func (s *PCG) final(lo, hi int) {
	for blk := lo; blk < hi; blk++ {
		i0, i1 := s.blockRange(blk)
		for i := i0; i < i1; i++ {
			var S mat3
			copy(S[:], s.f[9*i:9*i+9])
			var z0, z1, z2 float64
			if s.z != nil {
				z0, z1, z2 = s.z[3*i], s.z[3*i+1], s.z[3*i+2]
			}
			s.x[3*i], s.x[3*i+1], s.x[3*i+2] = project(&S, s.x[3*i], s.x[3*i+1], s.x[3*i+2], z0, z1, z2)
		}
	}
}
