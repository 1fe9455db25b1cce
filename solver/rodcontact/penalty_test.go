package rodcontact

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// TestSegmentPenaltyDerivatives compares the penalty's gradient and exact
// Hessian with central differences, on random pairs whose closest points are
// interior to both segments, at an end of one, and at ends of both.
func TestSegmentPenaltyDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const k, r = 1e3, 0.01
	counts := map[[2]bool]int{}
	for trial := 0; trial < 4000 && len(counts) < 4 || counts[[2]bool{true, true}] < 20; trial++ {
		var x [4]dense.Vec3
		for i := range x {
			for c := 0; c < 3; c++ {
				x[i][c] = 0.01 * (rng.Float64() - 0.5)
			}
		}
		s, u, d := geom.SegmentClosest(x[0], x[1], x[2], x[3])
		if d > 0.8*r || d < 0.1*r {
			continue
		}
		// Stay away from the switches between clamped and free parameters:
		// the Hessian jumps there. The case must be the same all over the
		// finite-difference stencil (with a margin).
		const h = 1e-7
		cs := [2]bool{s > 0 && s < 1, u > 0 && u < 1}
		same := true
		for m := 0; m < 12 && same; m++ {
			for _, dl := range []float64{-1e3 * h, 1e3 * h} {
				y := x
				y[m/3][m%3] += dl
				s2, u2, _ := geom.SegmentClosest(y[0], y[1], y[2], y[3])
				same = same && cs == [2]bool{s2 > 0 && s2 < 1, u2 > 0 && u2 < 1}
			}
		}
		if !same {
			continue
		}
		counts[cs]++
		penalty := func(y *[4]dense.Vec3, g *[12]float64, H *[144]float64) float64 { return SegmentPenalty(k, r, y, g, H) }
		checkFD(t, fmt.Sprintf("config %v (s %.3f t %.3f)", x, s, u), x, h, penalty)
	}
	t.Logf("pairs checked by (s free, t free): %v", counts)
	if counts[[2]bool{true, true}] == 0 || counts[[2]bool{true, false}]+counts[[2]bool{false, true}] == 0 || counts[[2]bool{false, false}] == 0 {
		t.Errorf("not every closest-point case was checked: %v", counts)
	}
}

// checkFD compares a penalty's gradient and Hessian at x with central
// differences of step h of its energy and gradient.
func checkFD(t *testing.T, what string, x [4]dense.Vec3, h float64, penalty func(*[4]dense.Vec3, *[12]float64, *[144]float64) float64) {
	t.Helper()
	var g [12]float64
	var H [144]float64
	penalty(&x, &g, &H)
	at := func(m int, dl float64) (float64, [12]float64) {
		y := x
		y[m/3][m%3] += dl
		var gy [12]float64
		var Hy [144]float64
		return penalty(&y, &gy, &Hy), gy
	}
	for m := 0; m < 12; m++ {
		ep, gp := at(m, h)
		em, gm := at(m, -h)
		if fd := (ep - em) / (2 * h); math.Abs(fd-g[m]) > 1e-5*(1+math.Abs(g[m])) {
			t.Fatalf("%s: dE/dx[%d] %g, finite difference %g", what, m, g[m], fd)
		}
		for j := 0; j < 12; j++ {
			fd := (gp[j] - gm[j]) / (2 * h)
			if math.Abs(fd-H[12*j+m]) > 1e-4*(1+math.Abs(fd)) {
				t.Fatalf("%s: H[%d][%d] %g, finite difference %g", what, j, m, H[12*j+m], fd)
			}
		}
	}
}

