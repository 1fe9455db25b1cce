package amg

import (
	"fmt"

	"github.com/loomsim/loom/solver/sparse"
)

// Apply sets out = M^-1 in for M^-1 one V-cycle (Vanek et al. 1996, sec. 2)
// from a zero initial guess: on each level Sweeps damped block-Jacobi sweeps,
// the residual restricted by R = P^T, the next level's cycle, the correction
// prolongated by P, and Sweeps more sweeps; LDL^T on the coarsest level.
// Jacobi's sweeps are self-adjoint in the A inner product and the pre- and
// post-smoothing are the same, so M^-1 is symmetric; it is positive definite
// because the smoother converges (Damping / rho < 2 / rho(D^-1 A)). len(in)
// and len(out) must be 3N of the matrix given to Setup; they must not alias.
// It does not allocate and is bitwise identical for any Runner.
func (p *Preconditioner) Apply(r sparse.Runner, in, out []float64) {
	if len(p.levels) == 0 {
		if p.coarse.fac == nil {
			panic("amg: Apply before Setup")
		}
		p.coarse.fac.Solve(in, out)
		return
	}
	l0 := p.levels[0]
	if len(in) != 3*l0.a.rows || len(out) != len(in) {
		panic(fmt.Sprintf("amg: Apply: len(in) = %d, len(out) = %d, want %d", len(in), len(out), 3*l0.a.rows))
	}
	own := l0.b
	l0.b = in
	p.cycle(r, 0)
	l0.b = own
	copy(out, l0.x)
}

func (p *Preconditioner) cycle(r sparse.Runner, k int) {
	l := p.levels[k]
	n := l.a.rows
	next := r // the next level decides for itself
	if l.serial {
		r = sparse.Serial{}
	}
	gs := p.opt.Smoother == GaussSeidel
	if gs {
		l.sweepFrom(r, l.kGS0) // x = 0: L alone
		for s := 1; s < p.opt.Sweeps; s++ {
			l.sweep(r, true)
		}
	} else {
		r.For(n, l.kJac0)
		for s := 1; s < p.opt.Sweeps; s++ {
			r.For(n, l.kJac)
			l.x, l.t = l.t, l.x
		}
	}
	switch {
	case gs && p.opt.Sweeps == 1:
		r.For(n, l.kResU)
	case gs:
		r.For(n, l.kResGS)
	default:
		r.For(n, l.kRes)
	}
	l.bc = p.next(k).b
	r.For(l.p.cols, l.kRestrict)
	if k+1 < len(p.levels) {
		p.cycle(next, k+1)
	} else {
		p.coarse.fac.Solve(p.coarse.b, p.coarse.x)
	}
	l.xc = p.next(k).x // after the cycle: the Jacobi sweeps swap x and t
	r.For(n, l.kProlong)
	for s := 0; s < p.opt.Sweeps; s++ {
		if p.opt.Smoother == GaussSeidel {
			l.sweep(r, false)
		} else {
			r.For(n, l.kJac)
			l.x, l.t = l.t, l.x
		}
	}
}

// sweepFrom is a forward multicolour sweep with the kernel kern.
func (l *level) sweepFrom(r sparse.Runner, kern func(lo, hi int)) {
	for c := 0; c < len(l.colorPtr)-1; c++ {
		l.cur = int(l.colorPtr[c])
		r.For(int(l.colorPtr[c+1]-l.colorPtr[c]), kern)
	}
}

// sweep is one multicolour Gauss-Seidel sweep over the colours, forward or
// backward.
func (l *level) sweep(r sparse.Runner, forward bool) {
	nc := len(l.colorPtr) - 1
	for k := 0; k < nc; k++ {
		c := k
		if !forward {
			c = nc - 1 - k
		}
		l.cur = int(l.colorPtr[c])
		r.For(int(l.colorPtr[c+1]-l.colorPtr[c]), l.kGS)
	}
}

