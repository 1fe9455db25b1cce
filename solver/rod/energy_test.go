package rod

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

type worst struct{ g, h, asym, e float64 }

func (w *worst) add(t *testing.T, name string, k int, g, h, a, e float64) {
	t.Helper()
	if g > fdRelTol || h > fdRelTol || a > 1e-14 || e > 1e-13 || math.IsNaN(g+h+a+e) {
		t.Errorf("%s case %d: grad err %.3g, hess err %.3g, asym %.3g, energy mismatch %.3g", name, k, g, h, a, e)
	}
	w.g, w.h, w.asym, w.e = math.Max(w.g, g), math.Max(w.h, h), math.Max(w.asym, a), math.Max(w.e, e)
}

func TestStretchFD(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var w worst
	for k := 0; k < 2000; k++ {
		ks := 0.5 + 10*rng.Float64()
		xa := randVec3(rng, 1)
		du := 0.1 + 2*rng.Float64()
		l := du * (0.3 + 1.4*rng.Float64()) // compressed .. stretched
		if k%10 == 0 {
			l = du * (1 + 1e-7*rng.NormFloat64()) // near rest
		}
		xb := xa.Add(randUnit(rng).Scale(l))
		ua := rng.NormFloat64()
		q := []float64{xa[0], xa[1], xa[2], xb[0], xb[1], xb[2], ua, ua + du}
		en := func(q []float64) float64 { return StretchEnergy(ks, v3(q), v3(q[3:]), q[6], q[7]) }
		gh := func(q []float64, g, H []float64) float64 {
			var gg [8]float64
			var HH [64]float64
			E := StretchGradHess(ks, v3(q), v3(q[3:]), q[6], q[7], &gg, &HH)
			copy(g, gg[:])
			copy(H, HH[:])
			return E
		}
		eg, eh, as, ee := fdCheck(8, q, ks/du, en, gh)
		w.add(t, "stretch", k, eg, eh, as, ee)
	}
	t.Logf("stretch worst: grad %.3g hess %.3g asym %.3g energy %.3g", w.g, w.h, w.asym, w.e)
}

// TestStretchPaperStiffness checks SB2020 sec. 3.2: at rest, d2V/dl2 = d2V/ddu2 = k_s/du.
func TestStretchPaperStiffness(t *testing.T) {
	ks, du := 3.0, 0.25
	var g [8]float64
	var H [64]float64
	V := StretchGradHess(ks, dense.Vec3{}, dense.Vec3{du, 0, 0}, 0, du, &g, &H)
	if V != 0 || norm(g[:]) != 0 {
		t.Fatalf("rest: V=%g g=%v", V, g)
	}
	if math.Abs(H[3*8+3]-ks/du) > 1e-12 || math.Abs(H[7*8+7]-ks/du) > 1e-12 {
		t.Fatalf("rest stiffness %g %g, want %g", H[3*8+3], H[7*8+7], ks/du)
	}
	// l = 0: finite output.
	V = StretchGradHess(ks, dense.Vec3{1, 2, 3}, dense.Vec3{1, 2, 3}, 0, du, &g, &H)
	if math.Abs(V-0.5*ks*du) > 1e-15 || math.IsNaN(norm(H[:])) {
		t.Fatalf("l=0: V=%g H=%v", V, H)
	}
}

func bendConfig(rng *rand.Rand, theta float64) (xa, xb, xc dense.Vec3) {
	d1 := randUnit(rng)
	p := randUnit(rng)
	p = p.Sub(d1.Scale(p.Dot(d1)))
	p = p.Scale(1 / p.Norm())
	d2 := d1.Scale(math.Cos(theta)).Add(p.Scale(math.Sin(theta)))
	xa = randVec3(rng, 1)
	xb = xa.Add(d1.Scale(0.3 + rng.Float64()))
	xc = xb.Add(d2.Scale(0.3 + rng.Float64()))
	return
}