// TestSegmentPenaltyValues checks the energy of a known configuration, that
// it pushes the segments apart and that it vanishes beyond r.
func TestSegmentPenaltyValues(t *testing.T) {
	x := [4]dense.Vec3{{0, 0, 0}, {1, 0, 0}, {0.5, -1, 0.004}, {0.5, 1, 0.004}}
	var g [12]float64
	var H [144]float64
	e := SegmentPenalty(100, 0.01, &x, &g, &H)
	if want := 100 * 0.006 * 0.006 * 0.006 / (3 * 0.01); math.Abs(e-want) > 1e-15 {
		t.Errorf("energy %g, want %g", e, want)
	}
	// The force -g pushes the first segment down, away from the second,
	// with magnitude k (r - d)^2 / r split by the closest points' weights.
	if want := 100 * 0.006 * 0.006 / 0.01 / 2; math.Abs(g[2]-want) > 1e-12 || math.Abs(g[8]+want) > 1e-12 {
		t.Errorf("gradient %v, want z components %g and %g", g, want, -want)
	}
	x[2][2], x[3][2] = 0.02, 0.02
	if e := SegmentPenalty(100, 0.01, &x, &g, &H); e != 0 {
		t.Errorf("energy %g at distance 0.02 > r", e)
	}
}

// TestFrictionDerivatives compares the friction potential's gradient and
// Hessian with central differences inside and beyond the smoothing slide.
func TestFrictionDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n := dense.Vec3{0.3, -0.4, 0.5}
	n = n.Scale(1 / n.Norm())
	const muN, eps = 2.5, 1e-3
	for trial := 0; trial < 200; trial++ {
		var dx dense.Vec3
		scale := []float64{3e-4, 3e-3}[trial%2]
		for c := 0; c < 3; c++ {
			dx[c] = scale * (rng.Float64() - 0.5)
		}
		var g [3]float64
		var H [9]float64
		Friction(muN, eps, n, dx, &g, &H)
		const h = 1e-9
		for m := 0; m < 3; m++ {
			p, q := dx, dx
			p[m] += h
			q[m] -= h
			var gp, gq [3]float64
			var Hp [9]float64
			ep := Friction(muN, eps, n, p, &gp, &Hp)
			eq := Friction(muN, eps, n, q, &gq, &Hp)
			if fd := (ep - eq) / (2 * h); math.Abs(fd-g[m]) > 1e-5*(1+math.Abs(fd)) {
				t.Fatalf("dx %v: dD/dx[%d] %g, finite difference %g", dx, m, g[m], fd)
			}
			for j := 0; j < 3; j++ {
				if fd := (gp[j] - gq[j]) / (2 * h); math.Abs(fd-H[3*j+m]) > 1e-4*(1+math.Abs(fd)) {
					t.Fatalf("dx %v: H[%d][%d] %g, finite difference %g", dx, j, m, H[3*j+m], fd)
				}
			}
		}
		// Beyond eps the friction force has magnitude mu N, tangential.
		if y := dx.Sub(n.Scale(n.Dot(dx))).Norm(); y > eps {
			gv := dense.Vec3(g)
			if math.Abs(gv.Norm()-muN) > 1e-12 || math.Abs(gv.Dot(n)) > 1e-12 {
				t.Fatalf("slide %g > eps: friction %v, |f| %g, want mu N %g tangential", y, g, gv.Norm(), muN)
			}
		}
	}
}

// TestCrossed checks the crossing test on two segments that pass through
// each other and on two that pass beside each other.
func TestCrossed(t *testing.T) {
	x0 := [4]dense.Vec3{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0.1}, {0, 1, 0.1}}
	x1 := [4]dense.Vec3{{-1, 0, 0}, {1, 0, 0}, {0, -1, -0.1}, {0, 1, -0.1}}
	if !Crossed(&x0, &x1, 1e-6) {
		t.Error("segments passing through each other not reported")
	}
	for i := 2; i < 4; i++ {
		x1[i][0] += 3 // the second segment moves past the first's end
	}
	if Crossed(&x0, &x1, 1e-6) {
		t.Error("segments passing beside each other reported as crossing")
	}
}