// gaussSeidelKernel: x_i = D_i^-1 (b_i - (L x)_i - (U x)_i), that is x_i +=
// D_i^-1 (b_i - (A x)_i), for the current colour's rows [lo, hi), in place
// (no two of them share a block).
func (l *level) gaussSeidelKernel(lo, hi int) {
	for k := l.cur + lo; k < l.cur+hi; k++ {
		i := int(l.rows[k])
		y0, y1, y2 := l.gsL.mulRow(k, l.x)
		u0, u1, u2 := l.gsU.mulRow(k, l.x)
		y0, y1, y2 = apply3(l.dinvF[9*i:], l.b[3*i]-y0-u0, l.b[3*i+1]-y1-u1, l.b[3*i+2]-y2-u2)
		l.x[3*i], l.x[3*i+1], l.x[3*i+2] = y0, y1, y2
	}
}

// forwardZeroKernel is gaussSeidelKernel in the forward sweep from x = 0:
// the later colours are still zero, so x_i = D_i^-1 (b_i - (L x)_i) (half
// the matrix read). It writes every row, so x needs no clearing.
func (l *level) forwardZeroKernel(lo, hi int) {
	for k := l.cur + lo; k < l.cur+hi; k++ {
		i := int(l.rows[k])
		y0, y1, y2 := l.gsL.mulRow(k, l.x)
		y0, y1, y2 = apply3(l.dinvF[9*i:], l.b[3*i]-y0, l.b[3*i+1]-y1, l.b[3*i+2]-y2)
		l.x[3*i], l.x[3*i+1], l.x[3*i+2] = y0, y1, y2
	}
}

// upperResidualKernel: t = b - A x right after the forward sweep from zero,
// over rows [lo, hi) of the colour order. Each row was solved with the
// earlier colours' final values, D_i x_i = b_i - (L x)_i, so what is left is
// t_i = -(U x)_i (the other half of the matrix; Eisenstat 1981's saving for
// symmetric Gauss-Seidel).
func (l *level) upperResidualKernel(lo, hi int) {
	for k := lo; k < hi; k++ {
		i := int(l.rows[k])
		y0, y1, y2 := l.gsU.mulRow(k, l.x)
		l.t[3*i], l.t[3*i+1], l.t[3*i+2] = -y0, -y1, -y2
	}
}

// jacobi0Kernel: x = omega D^-1 b (the first sweep from x = 0; D = D_F, as
// nothing is dropped with the Jacobi smoother).
func (l *level) jacobi0Kernel(lo, hi int) {
	w := l.omega
	for i := lo; i < hi; i++ {
		y0, y1, y2 := apply3(l.dinvF[9*i:], l.b[3*i], l.b[3*i+1], l.b[3*i+2])
		l.x[3*i], l.x[3*i+1], l.x[3*i+2] = w*y0, w*y1, w*y2
	}
}

// jacobiKernel: t = x + omega D^-1 (b - A x).
func (l *level) jacobiKernel(lo, hi int) {
	w := l.omega
	for i := lo; i < hi; i++ {
		y0, y1, y2 := l.a.mulRow(i, l.x)
		y0, y1, y2 = apply3(l.dinvF[9*i:], l.b[3*i]-y0, l.b[3*i+1]-y1, l.b[3*i+2]-y2)
		l.t[3*i], l.t[3*i+1], l.t[3*i+2] = l.x[3*i]+w*y0, l.x[3*i+1]+w*y1, l.x[3*i+2]+w*y2
	}
}

