package eol

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// smallAngle is the rotation angle below which SO3Exp and SO3Log use Taylor series of
// sin(t)/t and (1 - cos t)/t^2: at 1e-4 the dropped t^4 terms are below 1e-17.
const smallAngle = 1e-4

// SO3Exp returns the rotation exp([w]x) by the angle |w| about w/|w| (Rodrigues'
// formula, R = I + a [w]x + b [w]x^2 with a = sin t / t, b = (1 - cos t)/t^2); used for
// the averaged rotation of the vertex deformation gradient (Weidner errata eq. 6).
// b is computed as 2 sin^2(t/2)/t^2 to avoid the cancellation in 1 - cos t.
func SO3Exp(w dense.Vec3) dense.Mat3 {
	t2 := w.Dot(w)
	t := math.Sqrt(t2)
	var a, b float64
	if t < smallAngle {
		a = 1 - t2/6
		b = 0.5 - t2/24
	} else {
		a = math.Sin(t) / t
		h := math.Sin(t / 2)
		b = 2 * h * h / t2
	}
	K := dense.Skew(w)
	K2 := K.Mul(K)
	R := dense.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			R[i][j] += a*K[i][j] + b*K2[i][j]
		}
	}
	return R
}

// SO3Log returns the rotation vector w (|w| in [0, pi]) with SO3Exp(w) = R, for R a
// rotation matrix (Weidner errata eq. 6). The angle is atan2(sin t, cos t) from the
// skew part (2 sin t times the axis) and the trace (1 + 2 cos t), which is accurate at
// every angle, unlike acos of the trace near 0 and pi. Near pi the skew part vanishes,
// so the axis is taken instead from the symmetric part, (R + R^T)/2 - cos t I =
// (1 - cos t) a a^T, using its largest column, with the sign chosen to agree with the
// skew part (at exactly pi both signs are valid).
func SO3Log(R dense.Mat3) dense.Vec3 {
	v := dense.Vec3{R[2][1] - R[1][2], R[0][2] - R[2][0], R[1][0] - R[0][1]} // 2 sin t a
	s := 0.5 * v.Norm()
	c := 0.5 * (R[0][0] + R[1][1] + R[2][2] - 1)
	t := math.Atan2(s, c)
	if t < smallAngle {
		// t / (2 sin t) = 1/2 (1 + t^2/6 + ...).
		return v.Scale(0.5 * (1 + t*t/6))
	}
	if c > -0.5 {
		// t <= 2pi/3: sin t >= 0.86, the skew part gives the axis accurately.
		return v.Scale(t / (2 * s))
	}
	// Symmetric part: S = (R + R^T)/2 - c I = (1 - c) a a^T.
	var S dense.Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			S[i][j] = 0.5 * (R[i][j] + R[j][i])
		}
		S[i][i] -= c
	}
	k := 0
	for i := 1; i < 3; i++ {
		if S[i][i] > S[k][k] {
			k = i
		}
	}
	a := dense.Vec3{S[0][k], S[1][k], S[2][k]}
	n := a.Norm()
	if !(n > 0) {
		return dense.Vec3{}
	}
	a = a.Scale(1 / n)
	if a.Dot(v) < 0 {
		a = a.Scale(-1)
	}
	return a.Scale(t)
}

// RotationStretch splits a face deformation gradient F = Q(:, 1:2) P into a rotation Q
// (3x3, det +1) and a symmetric stretch P = V S V^T (2x2), from the SVD F = U S V^T
// (Weidner errata eqs. 1-4). The errata writes Q = U Vbar^T with Vbar the 3x2 matrix V
// plus a zero row; that product is 3x3 times 2x3 and does not type-check. The intended
// Q is the rotation factor of the polar decomposition of the 3x2 F, U(:, 1:2) V^T (two
// orthonormal columns), completed to a rotation by the cross product of its columns as
// the errata says. For rank-deficient F the completion follows dense.SVD32's choice of U.
func RotationStretch(F dense.Mat32) (Q dense.Mat3, P dense.Mat2) {
	R, P := dense.Polar32(F)
	c0, c1 := R.Col(0), R.Col(1)
	c2 := c0.Cross(c1)
	for i := 0; i < 3; i++ {
		Q[i] = [3]float64{c0[i], c1[i], c2[i]}
	}
	return Q, P
}

// VertexF returns the deformation gradient at a vertex from the gradients F of its
// incident faces and their weights w (the incident angles; normalized to sum 1 here),
// averaging rotation and stretch separately (Weidner errata sec. 1, eqs. 5-8): with
// F_k = Q_k(:, 1:2) P_k (RotationStretch),
//
//	P = sum_k w_k P_k,   Q = Q_r exp(sum_k w_k log(Q_r^T Q_k)),   F = Q(:, 1:2) P.
//
// A plain average of the F_k (sec. 4.2 of the paper) shrinks F where the faces are
// folded against each other; this one keeps the stretch. The errata writes
// Q = exp(sum_k w_k log Q_k), which is the case Q_r = I: averaging about the identity
// is not frame-indifferent (rotating the whole cloth would change the averaged
// deformation beyond the rotation) and breaks down when a face rotation nears angle pi,
// where log jumps. Here the logarithms are taken relative to Q_r, the rotation of the
// face with the largest weight (the first one on ties), so VertexF(R F_k) = R VertexF(F_k)
// for any rotation R, and the result equals the errata's whenever Q_r = I. The relative
// rotations must be below pi for the average to be meaningful, which holds for faces
// around one vertex of a mesh that does not fold back on itself.
//
// It returns false when F is empty, len(w) != len(F), or the weights do not have a
// positive sum. No allocations.
func VertexF(F []dense.Mat32, w []float64) (dense.Mat32, bool) {
	if len(F) == 0 || len(w) != len(F) {
		return dense.Mat32{}, false
	}
	sum := 0.0
	ref := 0
	for k, wk := range w {
		sum += wk
		if wk > w[ref] {
			ref = k
		}
	}
	if !(sum > 0) || math.IsInf(sum, 0) {
		return dense.Mat32{}, false
	}
	Qr, _ := RotationStretch(F[ref])
	QrT := Qr.T()
	var logQ dense.Vec3
	var P dense.Mat2
	for k, Fk := range F {
		wk := w[k] / sum
		Qk, Pk := RotationStretch(Fk)
		logQ = logQ.Add(SO3Log(QrT.Mul(Qk)).Scale(wk))
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				P[i][j] += wk * Pk[i][j]
			}
		}
	}
	Q := Qr.Mul(SO3Exp(logQ))
	Qbar := dense.Mat32{{Q[0][0], Q[0][1]}, {Q[1][0], Q[1][1]}, {Q[2][0], Q[2][1]}}
	return Qbar.MulMat2(P), true
}
