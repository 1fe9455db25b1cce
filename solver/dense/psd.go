package dense

import "math"

// MaxSym is the largest order accepted by EigenSym and ProjectPSD.
const MaxSym = 12

// EigenSym computes the eigen-decomposition A = Q diag(w) Q^T of the n x n
// symmetric matrix A (row-major, len >= n*n, only the upper triangle is read),
// n <= MaxSym, by Householder reduction to tridiagonal form and implicit
// symmetric QR steps with Wilkinson shifts (Golub & Van Loan, Matrix
// Computations, 4th ed., Alg. 8.3.1 and 8.3.3). Q is written row-major into q
// (q[i*n+k] is component i of eigenvector k), the eigenvalues (unsorted) into
// w. Everything lives in fixed-size stack arrays: no heap allocations. It
// panics if n > MaxSym or a slice is too short.
func EigenSym(A []float64, n int, w []float64, q []float64) {
	if n < 0 || n > MaxSym || len(A) < n*n || len(w) < n || len(q) < n*n {
		panic("dense: EigenSym: bad size")
	}
	var a [MaxSym * MaxSym]float64
	copy(a[:n*n], A[:n*n])
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			a[i*n+j] = a[j*n+i]
		}
	}
	var d [MaxSym]float64
	var vt [MaxSym * MaxSym]float64
	symEigen(&a, n, &d, &vt)
	copy(w[:n], d[:n])
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			q[i*n+k] = vt[k*n+i]
		}
	}
}

// symEigen diagonalises the full symmetric matrix a (stride n, destroyed):
// d receives the eigenvalues and the rows of vt the eigenvectors
// (vt[k*n+i] is component i of eigenvector k). The tridiagonal form
// T = Z^T A Z comes from n-2 Householder reflections (tridiagonalize), its
// eigen-decomposition from implicit QR steps (tridiagonalQR) whose Givens
// rotations are accumulated into vt = Z^T, row by row so that a rotation
// streams two contiguous rows. Backward stable: the eigenvalues are exact
// for a matrix within a few ulps of ||A|| of A.
func symEigen(a *[MaxSym * MaxSym]float64, n int, d *[MaxSym]float64, vt *[MaxSym * MaxSym]float64) {
	var e [MaxSym]float64
	var r reflectors
	tridiagonalize(a, n, d, &e, &r)
	for i := 0; i < n*n; i++ {
		vt[i] = 0
	}
	for i := 0; i < n; i++ {
		vt[i*n+i] = 1
	}
	for k := 0; k+2 < n; k++ { // Z^T = P_{n-3} ... P_1 P_0
		r.reflect(k, n, vt)
	}
	tridiagonalQR(n, d, &e, vt)
}

// reflectors are the Householder reflections P_k = I - beta_k v_k v_k^T of
// a tridiagonal reduction, v_k in row k of v (entries k+1..n-1); beta_k = 0
// where column k needed none.
type reflectors struct {
	v    [MaxSym * MaxSym]float64
	beta [MaxSym]float64
}

// reflect sets x <- P_k x for the n x n matrix x (row-major, stride n).
func (r *reflectors) reflect(k, n int, x *[MaxSym * MaxSym]float64) {
	b := r.beta[k]
	if b == 0 {
		return
	}
	v := r.v[k*n : k*n+n]
	var u [MaxSym]float64 // v^T x
	for j := k + 1; j < n; j++ {
		row := x[j*n : j*n+n]
		for c, xc := range row {
			u[c] += v[j] * xc
		}
	}
	for j := k + 1; j < n; j++ {
		row := x[j*n : j*n+n]
		f := b * v[j]
		for c := range row {
			row[c] -= f * u[c]
		}
	}
}

