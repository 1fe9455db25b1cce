package eol

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

func TestFrictionFactor(t *testing.T) {
	cases := []struct {
		name              string
		mu, dvn, vt, want float64
	}{
		{"kinetic: impulse below the tangential speed", 0.5, 1, 2, 0.75},
		{"static: impulse above the tangential speed", 0.5, 10, 2, 0},
		{"at the threshold", 0.5, 4, 2, 0},
		{"frictionless", 0, 3, 2, 1},
		{"no normal impulse", 0.5, 0, 2, 1},
		{"separating", 0.5, -1, 2, 1},
		{"at rest with an impulse: stays stuck", 0.5, 1, 0, 0},
		{"at rest without an impulse", 0.5, 0, 0, 1},
	}
	for _, c := range cases {
		if got := FrictionFactor(c.mu, c.dvn, c.vt); got != c.want {
			t.Errorf("%s: FrictionFactor(%g, %g, %g) = %g, want %g", c.name, c.mu, c.dvn, c.vt, got, c.want)
		}
	}
}

// TestEdgeFrictionRemovesTangentialSpeed: an EOL vertex on the box edge of the draped
// cloth (constraints_test.go) moves along the edge (xdot along e_y) while the material
// slides across it (Xdot). Its world velocity (eq. 2 at the node) lies in the cloth's
// tangent plane; scaling Xdot and the edge-tangent part of xdot by the factor scales
// the world velocity by it, so kinetic friction removes exactly mu dvn of tangential
// speed and static friction stops the material.
func TestEdgeFrictionRemovesTangentialSpeed(t *testing.T) {
	F := drapedVertexF(t)
	xd := dense.Vec3{0, 1.5, 0}
	Xd := dense.Vec2{2, 0}
	w := LiftOffVelocity(xd, Xd, F)
	vt := w.Norm()
	edge := dense.Vec3{0, 3, 0}
	for _, dvn := range []float64{0.5, 4} {
		const mu = 0.8
		f := FrictionFactor(mu, dvn, vt)
		xd2, Xd2 := ApplyEdgeFriction(f, xd, Xd, edge)
		w2 := LiftOffVelocity(xd2, Xd2, F)
		wantSpeed := math.Max(0, vt-mu*dvn)
		if math.Abs(w2.Norm()-wantSpeed) > 1e-14 {
			t.Fatalf("dvn %g: tangential speed %g -> %g, want %g", dvn, vt, w2.Norm(), wantSpeed)
		}
		if d := w2.Sub(w.Scale(f)).Norm(); d > 1e-15 {
			t.Fatalf("dvn %g: world velocity %v, want %v", dvn, w2, w.Scale(f))
		}
	}
}

func TestEdgeFrictionKeepsNormalComponents(t *testing.T) {
	xd := dense.Vec3{1, 2, 3}
	Xd := dense.Vec2{4, -2}
	xd2, Xd2 := ApplyEdgeFriction(0.25, xd, Xd, dense.Vec3{0, 2, 0})
	if xd2 != (dense.Vec3{1, 0.5, 3}) || Xd2 != (dense.Vec2{1, -0.5}) {
		t.Fatalf("ApplyEdgeFriction = %v %v", xd2, Xd2)
	}
	// Oblique tangent: the part along it scales, the rest is untouched.
	tan := dense.Vec3{1, 1, 0}
	xd2, _ = ApplyEdgeFriction(0, xd, Xd, tan)
	if math.Abs(xd2.Dot(tan)) > 1e-15 || xd2.Sub(xd).Cross(tan).Norm() > 1e-15 {
		t.Fatalf("oblique tangent: %v", xd2)
	}
	// A zero tangent leaves xdot alone.
	if xd2, _ = ApplyEdgeFriction(0, xd, Xd, dense.Vec3{}); xd2 != xd {
		t.Fatalf("zero tangent: %v", xd2)
	}
}

func TestCornerFrictionScalesOnlyEulerian(t *testing.T) {
	if got := ApplyCornerFriction(0.5, dense.Vec2{2, -4}); got != (dense.Vec2{1, -2}) {
		t.Fatalf("ApplyCornerFriction = %v", got)
	}
}
