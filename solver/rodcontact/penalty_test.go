package rodcontact

import (
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
		// Stay away from the switches between clamped and free parameters.
		if math.Min(math.Abs(s), math.Abs(1-s)) < 1e-3 && math.Min(math.Abs(s), math.Abs(1-s)) > 0 ||
			math.Min(math.Abs(u), math.Abs(1-u)) < 1e-3 && math.Min(math.Abs(u), math.Abs(1-u)) > 0 {
			continue
		}
		counts[[2]bool{s > 0 && s < 1, u > 0 && u < 1}]++
		var g [12]float64
		var H [144]float64
		SegmentPenalty(k, r, &x, true, &g, &H)
		const h = 1e-7
		at := func(m int, dl float64) (float64, [12]float64) {
			y := x
			y[m/3][m%3] += dl
			var gy [12]float64
			var Hy [144]float64
			e := SegmentPenalty(k, r, &y, true, &gy, &Hy)
			return e, gy
		}
		for m := 0; m < 12; m++ {
			ep, gp := at(m, h)
			em, gm := at(m, -h)
			if fd := (ep - em) / (2 * h); math.Abs(fd-g[m]) > 1e-5*(1+math.Abs(g[m])) {
				t.Fatalf("config %v (s %.3f t %.3f): dE/dx[%d] %g, finite difference %g", x, s, u, m, g[m], fd)
			}
			for j := 0; j < 12; j++ {
				fd := (gp[j] - gm[j]) / (2 * h)
				if math.Abs(fd-H[12*j+m]) > 1e-4*(1+math.Abs(fd)) {
					t.Fatalf("config %v (s %.3f t %.3f): H[%d][%d] %g, finite difference %g", x, s, u, j, m, H[12*j+m], fd)
				}
			}
		}
	}
	t.Logf("pairs checked by (s free, t free): %v", counts)
	if counts[[2]bool{true, true}] == 0 || counts[[2]bool{true, false}]+counts[[2]bool{false, true}] == 0 || counts[[2]bool{false, false}] == 0 {
		t.Errorf("not every closest-point case was checked: %v", counts)
	}
}

// TestSegmentPenaltyGaussNewton checks that the Newton-matrix form is the
// exact Hessian without its curvature part: positive semidefinite, equal to
// phi” grad d grad d^T, and that the energy vanishes beyond r.
func TestSegmentPenaltyGaussNewton(t *testing.T) {
	x := [4]dense.Vec3{{0, 0, 0}, {1, 0, 0}, {0.5, -1, 0.004}, {0.5, 1, 0.004}}
	var g [12]float64
	var H [144]float64
	e := SegmentPenalty(100, 0.01, &x, false, &g, &H)
	if want := 100 * 0.006 * 0.006 * 0.006 / (3 * 0.01); math.Abs(e-want) > 1e-15 {
		t.Errorf("energy %g, want %g", e, want)
	}
	// The force -g pushes the first segment down, away from the second.
	if !(g[2] > 0 && g[8] < 0) {
		t.Errorf("gradient %v does not push the segments apart", g)
	}
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			// g = phi' grad d, phi''/phi'^2 = 2 r/(k (r - d)^3).
			if want := g[i] * g[j] * 2 * 0.01 / (100 * 0.006 * 0.006 * 0.006); math.Abs(H[12*i+j]-want) > 1e-9 {
				t.Fatalf("H[%d][%d] %g, want %g", i, j, H[12*i+j], want)
			}
		}
	}
	x[2][2], x[3][2] = 0.02, 0.02
	if e := SegmentPenalty(100, 0.01, &x, false, &g, &H); e != 0 {
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
