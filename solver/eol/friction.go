package eol

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// FrictionFactor returns the Coulomb friction scale max(0, 1 - mu dvn / |v_T|) of
// Bridson, Fedkiw and Anderson 2002 (their friction update) as used by Weidner 2018 sec. 7: dvn >= 0
// is the change of normal velocity made by the contact response, vtNorm the magnitude
// of the tangential world velocity (Weidner 2018 eq. 2 for an EOL vertex) before
// friction. Multiplying the tangential velocity by the factor removes mu dvn of it, or
// all of it (static friction) when that is more than there is. Conventions at the edge
// of the formula: with no friction impulse (mu dvn <= 0, including a separating
// contact) the factor is 1; with vtNorm == 0 and mu dvn > 0 it is 0, the limit of the
// formula as vtNorm -> 0, so a sticking vertex keeps sticking (for an EOL vertex its
// Eulerian velocity is zeroed too, even though the world velocity was already 0).
func FrictionFactor(mu, dvn, vtNorm float64) float64 {
	impulse := mu * dvn
	if !(impulse > 0) {
		return 1
	}
	if !(vtNorm > 0) {
		return 0
	}
	return math.Max(0, 1-impulse/vtNorm)
}

// ApplyEdgeFriction applies the friction factor to an EOL vertex on a box edge
// (Weidner 2018 sec. 7): the Eulerian velocity and the component of the Lagrangian
// velocity along the edge tangent are scaled by factor; the Lagrangian components
// normal to the edge (lift-off) are kept. tangent need not be unit; a zero tangent
// leaves xd unchanged.
func ApplyEdgeFriction(factor float64, xd dense.Vec3, Xd dense.Vec2, tangent dense.Vec3) (dense.Vec3, dense.Vec2) {
	Xd = dense.Vec2{factor * Xd[0], factor * Xd[1]}
	t2 := tangent.Dot(tangent)
	if !(t2 > 0) {
		return xd, Xd
	}
	return xd.Sub(tangent.Scale((1 - factor) * xd.Dot(tangent) / t2)), Xd
}

// ApplyCornerFriction applies the friction factor to an EOL vertex on a box corner
// (Weidner 2018 sec. 7): only the Eulerian velocity is scaled, since the vertex is held
// at the corner and all tangential motion of the material is in Xdot.
func ApplyCornerFriction(factor float64, Xd dense.Vec2) dense.Vec2 {
	return dense.Vec2{factor * Xd[0], factor * Xd[1]}
}