// tridiagonalize reduces the symmetric a (stride n) to the tridiagonal T =
// Z^T A Z (diagonal d, subdiagonal e[0:n-1]), Z = P_0 P_1 ... P_{n-3}, by
// Householder reflections P_k = I - beta v v^T, each zeroing column k below
// its subdiagonal (Golub & Van Loan Alg. 8.3.1: A <- P A P as
// A - v w^T - w v^T with p = beta A v, w = p - (beta p^T v / 2) v), kept in r.
func tridiagonalize(a *[MaxSym * MaxSym]float64, n int, d, e *[MaxSym]float64, r *reflectors) {
	var w [MaxSym]float64
	for k := 0; k+2 < n; k++ {
		v := r.v[k*n : k*n+n]
		r.beta[k] = 0
		tail := 0.0 // squared norm of column k below its subdiagonal entry
		for i := k + 2; i < n; i++ {
			v[i] = a[i*n+k]
			tail += v[i] * v[i]
		}
		if tail == 0 {
			continue // already tridiagonal in this column
		}
		x0 := a[(k+1)*n+k]
		alpha := -math.Copysign(math.Sqrt(x0*x0+tail), x0)
		v[k+1] = x0 - alpha
		beta := 2 / (v[k+1]*v[k+1] + tail)
		r.beta[k] = beta
		pv := 0.0
		for i := k + 1; i < n; i++ {
			p := 0.0
			row := a[i*n : i*n+n]
			for j := k + 1; j < n; j++ {
				p += row[j] * v[j]
			}
			w[i] = beta * p
			pv += w[i] * v[i]
		}
		h := beta * pv / 2
		for i := k + 1; i < n; i++ {
			w[i] -= h * v[i]
		}
		for i := k + 1; i < n; i++ {
			row := a[i*n : i*n+n]
			for j := k + 1; j < n; j++ {
				row[j] -= v[i]*w[j] + w[i]*v[j]
			}
		}
		a[(k+1)*n+k], a[k*n+k+1] = alpha, alpha
		for i := k + 2; i < n; i++ {
			a[i*n+k], a[k*n+i] = 0, 0
		}
	}
	for i := 0; i < n; i++ {
		d[i] = a[i*n+i]
		if i+1 < n {
			e[i] = a[(i+1)*n+i]
		}
	}
}

// rotationNorm returns sqrt(x^2 + y^2), by math.Hypot only where the squares
// could overflow or underflow.
func rotationNorm(x, y float64) float64 {
	ax, ay := math.Abs(x), math.Abs(y)
	if m := max(ax, ay); m < 0x1p500 && m > 0x1p-500 {
		return math.Sqrt(x*x + y*y)
	}
	return math.Hypot(x, y)
}

// maxQRSteps bounds the implicit QR steps per eigenvalue (about two with
// Wilkinson shifts; more only for non-finite input, which then stays
// non-finite).
const maxQRSteps = 30

// tridiagonalQR diagonalises the symmetric tridiagonal (d, e) by implicit QR
// steps with Wilkinson shifts on its lowest unreduced block (Golub & Van
// Loan Alg. 8.3.2 and 8.3.3), an off-diagonal entry counting as zero once
// it is within the unit roundoff of its two diagonal neighbours; each step's
// rotations are applied to the rows of zt.
func tridiagonalQR(n int, d, e *[MaxSym]float64, zt *[MaxSym * MaxSym]float64) {
	const eps = 0x1p-53
	for step := 0; step < maxQRSteps*n; step++ {
		for i := 0; i+1 < n; i++ {
			if math.Abs(e[i]) <= eps*(math.Abs(d[i])+math.Abs(d[i+1])) {
				e[i] = 0
			}
		}
		m := n - 1 // the block [l, m] is the lowest with nonzero off-diagonals
		for m > 0 && e[m-1] == 0 {
			m--
		}
		if m == 0 {
			return
		}
		l := m - 1
		for l > 0 && e[l-1] != 0 {
			l--
		}
		// Wilkinson shift: the eigenvalue of the trailing 2x2 nearer d[m].
		dd := (d[m-1] - d[m]) / 2
		b := e[m-1]
		mu := d[m] - b*b/(dd+math.Copysign(math.Hypot(dd, b), dd))
		x, y := d[l]-mu, e[l]
		for k := l; k < m; k++ {
			// G^T (x, y) = (r, 0) with G = [c -s; s c] on rows/columns k, k+1.
			r := rotationNorm(x, y)
			c, s := 1.0, 0.0
			if r != 0 {
				c, s = x/r, y/r
			}
			if k > l {
				e[k-1] = r
			}
			a0, a1, b0 := d[k], d[k+1], e[k]
			d[k] = c*c*a0 + 2*c*s*b0 + s*s*a1
			d[k+1] = s*s*a0 - 2*c*s*b0 + c*c*a1
			e[k] = c*s*(a1-a0) + (c*c-s*s)*b0
			if k+1 < m {
				x, y = e[k], s*e[k+1]
				e[k+1] *= c
			}
			rk, rk1 := zt[k*n:k*n+n], zt[(k+1)*n:(k+1)*n+n]
			for i, zk := range rk {
				zk1 := rk1[i]
				rk[i], rk1[i] = c*zk+s*zk1, -s*zk+c*zk1
			}
		}
	}
}

