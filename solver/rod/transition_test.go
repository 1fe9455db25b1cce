package rod

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

func TestTransitionKeepU(t *testing.T) {
	xa, xb, xc := dense.Vec3{0, 0, 0}, dense.Vec3{0.3, 0.2, 0}, dense.Vec3{1, 0, 0}
	if u := ToEIL(xa, xb, xc, 0, 0.4, 1, KeepU); u != 0.4 {
		t.Fatalf("ToEIL KeepU changed u: %g", u)
	}
	xo := dense.Vec3{0.5, 0.1, 0.2}
	x, u := ToEoL(xa, xc, xo, 0, 0.4, 1, KeepU)
	if u != 0.4 || x != xo {
		t.Fatalf("ToEoL KeepU: x=%v u=%g", x, u)
	}
	// Degenerate inputs fall back to the old u.
	if u := EoLToEILU(xa, xb, xa, 0, 0.4, 1); u != 0.4 {
		t.Fatalf("EoLToEILU with x_a = x_c: %g", u)
	}
	if u := EILToEoLU(xa, xa, xa, 0, 0.4, 1); u != 0.4 {
		t.Fatalf("EILToEoLU with zero lengths: %g", u)
	}
}

// TestTransitionCollinear checks the appendix claim (eq. 10, theta -> 0): for
// collinear segments with uniform stretch, both optimal formulas leave u_b unchanged,
// and the local energy (stretch + bending + constraint) is continuous across the
// transition in both directions.
func TestTransitionCollinear(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	ks, kb := 5.0, 0.3
	for k := 0; k < 200; k++ {
		ua := rng.NormFloat64()
		uc := ua + 0.2 + rng.Float64()
		ub := ua + (uc-ua)*(0.05+0.9*rng.Float64())
		lam := 0.7 + 0.6*rng.Float64() // uniform stretch
		dir := randUnit(rng)
		x0 := randVec3(rng, 1)
		xa := x0.Add(dir.Scale(lam * ua))
		xb := x0.Add(dir.Scale(lam * ub))
		xc := x0.Add(dir.Scale(lam * uc))
		if u := EoLToEILU(xa, xb, xc, ua, ub, uc); math.Abs(u-ub) > 1e-12 {
			t.Fatalf("eq. 8 moved u_b: %.15g -> %.15g", ub, u)
		}
		if u := EILToEoLU(xa, xb, xc, ua, ub, uc); math.Abs(u-ub) > 1e-12 {
			t.Fatalf("eq. 7 moved u_b: %.15g -> %.15g", ub, u)
		}
		// EoL -> EIL.
		eEoL := StretchEnergy(ks, xa, xb, ua, ub) + StretchEnergy(ks, xb, xc, ub, uc) + BendEnergy(kb, xa, xb, xc, ua, ub, uc)
		u2 := ToEIL(xa, xb, xc, ua, ub, uc, KeepU)
		p := EILPoint(xa, xc, ua, uc, u2)
		y := NodePoint(xb) // the matching node on the other rod sits at x_b
		eEIL := StretchEnergy(ks, xa, xc, ua, uc) + ContactEnergy(1e4, &p, &y)
		if math.Abs(eEoL-eEIL) > 1e-12*math.Max(eEoL, 1e-12) {
			t.Fatalf("collinear EoL->EIL energy jump: %.15g -> %.15g", eEoL, eEIL)
		}
		// EIL -> EoL (x_b from the contact constraint: the matching node at x(u_b)).
		xb2, ub2 := ToEoL(xa, xc, p.X, ua, u2, uc, OptimalU)
		eBack := StretchEnergy(ks, xa, xb2, ua, ub2) + StretchEnergy(ks, xb2, xc, ub2, uc) + BendEnergy(kb, xa, xb2, xc, ua, ub2, uc)
		if math.Abs(eBack-eEIL) > 1e-12*math.Max(eEIL, 1e-12) {
			t.Fatalf("collinear EIL->EoL energy jump: %.15g -> %.15g", eEIL, eBack)
		}
	}
}

