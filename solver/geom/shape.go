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
	if s.Kind != Mesh {
		d, n0, n1, n2, u0, u1, u2 := analyticDistance(s, offset[0], offset[1], offset[2], p[0], p[1], p[2])
		return d, dense.Vec3{n0, n1, n2}, dense.Vec3{u0, u1, u2}
	}
	if s.Rotated {
		c := s.RotationCenter()
		local := *s
		local.Rotated = false
		d, n, u := SignedDistanceVel(&local, dense.Vec3{}, c.Add(s.R.T().MulVec(p.Sub(c.Add(offset)))))
		return d, s.R.MulVec(n), s.R.MulVec(u)
	}
	q := s.Mesh.Closest(p.Sub(offset))
	return q.Distance, q.Normal, q.Vel
}

// analyticDistance is SignedDistanceVel for the analytic shapes (all but
// Mesh), on scalars: the Go compiler keeps dense.Vec3 values in memory, and
// this is the inner loop of the contact detection (about 5 times faster).
// A Rotated shape is measured in its own frame, as SignedDistance says,
// with a zero offset there; its normal and zero deformation velocity are
// turned forward by R. The operations and their order are those of the
// vector form (TestAnalyticDistanceBitwise), so results are bit for bit
// those of the rotated-frame recursion the mesh case takes.
func analyticDistance(s *Shape, ox, oy, oz, px, py, pz float64) (d, n0, n1, n2, u0, u1, u2 float64) {
	if !s.Rotated {
		d, n0, n1, n2 = unrotatedDistance(s, ox, oy, oz, px, py, pz)
		return d, n0, n1, n2, 0, 0, 0
	}
	c := s.RotationCenter()
	r := &s.R
	// local = c + R^T (p - (c + offset)), with the local offset zero.
	q0, q1, q2 := px-(c[0]+ox), py-(c[1]+oy), pz-(c[2]+oz)
	l0 := c[0] + (r[0][0]*q0 + r[1][0]*q1 + r[2][0]*q2)
	l1 := c[1] + (r[0][1]*q0 + r[1][1]*q1 + r[2][1]*q2)
	l2 := c[2] + (r[0][2]*q0 + r[1][2]*q1 + r[2][2]*q2)
	d, m0, m1, m2 := unrotatedDistance(s, 0, 0, 0, l0, l1, l2)
	n0 = r[0][0]*m0 + r[0][1]*m1 + r[0][2]*m2
	n1 = r[1][0]*m0 + r[1][1]*m1 + r[1][2]*m2
	n2 = r[2][0]*m0 + r[2][1]*m1 + r[2][2]*m2
	// R times the zero vector, with its signed zeros.
	u0 = r[0][0]*0 + r[0][1]*0 + r[0][2]*0
	u1 = r[1][0]*0 + r[1][1]*0 + r[1][2]*0
	u2 = r[2][0]*0 + r[2][1]*0 + r[2][2]*0
	return d, n0, n1, n2, u0, u1, u2
}

// unrotatedDistance is SignedDistance for an analytic shape in its own
// frame (Rotated ignored), translated by (ox, oy, oz), at (px, py, pz).
func unrotatedDistance(s *Shape, ox, oy, oz, px, py, pz float64) (d, n0, n1, n2 float64) {
	switch s.Kind {
	case Plane:
		n := &s.Normal
		return (px-(s.Center[0]+ox))*n[0] + (py-(s.Center[1]+oy))*n[1] + (pz-(s.Center[2]+oz))*n[2], n[0], n[1], n[2]
	case Sphere:
		return roundDistance(px, py, pz, s.Center[0]+ox, s.Center[1]+oy, s.Center[2]+oz, s.Radius)
	case Point:
		return roundDistance(px, py, pz, s.Center[0]+ox, s.Center[1]+oy, s.Center[2]+oz, 0)
	case Capsule:
		a0, a1, a2 := s.A[0]+ox, s.A[1]+oy, s.A[2]+oz
		e0, e1, e2 := (s.B[0]+ox)-a0, (s.B[1]+oy)-a1, (s.B[2]+oz)-a2
		t := ((px-a0)*e0 + (py-a1)*e1 + (pz-a2)*e2) / (e0*e0 + e1*e1 + e2*e2)
		t = math.Max(0, math.Min(1, t))
		return roundDistance(px, py, pz, a0+t*e0, a1+t*e1, a2+t*e2, s.Radius)
	default: // Box
		h := &s.HalfExtents
		q0, q1, q2 := px-(s.Center[0]+ox), py-(s.Center[1]+oy), pz-(s.Center[2]+oz)
		e0, e1, e2 := math.Abs(q0)-h[0], math.Abs(q1)-h[1], math.Abs(q2)-h[2]
		if !(e0 > 0) && !(e1 > 0) && !(e2 > 0) {
			// Inside: the nearest face is that of the largest e (the
			// first of equal ones), its normal the axis towards q.
			axis, depth := 0, math.Inf(-1)
			if e0 > depth {
				axis, depth = 0, e0
			}
			if e1 > depth {
				axis, depth = 1, e1
			}
			if e2 > depth {
				axis, depth = 2, e2
			}
			switch axis {
			case 0:
				return depth, math.Copysign(1, q0), 0, 0
			case 1:
				return depth, 0, math.Copysign(1, q1), 0
			}
			return depth, 0, 0, math.Copysign(1, q2)
		}
		o0, o1, o2 := boxOut(e0, q0), boxOut(e1, q1), boxOut(e2, q2)
		d = math.Sqrt(o0*o0 + o1*o1 + o2*o2)
		inv := 1 / d
		return d, inv * o0, inv * o1, inv * o2
	}
}

// boxOut is the component of the vector from a box to an outside point
// along one axis: e (|q| less the half extent) with q's sign where
// positive, else zero.
func boxOut(e, q float64) float64 {
	if e > 0 {
		return math.Copysign(e, q)
	}
	return 0
}

// roundDistance is the distance from p to a ball of radius r about c,
// with the unit normal from c to p.
func roundDistance(px, py, pz, cx, cy, cz, r float64) (d, n0, n1, n2 float64) {
	d0, d1, d2 := px-cx, py-cy, pz-cz
	l := math.Sqrt(d0*d0 + d1*d1 + d2*d2)
	if l == 0 {
		return -r, 0, 0, 1
	}
	inv := 1 / l
	return l - r, inv * d0, inv * d1, inv * d2
}
