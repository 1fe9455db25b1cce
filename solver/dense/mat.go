package dense

import "math"

// Col returns column j of m.
func (m Mat32) Col(j int) Vec3 { return Vec3{m[0][j], m[1][j], m[2][j]} }

// Add returns m+b.
func (m Mat32) Add(b Mat32) Mat32 {
	return Mat32{{m[0][0] + b[0][0], m[0][1] + b[0][1]}, {m[1][0] + b[1][0], m[1][1] + b[1][1]}, {m[2][0] + b[2][0], m[2][1] + b[2][1]}}
}

// Sub returns m-b.
func (m Mat32) Sub(b Mat32) Mat32 {
	return Mat32{{m[0][0] - b[0][0], m[0][1] - b[0][1]}, {m[1][0] - b[1][0], m[1][1] - b[1][1]}, {m[2][0] - b[2][0], m[2][1] - b[2][1]}}
}

// Scale returns s*m.
func (m Mat32) Scale(s float64) Mat32 {
	return Mat32{{s * m[0][0], s * m[0][1]}, {s * m[1][0], s * m[1][1]}, {s * m[2][0], s * m[2][1]}}
}

// MulMat2 returns the 3x2 product m*b.
func (m Mat32) MulMat2(b Mat2) Mat32 {
	var r Mat32
	for i := 0; i < 3; i++ {
		r[i][0] = m[i][0]*b[0][0] + m[i][1]*b[1][0]
		r[i][1] = m[i][0]*b[0][1] + m[i][1]*b[1][1]
	}
	return r
}

// TMul returns the 2x2 product m^T*b.
func (m Mat32) TMul(b Mat32) Mat2 {
	var r Mat2
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			r[i][j] = m[0][i]*b[0][j] + m[1][i]*b[1][j] + m[2][i]*b[2][j]
		}
	}
	return r
}

// MulVec returns m*v.
func (m Mat32) MulVec(v Vec2) Vec3 {
	return Vec3{m[0][0]*v[0] + m[0][1]*v[1], m[1][0]*v[0] + m[1][1]*v[1], m[2][0]*v[0] + m[2][1]*v[1]}
}

// FrobDot returns the Frobenius inner product m:b = tr(m^T b).
func (m Mat32) FrobDot(b Mat32) float64 {
	return m[0][0]*b[0][0] + m[0][1]*b[0][1] + m[1][0]*b[1][0] + m[1][1]*b[1][1] + m[2][0]*b[2][0] + m[2][1]*b[2][1]
}

// Outer32 returns the 3x2 outer product u v^T.
func Outer32(u Vec3, v Vec2) Mat32 {
	return Mat32{{u[0] * v[0], u[0] * v[1]}, {u[1] * v[0], u[1] * v[1]}, {u[2] * v[0], u[2] * v[1]}}
}

// Mul returns m*b.
func (m Mat2) Mul(b Mat2) Mat2 {
	return Mat2{
		{m[0][0]*b[0][0] + m[0][1]*b[1][0], m[0][0]*b[0][1] + m[0][1]*b[1][1]},
		{m[1][0]*b[0][0] + m[1][1]*b[1][0], m[1][0]*b[0][1] + m[1][1]*b[1][1]},
	}
}

// T returns m^T.
func (m Mat2) T() Mat2 { return Mat2{{m[0][0], m[1][0]}, {m[0][1], m[1][1]}} }

// Trace returns tr(m).
func (m Mat2) Trace() float64 { return m[0][0] + m[1][1] }

// MulVec returns m*v.
func (m Mat2) MulVec(v Vec2) Vec2 {
	return Vec2{m[0][0]*v[0] + m[0][1]*v[1], m[1][0]*v[0] + m[1][1]*v[1]}
}

// Mul returns m*b.
func (m Mat3) Mul(b Mat3) Mat3 {
	var r Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[i][j] = m[i][0]*b[0][j] + m[i][1]*b[1][j] + m[i][2]*b[2][j]
		}
	}
	return r
}

// T returns m^T.
func (m Mat3) T() Mat3 {
	return Mat3{{m[0][0], m[1][0], m[2][0]}, {m[0][1], m[1][1], m[2][1]}, {m[0][2], m[1][2], m[2][2]}}
}

// MulVec returns m*v.
func (m Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0][0]*v[0] + m[0][1]*v[1] + m[0][2]*v[2],
		m[1][0]*v[0] + m[1][1]*v[1] + m[1][2]*v[2],
		m[2][0]*v[0] + m[2][1]*v[1] + m[2][2]*v[2],
	}
}

// Skew returns the cross-product matrix [v]x, so that Skew(v).MulVec(w) == v.Cross(w).
func Skew(v Vec3) Mat3 {
	return Mat3{{0, -v[2], v[1]}, {v[2], 0, -v[0]}, {-v[1], v[0], 0}}
}

// Perp returns a unit vector orthogonal to the unit vector u, chosen stably by
// crossing u with the coordinate axis along which u has the smallest component.
func Perp(u Vec3) Vec3 {
	ax, ay, az := math.Abs(u[0]), math.Abs(u[1]), math.Abs(u[2])
	var p Vec3
	switch {
	case ax <= ay && ax <= az:
		p = Vec3{0, u[2], -u[1]} // u x e_x
	case ay <= az:
		p = Vec3{-u[2], 0, u[0]} // u x e_y
	default:
		p = Vec3{u[1], -u[0], 0} // u x e_z
	}
	return p.Scale(1 / p.Norm())
}
