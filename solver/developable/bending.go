package developable

import (
	"math"
)

// Bending is the quadratic bending energy of Wardetzky et al. 2007 on the
// nonconforming (Crouzeix-Raviart) mesh, with per edge the midpoint
// unknown x_e:
//
//	E(x) = k_b/2 sum_{e interior} |(L x)_e|^2 / A_e
//
// L is the Crouzeix-Raviart stiffness matrix: in a face, the basis function
// of the edge opposite corner i is 1 - 2 lambda_i, so its local entries are
// four times the cotangent Laplacian's, L_ij = -2 cot(theta_k) for i != j
// (theta_k the rest angle at the third corner) and L_ii = 2(cot theta_j +
// cot theta_k). A_e is a third of the rest area of e's two faces (the
// integral of its basis function), so that (L x)_e / A_e approximates
// -2 H n and E approximates k_b/2 times the integral of (2H)^2, k_b/2
// kappa^2 per area on a cylinder. Border edges are left out: their rows do
// not vanish on flat sheets. L and A are rest quantities, so the Hessian
// k_b L^T A^-1 L (the same on each coordinate) is constant, and E is zero
// on every affine image of the rest sheet.
type Bending struct {
	kb   float64
	rows [][]entry // per interior edge, row of L
	area []float64 // A_e per row
}

// NewBending returns the bending energy of m with stiffness kb (N m).
func NewBending(m *Mesh, kb float64) *Bending {
	b := &Bending{kb: kb}
	for e, ef := range m.EdgeFaces {
		if ef[1] < 0 {
			continue
		}
		var row []entry
		area := 0.0
		for _, f := range ef {
			local := m.crStiffness(f)
			k := 0
			for k < 3 && m.FaceEdges[f][k] != int32(e) {
				k++
			}
			for j := range 3 {
				row = append(row, entry{m.FaceEdges[f][j], local[k][j]})
			}
			area += m.FaceArea[f] / 3
		}
		b.rows = append(b.rows, mergeEntries(row))
		b.area = append(b.area, area)
	}
	return b
}

// crStiffness returns face f's local Crouzeix-Raviart stiffness matrix at
// rest, indexed by local edge (= opposite corner).
func (m *Mesh) crStiffness(f int32) [3][3]float64 {
	u := m.FaceU[f]
	var cot [3]float64
	for k := range 3 {
		a, b, c := u[k], u[(k+1)%3], u[(k+2)%3]
		p := [2]float64{b[0] - a[0], b[1] - a[1]}
		q := [2]float64{c[0] - a[0], c[1] - a[1]}
		cot[k] = (p[0]*q[0] + p[1]*q[1]) / math.Abs(p[0]*q[1]-p[1]*q[0])
	}
	var l [3][3]float64
	for i := range 3 {
		for j := range 3 {
			if i != j {
				l[i][j] = -2 * cot[3-i-j]
				l[i][i] += 2 * cot[3-i-j]
			}
		}
	}
	return l
}

// Energy returns E(x) (J).
func (b *Bending) Energy(x []float64) float64 {
	e := 0.0
	for r, row := range b.rows {
		var lx [3]float64
		for _, en := range row {
			for c := range 3 {
				lx[c] += en.w * x[3*int(en.edge)+c]
			}
		}
		e += (lx[0]*lx[0] + lx[1]*lx[1] + lx[2]*lx[2]) / b.area[r]
	}
	return 0.5 * b.kb * e
}

// Gradient adds dE/dx = k_b L^T A^-1 L x to g.
func (b *Bending) Gradient(x, g []float64) {
	for r, row := range b.rows {
		var lx [3]float64
		for _, en := range row {
			for c := range 3 {
				lx[c] += en.w * x[3*int(en.edge)+c]
			}
		}
		s := b.kb / b.area[r]
		for _, en := range row {
			for c := range 3 {
				g[3*int(en.edge)+c] += s * en.w * lx[c]
			}
		}
	}
}

// Hessian returns the triplets (row >= column, duplicates to be summed) of
// the constant scalar Hessian k_b L^T A^-1 L, which acts on each
// coordinate alike: d^2E/dx_e[c] dx_f[c'] = H_ef delta_cc'.
func (b *Bending) Hessian() (rows, cols []int, vals []float64) {
	for r, row := range b.rows {
		s := b.kb / b.area[r]
		for _, p := range row {
			for _, q := range row {
				if q.edge <= p.edge {
					rows, cols = append(rows, int(p.edge)), append(cols, int(q.edge))
					vals = append(vals, s*p.w*q.w)
				}
			}
		}
	}
	return rows, cols, vals
}
