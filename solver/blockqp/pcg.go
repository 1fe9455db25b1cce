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

// span returns the offset and size of group g's variables.
func (s *Solver) span(g int) (int, int) {
	o := int(s.gptr[g])
	return o, int(s.gptr[g+1]) - o
}

// passProject rebuilds the filters of changed groups, sets x_g = z_g + S_g
// x_g and sets partial 0 to 1 in blocks where a filter was rebuilt.
func (s *Solver) passProject(lo, hi int) {
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		s.part[b*nPart] = 0
		for g := g0; g < g1; g++ {
			if s.changed[g] {
				s.reg[g] = s.buildFilter(g)
				s.changed[g] = false
				s.part[b*nPart] = 1
			}
			if s.nact[g] == 0 {
				continue // S_g = I, z_g = 0
			}
			o, k := s.span(g)
			var t [MaxGroupSize]float64
			copy(t[:k], s.x[o:o+k])
			s.filter(g, k, t[:])
			for a := 0; a < k; a++ {
				s.x[o+a] = s.z[o+a] + t[a]
			}
		}
	}
}

// passInit sets hx = H x, q = S (F - H x) and the partials |q|^2 and
// |F - H x|^2, and, if s.wantBB, |S (F - H z)|^2.
func (s *Solver) passInit(lo, hi int) {
	x, z, f := s.x, s.z, s.f
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		rr, bb, ww := 0.0, 0.0, 0.0
		for g := g0; g < g1; g++ {
			o, k := s.span(g)
			var t, u [MaxGroupSize]float64
			s.mulRow(g, x, &t)
			copy(s.hx[o:o+k], t[:k])
			for a := 0; a < k; a++ {
				t[a] = f[o+a] - t[a]
				ww += t[a] * t[a]
			}
			s.filter(g, k, t[:])
			for a := 0; a < k; a++ {
				s.q[o+a] = t[a]
				rr += t[a] * t[a]
			}
			if s.wantBB {
				s.mulRow(g, z, &u)
				for a := 0; a < k; a++ {
					u[a] = f[o+a] - u[a]
				}
				s.filter(g, k, u[:])
				for a := 0; a < k; a++ {
					bb += u[a] * u[a]
				}
			}
		}
		p := s.part[b*nPart : b*nPart+nPart]
		p[1], p[2], p[3] = rr, bb, ww
	}
}

// The PCG sweeps, run serially (see pcg): K = S H S + D_B (I - S) is split
// into its block diagonal D, with blocks B_g = C_g C_g^T, and its strictly
// lower and upper block triangles L and L^T, blocks S_g H_gh S_h. Every
// vector the sweeps pass to H lies in the free subspace (the output of a
// P_g = S_g B_g^-1 S_g), so H_gh stands for K_gh there, and P_g's own
// filter stands for S_g.

// Each sweep goes through the domains (see Problem.Domains) concurrently and
// then the separator, forwards, or the separator and then the domains,
// backwards. No domain's groups couple to another's, so this is the
// sequential sweep in group order; only the sweeps' reductions are split, by
// domain, and summed in domain order, so the result does not depend on the
// worker count.

// forDomains runs fn over the domains, on the Runner when there are several.
func (s *Solver) forDomains(fn func(lo, hi int)) {
	nd := len(s.dom) - 1
	if s.run == nil || nd == 1 {
		fn(0, nd)
		return
	}
	s.run.For(nd, fn)
}

// domainSum adds the domains' partials s.dpart in domain order.
func (s *Solver) domainSum() float64 {
	t := 0.0
	for _, p := range s.dpart {
		t += p
	}
	return t
}

// sweepStart sets r = C^T (D + L)^-1 q, c = r and returns r.r.
func (s *Solver) sweepStart() float64 {
	s.forDomains(s.fnStart)
	nd := len(s.dom) - 1
	return s.domainSum() + s.startRange(int(s.dom[nd]), s.ng)
}

// startRange is sweepStart over groups [g0, g1); it returns their part of r.r.
func (s *Solver) startRange(g0, g1 int) float64 {
	rho := 0.0
	for g := g0; g < g1; g++ {
		o, k := s.span(g)
		var w, v, rh [MaxGroupSize]float64
		s.mulBlocks(g, int(s.bptr[g]), int(s.bdiag[g]), s.v, &w)
		for a := 0; a < k; a++ {
			w[a] = s.q[o+a] - w[a]
		}
		s.precond(g, k, &w, &v)
		copy(s.v[o:o+k], v[:k])
		s.mulCT(g, k, &v, &rh)
		for a := 0; a < k; a++ {
			s.r[o+a] = rh[a]
			s.c[o+a] = rh[a]
			rho += rh[a] * rh[a]
		}
	}
	return rho
}

