package eol

import "github.com/loomsim/loom/solver/dense"

// EulerianForce returns the Eulerian component f^E = -F^T f of a world force f at a
// node with deformation gradient F (Weidner 2018 eq. 9, J^T f with J = (I, -F)); the
// Lagrangian component f^L is f itself.
func EulerianForce(f dense.Vec3, F dense.Mat32) dense.Vec2 {
	return dense.Vec2{
		-(F[0][0]*f[0] + F[1][0]*f[1] + F[2][0]*f[2]),
		-(F[0][1]*f[0] + F[1][1]*f[1] + F[2][1]*f[2]),
	}
}

// MapStiffness maps the world stiffness block K = d f_i / d x_j between nodes i and j
// (deformation gradients Fi and Fj) to its Lagrangian-Eulerian blocks J_i^T K J_j with
// J = (I, -F) (Weidner 2018 eq. 10, which is the case i = j):
//
//	LL = K,  LE = -K Fj (3x2),  EL = -Fi^T K (2x3),  EE = Fi^T K Fj (2x2).
//
// LL is K itself and is not returned. EL is row-major [row][col].
func MapStiffness(K dense.Mat3, Fi, Fj dense.Mat32) (LE dense.Mat32, EL [2][3]float64, EE dense.Mat2) {
	for r := 0; r < 3; r++ {
		for s := 0; s < 2; s++ {
			LE[r][s] = -(K[r][0]*Fj[0][s] + K[r][1]*Fj[1][s] + K[r][2]*Fj[2][s])
		}
	}
	for r := 0; r < 2; r++ {
		for s := 0; s < 3; s++ {
			EL[r][s] = -(Fi[0][r]*K[0][s] + Fi[1][r]*K[1][s] + Fi[2][r]*K[2][s])
		}
	}
	// EE = Fi^T (K Fj) = -Fi^T LE.
	for r := 0; r < 2; r++ {
		for s := 0; s < 2; s++ {
			EE[r][s] = -(Fi[0][r]*LE[0][s] + Fi[1][r]*LE[1][s] + Fi[2][r]*LE[2][s])
		}
	}
	return LE, EL, EE
}
