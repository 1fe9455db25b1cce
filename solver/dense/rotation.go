package dense

import "math"

// Quat is a unit quaternion w + x i + y j + z k, stored {w, x, y, z}.
type Quat [4]float64

// Identity3 is the 3x3 identity.
var Identity3 = Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

// QuatFromMat returns the unit quaternion of rotation matrix R (Shepperd's
// method: the largest of the four squared components is taken first, so the
// result is accurate for every rotation), with w >= 0.
func QuatFromMat(R Mat3) Quat {
	tr := R[0][0] + R[1][1] + R[2][2]
	var q Quat
	switch {
	case tr >= R[0][0] && tr >= R[1][1] && tr >= R[2][2]:
		s := 2 * math.Sqrt(1+tr)
		q = Quat{s / 4, (R[2][1] - R[1][2]) / s, (R[0][2] - R[2][0]) / s, (R[1][0] - R[0][1]) / s}
	case R[0][0] >= R[1][1] && R[0][0] >= R[2][2]:
		s := 2 * math.Sqrt(1+R[0][0]-R[1][1]-R[2][2])
		q = Quat{(R[2][1] - R[1][2]) / s, s / 4, (R[0][1] + R[1][0]) / s, (R[0][2] + R[2][0]) / s}
	case R[1][1] >= R[2][2]:
		s := 2 * math.Sqrt(1+R[1][1]-R[0][0]-R[2][2])
		q = Quat{(R[0][2] - R[2][0]) / s, (R[0][1] + R[1][0]) / s, s / 4, (R[1][2] + R[2][1]) / s}
	default:
		s := 2 * math.Sqrt(1+R[2][2]-R[0][0]-R[1][1])
		q = Quat{(R[1][0] - R[0][1]) / s, (R[0][2] + R[2][0]) / s, (R[1][2] + R[2][1]) / s, s / 4}
	}
	if q[0] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	return q.Normalize()
}

// Normalize returns q / |q|.
func (q Quat) Normalize() Quat {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return Quat{q[0] / n, q[1] / n, q[2] / n, q[3] / n}
}

// Mul returns the Hamilton product q*p (rotation p, then q).
func (q Quat) Mul(p Quat) Quat {
	return Quat{
		q[0]*p[0] - q[1]*p[1] - q[2]*p[2] - q[3]*p[3],
		q[0]*p[1] + q[1]*p[0] + q[2]*p[3] - q[3]*p[2],
		q[0]*p[2] - q[1]*p[3] + q[2]*p[0] + q[3]*p[1],
		q[0]*p[3] + q[1]*p[2] - q[2]*p[1] + q[3]*p[0],
	}
}

// Conj returns the conjugate (the inverse of a unit quaternion).
func (q Quat) Conj() Quat { return Quat{q[0], -q[1], -q[2], -q[3]} }

// Mat returns the rotation matrix of unit quaternion q.
func (q Quat) Mat() Mat3 {
	w, x, y, z := q[0], q[1], q[2], q[3]
	return Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// Log returns the rotation vector (axis times angle in [0, pi], rad) of unit
// quaternion q.
func (q Quat) Log() Vec3 {
	if q[0] < 0 {
		q = Quat{-q[0], -q[1], -q[2], -q[3]}
	}
	v := Vec3{q[1], q[2], q[3]}
	s := v.Norm()
	if s < 1e-300 {
		return v.Scale(2)
	}
	return v.Scale(2 * math.Atan2(s, q[0]) / s)
}

// QuatExp returns the unit quaternion of rotation vector r (axis times angle).
func QuatExp(r Vec3) Quat {
	a := r.Norm()
	if a == 0 {
		return Quat{1, 0, 0, 0}
	}
	s, c := math.Sincos(a / 2)
	return Quat{c, s * r[0] / a, s * r[1] / a, s * r[2] / a}
}

// Slerp returns the spherical linear interpolation from a (w = 0) to b (w =
// 1) along the shorter arc: a * exp(w log(a^-1 b)), turning at a constant
// rate about a fixed axis.
func Slerp(a, b Quat, w float64) Quat {
	if a[0]*b[0]+a[1]*b[1]+a[2]*b[2]+a[3]*b[3] < 0 {
		b = Quat{-b[0], -b[1], -b[2], -b[3]}
	}
	return a.Mul(QuatExp(a.Conj().Mul(b).Log().Scale(w))).Normalize()
}

// RotationLog returns the rotation vector (axis times angle, rad) of
// rotation matrix R.
func RotationLog(R Mat3) Vec3 { return QuatFromMat(R).Log() }
