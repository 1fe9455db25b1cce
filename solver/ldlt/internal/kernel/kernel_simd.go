//go:build goexperiment.simd && amd64

package kernel

import (
	"simd/archsimd"

	"github.com/klauspost/cpuid/v2"
)

// useSIMD: AVX2 is there to run the 4-lane path.
var useSIMD = cpuid.CPU.Supports(cpuid.AVX2)

// updateVec computes Update's columns in blocks of four (it returns the
// number of columns done): rows in tiles of 8 (two 4-lane vectors) x 4
// columns whose 8 accumulators stay in registers over all k, each lane
// summing as updateColumn does; a last tile of 4 rows, and the last rows
// (fewer than 4) of the block by updateColumn.
func updateVec(W []float64, m, c int, T []float64, kd int, L []float64, ldl int) int {
	nb := c &^ 3
	for j := 0; j < nb; j += 4 {
		i := j
		for ; i+8 <= m; i += 8 {
			tile8(W, m, j, i, T, kd, L, ldl)
		}
		if i+4 <= m {
			tile4(W, m, j, i, T, kd, L, ldl)
			i += 4
		}
		if i < m {
			for jj := j; jj < j+4; jj++ {
				updateColumn(W, m, jj, max(i, jj), T, kd, L, ldl)
			}
		}
	}
	archsimd.ClearAVXUpperBits()
	return nb
}

// group returns b0 c0 + b1 c1 + b2 c2 + b3 c3 lane-wise, left to right.
func group(t []float64, c0, c1, c2, c3 archsimd.Float64x4) archsimd.Float64x4 {
	s := archsimd.BroadcastFloat64x4(t[0]).Mul(c0)
	s = s.Add(archsimd.BroadcastFloat64x4(t[1]).Mul(c1))
	s = s.Add(archsimd.BroadcastFloat64x4(t[2]).Mul(c2))
	return s.Add(archsimd.BroadcastFloat64x4(t[3]).Mul(c3))
}

// tile8 sets W's rows i..i+7 of columns j..j+3.
func tile8(W []float64, m, j, i int, T []float64, kd int, L []float64, ldl int) {
	var a0, a1, a2, a3, b0, b1, b2, b3 archsimd.Float64x4 // rows i..i+3 and i+4..i+7
	t0, t1, t2, t3 := T[j*kd:][:kd], T[(j+1)*kd:][:kd], T[(j+2)*kd:][:kd], T[(j+3)*kd:][:kd]
	k := 0
	for ; k+3 < kd; k += 4 {
		l0, l1, l2, l3 := L[k*ldl+i:], L[(k+1)*ldl+i:], L[(k+2)*ldl+i:], L[(k+3)*ldl+i:]
		c0, c1 := archsimd.LoadFloat64x4Slice(l0), archsimd.LoadFloat64x4Slice(l1)
		c2, c3 := archsimd.LoadFloat64x4Slice(l2), archsimd.LoadFloat64x4Slice(l3)
		a0 = a0.Add(group(t0[k:], c0, c1, c2, c3))
		a1 = a1.Add(group(t1[k:], c0, c1, c2, c3))
		a2 = a2.Add(group(t2[k:], c0, c1, c2, c3))
		a3 = a3.Add(group(t3[k:], c0, c1, c2, c3))
		c0, c1 = archsimd.LoadFloat64x4Slice(l0[4:]), archsimd.LoadFloat64x4Slice(l1[4:])
		c2, c3 = archsimd.LoadFloat64x4Slice(l2[4:]), archsimd.LoadFloat64x4Slice(l3[4:])
		b0 = b0.Add(group(t0[k:], c0, c1, c2, c3))
		b1 = b1.Add(group(t1[k:], c0, c1, c2, c3))
		b2 = b2.Add(group(t2[k:], c0, c1, c2, c3))
		b3 = b3.Add(group(t3[k:], c0, c1, c2, c3))
	}
	for ; k < kd; k++ {
		l := L[k*ldl+i:]
		c, d := archsimd.LoadFloat64x4Slice(l), archsimd.LoadFloat64x4Slice(l[4:])
		s0, s1 := archsimd.BroadcastFloat64x4(t0[k]), archsimd.BroadcastFloat64x4(t1[k])
		s2, s3 := archsimd.BroadcastFloat64x4(t2[k]), archsimd.BroadcastFloat64x4(t3[k])
		a0, b0 = a0.Add(s0.Mul(c)), b0.Add(s0.Mul(d))
		a1, b1 = a1.Add(s1.Mul(c)), b1.Add(s1.Mul(d))
		a2, b2 = a2.Add(s2.Mul(c)), b2.Add(s2.Mul(d))
		a3, b3 = a3.Add(s3.Mul(c)), b3.Add(s3.Mul(d))
	}
	w := W[j*m+i:]
	a0.StoreSlice(w)
	b0.StoreSlice(w[4:])
	w = W[(j+1)*m+i:]
	a1.StoreSlice(w)
	b1.StoreSlice(w[4:])
	w = W[(j+2)*m+i:]
	a2.StoreSlice(w)
	b2.StoreSlice(w[4:])
	w = W[(j+3)*m+i:]
	a3.StoreSlice(w)
	b3.StoreSlice(w[4:])
}

