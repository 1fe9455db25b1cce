package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// ShapeKind names an obstacle's shape.
type ShapeKind uint8

// Obstacle shapes.
const (
	Plane ShapeKind = iota
	Sphere
	Box
	Capsule
	Point // a nail tip (Center) with its outward axis (Normal)
	Mesh  // a triangle mesh (Mesh), turned about Center
)

// Shape is a rigid obstacle's shape: its data (Center, Normal, A, B,
// HalfExtents) in its initial pose, turned by R about its RotationCenter when
// Rotated; a current pose is that shape translated by an offset.
type Shape struct {
	Kind        ShapeKind
	Center      dense.Vec3 // sphere, box centre; a point of a plane; a nail tip
	Normal      dense.Vec3 // plane, nail axis: unit
	Radius      float64    // sphere, capsule
	HalfExtents dense.Vec3 // box, along its own axes (the columns of R when Rotated)
	A, B        dense.Vec3 // capsule segment
	// Mesh is a mesh obstacle's surface, in the frame of the initial pose
	// (before R and the offset); its vertices move when it deforms.
	Mesh *MeshSurface
	// Rotated turns the shape by the rotation matrix R about its
	// RotationCenter: world point = center + offset + R (local - center).
	// False: axis aligned, R is ignored (and the unrotated code paths run,
	// bit for bit as before rotations existed).
	Rotated bool
	R       dense.Mat3
}

// RotationCenter returns the point the shape turns about: the centre of a
// sphere or box, a plane's point, a nail's tip, a capsule's midpoint, a
// mesh's Center.
func (s *Shape) RotationCenter() dense.Vec3 {
	if s.Kind == Capsule {
		return s.A.Add(s.B).Scale(0.5)
	}
	return s.Center
}

// PointVelocity returns the velocity of the rigid body point at p of an
// obstacle whose RotationCenter c moves at vel and which turns at omega
// (rad/s, world frame): vel + omega x (p - c). A zero omega returns vel
// exactly.
func PointVelocity(vel, omega, c, p dense.Vec3) dense.Vec3 {
	if omega == (dense.Vec3{}) {
		return vel
	}
	return vel.Add(omega.Cross(p.Sub(c)))
}

// SignedDistance returns the signed distance from p to the surface of shape s
// translated by offset (negative inside) and the unit outward normal of the
// nearest surface point. For a box seen from outside an edge or corner the
// normal points from the nearest surface point to p: the averaged normal of a
// Lagrangian simulator (Weidner 2018 sec. 5.1, Fig. 3b).
//
// A Rotated shape is measured in its own frame: p is taken back by R^T about
// the (offset) rotation centre, and the normal is turned forward by R.
func SignedDistance(s *Shape, offset, p dense.Vec3) (float64, dense.Vec3) {
	d, n, _ := SignedDistanceVel(s, offset, p)
	return d, n
}

// SignedDistanceVel is SignedDistance that also returns the velocity of
// the nearest surface point due to the shape's own deformation (world
// frame, on top of its rigid motion): a deforming mesh's vertex velocities
// interpolated there, zero for every other shape.
func SignedDistanceVel(s *Shape, offset, p dense.Vec3) (float64, dense.Vec3, dense.Vec3) {
	if s.Rotated {
		c := s.RotationCenter()
		local := *s
		local.Rotated = false
		d, n, u := SignedDistanceVel(&local, dense.Vec3{}, c.Add(s.R.T().MulVec(p.Sub(c.Add(offset)))))
		return d, s.R.MulVec(n), s.R.MulVec(u)
	}
	if s.Kind == Mesh {
		q := s.Mesh.Closest(p.Sub(offset))
		return q.Distance, q.Normal, q.Vel
	}
	d, n := analyticDistance(s, offset, p)
	return d, n, dense.Vec3{}
}

// analyticDistance is SignedDistance for the unrotated analytic shapes.
func analyticDistance(s *Shape, offset, p dense.Vec3) (float64, dense.Vec3) {
	switch s.Kind {
	case Plane:
		c := s.Center.Add(offset)
		return p.Sub(c).Dot(s.Normal), s.Normal
	case Sphere:
		return roundDistance(p, s.Center.Add(offset), s.Radius)
	case Point:
		return roundDistance(p, s.Center.Add(offset), 0)
	case Capsule:
		a, b := s.A.Add(offset), s.B.Add(offset)
		ab := b.Sub(a)
		t := p.Sub(a).Dot(ab) / ab.Dot(ab)
		t = math.Max(0, math.Min(1, t))
		return roundDistance(p, a.Add(ab.Scale(t)), s.Radius)
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
