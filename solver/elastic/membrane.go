package elastic

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// MinRestArea is the smallest material-space triangle area NewMembraneRest accepts.
const MinRestArea = 1e-14

// SingularEps is the floor applied to the singular values of F where the Hessian
// divides by them (the out-of-plane rows of dR, which scale like 1/sigma_i). It only
// matters for collapsed triangles (sigma_i < 1e-6); above it the Hessian is exact.
const SingularEps = 1e-6

// MembraneRest is the precomputed rest state of a triangle with material (rest)
// coordinates X0, X1, X2 in R2.
type MembraneRest struct {
	DmInv dense.Mat2 // inverse of Dm = [X1-X0, X2-X0] (columns)
	Area  float64    // |det(Dm)|/2, material-space area
}

// NewMembraneRest precomputes Dm^-1 and the rest area (Weidner 2018 eq. 3). It returns
// an error when the area is not finite or <= MinRestArea.
func NewMembraneRest(X0, X1, X2 dense.Vec2) (MembraneRest, error) {
	e1, e2 := X1.Sub(X0), X2.Sub(X0)
	Dm := dense.Mat2{{e1[0], e2[0]}, {e1[1], e2[1]}}
	det := Dm.Det()
	area := 0.5 * math.Abs(det)
	if math.IsNaN(area) || math.IsInf(area, 0) {
		return MembraneRest{}, fmt.Errorf("elastic: rest triangle %v %v %v has non-finite area", X0, X1, X2)
	}
	if area <= MinRestArea {
		return MembraneRest{}, fmt.Errorf("elastic: degenerate rest triangle %v %v %v: area %g <= %g", X0, X1, X2, area, MinRestArea)
	}
	inv, ok := Dm.Inverse()
	if !ok {
		return MembraneRest{}, fmt.Errorf("elastic: rest triangle %v %v %v: singular Dm", X0, X1, X2)
	}
	return MembraneRest{DmInv: inv, Area: area}, nil
}

// Lame holds the 2D membrane Lame parameters, in N/m.
type Lame struct {
	Mu, Lambda float64
}

// DeformationGradient returns F = Ds Dm^-1 with Ds = [x1-x0, x2-x0] (3x2),
// Weidner 2018 eq. 3.
func (r *MembraneRest) DeformationGradient(x0, x1, x2 dense.Vec3) dense.Mat32 {
	e1, e2 := x1.Sub(x0), x2.Sub(x0)
	Ds := dense.Mat32{{e1[0], e2[0]}, {e1[1], e2[1]}, {e1[2], e2[2]}}
	return Ds.MulMat2(r.DmInv)
}

// psi returns the corotated density in terms of the singular values of F:
// ||F - R||^2 = sum (s_i - 1)^2 and tr(R^T F) = tr S = s_0 + s_1.
func psi(p Lame, s [2]float64) float64 {
	d0, d1, t := s[0]-1, s[1]-1, s[0]+s[1]-2
	return p.Mu*(d0*d0+d1*d1) + 0.5*p.Lambda*t*t
}

// MembraneEnergy returns Area * Psi(F) with Psi(F) = Mu ||F - R||_F^2 +
// Lambda/2 (tr(R^T F) - 2)^2, R the polar factor of F (dense.Polar32).
func MembraneEnergy(r *MembraneRest, p Lame, x0, x1, x2 dense.Vec3) float64 {
	_, s, _ := dense.SVD32(r.DeformationGradient(x0, x1, x2))
	return r.Area * psi(p, s)
}

// PrincipalStrains returns s_i - 1 for the singular values s_0 >= s_1 of F.
func PrincipalStrains(F dense.Mat32) [2]float64 {
	_, s, _ := dense.SVD32(F)
	return [2]float64{s[0] - 1, s[1] - 1}
}