// tile4 sets W's rows i..i+3 of columns j..j+3.
func tile4(W []float64, m, j, i int, T []float64, kd int, L []float64, ldl int) {
	var a0, a1, a2, a3 archsimd.Float64x4
	t0, t1, t2, t3 := T[j*kd:][:kd], T[(j+1)*kd:][:kd], T[(j+2)*kd:][:kd], T[(j+3)*kd:][:kd]
	k := 0
	for ; k+3 < kd; k += 4 {
		c0, c1 := archsimd.LoadFloat64x4Slice(L[k*ldl+i:]), archsimd.LoadFloat64x4Slice(L[(k+1)*ldl+i:])
		c2, c3 := archsimd.LoadFloat64x4Slice(L[(k+2)*ldl+i:]), archsimd.LoadFloat64x4Slice(L[(k+3)*ldl+i:])
		a0 = a0.Add(group(t0[k:], c0, c1, c2, c3))
		a1 = a1.Add(group(t1[k:], c0, c1, c2, c3))
		a2 = a2.Add(group(t2[k:], c0, c1, c2, c3))
		a3 = a3.Add(group(t3[k:], c0, c1, c2, c3))
	}
	for ; k < kd; k++ {
		c := archsimd.LoadFloat64x4Slice(L[k*ldl+i:])
		a0 = a0.Add(archsimd.BroadcastFloat64x4(t0[k]).Mul(c))
		a1 = a1.Add(archsimd.BroadcastFloat64x4(t1[k]).Mul(c))
		a2 = a2.Add(archsimd.BroadcastFloat64x4(t2[k]).Mul(c))
		a3 = a3.Add(archsimd.BroadcastFloat64x4(t3[k]).Mul(c))
	}
	a0.StoreSlice(W[j*m+i:])
	a1.StoreSlice(W[(j+1)*m+i:])
	a2.StoreSlice(W[(j+2)*m+i:])
	a3.StoreSlice(W[(j+3)*m+i:])
}

// subScaledVec is SubScaled on the whole groups of four entries.
func subScaledVec(y, x []float64, a float64) int {
	v := archsimd.BroadcastFloat64x4(a)
	n := len(y) &^ 3
	for i := 0; i < n; i += 4 {
		archsimd.LoadFloat64x4Slice(y[i:]).Sub(archsimd.LoadFloat64x4Slice(x[i:]).Mul(v)).StoreSlice(y[i:])
	}
	archsimd.ClearAVXUpperBits()
	return n
}

// sub4Vec is Sub4 on the whole groups of four entries.
func sub4Vec(y, x0, x1, x2, x3 []float64, a0, a1, a2, a3 float64) int {
	v0, v1 := archsimd.BroadcastFloat64x4(a0), archsimd.BroadcastFloat64x4(a1)
	v2, v3 := archsimd.BroadcastFloat64x4(a2), archsimd.BroadcastFloat64x4(a3)
	n := len(y) &^ 3
	for i := 0; i < n; i += 4 {
		w := archsimd.LoadFloat64x4Slice(y[i:])
		w = w.Sub(archsimd.LoadFloat64x4Slice(x0[i:]).Mul(v0))
		w = w.Sub(archsimd.LoadFloat64x4Slice(x1[i:]).Mul(v1))
		w = w.Sub(archsimd.LoadFloat64x4Slice(x2[i:]).Mul(v2))
		w.Sub(archsimd.LoadFloat64x4Slice(x3[i:]).Mul(v3)).StoreSlice(y[i:])
	}
	archsimd.ClearAVXUpperBits()
	return n
}