// sweepBack sets c = r + beta c, t = (D + L^T)^-1 C c and v to the upper
// sums L^T t.
func (s *Solver) sweepBack(beta float64) {
	s.beta = beta
	nd := len(s.dom) - 1
	s.backRange(int(s.dom[nd]), s.ng)
	s.forDomains(s.fnBack)
}

// backRange is sweepBack over groups [g0, g1), last to first.
func (s *Solver) backRange(g0, g1 int) {
	bval, bcol, bvo, beta := s.bval, s.bcol, s.bvo, s.beta
	for g := g1 - 1; g >= g0; g-- {
		o, k := s.span(g)
		if k == 3 {
			t := s.t
			var w0, w1, w2 float64
			if s.all3[g] {
				// mul3, inlined by hand: 3 x 3 blocks only.
				b0, b1 := s.bdiag[g]+1, s.bptr[g+1]
				m := bval[bvo[b0]:bvo[b1]]
				for _, j := range bcol[b0:b1] {
					x := (*[3]float64)(t[j:])
					mb := (*[9]float64)(m)
					m = m[9:]
					x0, x1, x2 := x[0], x[1], x[2]
					w0 += mb[0]*x0 + mb[1]*x1 + mb[2]*x2
					w1 += mb[3]*x0 + mb[4]*x1 + mb[5]*x2
					w2 += mb[6]*x0 + mb[7]*x1 + mb[8]*x2
				}
			} else {
				var w [MaxGroupSize]float64
				s.mulBlocks(g, int(s.bdiag[g])+1, int(s.bptr[g+1]), t, &w)
				w0, w1, w2 = w[0], w[1], w[2]
			}
			r, c, v, tg := (*[3]float64)(s.r[o:]), (*[3]float64)(s.c[o:]), (*[3]float64)(s.v[o:]), (*[3]float64)(t[o:])
			p0, p1, p2 := r[0]+beta*c[0], r[1]+beta*c[1], r[2]+beta*c[2]
			c[0], c[1], c[2] = p0, p1, p2
			v[0], v[1], v[2] = w0, w1, w2
			pc := (*[pc3]float64)(s.pc[g*pc3:])
			u0 := pc[9]*p0 - w0
			u1 := pc[10]*p0 + pc[11]*p1 - w1
			u2 := pc[12]*p0 + pc[13]*p1 + pc[14]*p2 - w2
			tg[0] = pc[0]*u0 + pc[1]*u1 + pc[2]*u2
			tg[1] = pc[3]*u0 + pc[4]*u1 + pc[5]*u2
			tg[2] = pc[6]*u0 + pc[7]*u1 + pc[8]*u2
			continue
		}
		var w, p, u, t [MaxGroupSize]float64
		s.mulBlocks(g, int(s.bdiag[g])+1, int(s.bptr[g+1]), s.t, &w)
		for a := 0; a < k; a++ {
			p[a] = s.r[o+a] + beta*s.c[o+a]
			s.c[o+a] = p[a]
		}
		s.mulC(g, k, &p, &u)
		for a := 0; a < k; a++ {
			s.v[o+a] = w[a]
			u[a] -= w[a]
		}
		s.precond(g, k, &u, &t)
		copy(s.t[o:o+k], t[:k])
	}
}

// sweepFwd sets v = (D + L)^-1 (L^T t - (C C^T - B) t) and q = C^T (t + v)
// (so q = A c, A = C^T (D + L)^-1 K (D + L^T)^-1 C, by Eisenstat's trick)
// and returns c.q.
func (s *Solver) sweepFwd() float64 {
	s.forDomains(s.fnFwd)
	nd := len(s.dom) - 1
	return s.domainSum() + s.fwdRange(int(s.dom[nd]), s.ng)
}

