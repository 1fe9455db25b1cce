package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// values draws entries that stress rounding: wide exponents, signed zeros,
// subnormals.
func values(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch rng.IntN(8) {
		case 0:
			v[i] = math.Copysign(0, rng.Float64()-0.5)
		case 1:
			v[i] = (rng.Float64() - 0.5) * 1e-310
		default:
			v[i] = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(40)-20))
		}
	}
	return v
}

// TestUpdateBitwise checks Update's lower trapezoid against the sum it
// defines, written out per entry, bit for bit, over shapes around the
// tiles' sizes (on the SIMD path when built with GOEXPERIMENT=simd on an
// AVX2 machine; .ci/run runs that build too).
func TestUpdateBitwise(t *testing.T) {
	t.Logf("SIMD path: %v", SIMD())
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		m := 1 + rng.IntN(30)
		c := 1 + rng.IntN(m)
		kd := 1 + rng.IntN(11)
		ldl := m + rng.IntN(3)
		L := values(rng, ldl*kd)
		T := values(rng, c*kd)
		W := values(rng, m*c) // Update must not read what is there
		Update(W, m, c, T, kd, L, ldl)
		for j := 0; j < c; j++ {
			for i := j; i < m; i++ {
				want := 0.0
				k := 0
				for ; k+3 < kd; k += 4 {
					want += L[k*ldl+i]*T[j*kd+k] + L[(k+1)*ldl+i]*T[j*kd+k+1] + L[(k+2)*ldl+i]*T[j*kd+k+2] + L[(k+3)*ldl+i]*T[j*kd+k+3]
				}
				for ; k < kd; k++ {
					want += L[k*ldl+i] * T[j*kd+k]
				}
				if got := W[j*m+i]; math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("m %d c %d kd %d ldl %d: W(%d, %d) = %v, want %v", m, c, kd, ldl, i, j, got, want)
				}
			}
		}
	}
}

// TestSubScaledBitwise checks SubScaled against y[i] - x[i] a and Sub4
// against four of them in a row, bit for bit.
func TestSubScaledBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 19; n++ {
		for range 50 {
			y, x, a := values(rng, n), values(rng, n+2), values(rng, 1)[0]
			got := append([]float64(nil), y...)
			x1, x2, x3, b := values(rng, n+1), values(rng, n), values(rng, n+3), values(rng, 3)
			Sub4(got, x, x1, x2, x3, a, b[0], b[1], b[2])
			for i := range y {
				want := y[i] - x[i]*a
				want -= x1[i] * b[0]
				want -= x2[i] * b[1]
				want -= x3[i] * b[2]
				if math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("Sub4, n %d: entry %d is %v, want %v", n, i, got[i], want)
				}
			}
			got = append(got[:0], y...)
			SubScaled(got, x, a)
			for i := range y {
				if want := y[i] - x[i]*a; math.Float64bits(got[i]) != math.Float64bits(want) {
					t.Fatalf("n %d: entry %d is %v, want %v", n, i, got[i], want)
				}
			}
		}
	}
}