func TestBendFD(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var w worst
	thetas := []float64{0, 1e-9, 1e-6, 1e-4, 1e-2, 0.1, 0.2, 0.2449, 0.245, 0.25, 0.5, 1, 1.5, 2, 2.5, 2.9}
	for k := 0; k < 3200; k++ {
		th := thetas[k%len(thetas)]
		if k >= 3*len(thetas)*20 {
			th = 2.9 * rng.Float64()
		}
		xa, xb, xc := bendConfig(rng, th)
		if got := TurningAngle(xb.Sub(xa), xc.Sub(xb)); math.Abs(got-th) > 1e-12 {
			t.Fatalf("TurningAngle %g want %g", got, th)
		}
		kb := 0.1 + rng.Float64()
		ua := rng.NormFloat64()
		ub := ua + 0.2 + rng.Float64()
		uc := ub + 0.2 + rng.Float64()
		q := []float64{xa[0], xa[1], xa[2], xb[0], xb[1], xb[2], xc[0], xc[1], xc[2], ua, ub, uc}
		en := func(q []float64) float64 { return BendEnergy(kb, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11]) }
		gh := func(q []float64, g, H []float64) float64 {
			var gg [12]float64
			var HH [144]float64
			E := BendGradHess(kb, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11], &gg, &HH)
			copy(g, gg[:])
			copy(H, HH[:])
			return E
		}
		eg, eh, as, ee := fdCheck(12, q, kb/(uc-ua), en, gh)
		w.add(t, "bend", k, eg, eh, as, ee)
	}
	t.Logf("bend worst: grad %.3g hess %.3g asym %.3g energy %.3g", w.g, w.h, w.asym, w.e)
}

// TestBendStraight checks the straight configuration: zero energy and gradient,
// and the Hessian equals the small-angle quadratic form
// V ~ k_b/L |t1 x t2|^2 ~ k_b/L |P(e2/|e2| - e1/|e1|)|^2 (P projects out the tangent).
func TestBendStraight(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for k := 0; k < 50; k++ {
		xa, xb, xc := bendConfig(rng, 0)
		kb, ua, uc := 0.7, 0.1, 1.3
		var g [12]float64
		var H [144]float64
		V := BendGradHess(kb, xa, xb, xc, ua, 0.5, uc, &g, &H)
		// bendConfig builds theta = 0 up to rounding (theta ~ 1e-16).
		if V > 1e-30 || norm(g[:]) > 1e-14 {
			t.Fatalf("straight: V=%g |g|=%g", V, norm(g[:]))
		}
		// Directional second derivative along a random perpendicular move of x_b:
		// theta ~ eps |p| (1/l1 + 1/l2), so V ~ kb/L eps^2 |p|^2 (1/l1+1/l2)^2 and
		// v^T H v = 2 kb/L |p|^2 (1/l1+1/l2)^2.
		t1 := xb.Sub(xa)
		l1, l2 := t1.Norm(), xc.Sub(xb).Norm()
		t1 = t1.Scale(1 / l1)
		p := randUnit(rng)
		p = p.Sub(t1.Scale(p.Dot(t1)))
		var v [12]float64
		copy(v[3:6], p[:])
		vHv := 0.0
		for i := 0; i < 12; i++ {
			for j := 0; j < 12; j++ {
				vHv += v[i] * H[i*12+j] * v[j]
			}
		}
		c := 1/l1 + 1/l2
		want := 2 * kb / (uc - ua) * p.Dot(p) * c * c
		if math.Abs(vHv-want) > 1e-12*want {
			t.Fatalf("straight Hessian: v^T H v = %.15g want %.15g", vHv, want)
		}
	}
}

// TestBendExactlyStraightFD checks gradient and Hessian against finite differences at
// exactly collinear nodes (theta = 0 with no rounding).
func TestBendExactlyStraightFD(t *testing.T) {
	kb := 0.8
	q := []float64{0, 0, 0, 0.5, 0, 0, 1.25, 0, 0, 0, 0.4, 1.1}
	en := func(q []float64) float64 { return BendEnergy(kb, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11]) }
	gh := func(q []float64, g, H []float64) float64 {
		var gg [12]float64
		var HH [144]float64
		E := BendGradHess(kb, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11], &gg, &HH)
		copy(g, gg[:])
		copy(H, HH[:])
		return E
	}
	var g [12]float64
	var H [144]float64
	if V := BendGradHess(kb, v3(q), v3(q[3:]), v3(q[6:]), q[9], q[10], q[11], &g, &H); V != 0 || norm(g[:]) != 0 {
		t.Fatalf("exactly straight: V=%g g=%v", V, g)
	}
	eg, eh, as, _ := fdCheck(12, q, kb/1.1, en, gh)
	if eg > fdRelTol || eh > fdRelTol || as > 1e-14 {
		t.Fatalf("exactly straight: grad err %g hess err %g asym %g", eg, eh, as)
	}
	t.Logf("exactly straight: grad err %.3g hess err %.3g", eg, eh)
}

