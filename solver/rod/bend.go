package rod

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// TurningAngle returns the angle theta in [0, pi] between the segment vectors
// e1 = x_b - x_a and e2 = x_c - x_b (zero for a straight rod), computed robustly as
// atan2(|e1 x e2|, e1.e2).
func TurningAngle(e1, e2 dense.Vec3) float64 {
	return math.Atan2(e1.Cross(e2).Norm(), e1.Dot(e2))
}

// BendEnergy returns SB2020 eq. 4 for three consecutive non-EIL nodes a, b, c:
//
//	V_b = k_b theta^2 / (du1 + du2),   du1 + du2 = (u_b - u_a) + (u_c - u_b) = u_c - u_a,
//
// theta = TurningAngle(x_b - x_a, x_c - x_b). u_b cancels from the sum of material
// lengths, so it does not enter V_b; it is a parameter only so that the signature
// mirrors the 12-DOF order of BendGradHess.
func BendEnergy(kb float64, xa, xb, xc dense.Vec3, ua, ub, uc float64) float64 {
	th := TurningAngle(xb.Sub(xa), xc.Sub(xb))
	return kb * th * th / (uc - ua)
}

// thetaSq returns g = theta^2 = atan2(sqrt(S), c)^2 and its first and second
// partial derivatives with respect to the invariants S = |e1 x e2|^2 and
// c = e1.e2 (P = S + c^2 = |e1|^2 |e2|^2). With phi = theta/sqrt(S):
//
//	g_S = phi c/P,  g_c = -2 phi S/P,  phi_c = -1/P,  phi_S = (c/P - phi)/(2S),
//	g_SS = phi_S c/P - phi c/P^2,  g_Sc = (phi S - phi c^2 - c)/P^2,
//	g_cc = (2S + 4 phi S c)/P^2.
//
// g is an analytic function of (S, c) near theta = 0 (c > 0): with w = S/c^2,
// theta^2 = atan(sqrt w)^2, phi = psi(w)/c and phi_S = chi(w)/(2c^3), where
// psi(w) = atan(sqrt w)/sqrt w = sum (-w)^k/(2k+1) and chi(w) = (1/(1+w) - psi)/w =
// sum_{k>=1} (-1)^k 2k w^(k-1)/(2k+1); these series are used for w < 1/16, where the
// closed forms would cancel. At theta = pi exactly (S = 0, c < 0) theta^2 has a
// cone-shaped maximum and is not differentiable; zero derivatives are returned
// (and everything is zero when P = 0, a zero-length segment).
func thetaSq(S, c float64) (g, gS, gc, gSS, gSc, gcc float64) {
	P := S + c*c
	if P == 0 {
		return 0, 0, 0, 0, 0, 0
	}
	var phi, phiS, th float64
	if c > 0 && S < c*c/16 {
		w := S / (c * c)
		// psi: sum_{k=0}^{K} (-w)^k/(2k+1); chi: sum_{k=1}^{K} (-1)^k 2k w^(k-1)/(2k+1).
		// w < 1/16: 14 terms reach w^14 < 1.4e-17.
		psi, chi := 0.0, 0.0
		for k := 14; k >= 1; k-- {
			kk := float64(k)
			psi = psi*(-w) + 1/(2*kk+1)
			chi = chi*w + sgn(k)*2*kk/(2*kk+1)
		}
		psi = psi*(-w) + 1
		phi = psi / c
		phiS = chi / (2 * c * c * c)
		th = phi * math.Sqrt(S)
	} else {
		if S == 0 { // theta = pi
			return math.Pi * math.Pi, 0, 0, 0, 0, 0
		}
		sq := math.Sqrt(S)
		th = math.Atan2(sq, c)
		phi = th / sq
		phiS = (c/P - phi) / (2 * S)
	}
	g = th * th
	P2 := P * P
	gS = phi * c / P
	gc = -2 * phi * S / P
	gSS = phiS*c/P - phi*c/P2
	gSc = (phi*S - phi*c*c - c) / P2
	gcc = (2*S + 4*phi*S*c) / P2
	return
}

func sgn(k int) float64 {
	if k%2 == 1 {
		return -1
	}
	return 1
}

