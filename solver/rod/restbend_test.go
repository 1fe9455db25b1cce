package rod

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// restCurveRandom returns a rest curve of n nodes spaced du with random rest
// angles in [0, 1.5).
func restCurveRandom(rng *rand.Rand, n int, du float64) *RestCurve {
	th := make([]float64, n)
	for k := 1; k+1 < n; k++ {
		th[k] = 1.5 * rng.Float64()
	}
	return NewRestCurve(du, th)
}

// offKink reports whether the dual-cell midpoints of (ua, ub, uc) are at least
// 1e-4 away from a cell boundary, where thetaBar has a kink.
func offKink(c *RestCurve, ua, ub, uc float64) bool {
	for _, m := range []float64{0.5 * (ua + ub), 0.5 * (ub + uc)} {
		for _, b := range c.bound {
			if math.Abs(m-b) < 1e-4 {
				return false
			}
		}
		if c.bound != nil {
			continue
		}
		f := m/c.Du + 0.5
		if math.Abs(f-math.Round(f)) < 1e-4/c.Du {
			return false
		}
	}
	return true
}

// bendRestFD checks BendRestGradHess against finite differences of
// BendRestEnergy at the material points (ua, ub, uc) of rest curve rc, for
// a random triple bent by up to 2.9 rad and a random stiffness.
func bendRestFD(t *testing.T, rng *rand.Rand, w *worst, label string, k int, rc *RestCurve, ua, ub, uc float64) {
	xa, xb, xc := bendConfig(rng, 0.01+2.9*rng.Float64())
	kb := 0.1 + rng.Float64()
	q := []float64{xa[0], xa[1], xa[2], xb[0], xb[1], xb[2], xc[0], xc[1], xc[2], ua, ub, uc}
	en := func(q []float64) float64 {
		return BendRestEnergy(kb, rc, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11])
	}
	gh := func(q []float64, g, H []float64) float64 {
		var gg [12]float64
		var HH [144]float64
		E := BendRestGradHess(kb, rc, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11], false, &gg, &HH)
		copy(g, gg[:])
		copy(H, HH[:])
		return E
	}
	eg, eh, as, ee := fdCheck(12, q, kb/(uc-ua), en, gh)
	w.add(t, label, k, eg, eh, as, ee)
}

// TestBendRestFD checks BendRestGradHess against finite differences of
// BendRestEnergy for random curved rest shapes and deformed triples, with both
// the rest angle and the current angle ranging over (0, 2.9).
func TestBendRestFD(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var w worst
	for k := 0; k < 2000; k++ {
		rc := restCurveRandom(rng, 12, 0.2+rng.Float64())
		length := rc.Du * 11
		var ua, ub, uc float64
		for {
			ua = rng.Float64() * 0.5 * length
			ub = ua + (0.1+rng.Float64())*rc.Du
			uc = ub + (0.1+rng.Float64())*rc.Du
			if uc < length && offKink(rc, ua, ub, uc) {
				break
			}
		}
		bendRestFD(t, rng, &w, "rest bend", k, rc, ua, ub, uc)
	}
	t.Logf("rest bend worst: grad %.3g hess %.3g asym %.3g energy %.3g", w.g, w.h, w.asym, w.e)
}

// TestBendRestAtRest checks that a curved polyline is at rest in its own rest
// curve: at its nodes thetaBar is the polyline's turning angle, so every bend
// triple has zero energy and zero gradient; and that a zero rest curve gives
// the straight energy of eq. 4.
func TestBendRestAtRest(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	n, du := 20, 0.05
	pos := make([][3]float64, n)
	dir := dense.Vec3{1, 0, 0}
	for k := 1; k < n; k++ {
		dir = dir.Add(randVec3(rng, 0.4))
		dir = dir.Scale(1 / dir.Norm())
		pos[k] = dense.Vec3(pos[k-1]).Add(dir.Scale(du))
	}
	rc := NewRestCurve(du, RestTurningAngles(pos))
	for k := 1; k+1 < n; k++ {
		ua, ub, uc := float64(k-1)*du, float64(k)*du, float64(k+1)*du
		if tb, _ := rc.Angle(ua, ub, uc); math.Abs(tb-rc.Theta[k]) > 1e-12 {
			t.Fatalf("node %d: thetaBar %v, want the rest angle %v", k, tb, rc.Theta[k])
		}
		var g [12]float64
		var H [144]float64
		V := BendRestGradHess(1, rc, pos[k-1], pos[k], pos[k+1], ua, ub, uc, false, &g, &H)
		if V > 1e-20 || norm(g[:]) > 1e-8 {
			t.Fatalf("node %d at rest: V = %g, |g| = %g", k, V, norm(g[:]))
		}
	}
	straight := NewRestCurve(du, make([]float64, n))
	xa, xb, xc := bendConfig(rng, 0.7)
	got := BendRestEnergy(2, straight, xa, xb, xc, 0.1, 0.15, 0.3)
	want := BendEnergy(2, xa, xb, xc, 0.1, 0.15, 0.3)
	if math.Abs(got-want) > 1e-12*want {
		t.Fatalf("zero rest curve: %v, want eq. 4's %v", got, want)
	}
}

