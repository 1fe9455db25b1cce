package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// SegmentClosest returns the parameters s, t in [0, 1] of the closest points
// of segments p0-p1 and q0-q1 and their distance.
func SegmentClosest(p0, p1, q0, q1 dense.Vec3) (s, t, d float64) {
	d1, d2, r := p1.Sub(p0), q1.Sub(q0), p0.Sub(q0)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	c, b := d1.Dot(r), d1.Dot(d2)
	den := a*e - b*b
	if den > 1e-14*a*e {
		s = clamp01((b*f - c*e) / den)
	}
	t = (b*s + f) / e
	if t < 0 {
		t, s = 0, clamp01(-c/a)
	} else if t > 1 {
		t, s = 1, clamp01((b-c)/a)
	}
	return s, t, p0.Add(d1.Scale(s)).Sub(q0.Add(d2.Scale(t))).Norm()
}

func clamp01(x float64) float64 { return math.Max(0, math.Min(1, x)) }
