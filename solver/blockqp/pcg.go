package blockqp

import (
	"fmt"
	"math"
)

// The parallel passes. Each runs over blocks [lo, hi) of blockGroups groups
// and writes only its own groups' variables and its own blocks' partial sums
// s.part[b*nPart:], so no two workers share a write and the reductions do
// not depend on the split.

const nPart = 4

// noise is the relative size of rounding noise in a filtered residual.
const noise = 1e-14

func (s *Solver) groups(b int) (int, int) {
	return b * blockGroups, min((b+1)*blockGroups, s.ng)
}

func (s *Solver) passExtract(lo, hi int) {
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		s.berr[b] = s.extractBlocks(g0, g1)
	}
}

// passProject rebuilds the filters of changed groups and sets
// x_g = z_g + S_g x_g.
func (s *Solver) passProject(lo, hi int) {
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		for g := g0; g < g1; g++ {
			if s.changed[g] {
				s.reg[g] = s.buildFilter(g)
				s.changed[g] = false
			}
			vars := s.gvar[s.gptr[g]:s.gptr[g+1]]
			var t [MaxGroupSize]float64
			for a, i := range vars {
				t[a] = s.x[i]
			}
			s.filter(g, len(vars), t[:])
			for a, i := range vars {
				s.x[i] = s.z[i] + t[a]
			}
		}
	}
}

// passInit sets r = S (F - H x), ps = c = P r and the partials r.ps, r.r,
// |S (F - H z)|^2 and |F - H x|^2.
func (s *Solver) passInit(lo, hi int) {
	h := s.p.H
	rp, col, val := h.RowPtr, s.col32, h.Val
	x, z, f := s.x, s.z, s.p.F
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		rs, rr, bb, ww := 0.0, 0.0, 0.0, 0.0
		for g := g0; g < g1; g++ {
			vars := s.gvar[s.gptr[g]:s.gptr[g+1]]
			k := len(vars)
			var t, u [MaxGroupSize]float64
			for a, i := range vars {
				cs, vs := col[rp[i]:rp[i+1]], val[rp[i]:rp[i+1]]
				hx, hz := 0.0, 0.0
				for e, j := range cs {
					hx += vs[e] * x[j]
					hz += vs[e] * z[j]
				}
				t[a] = f[i] - hx
				u[a] = f[i] - hz
				ww += t[a] * t[a]
			}
			s.filter(g, k, t[:])
			s.filter(g, k, u[:])
			var pr [MaxGroupSize]float64
			s.precond(g, k, t[:], pr[:])
			for a, i := range vars {
				s.r[i] = t[a]
				s.ps[i] = pr[a]
				s.c[i] = pr[a]
				rs += t[a] * pr[a]
				rr += t[a] * t[a]
				bb += u[a] * u[a]
			}
		}
		p := s.part[b*nPart : b*nPart+nPart]
		p[0], p[1], p[2], p[3] = rs, rr, bb, ww
	}
}

// passMatvec sets q = S H c and the partial c.q.
func (s *Solver) passMatvec(lo, hi int) {
	h := s.p.H
	rp, col, val := h.RowPtr, s.col32, h.Val
	c := s.c
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		cq := 0.0
		for g := g0; g < g1; g++ {
			vars := s.gvar[s.gptr[g]:s.gptr[g+1]]
			var t [MaxGroupSize]float64
			for a, i := range vars {
				cs, vs := col[rp[i]:rp[i+1]], val[rp[i]:rp[i+1]]
				acc := 0.0
				for e, j := range cs {
					acc += vs[e] * c[j]
				}
				t[a] = acc
			}
			s.filter(g, len(vars), t[:])
			for a, i := range vars {
				s.q[i] = t[a]
				cq += c[i] * t[a]
			}
		}
		s.part[b*nPart] = cq
	}
}

// passUpdate does x += alpha c, r -= alpha q, ps = P r and the partials r.ps
// and r.r.
func (s *Solver) passUpdate(lo, hi int) {
	alpha := s.alpha
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		rs, rr := 0.0, 0.0
		for g := g0; g < g1; g++ {
			vars := s.gvar[s.gptr[g]:s.gptr[g+1]]
			var t, pr [MaxGroupSize]float64
			for a, i := range vars {
				s.x[i] += alpha * s.c[i]
				ri := s.r[i] - alpha*s.q[i]
				s.r[i] = ri
				t[a] = ri
			}
			s.precond(g, len(vars), t[:], pr[:])
			for a, i := range vars {
				s.ps[i] = pr[a]
				rs += t[a] * pr[a]
				rr += t[a] * t[a]
			}
		}
		p := s.part[b*nPart : b*nPart+nPart]
		p[0], p[1] = rs, rr
	}
}

// passDir sets c = ps + beta c.
func (s *Solver) passDir(lo, hi int) {
	beta := s.beta
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		for _, i := range s.gvar[s.gptr[g0]:s.gptr[g1]] {
			s.c[i] = s.ps[i] + beta*s.c[i]
		}
	}
}

