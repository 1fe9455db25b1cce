package rod

import "github.com/loomsim/loom/solver/dense"

// SegmentMass writes the generalized mass matrix M (row-major 8x8, DOF order
// x_a(3), x_b(3), u_a, u_b) of the rod segment between consecutive non-EIL nodes
// a, b (SB2020 sec. 4.3; kinetic energy of Cirio et al. 2014, Sueda et al. 2011).
//
// Derivation. With s in [0, 1] and N = (1 - s, s), the segment is x(s) = N_1 x_a +
// N_2 x_b and the material point at s has u(s) = N_1 u_a + N_2 u_b. The world
// velocity of the material point with fixed u is q-dot times
//
//	J(s) = [N_1 I, N_2 I, -N_1 F, -N_2 F],   F = dx/du = (x_b - x_a)/(u_b - u_a)
//
// (the 1D analogue of Weidner et al. 2018 eq. 4/8), and with mass density rho per
// unit rest length, T = 1/2 q-dot^T M q-dot with M = int_{u_a}^{u_b} rho J^T J du =
// rho du int_0^1 J^T J ds. Using int N_1^2 = int N_2^2 = 1/3, int N_1 N_2 = 1/6 and
// m = rho du:
//
//	M = m/6 [[2I, I, -2F, -F], [I, 2I, -F, -2F], [-2F^T, -F^T, 2|F|^2, |F|^2], [-F^T, -2F^T, |F|^2, 2|F|^2]].
//
// M is PSD of rank 6; its null space is spanned by the two "cancelling" motions
// x_a-dot = F u_a-dot (node a only) and x_b-dot = F u_b-dot (node b only), which
// slide a node along the rod without moving any material point. u_b > u_a is
// required.
func SegmentMass(xa, xb dense.Vec3, ua, ub, rho float64, M *[64]float64) {
	du := ub - ua
	m6 := rho * du / 6
	F := xb.Sub(xa).Scale(1 / du)
	FF := F.Dot(F)
	*M = [64]float64{}
	for i := 0; i < 3; i++ {
		M[i*8+i] = 2 * m6
		M[(3+i)*8+3+i] = 2 * m6
		M[i*8+3+i] = m6
		M[(3+i)*8+i] = m6
		// x_a - u_a: -2F/6 m; x_a - u_b: -F; x_b - u_a: -F; x_b - u_b: -2F.
		M[i*8+6], M[6*8+i] = -2*m6*F[i], -2*m6*F[i]
		M[i*8+7], M[7*8+i] = -m6*F[i], -m6*F[i]
		M[(3+i)*8+6], M[6*8+3+i] = -m6*F[i], -m6*F[i]
		M[(3+i)*8+7], M[7*8+3+i] = -2*m6*F[i], -2*m6*F[i]
	}
	M[6*8+6], M[7*8+7] = 2*m6*FF, 2*m6*FF
	M[6*8+7], M[7*8+6] = m6*FF, m6*FF
}
