package eol

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// SingularTol is the threshold on sin of the corner angle of the material triangle
// below which D_X counts as singular: |det D_X| <= SingularTol |X_b - X_a| |X_c - X_a|.
// A relative test, so that it does not depend on the units of the material space.
const SingularTol = 1e-12

// materialEdges returns D_X = (X_b - X_a, X_c - X_a) (Weidner 2018 eq. 3) and whether it
// is invertible in the sense of SingularTol.
func materialEdges(X [3]dense.Vec2) (dense.Mat2, bool) {
	e1, e2 := X[1].Sub(X[0]), X[2].Sub(X[0])
	DX := dense.Mat2{{e1[0], e2[0]}, {e1[1], e2[1]}}
	n1 := math.Hypot(e1[0], e1[1])
	n2 := math.Hypot(e2[0], e2[1])
	d := DX.Det()
	ok := math.Abs(d) > SingularTol*n1*n2 && !math.IsInf(d, 0) && !math.IsNaN(d)
	return DX, ok
}

// FaceF returns the deformation gradient F = D_x D_X^{-1} of a triangle with world
// positions x and material (Eulerian) coordinates X (Weidner 2018 eq. 3), with
// D_x = (x_b - x_a, x_c - x_a) and D_X = (X_b - X_a, X_c - X_a). It returns false, and a
// zero F, when D_X is singular (see SingularTol).
func FaceF(x [3]dense.Vec3, X [3]dense.Vec2) (dense.Mat32, bool) {
	DX, ok := materialEdges(X)
	if !ok {
		return dense.Mat32{}, false
	}
	inv, ok := DX.Inverse()
	if !ok {
		return dense.Mat32{}, false
	}
	e1, e2 := x[1].Sub(x[0]), x[2].Sub(x[0])
	Dx := dense.Mat32{{e1[0], e2[0]}, {e1[1], e2[1]}, {e1[2], e2[2]}}
	return Dx.MulMat2(inv), true
}

// Barycentric returns the barycentric coordinates (alpha, beta, gamma) of the material
// point p in the material triangle X: (beta, gamma) = D_X^{-1} (p - X_a) and
// alpha = 1 - beta - gamma (Weidner 2018 eq. A.3). It returns false when D_X is singular.
func Barycentric(X [3]dense.Vec2, p dense.Vec2) ([3]float64, bool) {
	DX, ok := materialEdges(X)
	if !ok {
		return [3]float64{}, false
	}
	inv, ok := DX.Inverse()
	if !ok {
		return [3]float64{}, false
	}
	bg := inv.MulVec(p.Sub(X[0]))
	return [3]float64{1 - bg[0] - bg[1], bg[0], bg[1]}, true
}

// WorldVelocity returns the world velocity of the material point with barycentric
// coordinates bary in a triangle with Lagrangian velocities xd, Eulerian velocities Xd
// and deformation gradient F (Weidner 2018 eq. 2, derived in eqs. A.5-A.7):
//
//	xdot = sum_k bary_k xd_k - F sum_k bary_k Xd_k.
//
// The minus sign: moving a node's material coordinate moves the material the other way,
// as moving a texture coordinate moves the texture the other way.
func WorldVelocity(bary [3]float64, xd [3]dense.Vec3, Xd [3]dense.Vec2, F dense.Mat32) dense.Vec3 {
	var l dense.Vec3
	var e dense.Vec2
	for k := 0; k < 3; k++ {
		l = l.Add(xd[k].Scale(bary[k]))
		e[0] += bary[k] * Xd[k][0]
		e[1] += bary[k] * Xd[k][1]
	}
	return l.Sub(F.MulVec(e))
}

// LiftOffVelocity returns the world velocity xd - F Xd of the material at an EOL node
// (Weidner 2018 eq. 2 at a node, J = (I, -F) of eq. 4): the Lagrangian velocity a vertex
// keeps when it lifts off a feature and becomes purely Lagrangian (sec. 6.2, last
// paragraph).
func LiftOffVelocity(xd dense.Vec3, Xd dense.Vec2, F dense.Mat32) dense.Vec3 {
	return xd.Sub(F.MulVec(Xd))
}
