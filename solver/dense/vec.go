// Package dense holds small fixed-size linear-algebra kernels used per element:
// 3-vectors, 2x2, 3x2 and 3x3 matrices, the closed-form 3x2 SVD and polar
// decomposition, and projection of small symmetric matrices onto the PSD cone.
// They are hand-written because gonum's general routines cost tens of times more
// on matrices this small; the tests check them against gonum mat.
package dense

import "math"

// Vec3 is a vector in R3.
type Vec3 [3]float64

// Vec2 is a vector in R2 (material space).
type Vec2 [2]float64

// Mat2 is a 2x2 matrix, row-major: M[row][col].
type Mat2 [2][2]float64

// Mat3 is a 3x3 matrix, row-major.
type Mat3 [3][3]float64

// Mat32 is a 3x2 matrix, row-major (a deformation gradient F of a triangle).
type Mat32 [3][2]float64

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }

// Scale returns s*a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{s * a[0], s * a[1], s * a[2]} }

// Dot returns a.b.
func (a Vec3) Dot(b Vec3) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// Cross returns a x b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.Dot(a)) }

// Sub returns a-b.
func (a Vec2) Sub(b Vec2) Vec2 { return Vec2{a[0] - b[0], a[1] - b[1]} }

// Det returns det(m).
func (m Mat2) Det() float64 { return m[0][0]*m[1][1] - m[0][1]*m[1][0] }

// Inverse returns m^-1 and false when m is singular (|det| below tiny).
func (m Mat2) Inverse() (Mat2, bool) {
	d := m.Det()
	if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		return Mat2{}, false
	}
	return Mat2{{m[1][1] / d, -m[0][1] / d}, {-m[1][0] / d, m[0][0] / d}}, true
}

// SegmentDistance2 returns the distance from p to the segment a-b in the
// plane (to a when a == b).
func SegmentDistance2(p, a, b Vec2) float64 {
	d := b.Sub(a)
	s := 0.0
	if l := d[0]*d[0] + d[1]*d[1]; l > 0 {
		s = math.Max(0, math.Min(1, ((p[0]-a[0])*d[0]+(p[1]-a[1])*d[1])/l))
	}
	return math.Hypot(p[0]-a[0]-s*d[0], p[1]-a[1]-s*d[1])
}

// Tangents returns two unit vectors that make a right-handed frame with the
// unit vector n (t1 x t2 = n).
func Tangents(n Vec3) (Vec3, Vec3) {
	a := Vec3{1, 0, 0}
	if math.Abs(n[0]) > 0.9 {
		a = Vec3{0, 1, 0}
	}
	t1 := a.Sub(n.Scale(a.Dot(n)))
	t1 = t1.Scale(1 / t1.Norm())
	return t1, n.Cross(t1)
}
