package systems

import (
	"math"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
)

// signedDistance returns the signed distance from p to the obstacle's surface
// at its current pose (negative inside) and the unit outward normal of the
// nearest surface point. For a box seen from outside an edge or corner the
// normal points from the nearest surface point to p: the averaged normal of a
// Lagrangian simulator (Weidner 2018 sec. 5.1, Fig. 3b).
func signedDistance(o *components.Obstacle, p dense.Vec3) (float64, dense.Vec3) {
	switch o.Kind {
	case components.Plane:
		c := o.Center.Add(o.Offset)
		return p.Sub(c).Dot(o.Normal), o.Normal
	case components.Sphere:
		return roundDistance(p, o.Center.Add(o.Offset), o.Radius)
	case components.Point:
		return roundDistance(p, o.Center.Add(o.Offset), 0)
	case components.Capsule:
		a, b := o.A.Add(o.Offset), o.B.Add(o.Offset)
		ab := b.Sub(a)
		t := p.Sub(a).Dot(ab) / ab.Dot(ab)
		t = math.Max(0, math.Min(1, t))
		return roundDistance(p, a.Add(ab.Scale(t)), o.Radius)
	default: // Box
		q := p.Sub(o.Center.Add(o.Offset))
		var out dense.Vec3
		inside := true
		axis, depth := 0, math.Inf(-1)
		for k := 0; k < 3; k++ {
			e := math.Abs(q[k]) - o.HalfExtents[k]
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
			return depth, n
		}
		d := out.Norm()
		return d, out.Scale(1 / d)
	}
}

// roundDistance is the distance from p to a ball of radius r about c.
func roundDistance(p, c dense.Vec3, r float64) (float64, dense.Vec3) {
	d := p.Sub(c)
	l := d.Norm()
	if l == 0 {
		return -r, dense.Vec3{0, 0, 1}
	}
	return l - r, d.Scale(1 / l)
}
