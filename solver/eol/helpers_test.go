package eol

import (
	"math"
	"math/rand"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

func randVec3(rng *rand.Rand) dense.Vec3 {
	return dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
}

func randVec2(rng *rand.Rand) dense.Vec2 {
	return dense.Vec2{rng.NormFloat64(), rng.NormFloat64()}
}

func randMat32(rng *rand.Rand) dense.Mat32 {
	var F dense.Mat32
	for i := range F {
		for j := range F[i] {
			F[i][j] = rng.NormFloat64()
		}
	}
	return F
}

// randTriangle returns a random world triangle and a random material triangle whose
// smallest angle is at least about 15 degrees, so F is well conditioned.
func randTriangle(rng *rand.Rand) ([3]dense.Vec3, [3]dense.Vec2) {
	for {
		var x [3]dense.Vec3
		var X [3]dense.Vec2
		for k := 0; k < 3; k++ {
			x[k] = randVec3(rng)
			X[k] = randVec2(rng)
		}
		if minAngle2(X) > 0.25 && minAngle3(x) > 0.25 {
			return x, X
		}
	}
}

func minAngle2(X [3]dense.Vec2) float64 {
	var x [3]dense.Vec3
	for k := range X {
		x[k] = dense.Vec3{X[k][0], X[k][1], 0}
	}
	return minAngle3(x)
}

func minAngle3(x [3]dense.Vec3) float64 {
	m := math.Pi
	for k := 0; k < 3; k++ {
		a := x[(k+1)%3].Sub(x[k])
		b := x[(k+2)%3].Sub(x[k])
		m = math.Min(m, math.Atan2(a.Cross(b).Norm(), a.Dot(b)))
	}
	return m
}

func randRot(rng *rand.Rand) dense.Mat3 {
	q := [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	w, x, y, z := q[0]/n, q[1]/n, q[2]/n, q[3]/n
	return dense.Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

// axisAngle returns the rotation by angle t about the unit axis a, built from the
// quaternion (cos t/2, sin t/2 a), independently of SO3Exp.
func axisAngle(a dense.Vec3, t float64) dense.Mat3 {
	a = a.Scale(1 / a.Norm())
	w := math.Cos(t / 2)
	s := math.Sin(t / 2)
	x, y, z := s*a[0], s*a[1], s*a[2]
	return dense.Mat3{
		{1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y)},
		{2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x)},
		{2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y)},
	}
}

func toDense32(F dense.Mat32) *mat.Dense {
	return mat.NewDense(3, 2, []float64{F[0][0], F[0][1], F[1][0], F[1][1], F[2][0], F[2][1]})
}

func mat3MulMat32(R dense.Mat3, F dense.Mat32) dense.Mat32 {
	var r dense.Mat32
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			r[i][j] = R[i][0]*F[0][j] + R[i][1]*F[1][j] + R[i][2]*F[2][j]
		}
	}
	return r
}

func frob32(F dense.Mat32) float64 { return math.Sqrt(F.FrobDot(F)) }

func frob3(R dense.Mat3) float64 {
	s := 0.0
	for i := range R {
		for j := range R[i] {
			s += R[i][j] * R[i][j]
		}
	}
	return math.Sqrt(s)
}

func sub3(a, b dense.Mat3) dense.Mat3 {
	var r dense.Mat3
	for i := range a {
		for j := range a[i] {
			r[i][j] = a[i][j] - b[i][j]
		}
	}
	return r
}

// nodeJ returns the 3x5 Jacobian J = (I, -F) of the world velocity at a node
// (Weidner 2018 eq. 4 at a vertex) as a gonum matrix.
func nodeJ(F dense.Mat32) *mat.Dense {
	J := mat.NewDense(3, 5, nil)
	for i := 0; i < 3; i++ {
		J.Set(i, i, 1)
		J.Set(i, 3, -F[i][0])
		J.Set(i, 4, -F[i][1])
	}
	return J
}