// passMult computes the multipliers and slacks of every row and the partial
// maxima of |x|, |H x| and |y|.
func (s *Solver) passMult(lo, hi int) {
	h := s.p.H
	rp, col, val := h.RowPtr, s.col32, h.Val
	x, f := s.x, s.p.F
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		xm, hm, ym := 0.0, 0.0, 0.0
		for g := g0; g < g1; g++ {
			vars := s.gvar[s.gptr[g]:s.gptr[g+1]]
			k := len(vars)
			var grad, xg, y [MaxGroupSize]float64
			for a, i := range vars {
				cs, vs := col[rp[i]:rp[i+1]], val[rp[i]:rp[i+1]]
				acc := 0.0
				for e, j := range cs {
					acc += vs[e] * x[j]
				}
				grad[a] = acc - f[i]
				xg[a] = x[i]
				xm = math.Max(xm, math.Abs(x[i]))
				hm = math.Max(hm, math.Abs(acc))
			}
			rows := s.ridx[s.rptr[g]:s.rptr[g+1]]
			if len(rows) == 0 {
				continue
			}
			for _, ri := range rows {
				r := &s.p.Rows[ri]
				ax := 0.0
				for a, c := range r.Coef {
					ax += c * xg[a]
				}
				s.slack[ri] = ax - r.Target
				s.y[ri] = 0
			}
			s.multipliers(g, k, grad[:], y[:])
			arow := s.arow[g*MaxGroupSize:]
			for j := 0; j < int(s.nact[g]); j++ {
				s.y[arow[j]] = y[j]
				ym = math.Max(ym, math.Abs(y[j]))
			}
		}
		p := s.part[b*nPart : b*nPart+nPart]
		p[0], p[1], p[2] = xm, hm, ym
	}
}

// precond sets out[:k] = P_g t[:k].
func (s *Solver) precond(g, k int, t, out []float64) {
	pv := s.pinv[g*sq : g*sq+sq]
	for a := 0; a < k; a++ {
		row := pv[a*MaxGroupSize : a*MaxGroupSize+k]
		x := 0.0
		for c, p := range row {
			x += p * t[c]
		}
		out[a] = x
	}
}

func (s *Solver) parallel(fn func(lo, hi int)) {
	if s.run == nil {
		fn(0, s.nb)
		return
	}
	s.run.For(s.nb, fn)
}

// sum adds partial j of every block, in block order.
func (s *Solver) sum(j int) float64 {
	t := 0.0
	for b := 0; b < s.nb; b++ {
		t += s.part[b*nPart+j]
	}
	return t
}

func (s *Solver) maxPart(j int) float64 {
	t := 0.0
	for b := 0; b < s.nb; b++ {
		t = math.Max(t, s.part[b*nPart+j])
	}
	return t
}

// pcg solves S (H x - F) = 0 with (I - S) x = z from the current x by the
// modified PCG of Baraff and Witkin 1998 (sec. 5.3) to relative residual
// tol, at most maxIter iterations. The recurrence residual is checked against a recomputed one
// before convergence is reported (restarting if they disagree). It returns
// the iterations used, whether Tol was met, the relative residual and, on
// failure, why.
func (s *Solver) pcg(tol float64, maxIter int) (int, bool, float64, string) {
	tol2 := tol * tol
	iters := 0
	for {
		s.parallel(s.fnInit)
		delta, rr, bb := s.sum(0), s.sum(1), s.sum(2)
		// Filtering F - H x rounds at about eps |F - H x|: a residual below
		// that is noise, whatever Tol asks (fully constrained groups, or
		// forces balanced by the constraints, leave nothing else).
		floor := noise * noise * s.sum(3)
		if !finite(delta) || !finite(rr) || !finite(bb) {
			return iters, false, math.NaN(), "PCG: residual is not finite"
		}
		if bb == 0 {
			// z itself is stationary on the free subspace.
			copy(s.x, s.z)
			return iters, true, 0, ""
		}
		if rr <= tol2*bb || rr <= floor {
			return iters, true, math.Sqrt(rr / bb), ""
		}
		if iters >= maxIter {
			return iters, false, math.Sqrt(rr / bb), fmt.Sprintf("PCG did not reach relative residual %.1e in %d iterations (residual %.2e)", tol, maxIter, math.Sqrt(rr/bb))
		}
		for iters < maxIter {
			s.parallel(s.fnMatvec)
			cq := s.sum(0)
			if !(cq > 0) || math.IsInf(cq, 0) {
				return iters, false, math.Sqrt(rr / bb), fmt.Sprintf("PCG breakdown after %d iterations: c^T S H S c = %g, so H is not positive definite on the free subspace", iters, cq)
			}
			s.alpha = delta / cq
			s.parallel(s.fnUpdate)
			iters++
			rs := s.sum(0)
			rr = s.sum(1)
			if !finite(rr) || !finite(rs) {
				return iters, false, math.NaN(), "PCG: residual is not finite"
			}
			if rr <= tol2*bb || rr <= floor {
				break
			}
			s.beta = rs / delta
			delta = rs
			s.parallel(s.fnDir)
		}
	}
}
