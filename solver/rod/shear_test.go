package rod

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestCrossingShearFD checks CrossingShear's gradient and Hessian against
// central differences on random crossings (near right angles, sheared,
// nearly parallel), and that a crossing at its rest angle has zero energy
// and force and the stiffness k sin^2(theta0) (theta - theta0)^2 predicts.
func TestCrossingShearFD(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var w worst
	for k := 0; k < 2000; k++ {
		ks := 0.1 + 5*rng.Float64()
		c0 := 0.4 * rng.NormFloat64()
		q := make([]float64, 12)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		en := func(q []float64) float64 {
			var g [12]float64
			var H [144]float64
			return CrossingShear(ks, c0, v3(q), v3(q[3:]), v3(q[6:]), v3(q[9:]), &g, &H)
		}
		gh := func(q []float64, g, H []float64) float64 {
			var gg [12]float64
			var HH [144]float64
			E := CrossingShear(ks, c0, v3(q), v3(q[3:]), v3(q[6:]), v3(q[9:]), &gg, &HH)
			copy(g, gg[:])
			copy(H, HH[:])
			return E
		}
		eg, eh, as, ee := fdCheck(12, q, ks, en, gh)
		w.add(t, "shear", k, eg, eh, as, ee)
	}
	t.Logf("shear worst: grad %.3g hess %.3g asym %.3g energy %.3g", w.g, w.h, w.asym, w.e)

	// At rest (theta0 = 80 degrees), turned by a small angle about the
	// normal: V = 1/2 k sin^2(theta0) dtheta^2 to second order.
	k, th0, dth := 2.0, 80*math.Pi/180, 1e-4
	var g [12]float64
	var H [144]float64
	xa1, xa2 := dense.Vec3{-1, 0, 0}, dense.Vec3{1, 0, 0}
	dir := func(th float64) dense.Vec3 { return dense.Vec3{math.Cos(th), math.Sin(th), 0} }
	V := CrossingShear(k, math.Cos(th0), xa1, xa2, dir(th0).Scale(-0.5), dir(th0).Scale(0.5), &g, &H)
	if V != 0 || norm(g[:]) > 1e-15 {
		t.Errorf("at rest: V = %g, |g| = %g", V, norm(g[:]))
	}
	V = CrossingShear(k, math.Cos(th0), xa1, xa2, dir(th0+dth).Scale(-0.5), dir(th0+dth).Scale(0.5), &g, &H)
	want := 0.5 * k * math.Pow(math.Sin(th0)*dth, 2)
	if math.Abs(V-want) > 1e-3*want {
		t.Errorf("turned by %g rad: V = %g, want %g", dth, V, want)
	}
	// Degenerate chord.
	if V := CrossingShear(k, 0, xa1, xa1, xa1, xa2, &g, &H); V != 0 || norm(g[:]) != 0 {
		t.Errorf("zero chord: V = %g", V)
	}
}