// TestTransitionOptimality checks the appendix derivations on general
// configurations: eq. 7 makes stretch uniform and minimizes the two stretch
// energies over u_b; eq. 8 minimizes the new constraint energy over u_b in
// [u_a, u_c]; eq. 9 (with w_a, w_c from theta) equals eq. 8.
func TestTransitionOptimality(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	ks := 2.0
	for k := 0; k < 300; k++ {
		xa, xb, xc := randVec3(rng, 1), randVec3(rng, 1), randVec3(rng, 1)
		ua := rng.NormFloat64()
		uc := ua + 0.2 + rng.Float64()
		ub := ua + (uc-ua)*rng.Float64()

		// eq. 7
		u7 := EILToEoLU(xa, xb, xc, ua, ub, uc)
		l1, l2 := xa.Sub(xb).Norm(), xb.Sub(xc).Norm()
		if r := l1/(u7-ua) - l2/(uc-u7); math.Abs(r) > 1e-10*(l1/(u7-ua)) {
			t.Fatalf("eq. 7: stretch not uniform: %g vs %g", l1/(u7-ua), l2/(uc-u7))
		}
		vs := func(u float64) float64 { return StretchEnergy(ks, xa, xb, ua, u) + StretchEnergy(ks, xb, xc, u, uc) }
		best := vs(u7)
		for i := 1; i < 1000; i++ {
			u := ua + (uc-ua)*float64(i)/1000
			if vs(u) < best-1e-12*math.Abs(best) {
				t.Fatalf("eq. 7 not optimal: V(%g)=%g < V(%g)=%g", u, vs(u), u7, best)
			}
		}

		// eq. 8
		u8 := EoLToEILU(xa, xb, xc, ua, ub, uc)
		if u8 < ua || u8 > uc {
			t.Fatalf("eq. 8 outside [u_a, u_c]: %g", u8)
		}
		ce := func(u float64) float64 {
			d := Interpolate(xa, xc, ua, uc, u).Sub(xb)
			return d.Dot(d)
		}
		best = ce(u8)
		for i := 0; i <= 1000; i++ {
			u := ua + (uc-ua)*float64(i)/1000
			if ce(u) < best-1e-12*math.Max(best, 1e-300) {
				t.Fatalf("eq. 8 not optimal: C(%g)=%g < C(%g)=%g", u, ce(u), u8, best)
			}
		}
		// eq. 9 (unclamped), compared where the projection falls inside the segment.
		th := TurningAngle(xb.Sub(xa), xc.Sub(xb)) // angle between (x_a-x_b) and (x_b-x_c)
		wa := l2*l2 + l1*l2*math.Cos(th)
		wc := l1*l1 + l1*l2*math.Cos(th)
		u9 := (wa*ua + wc*uc) / (wa + wc)
		if u9 > ua && u9 < uc && math.Abs(u9-u8) > 1e-10 {
			t.Fatalf("eq. 9 %g != eq. 8 %g", u9, u8)
		}
	}
}

// TestTransitionEILToEoLInvisible: an EIL node without a contact partner that
// becomes EoL at its interpolated position (KeepU) leaves the local energy exactly
// unchanged for any configuration (stretch is uniform on both sides, theta = 0).
func TestTransitionEILToEoLInvisible(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	ks, kb := 3.0, 0.5
	for k := 0; k < 200; k++ {
		xa, xc := randVec3(rng, 1), randVec3(rng, 1)
		ua := rng.NormFloat64()
		uc := ua + 0.2 + rng.Float64()
		ub := ua + (uc-ua)*(0.05+0.9*rng.Float64())
		before := StretchEnergy(ks, xa, xc, ua, uc)
		xb, ub2 := ToEoL(xa, xc, Interpolate(xa, xc, ua, uc, ub), ua, ub, uc, KeepU)
		after := StretchEnergy(ks, xa, xb, ua, ub2) + StretchEnergy(ks, xb, xc, ub2, uc) + BendEnergy(kb, xa, xb, xc, ua, ub2, uc)
		if math.Abs(after-before) > 1e-11*math.Max(before, 1e-12) {
			t.Fatalf("energy jump %.15g -> %.15g", before, after)
		}
	}
}
