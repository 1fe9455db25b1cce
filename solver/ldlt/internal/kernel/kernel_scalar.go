//go:build !(goexperiment.simd && amd64)

package kernel

// useSIMD: built without GOEXPERIMENT=simd (or not on amd64), the scalar
// path only.
const useSIMD = false

func updateVec(W []float64, m, c int, T []float64, kd int, L []float64, ldl int) int { return 0 }

func subScaledVec(y, x []float64, a float64) int { return 0 }

func sub4Vec(y, x0, x1, x2, x3 []float64, a0, a1, a2, a3 float64) int { return 0 }
