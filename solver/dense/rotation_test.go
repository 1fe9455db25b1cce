package dense

import (
	"math"
	"math/rand"
	"testing"
)

// TestQuatRoundTrips: matrix -> quaternion -> matrix, exp(log(q)) = q, and
// slerp stays unit, hits its ends and turns at a constant rate.
func TestQuatRoundTrips(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 2000; trial++ {
		r := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		r = r.Scale(math.Pi * rng.Float64() / r.Norm())
		if trial%500 == 0 {
			r = r.Scale(math.Pi / r.Norm()) // half turns
		}
		q := QuatExp(r)
		R := q.Mat()
		q2 := QuatFromMat(R)
		R2 := q2.Mat()
		for i := range 3 {
			for j := range 3 {
				if math.Abs(R[i][j]-R2[i][j]) > 1e-14 {
					t.Fatalf("round trip of %v: %v vs %v", r, R, R2)
				}
			}
		}
		if l := RotationLog(R); r.Norm() < math.Pi-1e-9 && l.Sub(r).Norm() > 1e-12 {
			t.Fatalf("log(exp(%v)) = %v", r, l)
		}
		b := QuatExp(Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		s0, s1 := Slerp(q, b, 0), Slerp(q, b, 1)
		if maxDiff3(s0.Mat(), R) > 1e-14 || maxDiff3(s1.Mat(), b.Mat()) > 1e-14 {
			t.Fatalf("slerp ends")
		}
		var prev Quat
		var step float64
		for k := 0; k <= 10; k++ {
			s := Slerp(q, b, float64(k)/10)
			if n := math.Sqrt(s[0]*s[0] + s[1]*s[1] + s[2]*s[2] + s[3]*s[3]); math.Abs(n-1) > 1e-15 {
				t.Fatalf("slerp not unit: %v", n)
			}
			if k > 0 {
				d := prev.Conj().Mul(s).Log().Norm()
				if k == 1 {
					step = d
				} else if math.Abs(d-step) > 1e-12 {
					t.Fatalf("slerp step %d turns %v, first %v", k, d, step)
				}
			}
			prev = s
		}
	}
}

// maxDiff3 is the largest absolute entry of m - b.
func maxDiff3(m, b Mat3) float64 {
	d := 0.0
	for i := range 3 {
		for j := range 3 {
			d = math.Max(d, math.Abs(m[i][j]-b[i][j]))
		}
	}
	return d
}
