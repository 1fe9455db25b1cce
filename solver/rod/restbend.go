package rod

import (
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
)

// RestCurve is the rest bend of a strand whose rest shape is curved (a crimped
// weave yarn, a knit loop): SB2020 eq. 4 measures bending against a rest angle,
// V_b = k_b (theta - thetaBar)^2 / (du1 + du2), instead of against the straight
// line. Because nodes slide in u (EoL and EIL nodes), the rest angle must be
// defined for any three material points, not only at the rest nodes: the rest
// curvature is taken piecewise constant in u, kappa_k = Theta[k]/Du on the dual
// cell [(k-1/2) Du, (k+1/2) Du] of rest node k (Theta[k] its rest turning
// angle), and a bend triple (u_a, u_b, u_c) gets the rest curvature integrated
// over its own dual cell,
//
//	thetaBar(u_a, u_b, u_c) = K((u_b + u_c)/2) - K((u_a + u_b)/2),  K(u) = int_0^u kappa,
//
// which is Theta[k] exactly at three consecutive rest nodes, is continuous and
// piecewise linear in the u's (its second derivatives vanish almost
// everywhere), and carries the curvature with the material as nodes slide.
// Rest nodes spaced unevenly (NewRestCurveAt: a fabric yarn whose contact
// nodes were inserted between its evenly spaced ones) get the same
// construction with dual cells between the midpoints of their neighbours,
// kappa_k = Theta[k] / ((u_{k+1} - u_{k-1})/2).
// Only the magnitude of the bend is kept: like the twist-free rods of SB2020
// (sec. 3), the rod has no material frame, so a curved rod may turn its plane
// of bending freely.
type RestCurve struct {
	Du    float64   // rest node spacing (m); 0 for unevenly spaced rest nodes
	Theta []float64 // rest turning angle at each rest node (0 at the ends)
	cum   []float64 // cum[k] = sum_{j<k} Theta[j]: K at the start of cell k
	// Unevenly spaced rest nodes (NewRestCurveAt): bound[k] is the
	// boundary (u_k + u_{k+1})/2 between the dual cells of rest nodes k and
	// k+1, kappa[k] the rest curvature on cell k.
	bound, kappa []float64
}

// NewRestCurve returns the rest curve of rest nodes spaced du apart with rest
// turning angles theta (theta is kept, not copied).
func NewRestCurve(du float64, theta []float64) *RestCurve {
	c := &RestCurve{Du: du, Theta: theta, cum: make([]float64, len(theta)+1)}
	for k, t := range theta {
		c.cum[k+1] = c.cum[k] + t
	}
	return c
}

// NewRestCurveAt returns the rest curve of rest nodes at increasing
// material coordinates u with rest turning angles theta (theta is kept, not
// copied; theta[0] and theta[len-1] must be 0, as RestTurningAngles gives).
// Three consecutive rest nodes get theta exactly up to the rounding of the
// partial sums of theta.
func NewRestCurveAt(u, theta []float64) *RestCurve {
	n := len(theta)
	c := &RestCurve{Theta: theta, cum: make([]float64, n+1), bound: make([]float64, max(n-1, 0)), kappa: make([]float64, n)}
	for k, t := range theta {
		c.cum[k+1] = c.cum[k] + t
	}
	for k := range c.bound {
		c.bound[k] = 0.5 * (u[k] + u[k+1])
	}
	for k := 1; k+1 < n; k++ {
		c.kappa[k] = theta[k] / (c.bound[k] - c.bound[k-1])
	}
	return c
}

// RestTurningAngles returns the turning angle at each node of a polyline (0 at
// both ends): the rest angles of a strand at rest along pos.
func RestTurningAngles(pos [][3]float64) []float64 {
	th := make([]float64, len(pos))
	for k := 1; k+1 < len(pos); k++ {
		a, b, c := dense.Vec3(pos[k-1]), dense.Vec3(pos[k]), dense.Vec3(pos[k+1])
		th[k] = TurningAngle(b.Sub(a), c.Sub(b))
	}
	return th
}

// Straight reports whether rest turning angles theta are all below
// restThetaMin: a polyline straight to rounding, whose rest-curved bend
// (theta - 0)^2 is the straight bend's theta^2 and needs neither RestCurve
// nor the projection of its Hessian.
func Straight(theta []float64) bool {
	for _, t := range theta {
		if math.Abs(t) >= restThetaMin {
			return false
		}
	}
	return true
}

