package rod

import "github.com/loomsim/loom/solver/dense"

// UPolicy selects how a transitioning node's Eulerian coordinate is set.
type UPolicy uint8

const (
	// KeepU leaves u_b unchanged: SB2020's choice in practice (sec. 4.1), optimal
	// for collinear segments with uniform stretch (appendix, eq. 10 with theta = 0).
	KeepU UPolicy = iota
	// OptimalU uses the closed-form optimum of the appendix: eq. 8 for EoL -> EIL,
	// eq. 7 for EIL -> EoL.
	OptimalU
)

// EILToEoLU returns the optimal Eulerian coordinate of node b switching from EIL
// to EoL (SB2020 appendix eq. 7), given its neighbours a, c and the position x_b
// it jumps to (the matching node of the other rod, held fixed): the u_b that makes
// stretch uniform across b, l1/(u_b - u_a) = l2/(u_c - u_b),
//
//	u_b = (l2 u_a + l1 u_c)/(l1 + l2),   l1 = |x_a - x_b|, l2 = |x_b - x_c|.
//
// If l1 + l2 = 0 it returns ub unchanged.
func EILToEoLU(xa, xb, xc dense.Vec3, ua, ub, uc float64) float64 {
	l1 := xa.Sub(xb).Norm()
	l2 := xb.Sub(xc).Norm()
	if l1+l2 == 0 {
		return ub
	}
	return (l2*ua + l1*uc) / (l1 + l2)
}

// EoLToEILU returns the optimal Eulerian coordinate of node b switching from EoL
// to EIL (SB2020 appendix eq. 8): the u_b whose interpolated position x(u_b)
// (eq. 3) is the point of the segment [x_a, x_c] closest to x_b, which minimizes
// the new soft-constraint energy 1/2 k |x(u_b) - x_b|^2:
//
//	t = (x_a - x_c).(x_a - x_b)/|x_a - x_c|^2 clamped to [0, 1],   u_b = (1 - t) u_a + t u_c.
//
// The unclamped value is eq. 8's fraction (equivalently eq. 9 with w_a, w_c). The
// paper writes max(., u_c), which taken literally would force u_b >= u_c; we read it
// as the clamp of the projection to the segment ("the closest point to x_b along the
// segment"). If x_a = x_c it returns ub unchanged.
func EoLToEILU(xa, xb, xc dense.Vec3, ua, ub, uc float64) float64 {
	ac := xa.Sub(xc)
	den := ac.Dot(ac)
	if den == 0 {
		return ub
	}
	t := ac.Dot(xa.Sub(xb)) / den
	t = min(max(t, 0), 1)
	return (1-t)*ua + t*uc
}

// ToEIL returns the Eulerian coordinate of node b after it switches from EoL to
// EIL between neighbours a and c; its old position x_b is dropped (from now on it
// is x(u_b), eq. 3). KeepU returns ub; OptimalU returns EoLToEILU.
func ToEIL(xa, xb, xc dense.Vec3, ua, ub, uc float64, pol UPolicy) float64 {
	if pol == OptimalU {
		return EoLToEILU(xa, xb, xc, ua, ub, uc)
	}
	return ub
}

// ToEoL returns the coordinates (x_b, u_b) of node b after it switches from EIL
// to EoL between neighbours a and c. As in SB2020 sec. 4.1, x_b is initialized from
// the contact constraint (1): x_b = xo, the position of the matching contact point
// on the other rod (its node, or its interpolated position if it is EIL). A node
// without a contact partner passes xo = Interpolate(xa, xc, ua, uc, ub), which
// makes the transition invisible to the rod's geometry. KeepU keeps ub; OptimalU
// uses EILToEoLU with x_b = xo (appendix eq. 7).
func ToEoL(xa, xc, xo dense.Vec3, ua, ub, uc float64, pol UPolicy) (dense.Vec3, float64) {
	if pol == OptimalU {
		return xo, EILToEoLU(xa, xo, xc, ua, ub, uc)
	}
	return xo, ub
}
