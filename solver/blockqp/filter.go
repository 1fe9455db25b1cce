package blockqp

import "math"

// The per-group kernels. Group g's dense data live at stride 25 (5x5, row
// major with row stride MaxGroupSize) in s.hgg (H_gg, filled by
// buildBlocks), s.qb (the orthonormal basis Q_g, one working row per row),
// s.lt (L_g, R_g = L_g Q_g^T), s.pinv (S_g B_g^-1 S_g), s.chol (C_g, B_g =
// C_g C_g^T) and s.dcor (see buildPrecond), and at stride 5 in s.cz (L_g^-1
// b_g) and s.arow (the working rows, in row order). For the sweeps, a group
// of 3 variables also has its P_g (row major) and C_g (lower triangle by
// rows) packed at stride pc3 in s.pc.

const sq = MaxGroupSize * MaxGroupSize

const pc3 = 16

// buildFilter orthonormalises the working rows of group g (its equalities and
// active inequalities, in row order), computes the prescribed point z_g and
// the filtered preconditioner, and reports whether the preconditioner block
// had to be regularised.
func (s *Solver) buildFilter(g int) bool {
	k := int(s.gptr[g+1] - s.gptr[g])
	q := s.qb[g*sq : g*sq+sq]
	l := s.lt[g*sq : g*sq+sq]
	cz := s.cz[g*MaxGroupSize : g*MaxGroupSize+MaxGroupSize]
	arow := s.arow[g*MaxGroupSize : g*MaxGroupSize+MaxGroupSize]
	clear(q)
	clear(l)
	m := 0
	for _, ri := range s.ridx[s.rptr[g]:s.rptr[g+1]] {
		r := &s.p.Rows[ri]
		if !s.active[ri] {
			continue
		}
		var u [MaxGroupSize]float64
		copy(u[:k], r.Coef)
		lr := l[m*MaxGroupSize : m*MaxGroupSize+MaxGroupSize]
		nu := orthogonalize(q, m, k, u[:], lr)
		// setup checked that the group's rows are independent, so nu > 0.
		lr[m] = nu
		for a := 0; a < k; a++ {
			q[m*MaxGroupSize+a] = u[a] / nu
		}
		// Forward substitution: cz = L^-1 b.
		t := r.Target
		for j := 0; j < m; j++ {
			t -= lr[j] * cz[j]
		}
		cz[m] = t / nu
		arow[m] = ri
		m++
	}
	s.nact[g] = int8(m)

	// z_g = Q_g cz.
	var z [MaxGroupSize]float64
	for j := 0; j < m; j++ {
		for a := 0; a < k; a++ {
			z[a] += cz[j] * q[j*MaxGroupSize+a]
		}
	}
	copy(s.z[s.gptr[g]:s.gptr[g+1]], z[:k])
	return s.buildPrecond(g, k, m)
}