// TestThetaSqSeriesSwitch checks continuity of thetaSq across the series/closed
// form switch at w = S/c^2 = 1/16.
func TestThetaSqSeriesSwitch(t *testing.T) {
	c := 1.7
	Sw := c * c / 16
	a := [6]float64{}
	b := [6]float64{}
	a[0], a[1], a[2], a[3], a[4], a[5] = thetaSq(Sw*(1-1e-12), c)
	b[0], b[1], b[2], b[3], b[4], b[5] = thetaSq(Sw*(1+1e-12), c)
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-11*math.Max(math.Abs(a[i]), 1) {
			t.Errorf("derivative %d jumps at the switch: %.17g vs %.17g", i, a[i], b[i])
		}
	}
}

func TestInterpolate(t *testing.T) {
	xa, xc := dense.Vec3{0, 0, 0}, dense.Vec3{2, 4, 6}
	x := Interpolate(xa, xc, 1, 3, 1.5)
	if x != (dense.Vec3{0.5, 1, 1.5}) {
		t.Fatalf("Interpolate = %v", x)
	}
	p := EILPoint(xa, xc, 1, 3, 1.5)
	if p.X != x || p.NDOF() != 9 {
		t.Fatalf("EILPoint %v", p)
	}
	// Jacobian against FD of Interpolate.
	rng := rand.New(rand.NewSource(4))
	worstJ := 0.0
	for k := 0; k < 500; k++ {
		xa, xc := randVec3(rng, 1), randVec3(rng, 1)
		ua := rng.NormFloat64()
		uc := ua + 0.2 + rng.Float64()
		ub := ua + (uc-ua)*(1.4*rng.Float64()-0.2)
		q := [9]float64{xa[0], xa[1], xa[2], xc[0], xc[1], xc[2], ua, uc, ub}
		p := EILPoint(xa, xc, ua, uc, ub)
		var J [27]float64
		p.Jacobian(&J)
		var Jfd [27]float64
		for i := 0; i < 9; i++ {
			qp, qm := q, q
			qp[i] += fdStep
			qm[i] -= fdStep
			xp := Interpolate(v3(qp[:]), v3(qp[3:]), qp[6], qp[7], qp[8])
			xm := Interpolate(v3(qm[:]), v3(qm[3:]), qm[6], qm[7], qm[8])
			for r := 0; r < 3; r++ {
				Jfd[r*9+i] = (xp[r] - xm[r]) / (2 * fdStep)
			}
		}
		e := diffNorm(J[:], Jfd[:]) / norm(J[:])
		worstJ = math.Max(worstJ, e)
		if e > fdRelTol {
			t.Fatalf("case %d: Jacobian error %g", k, e)
		}
	}
	t.Logf("interpolation Jacobian worst rel err %.3g", worstJ)
}

func randPoint(rng *rand.Rand, eil bool) (ContactPoint, []float64) {
	if !eil {
		x := randVec3(rng, 1)
		return NodePoint(x), x[:]
	}
	xa, xc := randVec3(rng, 1), randVec3(rng, 1)
	ua := rng.NormFloat64()
	uc := ua + 0.2 + rng.Float64()
	ub := ua + (uc-ua)*(1.4*rng.Float64()-0.2)
	return EILPoint(xa, xc, ua, uc, ub), []float64{xa[0], xa[1], xa[2], xc[0], xc[1], xc[2], ua, uc, ub}
}

func pointFrom(eil bool, q []float64) ContactPoint {
	if !eil {
		return NodePoint(v3(q))
	}
	return EILPoint(v3(q), v3(q[3:]), q[6], q[7], q[8])
}

