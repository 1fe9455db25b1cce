// Package kernel holds the dense kernels of package ldlt's supernodal
// factorization: the update product of a descendant supernode (Update) and
// the column elimination of a diagonal block (SubScaled). Each has a scalar
// path and, built with GOEXPERIMENT=simd on amd64 and run on a CPU with
// AVX2, a 4-lane path (simd/archsimd) that rounds every operation of every
// entry as the scalar path does, in the same order and without fused
// multiply-adds: the results are bitwise the same on either path (a test
// checks it in the SIMD build, which .ci/run runs), so factors,
// trajectories and golden files do not depend on how loom was built.
package kernel

// Update sets the lower trapezoid of the m x c product W = L T^T: for each
// column j < c and row j <= i < m,
//
//	W[j*m+i] = sum_k L[k*ldl+i] T[j*kd+k],  k = 0 .. kd-1,
//
// W column-major (leading dimension m), L column-major (leading dimension
// ldl >= m), T row-major (c x kd). Each entry starts from +0 and adds the
// products four k at a time, (((p0 + p1) + p2) + p3) each rounded, then
// the last kd mod 4 one at a time. Entries above the diagonal (i < j) may
// be overwritten with anything.
func Update(W []float64, m, c int, T []float64, kd int, L []float64, ldl int) {
	j := 0
	if useSIMD {
		j = updateVec(W, m, c, T, kd, L, ldl)
	}
	for ; j < c; j++ {
		updateColumn(W, m, j, j, T, kd, L, ldl)
	}
}

// updateColumn sets W's column j from row r0 on (Update's sum).
func updateColumn(W []float64, m, j, r0 int, T []float64, kd int, L []float64, ldl int) {
	wj := W[j*m+r0 : j*m+m]
	n := len(wj)
	clear(wj)
	tj := T[j*kd : (j+1)*kd]
	k := 0
	for ; k+3 < kd; k += 4 {
		a0, a1, a2, a3 := tj[k], tj[k+1], tj[k+2], tj[k+3]
		c0 := L[k*ldl+r0:][:n]
		c1 := L[(k+1)*ldl+r0:][:n]
		c2 := L[(k+2)*ldl+r0:][:n]
		c3 := L[(k+3)*ldl+r0:][:n]
		for i := range wj {
			wj[i] += a0*c0[i] + a1*c1[i] + a2*c2[i] + a3*c3[i]
		}
	}
	for ; k < kd; k++ {
		a := tj[k]
		ck := L[k*ldl+r0:][:n]
		for i := range wj {
			wj[i] += a * ck[i]
		}
	}
}

// SubScaled sets y[i] -= x[i] a for every i of y; x must be at least as
// long as y.
func SubScaled(y, x []float64, a float64) {
	n := len(y)
	x = x[:n]
	i := 0
	if useSIMD {
		i = subScaledVec(y, x, a)
	}
	for ; i < n; i++ {
		y[i] -= x[i] * a
	}
}

// Sub4 sets y[i] = (((y[i] - x0[i] a0) - x1[i] a1) - x2[i] a2) - x3[i] a3
// for every i of y, each product and difference rounded: four SubScaled in
// a row, reading and writing y once. The x slices must be at least as long
// as y.
func Sub4(y, x0, x1, x2, x3 []float64, a0, a1, a2, a3 float64) {
	n := len(y)
	x0, x1, x2, x3 = x0[:n], x1[:n], x2[:n], x3[:n]
	i := 0
	if useSIMD {
		i = sub4Vec(y, x0, x1, x2, x3, a0, a1, a2, a3)
	}
	for ; i < n; i++ {
		y[i] = y[i] - x0[i]*a0 - x1[i]*a1 - x2[i]*a2 - x3[i]*a3
	}
}

// SIMD reports whether the kernels run on the 4-lane path.
func SIMD() bool { return useSIMD }