// gaussSeidelResidualKernel: t = b - (L + D + U) x, the residual of the
// operator the sweeps smooth (in single precision off the diagonal), over
// rows [lo, hi) of the colour order.
func (l *level) gaussSeidelResidualKernel(lo, hi int) {
	for k := lo; k < hi; k++ {
		i := int(l.rows[k])
		y0, y1, y2 := l.gsL.mulRow(k, l.x)
		u0, u1, u2 := l.gsU.mulRow(k, l.x)
		d0, d1, d2 := apply3(l.diagF[9*i:], l.x[3*i], l.x[3*i+1], l.x[3*i+2])
		l.t[3*i], l.t[3*i+1], l.t[3*i+2] = l.b[3*i]-y0-u0-d0, l.b[3*i+1]-y1-u1-d1, l.b[3*i+2]-y2-u2-d2
	}
}

// residualKernel: t = b - A x.
func (l *level) residualKernel(lo, hi int) {
	for i := lo; i < hi; i++ {
		y0, y1, y2 := l.a.mulRow(i, l.x)
		l.t[3*i], l.t[3*i+1], l.t[3*i+2] = l.b[3*i]-y0, l.b[3*i+1]-y1, l.b[3*i+2]-y2
	}
}

// restrictKernel: bc = R t over coarse rows.
func (l *level) restrictKernel(lo, hi int) {
	rt := &l.r.t
	for i := lo; i < hi; i++ {
		l.bc[3*i], l.bc[3*i+1], l.bc[3*i+2] = rt.mulRow(i, l.t)
	}
}

// prolongKernel: x += P xc.
func (l *level) prolongKernel(lo, hi int) {
	for i := lo; i < hi; i++ {
		y0, y1, y2 := l.p.mulRow(i, l.xc)
		l.x[3*i] += y0
		l.x[3*i+1] += y1
		l.x[3*i+2] += y2
	}
}

// Kernel is one of the finest level's V-cycle kernels, exposed for
// bandwidth benchmarks: Run runs it once on the level's current vectors
// (after a Setup and an Apply), and Bytes is the least memory traffic it
// needs, matrix values and indices and each vector read or written once.
type Kernel struct {
	Name  string
	Bytes int64
	Run   func(r sparse.Runner)
}

// Kernels returns the finest level's smoother sweeps (forward from zero,
// the residual after it, the full backward sweep), restriction and
// prolongation, or nil when the hierarchy has a single level.
func (p *Preconditioner) Kernels() []Kernel {
	if len(p.levels) == 0 {
		return nil
	}
	l := p.levels[0]
	n, nc := int64(l.a.rows), int64(l.p.cols)
	nL, nU, nP := int64(len(l.gsL.col)), int64(len(l.gsU.col)), int64(len(l.p.col))
	const vec = 24 // bytes of one block row of a vector
	row := 4 * n   // a row-pointer array
	return []Kernel{
		{"smoother forward (L, from 0)", 40*nL + row + 4*n + 72*n + 2*vec*n, func(r sparse.Runner) { l.sweepFrom(r, l.kGS0) }},
		{"residual after it (-U x)", 40*nU + row + 4*n + 2*vec*n, func(r sparse.Runner) { r.For(int(n), l.kResU) }},
		{"smoother backward (L + U)", 40*(nL+nU) + 2*row + 4*n + 72*n + 3*vec*n, func(r sparse.Runner) { l.sweep(r, false) }},
		{"restriction (R = P^T)", 76*nP + 4*nc + vec*n + vec*nc, func(r sparse.Runner) {
			l.bc = p.next(0).b
			r.For(int(nc), l.kRestrict)
		}},
		{"prolongation (P)", 76*nP + row + vec*nc + 2*vec*n, func(r sparse.Runner) {
			l.xc = p.next(0).x
			r.For(int(n), l.kProlong)
		}},
	}
}

// vectors are a level's right-hand side and iterate.
type vectors struct{ b, x []float64 }

// next returns the vectors of level k's next level (the coarse solve's for
// the last level).
func (p *Preconditioner) next(k int) vectors {
	if k+1 < len(p.levels) {
		return vectors{p.levels[k+1].b, p.levels[k+1].x}
	}
	return vectors{p.coarse.b, p.coarse.x}
}