// MembraneGradHess returns the membrane energy and writes its gradient dE/dx
// (g[3a+i] = dE/dx_a[i]) and its exact 9x9 Hessian (row-major, same ordering, not
// projected) into g and H. No allocations.
//
// First Piola stress: P = dPsi/dF = 2 Mu (F - R) + Lambda (tr S - 2) R, and
// dE/dx = Area * P : dF/dx. With F = U diag(s) V^T, Q = [u0 u1 n] (n = u0 x u1) and
// the rotated differential G = Q^T dF V, the polar differential is
// (Sylvester equation S dS + dS S = dF^T F + F^T dF solved in V's basis)
//
//	dR^ = [[0, a], [-a, 0], [G20/s0, G21/s1]],  a = (G01 - G10)/(s0 + s1),
//
// so dP^ = 2Mu(G - dR^) + Lambda tr(G_2x2) I_32 + Lambda(s0+s1-2) dR^. In the basis
// G00, G11, G01, G10, G20, G21 this 6x6 map is block diagonal with eigenpairs
//
//	(1, 1, 0,0,0,0)/sqrt2: 2Mu + 2Lambda     (1,-1, 0,0,0,0)/sqrt2: 2Mu
//	(0,0, 1, 1, 0,0)/sqrt2: 2Mu              (0,0, 1,-1, 0,0)/sqrt2: 2Mu + 2beta
//	G20: 2Mu + (Lambda(s0+s1-2) - 2Mu)/s0    G21: 2Mu + (Lambda(s0+s1-2) - 2Mu)/s1
//
// with beta = (Lambda(s0+s1-2) - 2Mu)/(s0+s1); H = Area sum_k lambda_k w_k w_k^T
// with w_k the modes pulled back through F = Ds Dm^-1. Singular values are floored at
// SingularEps where divided by (collapsed triangles only).
func MembraneGradHess(r *MembraneRest, p Lame, x0, x1, x2 dense.Vec3, g *[9]float64, H *[81]float64) float64 {
	var P [54]float64
	E := membraneGradHess(r, p, x0, x1, x2, 1, g, &P, false)
	unpack(&P, H)
	return E
}

// unpack expands the packed upper blocks P (as MembraneGradHessPSD writes
// them) of a symmetric 9x9 matrix into H, row-major.
func unpack(P *[54]float64, H *[81]float64) {
	for a := 0; a < 3; a++ {
		for b := a; b < 3; b++ {
			blk := (*[9]float64)(P[9*packedBlock(a, b):])
			for m := 0; m < 3; m++ {
				for n := 0; n < 3; n++ {
					H[9*(3*a+m)+3*b+n] = blk[3*m+n]
					H[9*(3*b+n)+3*a+m] = blk[3*m+n]
				}
			}
		}
	}
}

// MembraneGradHessPSD is MembraneGradHess with the Hessian projected onto the PSD
// cone in deformation-gradient space: the six eigenvalues of the 6x6 density
// Hessian listed above are clamped at zero before the modes are pulled back
// (Teran et al. 2005, sec. 5). The result is PSD for every F, equals the exact
// Hessian wherever the exact one is PSD in F-space, and costs nothing extra.
// It writes w times the Hessian into H, each entry rounded once more than the
// Hessian's (w = h^2 + h beta gives the entries of the implicit system, Weidner
// 2018 eq. 11, without another pass over H), packed: only the 3x3 blocks
// (a, b) with a <= b, each row-major, in the order (0,0), (0,1), (0,2), (1,1),
// (1,2), (2,2) (sparse.Packed), the Hessian being symmetric bit for bit.
func MembraneGradHessPSD(r *MembraneRest, p Lame, x0, x1, x2 dense.Vec3, w float64, g *[9]float64, H *[54]float64) float64 {
	return membraneGradHess(r, p, x0, x1, x2, w, g, H, true)
}

// packedBlock returns the index of block (a, b), a <= b, among the upper 3x3
// blocks of a 9x9 Hessian, packed as MembraneGradHessPSD writes them.
func packedBlock(a, b int) int {
	return 3*a - a*(a-1)/2 + b - a
}