// BendGradHess returns V_b (BendEnergy) and writes its exact gradient g and
// Hessian H (row-major 12x12) with respect to q = (x_a, x_b, x_c, u_a, u_b, u_c);
// the u_b row and column are zero (u_b cancels, see BendEnergy).
//
// theta^2 is differentiated as g(S, c) (see thetaSq) with S = |e1|^2|e2|^2 - c^2,
// c = e1.e2, e1 = x_b - x_a, e2 = x_c - x_b:
//
//	dS/de1 = 2(|e2|^2 e1 - c e2),  d2S/de1de1 = 2|e2|^2 I - 2 e2 e2^T,
//	d2S/de1de2 = 4 e1 e2^T - 2 e2 e1^T - 2c I,  (and symmetrically for e2),
//	dc/de1 = e2,  d2c/de1de2 = I,
//
// which is smooth through the straight configuration theta = 0 (where the gradient
// and the u-derivatives vanish and the Hessian is the small-angle quadratic form).
// With L = u_c - u_a: dV/dx = k_b/L dg/dx, dV/du_a = -dV/du_c = k_b g/L^2,
// d2V/du_a2 = d2V/du_c2 = -d2V/du_a du_c = 2 k_b g/L^3. Undefined at theta = pi
// (a rod folded back on itself), see thetaSq.
func BendGradHess(kb float64, xa, xb, xc dense.Vec3, ua, ub, uc float64, g *[12]float64, H *[144]float64) float64 {
	return bendGradHess(kb, xa, xb, xc, ua, uc, false, g, H)
}

// BendGradHessPSD is BendGradHess with the Hessian projected onto the positive
// semidefinite matrices (projected Newton); energy and gradient are exact.
//
// With G = theta^2 as a function of e = (e1, e2) (gradient ge, Hessian He) and
// L = u_c - u_a, the Hessian of V = k_b G/L in (e, L) splits exactly as
//
//	k_b/L [M 0; 0 0] + (2 k_b G/L^3) w w^T,  M = He - ge ge^T/(2G),  w = (L ge/(2G), -1),
//
// the second part positive semidefinite (theta^2/L is convex, quadratic over
// linear). M = 2 theta Hess(theta) carries all the indefiniteness: the whole
// Hessian is positive semidefinite iff M is (Schur complement on the L-L entry
// 2 k_b G/L^3 > 0). M (6x6) is replaced by its projection (dense.ProjectPSD),
// so the result equals the exact Hessian wherever that is positive
// semidefinite. Below theta = 1e-7 (bendProjectMin) the exact Hessian is
// returned: its negative part is below 2e-8 of its norm there.
func BendGradHessPSD(kb float64, xa, xb, xc dense.Vec3, ua, ub, uc float64, g *[12]float64, H *[144]float64) float64 {
	return bendGradHess(kb, xa, xb, xc, ua, uc, true, g, H)
}

func bendGradHess(kb float64, xa, xb, xc dense.Vec3, ua, uc float64, project bool, g *[12]float64, H *[144]float64) float64 {
	var ge [6]float64
	var He [36]float64
	gv := thetaSqE(xa, xb, xc, &ge, &He)
	if project {
		projectBendHe(&He, &ge, gv)
	}
	L := uc - ua
	s := kb / L
	*g = [12]float64{}
	*H = [144]float64{}
	gx := edgeGrad(&ge)
	for k := range gx {
		g[k] = s * gx[k]
	}
	edgeHess(&He, s, H)
	V := s * gv
	g[9] = V / L
	g[11] = -V / L
	s2 := kb / (L * L)
	for k := 0; k < 9; k++ {
		H[k*12+9], H[9*12+k] = s2*gx[k], s2*gx[k]
		H[k*12+11], H[11*12+k] = -s2*gx[k], -s2*gx[k]
	}
	uu := 2 * V / (L * L)
	H[9*12+9], H[11*12+11] = uu, uu
	H[9*12+11], H[11*12+9] = -uu, -uu
	return V
}

// thetaSqE returns G = theta^2 of the bend at (x_a, x_b, x_c) and writes its
// gradient ge and Hessian He with respect to the edges e = (e1, e2), e1 =
// x_b - x_a, e2 = x_c - x_b (the derivatives of S and c in BendGradHess).
func thetaSqE(xa, xb, xc dense.Vec3, ge *[6]float64, He *[36]float64) float64 {
	e := [2]dense.Vec3{xb.Sub(xa), xc.Sub(xb)}
	c := e[0].Dot(e[1])
	n0, n1 := e[0].Dot(e[0]), e[1].Dot(e[1])
	cr := e[0].Cross(e[1])
	S := cr.Dot(cr)
	gv, gS, gc, gSS, gSc, gcc := thetaSq(S, c)

	// Gradients of S and c with respect to (e1, e2), as 6-vectors.
	var dS, dc [6]float64
	for i := 0; i < 3; i++ {
		dS[i] = 2 * (n1*e[0][i] - c*e[1][i])
		dS[3+i] = 2 * (n0*e[1][i] - c*e[0][i])
		dc[i] = e[1][i]
		dc[3+i] = e[0][i]
	}
	for p := 0; p < 6; p++ {
		ge[p] = gS*dS[p] + gc*dc[p]
		for q := 0; q < 6; q++ {
			He[p*6+q] = gSS*dS[p]*dS[q] + gSc*(dS[p]*dc[q]+dc[p]*dS[q]) + gcc*dc[p]*dc[q]
		}
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			var d float64
			if i == j {
				d = 1
			}
			// S second derivatives.
			He[i*6+j] += gS * (2*n1*d - 2*e[1][i]*e[1][j])
			He[(3+i)*6+3+j] += gS * (2*n0*d - 2*e[0][i]*e[0][j])
			s12 := gS*(4*e[0][i]*e[1][j]-2*e[1][i]*e[0][j]-2*c*d) + gc*d
			He[i*6+3+j] += s12
			He[(3+j)*6+i] += s12
		}
	}
	return gv
}

