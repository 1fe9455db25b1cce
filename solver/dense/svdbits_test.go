package dense

import (
	"math"
	"math/rand"
	"testing"
)

// vectorSVD32 is SVD32 as loom wrote it on Vec3 values, before the scalar
// form: the reference TestSVD32Bitwise holds SVD32 to.
func vectorSVD32(F Mat32) (U Mat32, S [2]float64, V Mat2) {
	c0 := Vec3{F[0][0], F[1][0], F[2][0]}
	c1 := Vec3{F[0][1], F[1][1], F[2][1]}
	a, b, d := c0.Dot(c0), c0.Dot(c1), c1.Dot(c1)
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
	cr := c0.Cross(c1)
	s1 := math.Sqrt(cr.Dot(cr)) * inv0
	if s1 > s0 {
		s1 = s0
	}
	u0 := Vec3{(c0[0]*vx + c1[0]*vy) * inv0, (c0[1]*vx + c1[1]*vy) * inv0, (c0[2]*vx + c1[2]*vy) * inv0}
	w := Vec3{c1[0]*vx - c0[0]*vy, c1[1]*vx - c0[1]*vy, c1[2]*vx - c0[2]*vy} // F v_2, v_2 = (-vy, vx)
	w = w.Sub(u0.Scale(w.Dot(u0)))
	wn2 := w.Dot(w)
	if wn2 < 1e-4*l1 {
		// Nearly rank-deficient: w is mostly rounding, so a second Gram-Schmidt
		// pass is needed to keep it orthogonal to u0.
		w = w.Sub(u0.Scale(w.Dot(u0)))
		wn2 = w.Dot(w)
	}
	var u1 Vec3
	if wn2 > 1e-30*l1 {
		u1 = w.Scale(1 / math.Sqrt(wn2))
	} else {
		u1 = Perp(u0)
	}
	U = Mat32{{u0[0], u1[0]}, {u0[1], u1[1]}, {u0[2], u1[2]}}
	return U, [2]float64{s0, s1}, V
}

// TestSVD32Bitwise: SVD32 returns the vector form's U, S and V bit for bit
// (signed zeros and NaNs included) on random, rank-deficient, scaled and
// special matrices.
func TestSVD32Bitwise(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	Fs := testMat32s(rng, 20000)
	negZero := math.Copysign(0, -1)
	Fs = append(Fs, Mat32{}, Mat32{{negZero, negZero}, {negZero, 0}, {0, negZero}},
		Mat32{{math.NaN(), 0}, {0, 1}, {0, 0}}, Mat32{{math.Inf(1), 0}, {0, 1}, {0, 0}},
		Mat32{{1, 1}, {1, 1}, {1, 1}}, Mat32{{1, 0}, {0, 0}, {0, 0}}, Mat32{{0, 0}, {0, 1}, {0, 0}},
		Mat32{{1e-200, 0}, {0, 1e-200}, {0, 0}}, Mat32{{1e150, 1}, {0, 1e150}, {1, 0}})
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for k, F := range Fs {
		U, S, V := SVD32(F)
		Uw, Sw, Vw := vectorSVD32(F)
		ok := same(S[0], Sw[0]) && same(S[1], Sw[1])
		for i := range 3 {
			for j := range 2 {
				ok = ok && same(U[i][j], Uw[i][j])
			}
		}
		for i := range 2 {
			for j := range 2 {
				ok = ok && same(V[i][j], Vw[i][j])
			}
		}
		if !ok {
			t.Fatalf("case %d F=%v: U=%v S=%v V=%v, vector form U=%v S=%v V=%v", k, F, U, S, V, Uw, Sw, Vw)
		}
	}
}
