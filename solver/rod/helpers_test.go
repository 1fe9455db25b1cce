package rod

import (
	"math"
	"math/rand"

	"github.com/loomsim/loom/solver/dense"
)

// Finite-difference checks. Gradients are compared with central differences of the
// energy, Hessians with central differences of the analytic gradient, step
// h = fdStep (all test configurations have unit-order lengths and Eulerian
// coordinates). The error is ||analytic - fd||_2 / max(||analytic||_2, fdFloor*scale)
// with scale the element's stiffness scale: truncation error O(h^2) ~ 1e-12 and
// rounding O(eps E/h) ~ 1e-10 relative, so fdRelTol = 1e-6 has margin yet catches any
// wrong term (a wrong term is O(1) relative).
const (
	fdStep   = 1e-6
	fdRelTol = 1e-6
	fdFloor  = 1e-3
)

func randVec3(rng *rand.Rand, s float64) dense.Vec3 {
	return dense.Vec3{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
}

func randUnit(rng *rand.Rand) dense.Vec3 {
	for {
		v := randVec3(rng, 1)
		if n := v.Norm(); n > 1e-3 {
			return v.Scale(1 / n)
		}
	}
}

func norm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func diffNorm(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		d := a[i] - b[i]
		s += d * d
	}
	return math.Sqrt(s)
}

// fdCheck compares the analytic gradient and Hessian at q (n DOFs) with central
// differences and returns the relative errors (gradient, Hessian) and the
// Hessian's asymmetry. energy(q) returns E; gh(q, g, H) returns E and fills g[0:n],
// H[0:n*n].
func fdCheck(n int, q []float64, scale float64,
	energy func(q []float64) float64,
	gh func(q []float64, g, H []float64) float64) (errG, errH, asym, errE float64) {
	g := make([]float64, n)
	H := make([]float64, n*n)
	E := gh(q, g, H)
	E2 := energy(q)
	errE = math.Abs(E-E2) / math.Max(math.Abs(E2), 1e-300)
	if E == E2 {
		errE = 0
	}
	gfd := make([]float64, n)
	Hfd := make([]float64, n*n)
	gp := make([]float64, n)
	gm := make([]float64, n)
	Hs := make([]float64, n*n)
	qq := make([]float64, n)
	for i := 0; i < n; i++ {
		copy(qq, q)
		qq[i] = q[i] + fdStep
		ep := gh(qq, gp, Hs)
		_ = ep
		ep = energy(qq)
		qq[i] = q[i] - fdStep
		gh(qq, gm, Hs)
		em := energy(qq)
		gfd[i] = (ep - em) / (2 * fdStep)
		for j := 0; j < n; j++ {
			Hfd[j*n+i] = (gp[j] - gm[j]) / (2 * fdStep)
		}
	}
	errG = diffNorm(g, gfd) / math.Max(norm(g), fdFloor*scale)
	errH = diffNorm(H, Hfd) / math.Max(norm(H), fdFloor*scale)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			asym = math.Max(asym, math.Abs(H[i*n+j]-H[j*n+i]))
		}
	}
	asym /= math.Max(norm(H), 1e-300)
	return
}

func v3(q []float64) dense.Vec3 { return dense.Vec3{q[0], q[1], q[2]} }