// fwdRange is sweepFwd over groups [g0, g1); it returns their part of c.q.
func (s *Solver) fwdRange(g0, g1 int) float64 {
	bval, bcol, bvo := s.bval, s.bcol, s.bvo
	cq := 0.0
	for g := g0; g < g1; g++ {
		o, k := s.span(g)
		if k == 3 && !s.reg[g] {
			v := s.v
			var w0, w1, w2 float64
			if s.all3[g] {
				// mul3, inlined by hand: 3 x 3 blocks only.
				b0, b1 := s.bptr[g], s.bdiag[g]
				m := bval[bvo[b0]:bvo[b1]]
				for _, j := range bcol[b0:b1] {
					x := (*[3]float64)(v[j:])
					mb := (*[9]float64)(m)
					m = m[9:]
					x0, x1, x2 := x[0], x[1], x[2]
					w0 += mb[0]*x0 + mb[1]*x1 + mb[2]*x2
					w1 += mb[3]*x0 + mb[4]*x1 + mb[5]*x2
					w2 += mb[6]*x0 + mb[7]*x1 + mb[8]*x2
				}
			} else {
				var w [MaxGroupSize]float64
				s.mulBlocks(g, int(s.bptr[g]), int(s.bdiag[g]), v, &w)
				w0, w1, w2 = w[0], w[1], w[2]
			}
			vg, t, c, qg := (*[3]float64)(v[o:]), (*[3]float64)(s.t[o:]), (*[3]float64)(s.c[o:]), (*[3]float64)(s.q[o:])
			pc := (*[pc3]float64)(s.pc[g*pc3:])
			u0, u1, u2 := vg[0]-w0, vg[1]-w1, vg[2]-w2
			v0 := pc[0]*u0 + pc[1]*u1 + pc[2]*u2
			v1 := pc[3]*u0 + pc[4]*u1 + pc[5]*u2
			v2 := pc[6]*u0 + pc[7]*u1 + pc[8]*u2
			vg[0], vg[1], vg[2] = v0, v1, v2
			v0 += t[0]
			v1 += t[1]
			v2 += t[2]
			q0 := pc[9]*v0 + pc[10]*v1 + pc[12]*v2
			q1 := pc[11]*v1 + pc[13]*v2
			q2 := pc[14] * v2
			qg[0], qg[1], qg[2] = q0, q1, q2
			cq += c[0]*q0 + c[1]*q1 + c[2]*q2
			continue
		}
		var w, v, q [MaxGroupSize]float64
		s.mulBlocks(g, int(s.bptr[g]), int(s.bdiag[g]), s.v, &w)
		for a := 0; a < k; a++ {
			w[a] = s.v[o+a] - w[a]
		}
		if s.reg[g] {
			dc := s.dcor[g*sq : g*sq+sq]
			for a := 0; a < k; a++ {
				for e := 0; e < k; e++ {
					w[a] -= dc[a*MaxGroupSize+e] * s.t[o+e]
				}
			}
		}
		s.precond(g, k, &w, &v)
		copy(s.v[o:o+k], v[:k])
		for a := 0; a < k; a++ {
			v[a] += s.t[o+a]
		}
		s.mulCT(g, k, &v, &q)
		for a := 0; a < k; a++ {
			s.q[o+a] = q[a]
			cq += s.c[o+a] * q[a]
		}
	}
	return cq
}

// update does x += alpha t, r -= alpha q and returns r.r.
func (s *Solver) update(alpha float64) float64 {
	s.alpha = alpha
	s.forDomains(s.fnUpdate)
	nd := len(s.dom) - 1
	return s.domainSum() + s.updateRange(int(s.gptr[s.dom[nd]]), s.n)
}

// updateRange is update over variables [i0, i1); it returns their part of
// r.r.
func (s *Solver) updateRange(i0, i1 int) float64 {
	alpha := s.alpha
	x, t, r, q := s.x[i0:i1], s.t[i0:i1], s.r[i0:i1], s.q[i0:i1]
	rho := 0.0
	for i := range x {
		x[i] += alpha * t[i]
		ri := r[i] - alpha*q[i]
		r[i] = ri
		rho += ri * ri
	}
	return rho
}