func TestContactFD(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for _, combo := range [][2]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
		var w worst
		for k := 0; k < 1000; k++ {
			kc := 1 + 100*rng.Float64()
			p, qp := randPoint(rng, combo[0])
			_, qy := randPoint(rng, combo[1])
			np := p.NDOF()
			q := append(append([]float64{}, qp...), qy...)
			n := len(q)
			en := func(q []float64) float64 {
				a, b := pointFrom(combo[0], q), pointFrom(combo[1], q[np:])
				return ContactEnergy(kc, &a, &b)
			}
			gh := func(q []float64, g, H []float64) float64 {
				a, b := pointFrom(combo[0], q), pointFrom(combo[1], q[np:])
				var gg [18]float64
				var HH [324]float64
				E, nn := ContactGradHess(kc, &a, &b, &gg, &HH)
				if nn != n {
					t.Fatalf("n = %d want %d", nn, n)
				}
				copy(g, gg[:n])
				copy(H, HH[:n*n])
				return E
			}
			eg, eh, as, ee := fdCheck(n, q, kc, en, gh)
			w.add(t, "contact", k, eg, eh, as, ee)
		}
		t.Logf("contact EIL(p)=%v EIL(y)=%v worst: grad %.3g hess %.3g asym %.3g", combo[0], combo[1], w.g, w.h, w.asym)
	}
}

func TestAnchor(t *testing.T) {
	a := Anchor{U: 1, Kf: 10}
	u := 1.3 // force 3
	if f := a.Force(u); math.Abs(f-3) > 1e-14 {
		t.Fatalf("force %g", f)
	}
	if e := a.Energy(u); math.Abs(e-0.45) > 1e-14 {
		t.Fatalf("energy %g", e)
	}
	// Stick: mu N = 3 exactly (threshold is inclusive) and above.
	for _, N := range []float64{3, 5} {
		b := a
		b.Update(b.Force(u), N, 1)
		if b.U != 1 {
			t.Fatalf("N=%g: anchor moved to %g (stick expected)", N, b.U)
		}
	}
	// Slip: mu N = 2 < 3: spring force becomes exactly mu N, anchor moves towards u.
	for _, s := range []float64{1, -1} {
		b := a
		uu := 1 + s*0.3
		b.Update(b.Force(uu), 4, 0.5)
		if f := b.Force(uu); math.Abs(f-s*2) > 1e-12 {
			t.Fatalf("slip sign %g: force after %g want %g", s, f, s*2)
		}
		if (b.U-1)*s <= 0 {
			t.Fatalf("anchor moved the wrong way: %g", b.U)
		}
	}
	// Just above / below the threshold.
	b := a
	b.Update(b.Force(u), 3/(1+1e-9), 1)
	if b.U == 1 || math.Abs(b.Force(u)-3/(1+1e-9)) > 1e-12 {
		t.Fatalf("just above threshold: U=%g", b.U)
	}
	// Separating contact (N < 0) or mu = 0: anchor follows u (zero force).
	for _, c := range [][2]float64{{-1, 1}, {5, 0}} {
		b := a
		b.Update(b.Force(u), c[0], c[1])
		if math.Abs(b.Force(u)) > 1e-12 {
			t.Fatalf("N=%g mu=%g: residual force %g", c[0], c[1], b.Force(u))
		}
	}
}

// TestAnchorSlide walks an anchor through stick -> slide -> stick: it sticks
// within the bound, starts sliding beyond it with the spring at the bound,
// keeps sliding while the node moves on, and sticks again (the spring taking
// over at the kinetic friction force) when the node stops.
func TestAnchorSlide(t *testing.T) {
	a := Anchor{U: 0, Kf: 100}
	a.Slide(0, 0.01, 1) // force 1 <= bound 1
	if a.Slip != 0 || a.U != 0 {
		t.Fatalf("within the bound: %+v", a)
	}
	a.Slide(0.01, 0.03, 1) // force 3 > 1: slides towards +u
	if a.Slip != 1 || math.Abs(a.Force(0.03)-1) > 1e-12 {
		t.Fatalf("beyond the bound: %+v, force %g", a, a.Force(0.03))
	}
	a.Slide(0.03, 0.05, 1) // still moving towards +u
	if a.Slip != 1 || math.Abs(a.Force(0.05)-1) > 1e-12 {
		t.Fatalf("sliding on: %+v", a)
	}
	a.Slide(0.05, 0.049, 1) // turned back: sticks, spring at the bound
	if a.Slip != 0 || math.Abs(a.Force(0.049)-1) > 1e-12 {
		t.Fatalf("stopped: %+v", a)
	}
	b := Anchor{U: 0, Kf: 100}
	b.Slide(0, -0.02, 0) // a pulling contact: no friction at all
	if b.Slip != -1 || b.Force(-0.02) != 0 {
		t.Fatalf("pulling contact: %+v", b)
	}
}

