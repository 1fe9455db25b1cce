package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// RoundTriangleContact returns how a round obstacle s (a sphere or a
// capsule, translated by offset) and triangle abc stand to each other: gap
// is the distance from the shape's core (the sphere's centre, the capsule's
// segment) to the triangle minus the radius (negative: the shape reaches
// into the face by -gap, its ShapeTriangleDepth), w the barycentric weights
// of the triangle's point nearest the core and n the unit direction from
// the core's nearest point to it, the way out for the triangle. ok is false
// for the other shapes and where no direction exists: the core meets the
// triangle (a capsule's segment through the face).
//
// A Rotated shape is measured in its own frame, as ShapeTriangleDepth
// does, and n is turned back into the world.
func RoundTriangleContact(s *Shape, offset, a, b, c dense.Vec3) (gap float64, w [3]float64, n dense.Vec3, ok bool) {
	if s.Rotated {
		o := s.RotationCenter()
		local := *s
		local.Rotated = false
		back := func(p dense.Vec3) dense.Vec3 { return o.Add(s.R.T().MulVec(p.Sub(o.Add(offset)))) }
		gap, w, n, ok = RoundTriangleContact(&local, dense.Vec3{}, back(a), back(b), back(c))
		return gap, w, s.R.MulVec(n), ok
	}
	var core, tri dense.Vec3 // the nearest points
	switch s.Kind {
	case Sphere:
		core = s.Center.Add(offset)
		w, _ = PointTriangleClosest(core, a, b, c)
	case Capsule:
		p, q := s.A.Add(offset), s.B.Add(offset)
		if segmentCrossesTriangle(p, q, a, b, c) {
			return 0, w, n, false
		}
		// The nearest pair has an end of the segment or a point of a
		// triangle edge in it (SegmentTriangleDistance).
		best := math.Inf(1)
		for _, e := range [2]dense.Vec3{p, q} {
			if we, d := PointTriangleClosest(e, a, b, c); d < best {
				best, w, core = d, we, e
			}
		}
		corners := [3]dense.Vec3{a, b, c}
		for k := range 3 {
			u, v := corners[k], corners[(k+1)%3]
			sp, te, d := SegmentClosest(p, q, u, v)
			if d < best {
				best, core = d, p.Add(q.Sub(p).Scale(sp))
				w = [3]float64{}
				w[k], w[(k+1)%3] = 1-te, te
			}
		}
	default:
		return 0, w, n, false
	}
	tri = a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
	d := tri.Sub(core)
	l := d.Norm()
	if !(l > 0) {
		return 0, w, n, false
	}
	return l - s.Radius, w, d.Scale(1 / l), true
}
