package qp

import (
	"errors"
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/ldlt"
)

// polishRounds polishes with the active set act and, while the result misses
// Tol, corrects the active set with the primal-dual active-set rule for up to
// PolishRounds rounds. It reports whether a polished point met Tol (it is then
// r.best). A numerically failed factorisation is not an error: polishing is
// just abandoned.

// polishProx is the proximal x-regularisation of the polishing solve, in
// scaled units.
const polishProx = 1e-10

func (r *run) polishRounds(act []bool, x0, y0 []float64) (bool, error) {
	prev := math.Inf(1)
	for round := 0; round < r.set.PolishRounds; round++ {
		xs, ys, ok, err := r.polish(act, x0, y0)
		if err != nil {
			return false, err
		}
		if !ok {
			return false, nil
		}
		met, score := r.consider(xs, ys, true)
		if met {
			return true, nil
		}
		// stop when the residual no longer improves
		if !(score < prev) {
			return false, nil
		}
		prev = score
		next := r.pdasActive(xs, ys, act)
		if sameBools(next, act) {
			return false, nil
		}
		act = next
		x0, y0 = xs, ys
	}
	return false, nil
}

// polish solves the equality-constrained QP with the constraints act held
// active, in scaled variables:
//
//	[ P      A_act^T ] [x]   [ -q    ]
//	[ A_act  0       ] [y] = [ l_act ]
//
// by factoring the regularised matrix [[P + delta I, A_act^T], [A_act,
// -delta I]] (same pattern as the ADMM matrix; inactive rows are zeroed and
// decoupled) and removing the regularisation by iterative refinement. ok is
// false when the factorisation or the refinement fails.
func (r *run) polish(act []bool, x0, y0 []float64) (xs, ys []float64, ok bool, err error) {
	n, m := r.n, r.m
	k := r.s.kkt
	delta := r.set.PolishDelta
	cd := r.cd
	for i := range cd {
		if act[i] {
			cd[i] = delta
		} else {
			cd[i] = 1
		}
	}
	k.fill(r.P, r.A, delta, act, cd)
	r.factorizations++
	r.polishSolves++
	if r.s.fPol == nil {
		r.s.fPol, err = r.s.sym.Factor(k.mat, k.signs)
	} else {
		err = r.s.fPol.Refactor(k.mat, k.signs)
	}
	if err != nil {
		r.s.fPol = nil
		var pe *ldlt.PivotError
		if errors.As(err, &pe) {
			return nil, nil, false, nil
		}
		return nil, nil, false, fmt.Errorf("qp: factoring polish KKT matrix: %w", err)
	}
	b := r.rhs
	for i := 0; i < n; i++ {
		b[i] = -r.q[i]
	}
	for i := 0; i < m; i++ {
		if act[i] {
			b[n+i] = r.l[i]
		} else {
			b[n+i] = 0
		}
	}
	sol := r.sol
	copy(sol[:n], x0)
	copy(sol[n:], y0)
	for i := 0; i < m; i++ {
		if !act[i] {
			sol[n+i] = 0
		}
	}
	// Proximal outer loop: solve [[P + mu I, A_act^T], [A_act, 0]] sol =
	// b + [mu x_k; 0] by GMRES, x_k the previous x, mu = polishProx. The small
	// x-regularisation keeps the answer near the ADMM point along numerically
	// flat directions (null space of H restricted to the active constraints),
	// where unregularised Krylov iterations would wander off; its effect on
	// stationarity, mu ||x_{k+1} - x_k||, is checked by the caller through the
	// KKT residuals.
	budget := r.set.PolishRefine
	xk, bx := r.tn2, r.tn
	copy(bx, b[:n])
	for outer := 0; outer < 3 && budget > 0; outer++ {
		copy(xk, sol[:n])
		for i := 0; i < n; i++ {
			b[i] = bx[i] + polishProx*xk[i]
		}
		var ok bool
		ok, budget = r.gmres(act, b, sol, polishProx, budget)
		if !ok {
			return nil, nil, false, nil
		}
		ch := 0.0
		for i := 0; i < n; i++ {
			ch = math.Max(ch, math.Abs(sol[i]-xk[i]))
		}
		if polishProx*ch <= 1e-15*math.Max(vecNormInf(bx), vecNormInf(sol[:n])*r.pNorm) {
			break
		}
	}
	copy(b[:n], bx)
	// A polished point far from the point it started at comes from a nearly
	// singular reduced KKT matrix (a wrong, degenerate active set): a solution
	// near the start exists whenever the active set is right.
	if xr := vecNormInf(x0); xr > 0 {
		d := 0.0
		for i := 0; i < n; i++ {
			d = math.Max(d, math.Abs(sol[i]-x0[i]))
		}
		if d > 1e4*xr {
			return nil, nil, false, nil
		}
	}
	// The polished point goes into whichever buffer pair x0 is not.
	xs, ys = r.xsA, r.ysA
	if n > 0 && len(x0) > 0 && &x0[0] == &xs[0] {
		xs, ys = r.xsB, r.ysB
	}
	copy(xs, sol[:n])
	for i := 0; i < m; i++ {
		ys[i] = 0
		if act[i] {
			ys[i] = sol[n+i]
		}
	}
	for _, v := range xs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, false, nil
		}
	}
	return xs, ys, true, nil
}