// TestPenaltyForceIsMinusDerivative checks PenaltyForce against a central
// difference of SegmentPenalty's energy in the distance of two crossing
// segments (d from 0.1 r to 1.2 r; 0 beyond r).
func TestPenaltyForceIsMinusDerivative(t *testing.T) {
	const k, r, h = 50.0, 0.02, 1e-7
	energy := func(d float64) float64 {
		x := [4]dense.Vec3{{-1, 0, 0}, {1, 0, 0}, {0, -1, d}, {0, 1, d}}
		var g [12]float64
		var H [144]float64
		return SegmentPenalty(k, r, &x, &g, &H)
	}
	for _, f := range []float64{0.1, 0.5, 0.9, 0.999, 1.2} {
		d := f * r
		fd := -(energy(d+h) - energy(d-h)) / (2 * h)
		if got := PenaltyForce(k, r, d); math.Abs(got-fd) > 1e-6*(1+math.Abs(fd)) {
			t.Errorf("d = %g r: PenaltyForce %g, -dE/dd %g", f, got, fd)
		}
	}
}

// TestPointSegmentPenaltyDerivatives compares PointSegmentPenalty's gradient
// and Hessian with central differences on random pairs, the held point's
// foot on the other segment inside it and at its ends, and checks that it
// equals SegmentPenalty where s is the segments' own closest point.
func TestPointSegmentPenaltyDerivatives(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const k, r, h = 1e3, 0.01, 1e-7
	counts := map[bool]int{}
	for trial := 0; trial < 4000 && (counts[true] < 20 || counts[false] < 20); trial++ {
		var x [4]dense.Vec3
		for i := range x {
			for c := 0; c < 3; c++ {
				x[i][c] = 0.01 * (rng.Float64() - 0.5)
			}
		}
		s := rng.Float64()
		foot := func(y *[4]dense.Vec3) (float64, float64) {
			p := y[0].Add(y[1].Sub(y[0]).Scale(s))
			e2 := y[3].Sub(y[2])
			u := p.Sub(y[2]).Dot(e2) / e2.Dot(e2)
			return u, p.Sub(y[2].Add(e2.Scale(math.Max(0, math.Min(1, u))))).Norm()
		}
		u, d := foot(&x)
		if d > 0.8*r || d < 0.1*r {
			continue
		}
		inside := u > 0 && u < 1
		same := true // the same case all over the stencil (with a margin)
		for m := 0; m < 12 && same; m++ {
			for _, dl := range []float64{-1e3 * h, 1e3 * h} {
				y := x
				y[m/3][m%3] += dl
				u2, _ := foot(&y)
				same = same && inside == (u2 > 0 && u2 < 1)
			}
		}
		if !same {
			continue
		}
		counts[inside]++
		penalty := func(y *[4]dense.Vec3, g *[12]float64, H *[144]float64) float64 {
			return PointSegmentPenalty(k, r, s, y, g, H)
		}
		checkFD(t, fmt.Sprintf("config %v (s %.3f t %.3f)", x, s, u), x, h, penalty)
	}
	t.Logf("pairs checked by (foot inside the segment): %v", counts)
	if counts[true] == 0 || counts[false] == 0 {
		t.Errorf("not every case was checked: %v", counts)
	}
	// Held at the segments' own closest point, it is SegmentPenalty.
	x := [4]dense.Vec3{{0, 0, 0}, {1, 0, 0}, {0.3, -0.5, 0.004}, {0.3, 0.5, 0.004}}
	var g1, g2 [12]float64
	var H1, H2 [144]float64
	e1 := SegmentPenalty(k, r, &x, &g1, &H1)
	e2 := PointSegmentPenalty(k, r, 0.3, &x, &g2, &H2)
	if math.Abs(e1-e2) > 1e-15*e1 || e1 == 0 {
		t.Errorf("crossing segments: SegmentPenalty %g, PointSegmentPenalty at its closest point %g", e1, e2)
	}
	for m := range g1 {
		if math.Abs(g1[m]-g2[m]) > 1e-12*(1+math.Abs(g1[m])) {
			t.Errorf("gradient[%d]: %g against %g", m, g1[m], g2[m])
		}
	}
}
