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
// Hessian is projected to positive semidefinite (projected Newton). With d =
// theta - thetaBar and thetaBar piecewise linear in the u's (its second
// derivatives vanish), the Hessian in (e, u), e = (e1, e2) the edges, is
//
//	V'' = k_b/L (2 v v^T + [F_ee - 2 theta_e theta_e^T  0; 0 0]),  v = grad d - (d/L) grad L,
//	F_ee = 2 theta_e theta_e^T + (d/theta) M,  M = He - ge ge^T/(2G),
//
// grad d = (theta_e, -thetaBar_u), grad L = (0, -1, 0, 1), G = theta^2 with
// its derivatives ge, He in e from the straight kernel (thetaSqE), theta_e =
// ge/(2 theta); in x it is mapped by e1 = x_b - x_a, e2 = x_c - x_b. Below
// theta = 1e-8 (a curved rod pulled straight) theta_e is taken as 0 and F_ee
// as He, the cone's tip having no derivative.
//
// The Hessian annihilates the translations of the three nodes, so its
// projection onto the positive semidefinite matrices (Higham's, as
// dense.ProjectPSD of the 12x12 matrix) is that of its restriction to the 9
// coordinates orthogonal to them (projectRestBend): a 9x9 eigendecomposition
// instead of a 12x12 one. (Projecting only (d/theta) M, as BendGradHessPSD
// projects the straight bend's M, is cheaper still but took knit-sphere 3-5x
// as many Newton iterations over its first 200 steps, dropped from three
// heights, and failed at step 133 from one of them.)
func BendRestGradHess(kb float64, rc *RestCurve, xa, xb, xc dense.Vec3, ua, ub, uc float64, project bool, g *[12]float64, H *[144]float64) float64 {
	var ge [6]float64
	var Fee [36]float64
	G := thetaSqE(xa, xb, xc, &ge, &Fee) // He until replaced by F_ee
	th := math.Sqrt(G)
	tb, dtb := rc.Angle(ua, ub, uc)
	d := th - tb
	F := d * d
	L := uc - ua
	s := kb / L
	gx := edgeGrad(&ge)
	var the [6]float64 // theta_e
	if th > restThetaMin {
		m := d / th
		for p := 0; p < 6; p++ {
			the[p] = ge[p] / (2 * th)
			for q := 0; q < 6; q++ {
				r := ge[p] * ge[q] / (2 * G)
				Fee[p*6+q] = m*(Fee[p*6+q]-r) + r
			}
		}
	}
	// v's u part.
	vu := [3]float64{-dtb[0] + d/L, -dtb[1], -dtb[2] - d/L}
	*H = [144]float64{}
	if project {
		projectRestBend(&Fee, &the, &vu, s, H)
	} else {
		edgeHess(&Fee, s, H)
		thx := edgeGrad(&the)
		for i := 0; i < 3; i++ {
			for k := 0; k < 9; k++ {
				m := 2 * s * thx[k] * vu[i]
				H[k*12+9+i], H[(9+i)*12+k] = m, m
			}
			for j := 0; j < 3; j++ {
				H[(9+i)*12+9+j] = 2 * s * vu[i] * vu[j]
			}
		}
	}
	*g = [12]float64{}
	if th > restThetaMin {
		for k := range gx {
			g[k] = kb * (d * gx[k] / th / L) // k_b/L 2 (theta - thetaBar) theta_x
		}
	}
	lg := [3]float64{-1, 0, 1} // grad L in u
	for i := 0; i < 3; i++ {
		g[9+i] = kb * (-2*d*dtb[i]/L - F*lg[i]/(L*L))
	}
	return kb * F / L
}

// restBasis is an orthonormal basis of the node displacements orthogonal to
// the translations: restBasis[a][r] is node a's weight in b_r, b_1 = (-1, 1,
// 0)/sqrt 2, b_2 = (-1, -1, 2)/sqrt 6 (each times a unit axis). restEdge[p][r]
// is edge p's change along b_r (e1 = x_b - x_a, e2 = x_c - x_b).
var (
	restBasis = [3][2]float64{{-1 / math.Sqrt2, -1 / math.Sqrt(6)}, {1 / math.Sqrt2, -1 / math.Sqrt(6)}, {0, 2 / math.Sqrt(6)}}
	restEdge  = [2][2]float64{
		{restBasis[1][0] - restBasis[0][0], restBasis[1][1] - restBasis[0][1]},
		{restBasis[2][0] - restBasis[1][0], restBasis[2][1] - restBasis[1][1]},
	}
)

// projectRestBend writes into H (zeroed) the projection onto the positive
// semidefinite matrices of the rest bend's Hessian s (2 v v^T + [F_ee -
// 2 theta_e theta_e^T  0; 0 0]) (BendRestGradHess): it is written in the
// coordinates (z, u), z the node displacements along restBasis (6), where it
// is Q^T H Q for the 12x9 orthonormal Q of that basis, projected there
// (dense.ProjectPSD, 9x9) and mapped back as Q P Q^T.
func projectRestBend(Fee *[36]float64, the *[6]float64, vu *[3]float64, s float64, H *[144]float64) {
	var P [81]float64
	for r := 0; r < 2; r++ {
		for q := 0; q < 2; q++ {
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					var sum float64
					for p1 := 0; p1 < 2; p1++ {
						for p2 := 0; p2 < 2; p2++ {
							sum += restEdge[p1][r] * restEdge[p2][q] * Fee[(3*p1+i)*6+3*p2+j]
						}
					}
					P[(3*r+i)*9+3*q+j] = s * sum
				}
			}
		}
		for i := 0; i < 3; i++ {
			tz := restEdge[0][r]*the[i] + restEdge[1][r]*the[3+i]
			for k := 0; k < 3; k++ {
				m := 2 * s * tz * vu[k]
				P[(3*r+i)*9+6+k], P[(6+k)*9+3*r+i] = m, m
			}
		}
	}
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			P[(6+k)*9+6+l] = 2 * s * vu[k] * vu[l]
		}
	}
	dense.ProjectPSD(P[:], 9)
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					var sum float64
					for r := 0; r < 2; r++ {
						for q := 0; q < 2; q++ {
							sum += restBasis[a][r] * restBasis[b][q] * P[(3*r+i)*9+3*q+j]
						}
					}
					H[(3*a+i)*12+3*b+j] = sum
				}
			}
		}
		for i := 0; i < 3; i++ {
			for k := 0; k < 3; k++ {
				m := restBasis[a][0]*P[i*9+6+k] + restBasis[a][1]*P[(3+i)*9+6+k]
				H[(3*a+i)*12+9+k], H[(9+k)*12+3*a+i] = m, m
			}
		}
	}
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			H[(9+k)*12+9+l] = P[(6+k)*9+6+l]
		}
	}
}
