package geom

import "github.com/loomsim/loom/solver/dense"

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
	var core dense.Vec3 // the shape's core point nearest the triangle
	switch s.Kind {
	case Sphere:
		core = s.Center.Add(offset)
		w, _ = PointTriangleClosest(core, a, b, c)
	case Capsule:
		p, q := s.A.Add(offset), s.B.Add(offset)
		if segmentCrossesTriangle(p, q, a, b, c) {
			return 0, w, n, false
		}
		core, w, _ = segmentTriangleNearest(p, q, a, b, c)
	default:
		return 0, w, n, false
	}
	tri := a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
	d := tri.Sub(core)
	l := d.Norm()
	if !(l > 0) {
		return 0, w, n, false
	}
	return l - s.Radius, w, d.Scale(1 / l), true
}