// choleskyPD reports whether the symmetric n x n matrix in a (stride n, lower
// triangle read) has a Cholesky factorisation with all pivots > 0, i.e. is
// (numerically) positive definite. a is overwritten.
func choleskyPD(a *[MaxSym * MaxSym]float64, n int) bool {
	for j := 0; j < n; j++ {
		s := a[j*n+j]
		for k := 0; k < j; k++ {
			s -= a[j*n+k] * a[j*n+k]
		}
		if !(s > 0) {
			return false
		}
		ljj := math.Sqrt(s)
		a[j*n+j] = ljj
		inv := 1 / ljj
		for i := j + 1; i < n; i++ {
			t := a[i*n+j]
			for k := 0; k < j; k++ {
				t -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = t * inv
		}
	}
	return true
}

// ProjectPSD replaces the n x n symmetric matrix H (row-major, len >= n*n,
// n <= MaxSym) by its projection onto the cone of positive semidefinite matrices
// in the Frobenius norm: with H = Q diag(lambda) Q^T, the result is
// Q diag(max(lambda, 0)) Q^T (Higham 1988), computed as H - sum_{lambda_k<0}
// lambda_k q_k q_k^T so the retained spectrum is untouched. H is symmetrised
// ((H+H^T)/2) first. Fast path: when a Cholesky factorisation of a stack copy
// succeeds with all pivots > 0, H is already positive definite and is returned
// unchanged. Otherwise the eigen-decomposition comes from EigenSym's method
// (symEigen). No heap allocations; panics if n > MaxSym or len(H) < n*n.
func ProjectPSD(H []float64, n int) {
	if n < 0 || n > MaxSym || len(H) < n*n {
		panic("dense: ProjectPSD: bad size")
	}
	if n == 0 {
		return
	}
	var a [MaxSym * MaxSym]float64
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			s := 0.5 * (H[i*n+j] + H[j*n+i])
			a[i*n+j] = s
			a[j*n+i] = s
		}
	}
	c := a
	if choleskyPD(&c, n) {
		return
	}
	var d [MaxSym]float64
	var vt [MaxSym * MaxSym]float64
	sym := a
	symEigen(&a, n, &d, &vt)
	for i := 0; i < n*n; i++ {
		H[i] = sym[i]
	}
	for k := 0; k < n; k++ {
		lk := d[k]
		if !(lk < 0) {
			continue
		}
		vk := vt[k*n : k*n+n]
		for i, vik := range vk {
			hi := H[i*n : i*n+n]
			hi = hi[:len(vk)]
			li := lk * vik
			for j, vjk := range vk {
				hi[j] -= li * vjk
			}
		}
	}
	// Re-symmetrise against rounding in the rank-one updates.
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			s := 0.5 * (H[i*n+j] + H[j*n+i])
			H[i*n+j] = s
			H[j*n+i] = s
		}
	}
}