// kktMul sets out = K v for the unregularised polish KKT matrix
//
//	[ P      A_act^T ]
//	[ A_act  0       ]
//
// with the inactive constraint rows replaced by -I (they decouple).
func (r *run) kktMul(act []bool, v, out []float64, shift float64) {
	n, m := r.n, r.m
	x, y := v[:n], v[n:]
	ox, oy := out[:n], out[n:]
	r.P.mulVec(x, ox)
	if shift != 0 {
		axpy(shift, x, ox)
	}
	for i := 0; i < m; i++ {
		if !act[i] {
			oy[i] = -y[i]
			continue
		}
		s := 0.0
		yi := y[i]
		for q := r.A.RowPtr[i]; q < r.A.RowPtr[i+1]; q++ {
			j := r.A.Col[q]
			s += r.A.Val[q] * x[j]
			ox[j] += r.A.Val[q] * yi
		}
		oy[i] = s
	}
}

// gmres improves sol towards a solution of K sol = b (K as in kktMul) by
// restarted GMRES, right-preconditioned with the factored regularised matrix
// (a Krylov-accelerated iterative refinement: plain refinement stalls on the
// near-singular modes that singular H and degenerate constraints produce). It
// returns false if the result is not finite.
func (r *run) gmres(act []bool, b, sol []float64, shift float64, budget int) (bool, int) {
	const restart = 20
	N := len(b)
	w := r.s.gmresWork(N, restart)
	f := r.s.fPol
	res, tmp := r.res, r.dsol
	bn := vecNormInf(b)
	pn, an := r.pNorm, r.aNorm
	best := math.Inf(1)
	for budget > 0 {
		r.kktMul(act, sol, tmp, shift)
		for i := range res {
			res[i] = b[i] - tmp[i]
		}
		rn := vecNormInf(res)
		if math.IsNaN(rn) || math.IsInf(rn, 0) {
			return false, budget
		}
		xn, yn := vecNormInf(sol[:r.n]), vecNormInf(sol[r.n:])
		target := 1e-15 * math.Max(bn, math.Max((pn+an)*xn, an*yn))
		if rn <= target || !(rn < 0.5*best) {
			break
		}
		best = rn
		beta := math.Sqrt(dot2(res, res))
		v0 := w.v[0]
		for i := range v0 {
			v0[i] = res[i] / beta
		}
		for i := range w.g {
			w.g[i] = 0
		}
		w.g[0] = beta
		k := 0
		for ; k < restart && budget > 0; k++ {
			budget--
			f.Solve(w.v[k], tmp)
			vk1 := w.v[k+1]
			r.kktMul(act, tmp, vk1, shift)
			h := w.h[k]
			for j := 0; j <= k; j++ {
				h[j] = dot2(vk1, w.v[j])
				axpy(-h[j], w.v[j], vk1)
			}
			hn := math.Sqrt(dot2(vk1, vk1))
			h[k+1] = hn
			if hn > 0 {
				for i := range vk1 {
					vk1[i] /= hn
				}
			}
			for j := 0; j < k; j++ {
				h[j], h[j+1] = w.cs[j]*h[j]+w.sn[j]*h[j+1], -w.sn[j]*h[j]+w.cs[j]*h[j+1]
			}
			d := math.Hypot(h[k], h[k+1])
			if d == 0 {
				k++
				break
			}
			w.cs[k], w.sn[k] = h[k]/d, h[k+1]/d
			h[k], h[k+1] = d, 0
			w.g[k], w.g[k+1] = w.cs[k]*w.g[k], -w.sn[k]*w.g[k]
			if math.Abs(w.g[k+1]) <= 1e-3*target || hn == 0 {
				k++
				break
			}
		}
		// y = H^{-1} g (upper triangular), u = V y, sol += M u
		y := w.y[:k]
		for i := k - 1; i >= 0; i-- {
			s := w.g[i]
			for j := i + 1; j < k; j++ {
				s -= w.h[j][i] * y[j]
			}
			y[i] = s / w.h[i][i]
		}
		u := res
		for i := range u {
			u[i] = 0
		}
		for j := 0; j < k; j++ {
			axpy(y[j], w.v[j], u)
		}
		f.Solve(u, tmp)
		axpy(1, tmp, sol)
	}
	for _, v := range sol {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false, budget
		}
	}
	return true, budget
}

type gmresWork struct {
	v      [][]float64 // restart+1 basis vectors
	h      [][]float64 // columns of the Hessenberg matrix
	cs, sn []float64
	g, y   []float64
}

func (s *Solver) gmresWork(n, k int) *gmresWork {
	if s.gw != nil && len(s.gw.v[0]) == n && len(s.gw.h) == k {
		return s.gw
	}
	w := &gmresWork{v: make([][]float64, k+1), h: make([][]float64, k)}
	for i := range w.v {
		w.v[i] = make([]float64, n)
	}
	for i := range w.h {
		w.h[i] = make([]float64, k+1)
	}
	w.cs, w.sn, w.g, w.y = make([]float64, k), make([]float64, k), make([]float64, k+1), make([]float64, k)
	s.gw = w
	return w
}

func dot2(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func axpy(a float64, x, y []float64) {
	for i := range x {
		y[i] += a * x[i]
	}
}