// unevenPolyline returns a random curved polyline of n nodes with spacings
// in [0.1, 1.1) du (a fabric yarn with contact nodes inserted between its
// evenly spaced ones) and its nodes' arc lengths.
func unevenPolyline(rng *rand.Rand, n int, du float64) (pos [][3]float64, u []float64) {
	pos, u = make([][3]float64, n), make([]float64, n)
	dir := dense.Vec3{1, 0, 0}
	for k := 1; k < n; k++ {
		dir = dir.Add(randVec3(rng, 0.6))
		dir = dir.Scale(1 / dir.Norm())
		l := (0.1 + rng.Float64()) * du
		pos[k] = dense.Vec3(pos[k-1]).Add(dir.Scale(l))
		u[k] = u[k-1] + l
	}
	return pos, u
}

// TestRestCurveUneven checks NewRestCurveAt: a polyline with uneven spacing
// is at rest in the rest curve of its own arc lengths and turning angles
// (thetaBar is each node's turning angle, zero energy and gradient); evenly
// spaced nodes give NewRestCurve's angles; and BendRestGradHess agrees with
// finite differences of BendRestEnergy on it, the u's sliding across cells
// of different lengths.
func TestRestCurveUneven(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	n, du := 24, 0.05
	pos, u := unevenPolyline(rng, n, du)
	rc := NewRestCurveAt(u, RestTurningAngles(pos))
	for k := 1; k+1 < n; k++ {
		if tb, _ := rc.Angle(u[k-1], u[k], u[k+1]); math.Abs(tb-rc.Theta[k]) > 1e-13 {
			t.Fatalf("node %d: thetaBar %v, want the rest angle %v", k, tb, rc.Theta[k])
		}
		var g [12]float64
		var H [144]float64
		V := BendRestGradHess(1, rc, pos[k-1], pos[k], pos[k+1], u[k-1], u[k], u[k+1], false, &g, &H)
		if V > 1e-20 || norm(g[:]) > 1e-8 {
			t.Fatalf("node %d at rest: V = %g, |g| = %g", k, V, norm(g[:]))
		}
	}

	even := restCurveRandom(rng, 12, 0.3)
	ue := make([]float64, 12)
	for k := range ue {
		ue[k] = float64(k) * even.Du
	}
	at := NewRestCurveAt(ue, even.Theta)
	for range 1000 {
		ua := rng.Float64() * 9 * even.Du
		ub := ua + (0.05+rng.Float64())*even.Du
		uc := ub + (0.05+rng.Float64())*even.Du
		t0, d0 := even.Angle(ua, ub, uc)
		t1, d1 := at.Angle(ua, ub, uc)
		if math.Abs(t1-t0) > 1e-12 || math.Abs(d1[0]-d0[0])+math.Abs(d1[1]-d0[1])+math.Abs(d1[2]-d0[2]) > 1e-9 {
			t.Fatalf("(%v, %v, %v): evenly spaced NewRestCurveAt gives %v %v, NewRestCurve %v %v", ua, ub, uc, t1, d1, t0, d0)
		}
	}

	var w worst
	for k := 0; k < 2000; k++ {
		var ua, ub, uc float64
		for {
			ua = rng.Float64() * 0.8 * u[n-1]
			ub = ua + (0.1+rng.Float64())*du
			uc = ub + (0.1+rng.Float64())*du
			if uc < u[n-1] && offKink(rc, ua, ub, uc) {
				break
			}
		}
		bendRestFD(t, rng, &w, "uneven rest bend", k, rc, ua, ub, uc)
	}
	t.Logf("uneven rest bend worst: grad %.3g hess %.3g asym %.3g energy %.3g", w.g, w.h, w.asym, w.e)
}