// integral returns K(u) = int_0^u kappa and kappa(u).
func (c *RestCurve) integral(u float64) (K, kappa float64) {
	if c.bound != nil {
		// Cell k is [bound[k-1], bound[k]); BinarySearch finds the first
		// bound >= u, which is cell k's own start when u is on it.
		k, on := slices.BinarySearch(c.bound, u)
		if on {
			k++
		}
		if k == 0 {
			return 0, 0 // kappa[0] = 0: the end node has no turning
		}
		return c.cum[k] + c.kappa[k]*(u-c.bound[k-1]), c.kappa[k]
	}
	n := len(c.Theta)
	k := int(math.Floor(u/c.Du + 0.5))
	k = max(0, min(k, n-1))
	kappa = c.Theta[k] / c.Du
	return c.cum[k] + kappa*(u-(float64(k)-0.5)*c.Du), kappa
}

// Angle returns thetaBar(u_a, u_b, u_c) and its gradient with respect to
// (u_a, u_b, u_c).
func (c *RestCurve) Angle(ua, ub, uc float64) (float64, [3]float64) {
	K0, k0 := c.integral(0.5 * (ua + ub))
	K1, k1 := c.integral(0.5 * (ub + uc))
	return K1 - K0, [3]float64{-0.5 * k0, 0.5 * (k1 - k0), 0.5 * k1}
}

// restThetaMin is the turning angle below which a curved rod's bend is treated
// as straight for the derivatives: theta = sqrt(theta^2) is a cone at 0 and
// its Hessian grows as 1/theta.
const restThetaMin = 1e-8

// BendRestEnergy returns V_b = k_b (theta - thetaBar)^2/(u_c - u_a) computed
// as BendRestGradHess computes it (the same bits), without derivatives.
func BendRestEnergy(kb float64, rc *RestCurve, xa, xb, xc dense.Vec3, ua, ub, uc float64) float64 {
	th := math.Sqrt(BendEnergyOf(1, xa, xb, xc, 0, 1))
	tb, _ := rc.Angle(ua, ub, uc)
	d := th - tb
	return kb * (d * d) / (uc - ua)
}

// BendRestGradHess returns V_b = k_b F/L, F = (theta - thetaBar)^2, L = u_c -
// u_a (SB2020 eq. 4 with the rest angle of RestCurve), and writes its exact
// gradient and Hessian in the 12-DOF order of BendGradHess; with project the
// Hessian is projected to positive semi-definite (projected Newton). With G =
// theta^2 and its derivatives in x from the straight kernel (bendGradHess with
// k_b = 1, L = 1), theta_x = G_x/(2 theta) and
//
//	F_xx = (1 - thetaBar/theta) G_xx + thetaBar/(2 theta^3) G_x G_x^T,
//	F_xu = -2 theta_x thetaBar_u^T,  F_uu = 2 thetaBar_u thetaBar_u^T,
//	V'' = k_b (F''/L - (F' L'^T + L' F'^T)/L^2 + 2 F L' L'^T/L^3).
//
// Below theta = 1e-8 (a curved rod pulled straight) theta_x is taken as 0 and
// F_xx as G_xx, the cone's tip having no derivative.
func BendRestGradHess(kb float64, rc *RestCurve, xa, xb, xc dense.Vec3, ua, ub, uc float64, project bool, g *[12]float64, H *[144]float64) float64 {
	var gG [12]float64
	var HG [144]float64
	G := bendGradHess(1, xa, xb, xc, 0, 1, false, &gG, &HG)
	th := math.Sqrt(G)
	tb, dtb := rc.Angle(ua, ub, uc)
	d := th - tb
	F := d * d
	var Fg [12]float64
	var FH [144]float64
	if th > restThetaMin {
		r := tb / (2 * th * th * th)
		for i := 0; i < 9; i++ {
			Fg[i] = d * gG[i] / th // 2 (theta - thetaBar) theta_x
			for j := 0; j < 9; j++ {
				FH[i*12+j] = (1-tb/th)*HG[i*12+j] + r*gG[i]*gG[j]
			}
			for j := 0; j < 3; j++ {
				m := -gG[i] / th * dtb[j] // -2 theta_x thetaBar_u
				FH[i*12+9+j], FH[(9+j)*12+i] = m, m
			}
		}
	} else {
		for i := 0; i < 9; i++ {
			for j := 0; j < 9; j++ {
				FH[i*12+j] = HG[i*12+j]
			}
		}
	}
	for i := 0; i < 3; i++ {
		Fg[9+i] = -2 * d * dtb[i]
		for j := 0; j < 3; j++ {
			FH[(9+i)*12+9+j] += 2 * dtb[i] * dtb[j]
		}
	}
	L := uc - ua
	Lg := [12]float64{9: -1, 11: 1}
	V := kb * F / L
	for i := 0; i < 12; i++ {
		g[i] = kb * (Fg[i]/L - F*Lg[i]/(L*L))
		for j := 0; j < 12; j++ {
			H[i*12+j] = kb * (FH[i*12+j]/L - (Fg[i]*Lg[j]+Lg[i]*Fg[j])/(L*L) + 2*F*Lg[i]*Lg[j]/(L*L*L))
		}
	}
	if project {
		dense.ProjectPSD(H[:], 12)
	}
	return V
}
