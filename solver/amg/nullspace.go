package amg

import "math"

// The near-null space B of a level holds m vectors (m = 3: the three
// translations; m = 6: translations and the three rigid rotations), stored
// per block row as a row-major 3 x m block. The tentative prolongator of
// Vanek, Mandel & Brezina (1996, sec. 3, eq. 3.3; Vanek, Brezina & Mandel
// 2001, sec. 3) restricted to aggregate g is Q_g from the thin QR
// factorisation B_g = Q_g R_g of the aggregate's rows of B, and R_g is the
// next level's near-null space on g's coarse nodes. Every level keeps 3x3
// blocks: an aggregate with 3k columns of Q_g has k coarse block rows.

// rigidModes fills b (3 x 6 per node, row-major) with the six rigid-body
// modes at positions x (3n): the translations e_a and the rotations e_j x
// (x_i - c) about the centroid c of all positions.
func rigidModes(x, b []float64) {
	n := len(x) / 3
	var c [3]float64
	for i := 0; i < n; i++ {
		for a := range c {
			c[a] += x[3*i+a]
		}
	}
	for a := range c {
		c[a] /= float64(max(n, 1))
	}
	for i := 0; i < n; i++ {
		r0, r1, r2 := x[3*i]-c[0], x[3*i+1]-c[1], x[3*i+2]-c[2]
		copy(b[18*i:18*i+18], []float64{
			1, 0, 0, 0, r2, -r1,
			0, 1, 0, -r2, 0, r0,
			0, 0, 1, r1, -r0, 0,
		})
	}
}

// translations fills b (3 x 3 per node) with the three translations.
func translations(b []float64) {
	for i := 0; i < len(b)/9; i++ {
		copy(b[9*i:9*i+9], []float64{1, 0, 0, 0, 1, 0, 0, 0, 1})
	}
}

// dropTol is the relative norm below which a near-null vector, with the
// aggregate's earlier ones projected out, counts as dependent on them (a
// rotation about the line of a collinear aggregate, all three rotations of
// a one-node aggregate).
const dropTol = 1e-8

// tentativeKernel computes, for aggregates [lo, hi), Q_g (into the tentative
// prolongator's blocks) and R_g = Q_g^T B_g (into the next level's
// near-null space) by modified Gram-Schmidt, twice per vector (Giraud et
// al. 2005: twice is enough). Dependent vectors of B_g are dropped and the
// columns are filled up to 3k with unit vectors orthogonalised the same way,
// so that every coarse block row has three independent columns (a richer
// coarse space, never a singular one).
func (l *level) tentativeKernel(lo, hi int) {
	m, mn := l.m, l.mnext
	for g := lo; g < hi; g++ {
		nodes := l.aggNodes[l.aggPtr[g]:l.aggPtr[g+1]]
		rows := 3 * len(nodes)
		ncol := 3 * int(l.cfirst[g+1]-l.cfirst[g])
		// Q_g column-major: column c is q[c*rows : (c+1)*rows].
		q := l.qloc[l.qOff[g]:l.qOff[g+1]]
		kept := 0
		// keep orthonormalises column kept against the earlier ones and
		// keeps it when its norm stays above tol.
		keep := func(tol float64) {
			v := q[kept*rows : (kept+1)*rows]
			for pass := 0; pass < 2; pass++ {
				for c := 0; c < kept; c++ {
					u := q[c*rows : (c+1)*rows]
					d := 0.0
					for r, x := range u {
						d += x * v[r]
					}
					for r, x := range u {
						v[r] -= d * x
					}
				}
			}
			s := 0.0
			for _, x := range v {
				s += x * x
			}
			s = math.Sqrt(s)
			if !(s > tol) {
				return
			}
			for r := range v {
				v[r] /= s
			}
			kept++
		}
		for j := 0; j < m && kept < ncol; j++ {
			v := q[kept*rows : (kept+1)*rows]
			norm := 0.0
			for r := range v {
				v[r] = l.bnull[3*m*int(nodes[r/3])+m*(r%3)+j]
				norm += v[r] * v[r]
			}
			keep(dropTol * math.Sqrt(norm))
		}
		for e := 0; e < rows && kept < ncol; e++ {
			v := q[kept*rows : (kept+1)*rows]
			clear(v)
			v[e] = 1
			keep(1e-3)
		}
		// The tentative blocks, and R_g = Q_g^T B_g on the coarse nodes.
		for c := 0; c < ncol; c++ {
			u := q[c*rows : (c+1)*rows]
			for r, x := range u {
				l.tent[9*(int(l.tentOff[nodes[r/3]])+c/3)+3*(r%3)+c%3] = x
			}
			for j := 0; j < mn; j++ {
				s := 0.0
				for r, x := range u {
					s += x * l.bnull[3*m*int(nodes[r/3])+m*(r%3)+j]
				}
				l.bnext[3*mn*int(l.cfirst[g])+mn*c+j] = s
			}
		}
	}
}