// TestBendRestPSD checks BendRestGradHess's projection against its exact
// Hessian: energy and gradient bitwise the same; the projected Hessian
// positive semidefinite, above the exact one (projected - exact positive
// semidefinite: curvature is only added), annihilating the translations of
// the three nodes, and equal (to rounding) to the brute-force projection of
// the 12x12 exact Hessian by dense.ProjectPSD, which the 9x9 restriction
// replaces; for curved and for zero rest curves, with the exact Hessian
// indefinite often enough that the projection acts.
func TestBendRestPSD(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var w [12]float64
	var Q [144]float64
	minEig := func(A *[144]float64) float64 {
		B := *A
		dense.EigenSym(B[:], 12, w[:], Q[:])
		return slices.Min(w[:])
	}
	thetas := []float64{0, 1e-9, 1e-6, 1e-3, 0.1, 0.5, 1, 2, 2.9}
	indefinite, worst := 0, 0.0
	for k := 0; k < 2000; k++ {
		th := thetas[k%len(thetas)]
		if k >= 20*len(thetas) {
			th = 2.9 * rng.Float64()
		}
		rc := restCurveRandom(rng, 12, 0.2+rng.Float64())
		straight := k%4 == 0
		if straight {
			rc = NewRestCurve(rc.Du, make([]float64, 12))
		}
		ua := rng.Float64() * 4 * rc.Du
		ub := ua + (0.1+rng.Float64())*rc.Du
		uc := ub + (0.1+rng.Float64())*rc.Du
		xa, xb, xc := bendConfig(rng, th)
		kb := 0.1 + rng.Float64()
		var g, gp [12]float64
		var H, Hp [144]float64
		V := BendRestGradHess(kb, rc, xa, xb, xc, ua, ub, uc, false, &g, &H)
		Vp := BendRestGradHess(kb, rc, xa, xb, xc, ua, ub, uc, true, &gp, &Hp)
		if V != Vp || g != gp {
			t.Fatalf("k=%d: energy or gradient differ with the projection: %g %g", k, V, Vp)
		}
		scale := norm(H[:])
		if minEig(&H) < -1e-9*scale {
			indefinite++
		}
		if l := minEig(&Hp); l < -1e-10*scale {
			t.Fatalf("k=%d theta=%g: projected Hessian has eigenvalue %g (scale %g)", k, th, l, scale)
		}
		var D [144]float64
		for i := range D {
			D[i] = Hp[i] - H[i]
		}
		if l := minEig(&D); l < -1e-10*scale {
			t.Fatalf("k=%d theta=%g: projected - exact has eigenvalue %g (scale %g)", k, th, l, scale)
		}
		for c := 0; c < 3; c++ { // translate x_a, x_b, x_c along axis c
			for i := 0; i < 12; i++ {
				if r := Hp[i*12+c] + Hp[i*12+3+c] + Hp[i*12+6+c]; math.Abs(r) > 1e-10*scale {
					t.Fatalf("k=%d: translation along %d not in the projected Hessian's kernel: row %d gives %g", k, c, i, r)
				}
			}
		}
		P := H // the 12x12 projection, brute force
		dense.ProjectPSD(P[:], 12)
		if e := diffNorm(P[:], Hp[:]) / scale; e > 1e-9 {
			t.Fatalf("k=%d theta=%g: projection differs from the 12x12 one by %g", k, th, e)
		}
		worst = max(worst, diffNorm(P[:], Hp[:])/scale)
	}
	if indefinite < 100 {
		t.Fatalf("only %d of 2000 exact Hessians indefinite: the projection is hardly tested", indefinite)
	}
	t.Logf("%d of 2000 exact Hessians indefinite; worst difference from the 12x12 projection %.3g", indefinite, worst)
}