// edgeCoef maps (e1, e2) to the nodes: d/dx_a = -d/de1, d/dx_b = d/de1 -
// d/de2, d/dx_c = d/de2.
var edgeCoef = [3][2]float64{{-1, 0}, {1, -1}, {0, 1}}

// edgeGrad returns the gradient in (x_a, x_b, x_c) of a function of the
// edges whose gradient in (e1, e2) is ge.
func edgeGrad(ge *[6]float64) [9]float64 {
	var gx [9]float64
	for a := 0; a < 3; a++ {
		for i := 0; i < 3; i++ {
			gx[3*a+i] = edgeCoef[a][0]*ge[i] + edgeCoef[a][1]*ge[3+i]
		}
	}
	return gx
}

// edgeHess writes s times the Hessian in (x_a, x_b, x_c) of a function of
// the edges whose Hessian in (e1, e2) is He into the leading 9x9 block of the
// 12x12 H.
func edgeHess(He *[36]float64, s float64, H *[144]float64) {
	// Blocks: aa = H11, ab = H12 - H11, ac = -H12, bb = H11 - H12 - H21 + H22,
	// bc = H12 - H22, cc = H22 (H21 = H12^T); the lower blocks by symmetry.
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			h11, h12, h21, h22 := He[i*6+j], He[i*6+3+j], He[(3+i)*6+j], He[(3+i)*6+3+j]
			aa, ab, ac := s*h11, s*(h12-h11), -s*h12
			bb, bc, cc := s*(h11-h12-h21+h22), s*(h12-h22), s*h22
			H[i*12+j] = aa
			H[i*12+3+j], H[(3+j)*12+i] = ab, ab
			H[i*12+6+j], H[(6+j)*12+i] = ac, ac
			H[(3+i)*12+3+j] = bb
			H[(3+i)*12+6+j], H[(6+j)*12+3+i] = bc, bc
			H[(6+i)*12+6+j] = cc
		}
	}
}

// BendEnergyOf returns V_b computed exactly as BendGradHess computes it (the
// same operations on the same invariants, so the same bits), without the
// derivatives: for energy-only evaluations that are compared with energies
// from BendGradHess (a line search). BendEnergy, through the turning angle,
// can differ in the last bits.
func BendEnergyOf(kb float64, xa, xb, xc dense.Vec3, ua, uc float64) float64 {
	e0, e1 := xb.Sub(xa), xc.Sub(xb)
	c := e0.Dot(e1)
	cr := e0.Cross(e1)
	S := cr.Dot(cr)
	gv, _, _, _, _, _ := thetaSq(S, c)
	L := uc - ua
	s := kb / L
	return s * gv
}

// bendProjectMin is the theta^2 below which the bend Hessian is left exact.
// Its negative eigenvalues are about -0.2 theta relative to its norm, while ge
// (whose components cancel to O(theta)) has a relative rounding error of about
// eps/theta, which ge ge^T/(2G) carries into M; at theta = 1e-7 both are
// below 2e-8 relative. (At theta = 0 exactly the Hessian is PSD.)
const bendProjectMin = 1e-14

// projectBendHe replaces the Hessian He of G = theta^2 in (e1, e2) by
// P(He - ge ge^T/(2G)) + ge ge^T/(2G), P the projection onto the positive
// semidefinite matrices (see BendGradHessPSD).
func projectBendHe(He *[36]float64, ge *[6]float64, G float64) {
	if G < bendProjectMin {
		return
	}
	r := 1 / (2 * G)
	for p := 0; p < 6; p++ {
		for q := 0; q < 6; q++ {
			He[p*6+q] -= r * ge[p] * ge[q]
		}
	}
	dense.ProjectPSD(He[:], 6)
	for p := 0; p < 6; p++ {
		for q := 0; q < 6; q++ {
			He[p*6+q] += r * ge[p] * ge[q]
		}
	}
}