// membraneGradHess is MembraneGradHess, with the Hessian times hw, projected
// when clamp is set, packed into H as MembraneGradHessPSD writes it.
func membraneGradHess(r *MembraneRest, p Lame, x0, x1, x2 dense.Vec3, hw float64, g *[9]float64, H *[54]float64, clamp bool) float64 {
	F := r.DeformationGradient(x0, x1, x2)
	U, s, V := dense.SVD32(F)
	A := r.Area
	E := A * psi(p, s)

	// dF_kl/dx_{a,m} = delta_km c[a][l]: c[0] = -(B0+B1), c[1] = B0, c[2] = B1 (rows of DmInv).
	B := &r.DmInv
	c := [3][2]float64{{-B[0][0] - B[1][0], -B[0][1] - B[1][1]}, {B[0][0], B[0][1]}, {B[1][0], B[1][1]}}
	// cv[a][j] = sum_l c[a][l] V[l][j].
	var cv [3][2]float64
	for a := 0; a < 3; a++ {
		cv[a][0] = c[a][0]*V[0][0] + c[a][1]*V[1][0]
		cv[a][1] = c[a][0]*V[0][1] + c[a][1]*V[1][1]
	}
	u0, u1 := U.Col(0), U.Col(1)
	n := u0.Cross(u1)

	// Gradient: P = U diag(p) V^T, dE/dx_{a,m} = A sum_j P_mj c[a][j] = A sum_j U_mj p_j cv[a][j].
	tr := s[0] + s[1] - 2
	p0 := 2*p.Mu*(s[0]-1) + p.Lambda*tr
	p1 := 2*p.Mu*(s[1]-1) + p.Lambda*tr
	for a := 0; a < 3; a++ {
		for m := 0; m < 3; m++ {
			g[3*a+m] = A * (u0[m]*p0*cv[a][0] + u1[m]*p1*cv[a][1])
		}
	}

	// Hessian modes. W[(i,j)][(a,m)] = Q[m][i] cv[a][j]; w_k = W^T e_k.
	sc0, sc1 := floorAt(s[0], SingularEps), floorAt(s[1], SingularEps)
	mu2 := 2 * p.Mu
	lt := p.Lambda * tr
	beta := (lt - mu2) / (sc0 + sc1)
	lam := [6]float64{
		mu2 + 2*p.Lambda,
		mu2,
		mu2,
		mu2 + 2*beta,
		mu2 + (lt-mu2)/sc0,
		mu2 + (lt-mu2)/sc1,
	}
	if clamp {
		for k := range lam {
			lam[k] = floorAt(lam[k], 0)
		}
	}
	const r2 = 0.70710678118654752440
	var w [6][9]float64
	for a := 0; a < 3; a++ {
		for m := 0; m < 3; m++ {
			k := 3*a + m
			g00 := u0[m] * cv[a][0] // (i,j) = (0,0)
			g11 := u1[m] * cv[a][1]
			g01 := u0[m] * cv[a][1]
			g10 := u1[m] * cv[a][0]
			w[0][k] = r2 * (g00 + g11)
			w[1][k] = r2 * (g00 - g11)
			w[2][k] = r2 * (g01 + g10)
			w[3][k] = r2 * (g01 - g10)
			w[4][k] = n[m] * cv[a][0]
			w[5][k] = n[m] * cv[a][1]
		}
	}
	// H_ij = A sum_k lam_k w_ki w_kj for j >= i, summed over k in order,
	// written out entry by entry straight into H's packed blocks (row
	// i = 3a + m, column j = 3b + n, b >= a: block (a, b), entry 3m + n; a
	// diagonal block also gets (n, m)), so that every index is a constant.
	// (A sum that starts from zero would turn a -0 into +0, which the
	// assembly, summing from +0, does anyway.)
	w0, w1, w2, w3, w4, w5 := &w[0], &w[1], &w[2], &w[3], &w[4], &w[5]
	var l0, l1, l2, l3, l4, l5 float64
	entry := func(j int) float64 {
		v := l0*w0[j] + l1*w1[j] + l2*w2[j] + l3*w3[j] + l4*w4[j] + l5*w5[j]
		v *= A
		v *= hw
		return v
	}
	l0, l1, l2 = lam[0]*w0[0], lam[1]*w1[0], lam[2]*w2[0]
	l3, l4, l5 = lam[3]*w3[0], lam[4]*w4[0], lam[5]*w5[0]
	H[0] = entry(0)
	H[1] = entry(1)
	H[3] = H[1]
	H[2] = entry(2)
	H[6] = H[2]
	H[9] = entry(3)
	H[10] = entry(4)
	H[11] = entry(5)
	H[18] = entry(6)
	H[19] = entry(7)
	H[20] = entry(8)
	l0, l1, l2 = lam[0]*w0[1], lam[1]*w1[1], lam[2]*w2[1]
	l3, l4, l5 = lam[3]*w3[1], lam[4]*w4[1], lam[5]*w5[1]
	H[4] = entry(1)
	H[5] = entry(2)
	H[7] = H[5]
	H[12] = entry(3)
	H[13] = entry(4)
	H[14] = entry(5)
	H[21] = entry(6)
	H[22] = entry(7)
	H[23] = entry(8)
	l0, l1, l2 = lam[0]*w0[2], lam[1]*w1[2], lam[2]*w2[2]
	l3, l4, l5 = lam[3]*w3[2], lam[4]*w4[2], lam[5]*w5[2]
	H[8] = entry(2)
	H[15] = entry(3)
	H[16] = entry(4)
	H[17] = entry(5)
	H[24] = entry(6)
	H[25] = entry(7)
	H[26] = entry(8)
	l0, l1, l2 = lam[0]*w0[3], lam[1]*w1[3], lam[2]*w2[3]
	l3, l4, l5 = lam[3]*w3[3], lam[4]*w4[3], lam[5]*w5[3]
	H[27] = entry(3)
	H[28] = entry(4)
	H[30] = H[28]
	H[29] = entry(5)
	H[33] = H[29]
	H[36] = entry(6)
	H[37] = entry(7)
	H[38] = entry(8)
	l0, l1, l2 = lam[0]*w0[4], lam[1]*w1[4], lam[2]*w2[4]
	l3, l4, l5 = lam[3]*w3[4], lam[4]*w4[4], lam[5]*w5[4]
	H[31] = entry(4)
	H[32] = entry(5)
	H[34] = H[32]
	H[39] = entry(6)
	H[40] = entry(7)
	H[41] = entry(8)
	l0, l1, l2 = lam[0]*w0[5], lam[1]*w1[5], lam[2]*w2[5]
	l3, l4, l5 = lam[3]*w3[5], lam[4]*w4[5], lam[5]*w5[5]
	H[35] = entry(5)
	H[42] = entry(6)
	H[43] = entry(7)
	H[44] = entry(8)
	l0, l1, l2 = lam[0]*w0[6], lam[1]*w1[6], lam[2]*w2[6]
	l3, l4, l5 = lam[3]*w3[6], lam[4]*w4[6], lam[5]*w5[6]
	H[45] = entry(6)
	H[46] = entry(7)
	H[48] = H[46]
	H[47] = entry(8)
	H[51] = H[47]
	l0, l1, l2 = lam[0]*w0[7], lam[1]*w1[7], lam[2]*w2[7]
	l3, l4, l5 = lam[3]*w3[7], lam[4]*w4[7], lam[5]*w5[7]
	H[49] = entry(7)
	H[50] = entry(8)
	H[52] = H[50]
	l0, l1, l2 = lam[0]*w0[8], lam[1]*w1[8], lam[2]*w2[8]
	l3, l4, l5 = lam[3]*w3[8], lam[4]*w4[8], lam[5]*w5[8]
	H[53] = entry(8)
	return E
}

// floorAt returns math.Max(x, f) for f >= +0 (NaN for NaN x, +0 for x = -0
// and f = +0) without math.Max's call to its assembly form, which the
// compiler does not inline.
func floorAt(x, f float64) float64 {
	if x <= f {
		return f
	}
	return x
}