// passMult computes the multipliers and slacks of every row and the partial
// maxima of |x|, |H x| and |y|. It takes H x from hx if s.hxOK.
func (s *Solver) passMult(lo, hi int) {
	x, f := s.x, s.f
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		xm, hm, ym := 0.0, 0.0, 0.0
		for g := g0; g < g1; g++ {
			o, k := s.span(g)
			var grad, y [MaxGroupSize]float64
			if s.hxOK {
				copy(grad[:k], s.hx[o:o+k])
			} else {
				s.mulRow(g, x, &grad)
			}
			xg := x[o : o+k]
			for a := 0; a < k; a++ {
				xm = math.Max(xm, math.Abs(xg[a]))
				hm = math.Max(hm, math.Abs(grad[a]))
				grad[a] -= f[o+a]
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
func (s *Solver) precond(g, k int, t, out *[MaxGroupSize]float64) {
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

// mulC sets out[:k] = C_g t[:k].
func (s *Solver) mulC(g, k int, t, out *[MaxGroupSize]float64) {
	ch := s.chol[g*sq : g*sq+sq]
	for a := 0; a < k; a++ {
		x := 0.0
		for c, l := range ch[a*MaxGroupSize : a*MaxGroupSize+a+1] {
			x += l * t[c]
		}
		out[a] = x
	}
}

// mulCT sets out[:k] = C_g^T t[:k].
func (s *Solver) mulCT(g, k int, t, out *[MaxGroupSize]float64) {
	ch := s.chol[g*sq : g*sq+sq]
	for a := 0; a < k; a++ {
		x := 0.0
		for c := a; c < k; c++ {
			x += ch[c*MaxGroupSize+a] * t[c]
		}
		out[a] = x
	}
}

// minParallelBlocks is the fewest blocks of groups for which the passes go
// to the Runner. ecs.Pool's workers poll for the next loop, so a fork and
// join costs about a microsecond and the edge scene's 23 blocks already
// gain (eol-solve 9.8 to 9.0 ms a step on 2 workers, with sweep domains).
const minParallelBlocks = 2

func (s *Solver) parallel(fn func(lo, hi int)) {
	if s.run == nil || (s.nb < minParallelBlocks && !s.parallelAll) {
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

// pcg solves S (H x - F) = 0 with (I - S) x = z from the current x to
// relative residual tol, at most maxIter iterations, and returns the
// iterations used, whether Tol was met, the relative residual and, on
// failure, why.
//
// The iteration is conjugate gradients on K d = S (F - H x) with the
// symmetric block Gauss-Seidel preconditioner M = (D + L) D^-1 (D + L^T), in
// the split form A = E^-1 K E^-T, E = (D + L) C^-T (Eisenstat's trick: a
// product with A costs one sweep over H's blocks and the block diagonal
// kernels, as a product with K would). K maps the free subspace to itself
// and so does M^-1, so every step d_k = E^-T c_k = t is free and the
// iterate x + sum alpha_k t_k meets the working rows. The recurrence gives
// |r|^2 in the transformed space, r^T M^-1 r for the true residual r; the
// true |S (F - H x)| is recomputed when the transformed residual, scaled by
// the last ratio of the two, says Tol is met, and the iteration stops only
// if it is (restarting from that residual if it has not fallen since the
// last check). s.hxOK says whether s.hx holds H x at the returned x.
func (s *Solver) pcg(tol float64, maxIter int) (int, bool, float64, string) {
	tol2 := tol * tol
	iters := 0
	s.hxOK = false
	// fresh: q, hx and the partials hold the residual at x.
	fresh := false
	for {
		if !fresh {
			s.parallel(s.fnInit)
		}
		rr := s.sum(1)
		if s.wantBB {
			s.bb = s.sum(2)
			s.wantBB = false
		}
		bb := s.bb
		// Filtering F - H x rounds at about eps |F - H x|: a residual below
		// that is noise, whatever Tol asks (fully constrained groups, or
		// forces balanced by the constraints, leave nothing else).
		floor := noise * noise * s.sum(3)
		if !finite(rr) || !finite(bb) {
			return iters, false, math.NaN(), "PCG: residual is not finite"
		}
		if bb == 0 {
			// z itself is stationary on the free subspace.
			copy(s.x, s.z)
			return iters, true, 0, ""
		}
		target := math.Max(tol2*bb, floor)
		if rr <= target {
			s.hxOK = true
			return iters, true, math.Sqrt(rr / bb), ""
		}
		if iters >= maxIter {
			return iters, false, math.Sqrt(rr / bb), fmt.Sprintf("PCG did not reach relative residual %.1e in %d iterations (residual %.2e)", tol, maxIter, math.Sqrt(rr/bb))
		}
		rho := s.sweepStart()
		// ratio estimates |S (F - H x)|^2 / |r|^2.
		ratio, last := rr/rho, rr
		beta := 0.0
		fresh = false
		for iters < maxIter {
			s.sweepBack(beta)
			cq := s.sweepFwd()
			if !(cq > 0) || math.IsInf(cq, 0) {
				// Below Tol (a re-solve for the active set's decisions,
				// see Solve), rounding can take the last curvature of a
				// soft direction before the residual reaches tol: return
				// what was reached if that meets Tol.
				s.parallel(s.fnInit)
				rr = s.sum(1)
				if tol < s.set.Tol && rr <= s.set.Tol*s.set.Tol*bb {
					s.hxOK = true
					return iters, true, math.Sqrt(rr / bb), ""
				}
				return iters, false, math.Sqrt(rr / bb), fmt.Sprintf("PCG breakdown after %d iterations: c^T A c = %g, so H is not positive definite on the free subspace", iters, cq)
			}
			rho1 := s.update(rho / cq)
			iters++
			if !finite(rho1) {
				return iters, false, math.NaN(), "PCG: residual is not finite"
			}
			if !(ratio*rho1 > target) {
				s.parallel(s.fnInit)
				rr = s.sum(1)
				if !finite(rr) {
					return iters, false, math.NaN(), "PCG: residual is not finite"
				}
				if rr <= target || rr >= last {
					fresh = true
					break
				}
				ratio, last = rr/rho1, rr
			}
			beta = rho1 / rho
			rho = rho1
		}
	}
}