// buildPrecond sets s.pinv of group g (k variables, m working rows) to
// S B^-1 S with B = S H_gg S + d (I - S), and s.chol to the lower Cholesky
// factor C of B. Where B is singular on the free subspace its pivots are
// patched, C C^T != B, and s.dcor holds C C^T - B.
func (s *Solver) buildPrecond(g, k, m int) bool {
	q := s.qb[g*sq : g*sq+sq]
	hg := s.hgg[g*sq : g*sq+sq]
	var sm, t, b [sq]float64
	d := 0.0
	for a := 0; a < k; a++ {
		d = math.Max(d, hg[a*MaxGroupSize+a])
	}
	if !(d > 0) {
		d = 1
	}
	// S = I - Q^T Q (Q stored by rows).
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			x := 0.0
			if a == c {
				x = 1
			}
			for j := 0; j < m; j++ {
				x -= q[j*MaxGroupSize+a] * q[j*MaxGroupSize+c]
			}
			sm[a*MaxGroupSize+c] = x
		}
	}
	// t = H S, b = S t + d (I - S).
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			x := 0.0
			for e := 0; e < k; e++ {
				x += hg[a*MaxGroupSize+e] * sm[e*MaxGroupSize+c]
			}
			t[a*MaxGroupSize+c] = x
		}
	}
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			x := 0.0
			for e := 0; e < k; e++ {
				x += sm[a*MaxGroupSize+e] * t[e*MaxGroupSize+c]
			}
			id := 0.0
			if a == c {
				id = 1
			}
			b[a*MaxGroupSize+c] = x + d*(id-sm[a*MaxGroupSize+c])
		}
	}
	// Symmetrise (rounding), then Cholesky b = C C^T in place (lower).
	for a := 0; a < k; a++ {
		for c := 0; c < a; c++ {
			x := 0.5 * (b[a*MaxGroupSize+c] + b[c*MaxGroupSize+a])
			b[a*MaxGroupSize+c], b[c*MaxGroupSize+a] = x, x
		}
	}
	bo := b
	reg := false
	for c := 0; c < k; c++ {
		p := b[c*MaxGroupSize+c]
		for e := 0; e < c; e++ {
			p -= b[c*MaxGroupSize+e] * b[c*MaxGroupSize+e]
		}
		// A free direction with no curvature: H is singular on the free
		// subspace there. Patch the pivot so the preconditioner stays SPD;
		// PCG still converges if F has no component along that direction.
		if !(p > 1e-12*d) {
			p = d
			reg = true
		}
		p = math.Sqrt(p)
		b[c*MaxGroupSize+c] = p
		for a := c + 1; a < k; a++ {
			x := b[a*MaxGroupSize+c]
			for e := 0; e < c; e++ {
				x -= b[a*MaxGroupSize+e] * b[c*MaxGroupSize+e]
			}
			b[a*MaxGroupSize+c] = x / p
		}
	}
	// C, and for a patched B the difference C C^T - B.
	ch := s.chol[g*sq : g*sq+sq]
	clear(ch)
	for a := 0; a < k; a++ {
		copy(ch[a*MaxGroupSize:a*MaxGroupSize+a+1], b[a*MaxGroupSize:a*MaxGroupSize+a+1])
	}
	if k == 3 {
		pc := s.pc[g*pc3 : g*pc3+pc3]
		pc[9], pc[10], pc[11], pc[12], pc[13], pc[14] = ch[0], ch[5], ch[6], ch[10], ch[11], ch[12]
	}
	if reg {
		dc := s.dcor[g*sq : g*sq+sq]
		for a := 0; a < k; a++ {
			for c := 0; c < k; c++ {
				x := -bo[a*MaxGroupSize+c]
				for e := 0; e <= min(a, c); e++ {
					x += b[a*MaxGroupSize+e] * b[c*MaxGroupSize+e]
				}
				dc[a*MaxGroupSize+c] = x
			}
		}
	}
	// Binv: solve B X = I column by column (into t).
	for c := 0; c < k; c++ {
		var x [MaxGroupSize]float64
		x[c] = 1
		for a := 0; a < k; a++ {
			v := x[a]
			for e := 0; e < a; e++ {
				v -= b[a*MaxGroupSize+e] * x[e]
			}
			x[a] = v / b[a*MaxGroupSize+a]
		}
		for a := k - 1; a >= 0; a-- {
			v := x[a]
			for e := a + 1; e < k; e++ {
				v -= b[e*MaxGroupSize+a] * x[e]
			}
			x[a] = v / b[a*MaxGroupSize+a]
		}
		for a := 0; a < k; a++ {
			t[a*MaxGroupSize+c] = x[a]
		}
	}
	// pinv = S Binv S.
	var u [sq]float64
	for a := 0; a < k; a++ {
		for c := 0; c < k; c++ {
			x := 0.0
			for e := 0; e < k; e++ {
				x += t[a*MaxGroupSize+e] * sm[e*MaxGroupSize+c]
			}
			u[a*MaxGroupSize+c] = x
		}
	}
	pv := s.pinv[g*sq : g*sq+sq]
	clear(pv)
	if m < k {
		for a := 0; a < k; a++ {
			for c := 0; c < k; c++ {
				x := 0.0
				for e := 0; e < k; e++ {
					x += sm[a*MaxGroupSize+e] * u[e*MaxGroupSize+c]
				}
				pv[a*MaxGroupSize+c] = x
			}
		}
	}
	if k == 3 {
		pc := s.pc[g*pc3 : g*pc3+pc3]
		for a := 0; a < 3; a++ {
			copy(pc[3*a:3*a+3], pv[a*MaxGroupSize:a*MaxGroupSize+3])
		}
	}
	return reg
}

// filter sets t[:k] = S_g t[:k].
func (s *Solver) filter(g, k int, t []float64) {
	m := int(s.nact[g])
	if m == k {
		// Fully constrained: S_g = 0 exactly, not up to rounding.
		clear(t[:k])
		return
	}
	q := s.qb[g*sq : g*sq+sq]
	for j := 0; j < m; j++ {
		qj := q[j*MaxGroupSize : j*MaxGroupSize+k]
		d := 0.0
		for a, x := range qj {
			d += x * t[a]
		}
		for a, x := range qj {
			t[a] -= d * x
		}
	}
}

// multipliers sets y (len = working rows of g) to L^-T Q^T grad, the
// least-squares solution of R^T y = grad for group g.
func (s *Solver) multipliers(g, k int, grad []float64, y []float64) {
	m := int(s.nact[g])
	q := s.qb[g*sq : g*sq+sq]
	l := s.lt[g*sq : g*sq+sq]
	for j := 0; j < m; j++ {
		d := 0.0
		for a := 0; a < k; a++ {
			d += q[j*MaxGroupSize+a] * grad[a]
		}
		y[j] = d
	}
	for j := m - 1; j >= 0; j-- {
		v := y[j]
		for i := j + 1; i < m; i++ {
			v -= l[i*MaxGroupSize+j] * y[i]
		}
		y[j] = v / l[j*MaxGroupSize+j]
	}
}
