package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// vectorDistance is the vector form of SignedDistanceVel for the analytic
// shapes, as loom had it before analyticDistance went to scalars: the
// rotated shape is measured by recursion in its own frame with a zero
// offset, on dense.Vec3 values.
func vectorDistance(s *Shape, offset, p dense.Vec3) (float64, dense.Vec3, dense.Vec3) {
	if s.Rotated {
		c := s.RotationCenter()
		local := *s
		local.Rotated = false
		d, n, u := vectorDistance(&local, dense.Vec3{}, c.Add(s.R.T().MulVec(p.Sub(c.Add(offset)))))
		return d, s.R.MulVec(n), s.R.MulVec(u)
	}
	round := func(p, c dense.Vec3, r float64) (float64, dense.Vec3, dense.Vec3) {
		d := p.Sub(c)
		l := d.Norm()
		if l == 0 {
			return -r, dense.Vec3{0, 0, 1}, dense.Vec3{}
		}
		return l - r, d.Scale(1 / l), dense.Vec3{}
	}
	switch s.Kind {
	case Plane:
		c := s.Center.Add(offset)
		return p.Sub(c).Dot(s.Normal), s.Normal, dense.Vec3{}
	case Sphere:
		return round(p, s.Center.Add(offset), s.Radius)
	case Point:
		return round(p, s.Center.Add(offset), 0)
	case Capsule:
		a, b := s.A.Add(offset), s.B.Add(offset)
		ab := b.Sub(a)
		t := p.Sub(a).Dot(ab) / ab.Dot(ab)
		t = math.Max(0, math.Min(1, t))
		return round(p, a.Add(ab.Scale(t)), s.Radius)
	default: // Box
		q := p.Sub(s.Center.Add(offset))
		var out dense.Vec3
		inside := true
		axis, depth := 0, math.Inf(-1)
		for k := 0; k < 3; k++ {
			e := math.Abs(q[k]) - s.HalfExtents[k]
			if e > 0 {
				inside = false
				out[k] = math.Copysign(e, q[k])
			}
			if e > depth {
				axis, depth = k, e
			}
		}
		if inside {
			var n dense.Vec3
			n[axis] = math.Copysign(1, q[axis])
			return depth, n, dense.Vec3{}
		}
		d := out.Norm()
		return d, out.Scale(1 / d), dense.Vec3{}
	}
}

// sameBits reports whether a and b have the same bits (so -0 differs from
// +0 and a NaN matches itself).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// TestAnalyticDistanceBitwise: the scalar analyticDistance returns the
// vector form's distance, normal and velocity bit for bit (signed zeros
// included), for every analytic shape, turned or not, at random points,
// points on the shapes' axes and centres, on box faces, edges and inside
// (ties between faces), with signed-zero and non-zero offsets.
func TestAnalyticDistanceBitwise(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	rot := rotXYZ(0.3, -0.7, 1.1)
	base := []Shape{
		{Kind: Plane, Center: dense.Vec3{0.1, -0.2, 0.3}, Normal: dense.Vec3{0, 0.6, 0.8}},
		{Kind: Plane, Center: dense.Vec3{math.Copysign(0, -1), 0, 0}, Normal: dense.Vec3{0, 0, 1}},
		{Kind: Sphere, Center: dense.Vec3{0.1, -0.2, 0.3}, Radius: 0.3},
		{Kind: Point, Center: dense.Vec3{-0.1, 0.2, 0}, Normal: dense.Vec3{0, 0, 1}},
		{Kind: Capsule, A: dense.Vec3{-0.3, 0.1, 0}, B: dense.Vec3{0.4, 0.2, 0.1}, Radius: 0.15},
		{Kind: Capsule, A: dense.Vec3{0, 0, 0.3}, B: dense.Vec3{0, 0, 1.3}, Radius: 0.2},
		{Kind: Box, Center: dense.Vec3{0.1, -0.2, 0.3}, HalfExtents: dense.Vec3{0.5, 0.25, 0.125}},
		{Kind: Box, Center: dense.Vec3{}, HalfExtents: dense.Vec3{0.25, 0.25, 0.25}},
	}
	negZero := math.Copysign(0, -1)
	var shapes []Shape
	for _, s := range base {
		shapes = append(shapes, s)
		s.Rotated, s.R = true, rot
		shapes = append(shapes, s)
		s.R = dense.Mat3{{-1, negZero, negZero}, {negZero, 1, 0}, {0, 0, -1}} // a row of negative entries: R 0 has a -0
		shapes = append(shapes, s)
	}
	offsets := []dense.Vec3{{}, {negZero, negZero, negZero}, {0.05, 0.02, -0.1}}
	for si := range shapes {
		s := &shapes[si]
		// Special points: the rotation centre, the shape's own points,
		// box faces, edges and corners, points at equal depth.
		c := s.RotationCenter()
		pts := []dense.Vec3{c, s.Center, s.A, s.B, {negZero, negZero, negZero}}
		for _, sx := range []float64{-1, 0, 1} {
			for _, sy := range []float64{-1, 0, 1} {
				for _, sz := range []float64{-1, 0, 1} {
					pts = append(pts, s.Center.Add(dense.Vec3{sx * s.HalfExtents[0], sy * s.HalfExtents[1], sz * s.HalfExtents[2]}),
						s.Center.Add(dense.Vec3{sx * 0.1, sy * 0.1, sz * 0.1}))
				}
			}
		}
		for range 2000 {
			pts = append(pts, c.Add(randVec(rng, 1)))
		}
		for _, off := range offsets {
			for _, p := range pts {
				p = p.Add(off)
				d, n, u := SignedDistanceVel(s, off, p)
				dw, nw, uw := vectorDistance(s, off, p)
				ok := sameBits(d, dw)
				for k := range 3 {
					ok = ok && sameBits(n[k], nw[k]) && sameBits(u[k], uw[k])
				}
				if !ok {
					t.Fatalf("shape %d (kind %v, rotated %v) offset %v p %v: scalar %v %v %v, vector %v %v %v",
						si, s.Kind, s.Rotated, off, p, d, n, u, dw, nw, uw)
				}
			}
		}
	}
}
