package dense

import "math"

// MaxSym is the largest order accepted by EigenSym and ProjectPSD.
const MaxSym = 12

// EigenSym computes the eigen-decomposition A = Q diag(w) Q^T of the n x n
// symmetric matrix A (row-major, len >= n*n, only the upper triangle is read),
// n <= MaxSym, with the cyclic Jacobi method (threshold strategy of Numerical
// Recipes, sec. 11.1; Golub & Van Loan, Matrix Computations, sec. 8.5). Q is
// written row-major into q (q[i*n+k] is component i of eigenvector k), the
// eigenvalues (unsorted) into w. Everything lives in fixed-size stack arrays: no
// heap allocations. It panics if n > MaxSym or a slice is too short.
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
	jacobi(&a, n, &d, &vt)
	copy(w[:n], d[:n])
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			q[i*n+k] = vt[k*n+i]
		}
	}
}

// jacobiTol is the relative off-diagonal Frobenius norm at which Jacobi stops.
const jacobiTol = 1e-15

// jacobi diagonalises the full symmetric matrix a (stride n) in place by cyclic
// Jacobi rotations in row order (Golub & Van Loan, Alg. 8.5.2, with the threshold
// strategy of Numerical Recipes 11.1 in the first sweeps); d receives the
// eigenvalues and the rows of vt the eigenvectors (vt[k*n+i] is component i of
// eigenvector k). Rows are kept contiguous so the inner loops stream through memory.
func jacobi(a *[MaxSym * MaxSym]float64, n int, d *[MaxSym]float64, vt *[MaxSym * MaxSym]float64) {
	for i := 0; i < n*n; i++ {
		vt[i] = 0
	}
	for i := 0; i < n; i++ {
		vt[i*n+i] = 1
	}
	// Stop once the off-diagonal part is below jacobiTol*||A||_F: by Weyl's theorem
	// the eigenvalues are then accurate to that level, and since the PSD projection
	// is 1-Lipschitz in the Frobenius norm, so is ProjectPSD's result.
	norm2 := 0.0
	for i := 0; i < n*n; i++ {
		norm2 += a[i] * a[i]
	}
	stop := jacobiTol * jacobiTol * norm2
	for sweep := 1; sweep <= 50; sweep++ {
		sm, off := 0.0, 0.0
		for p := 0; p < n-1; p++ {
			for _, v := range a[p*n+p+1 : p*n+n] {
				sm += math.Abs(v)
				off += v * v
			}
		}
		if 2*off <= stop || math.IsNaN(sm) {
			break
		}
		tresh := 0.0
		if sweep < 4 {
			tresh = 0.2 * sm / float64(n*n)
		}
		for p := 0; p < n-1; p++ {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				app, aqq := a[p*n+p], a[q*n+q]
				g := 100 * math.Abs(apq)
				if sweep > 4 && math.Abs(app)+g == math.Abs(app) && math.Abs(aqq)+g == math.Abs(aqq) {
					a[p*n+q], a[q*n+p] = 0, 0
					continue
				}
				if math.Abs(apq) <= tresh {
					continue
				}
				hh := aqq - app
				var t float64
				if math.Abs(hh)+g == math.Abs(hh) {
					t = apq / hh
				} else {
					theta := 0.5 * hh / apq
					t = 1 / (math.Abs(theta) + math.Sqrt(1+theta*theta))
					if theta < 0 {
						t = -t
					}
				}
				c := 1 / math.Sqrt(1+t*t)
				s := t * c
				// A <- J^T A J: rotate rows p, q and mirror them into columns p, q.
				rp := a[p*n : p*n+n]
				rq := a[q*n : q*n+n]
				rq = rq[:len(rp)]
				for j := range rp {
					x, y := rp[j], rq[j]
					u, w := c*x-s*y, s*x+c*y
					rp[j], rq[j] = u, w
					a[j*n+p], a[j*n+q] = u, w
				}
				a[p*n+p] = app - t*apq
				a[q*n+q] = aqq + t*apq
				a[p*n+q], a[q*n+p] = 0, 0
				vp := vt[p*n : p*n+n]
				vq := vt[q*n : q*n+n]
				vq = vq[:len(vp)]
				for j := range vp {
					x, y := vp[j], vq[j]
					vp[j], vq[j] = c*x-s*y, s*x+c*y
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		d[i] = a[i*n+i]
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
// unchanged. Otherwise the eigen-decomposition comes from the cyclic Jacobi method
// (EigenSym). No heap allocations; panics if n > MaxSym or len(H) < n*n.
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
	jacobi(&a, n, &d, &vt)
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