// TestContactGaussNewton checks that the Gauss-Newton contact Hessian equals
// the full one where the constraint holds (r = 0) and is positive
// semidefinite where it does not.
func TestContactGaussNewton(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	xa, xc := dense.Vec3{0, 0, 0}, dense.Vec3{0.1, 0.02, 0}
	p := EILPoint(xa, xc, 0, 0.1, 0.04)
	for _, y := range []ContactPoint{NodePoint(p.X), NodePoint(p.X.Add(dense.Vec3{0.003, -0.002, 0.004}))} {
		var g [18]float64
		var H, G [324]float64
		_, n := ContactGradHess(1e4, &p, &y, &g, &H)
		if m := ContactGaussNewton(1e4, &p, &y, &G); m != n {
			t.Fatalf("n = %d, want %d", m, n)
		}
		same := y.X == p.X
		for k := 0; k < n*n; k++ {
			if same && math.Abs(H[k]-G[k]) > 1e-9*(1+math.Abs(H[k])) {
				t.Fatalf("r = 0: entry %d: Gauss-Newton %g, full %g", k, G[k], H[k])
			}
		}
		for trial := 0; trial < 100; trial++ {
			v := make([]float64, n)
			for k := range v {
				v[k] = rng.NormFloat64()
			}
			q := 0.0
			for a := 0; a < n; a++ {
				for b := 0; b < n; b++ {
					q += v[a] * G[a*n+b] * v[b]
				}
			}
			if q < -1e-9 {
				t.Fatalf("Gauss-Newton Hessian not PSD: v^T G v = %g", q)
			}
		}
	}
}

// TestBendPSD checks BendGradHessPSD: energy and gradient bitwise those of
// BendGradHess, a positive semidefinite Hessian, equal to the exact one
// wherever that is positive semidefinite, and a projection that only removes
// curvature (exact - projected is negative semidefinite, as for the
// projection of a matrix onto the PSD cone along its negative part).
func TestBendPSD(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	thetas := []float64{0, 1e-9, 1e-6, 1e-4, 1e-2, 0.1, 0.5, 1, 2, 2.9}
	nPSD := 0
	worstNeg, worstEq := 0.0, 0.0
	for k := 0; k < 2000; k++ {
		th := thetas[k%len(thetas)]
		if k >= 20*len(thetas) {
			th = 2.9 * rng.Float64()
		}
		xa, xb, xc := bendConfig(rng, th)
		kb := 0.1 + rng.Float64()
		ua := rng.NormFloat64()
		ub := ua + 0.01 + rng.Float64()
		uc := ub + 0.01 + rng.Float64()
		var g, gp [12]float64
		var H, Hp [144]float64
		V := BendGradHess(kb, xa, xb, xc, ua, ub, uc, &g, &H)
		Vp := BendGradHessPSD(kb, xa, xb, xc, ua, ub, uc, &gp, &Hp)
		if V != Vp || g != gp {
			t.Fatalf("k=%d: energy/gradient differ: %g %g", k, V, Vp)
		}
		scale := norm(H[:])
		var w [12]float64
		var Q [144]float64
		dense.EigenSym(Hp[:], 12, w[:], Q[:])
		for _, l := range w {
			worstNeg = min(worstNeg, l/scale)
		}
		dense.EigenSym(H[:], 12, w[:], Q[:])
		exactPSD := true
		for _, l := range w {
			if l < -1e-12*scale {
				exactPSD = false
			}
		}
		var D [144]float64
		for i := range D {
			D[i] = Hp[i] - H[i]
		}
		dense.EigenSym(D[:], 12, w[:], Q[:])
		for _, l := range w {
			if l < -1e-10*scale {
				t.Fatalf("k=%d theta=%g: projected - exact has eigenvalue %g (scale %g)", k, th, l, scale)
			}
		}
		if exactPSD {
			nPSD++
			e := diffNorm(H[:], Hp[:]) / scale
			worstEq = max(worstEq, e)
			if e > 1e-10 {
				t.Fatalf("k=%d theta=%g: exact Hessian PSD but projected differs by %g", k, th, e)
			}
		}
	}
	if worstNeg < -1e-7 { // unprojected below theta = 1e-7

		t.Fatalf("projected Hessian eigenvalue %g relative to its norm", worstNeg)
	}
	if nPSD == 0 {
		t.Fatal("no PSD exact Hessian among the configurations")
	}
	t.Logf("%d of 2000 exact Hessians PSD (worst difference %.3g); worst projected eigenvalue %.3g", nPSD, worstEq, worstNeg)
}
