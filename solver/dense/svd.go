package dense

import "math"

// SVD32 computes the thin singular value decomposition F = U diag(S) V^T of a 3x2
// matrix in closed form, with S[0] >= S[1] >= 0, U a 3x2 matrix with orthonormal
// columns and V a 2x2 rotation (det V = +1).
//
// Method: the symmetric 2x2 Gram matrix F^T F = [[a b][b d]] is eigen-decomposed in
// closed form (lambda_1 = (a+d)/2 + sqrt(((a-d)/2)^2 + b^2), eigenvector taken from
// whichever of the two equivalent formulas is better conditioned); S[0] =
// sqrt(lambda_1) and S[1] = |f_0 x f_1| / S[0] (the columns' cross product gives
// S[0]*S[1] without the cancellation of sqrt(lambda_2)). U's first column is F v_1
// scaled by 1/S[0]; its second is F v_2 orthogonalised against the first, or, when F is
// rank-deficient (that residual below 1e-15*S[0]), any unit vector orthogonal to the first
// (see Perp). F = 0 gives U = [e_x e_y], V = I, S = 0. No allocations.
func SVD32(F Mat32) (U Mat32, S [2]float64, V Mat2) {
	// On scalars (the Go compiler keeps Vec3 values in memory): columns
	// c0 = (f00, f10, f20) and c1 = (f01, f11, f21), each operation as
	// the vector form wrote it (TestSVD32Bitwise).
	f00, f01 := F[0][0], F[0][1]
	f10, f11 := F[1][0], F[1][1]
	f20, f21 := F[2][0], F[2][1]
	a := f00*f00 + f10*f10 + f20*f20
	b := f00*f01 + f10*f11 + f20*f21
	d := f01*f01 + f11*f11 + f21*f21
	half := 0.5 * (a - d)
	h := math.Sqrt(half*half + b*b)
	l1 := 0.5*(a+d) + h
	// Eigenvector of lambda_1: (lambda_1 - d, b) or (b, lambda_1 - a).
	var vx, vy float64
	if half >= 0 {
		vx, vy = half+h, b
	} else {
		vx, vy = b, h-half
	}
	if nv2 := vx*vx + vy*vy; nv2 > 0 {
		inv := 1 / math.Sqrt(nv2)
		vx, vy = vx*inv, vy*inv
	} else {
		vx, vy = 1, 0
	}
	V = Mat2{{vx, -vy}, {vy, vx}}
	if !(l1 > 0) {
		if math.IsNaN(l1) {
			nan := math.NaN()
			return Mat32{{nan, nan}, {nan, nan}, {nan, nan}}, [2]float64{nan, nan}, Mat2{{nan, nan}, {nan, nan}}
		}
		return Mat32{{1, 0}, {0, 1}, {0, 0}}, [2]float64{}, Mat2{{1, 0}, {0, 1}}
	}
	s0 := math.Sqrt(l1)
	inv0 := 1 / s0
	// c0 x c1
	cr0, cr1, cr2 := f10*f21-f20*f11, f20*f01-f00*f21, f00*f11-f10*f01
	s1 := math.Sqrt(cr0*cr0+cr1*cr1+cr2*cr2) * inv0
	if s1 > s0 {
		s1 = s0
	}
	u0, u1, u2 := (f00*vx+f01*vy)*inv0, (f10*vx+f11*vy)*inv0, (f20*vx+f21*vy)*inv0
	// w = F v_2, v_2 = (-vy, vx), orthogonalised against u.
	w0, w1, w2 := f01*vx-f00*vy, f11*vx-f10*vy, f21*vx-f20*vy
	t := w0*u0 + w1*u1 + w2*u2
	w0, w1, w2 = w0-t*u0, w1-t*u1, w2-t*u2
	wn2 := w0*w0 + w1*w1 + w2*w2
	if wn2 < 1e-4*l1 {
		// Nearly rank-deficient: w is mostly rounding, so a second Gram-Schmidt
		// pass is needed to keep it orthogonal to u.
		t = w0*u0 + w1*u1 + w2*u2
		w0, w1, w2 = w0-t*u0, w1-t*u1, w2-t*u2
		wn2 = w0*w0 + w1*w1 + w2*w2
	}
	var p Vec3
	if wn2 > 1e-30*l1 {
		inv := 1 / math.Sqrt(wn2)
		p = Vec3{inv * w0, inv * w1, inv * w2}
	} else {
		p = Perp(Vec3{u0, u1, u2})
	}
	U = Mat32{{u0, p[0]}, {u1, p[1]}, {u2, p[2]}}
	return U, [2]float64{s0, s1}, V
}

// Polar32 computes the polar decomposition F = R S of a 3x2 matrix: R = U V^T has
// orthonormal columns and S = V diag(sigma) V^T = (F^T F)^{1/2} is symmetric
// positive semidefinite (U, sigma, V from SVD32). For rank-deficient F, R is one
// valid choice (U's completed column).
func Polar32(F Mat32) (R Mat32, S Mat2) {
	U, s, V := SVD32(F)
	for i := 0; i < 3; i++ {
		R[i][0] = U[i][0]*V[0][0] + U[i][1]*V[0][1]
		R[i][1] = U[i][0]*V[1][0] + U[i][1]*V[1][1]
	}
	S[0][0] = s[0]*V[0][0]*V[0][0] + s[1]*V[0][1]*V[0][1]
	S[0][1] = s[0]*V[0][0]*V[1][0] + s[1]*V[0][1]*V[1][1]
	S[1][0] = S[0][1]
	S[1][1] = s[0]*V[1][0]*V[1][0] + s[1]*V[1][1]*V[1][1]
	return R, S
}
