package eol

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// InertiaDOFs is the order of the generalized inertia of one triangle: x_a, x_b, x_c
// (3 each) then X_a, X_b, X_c (2 each).
const InertiaDOFs = 15

// InertiaBlocks returns what the generalized inertia of a triangle is made of
// (Weidner 2018 eq. 8): the scalar pattern c[i][j] = (rho A / 12)(1 + delta_ij), with
// A = |det D_X|/2 the material area and rho the area density, and the deformation
// gradient F (eq. 3). Node pair (i, j) then contributes the blocks
//
//	LL_ij = c_ij I (3x3),  LE_ij = -c_ij F (3x2),  EL_ij = -c_ij F^T,  EE_ij = c_ij F^T F,
//
// so an assembler can write them straight into a block-sparse matrix. It returns false
// when D_X is singular.
func InertiaBlocks(rho float64, x [3]dense.Vec3, X [3]dense.Vec2) (c [3][3]float64, F dense.Mat32, ok bool) {
	DX, ok := materialEdges(X)
	if !ok {
		return c, F, false
	}
	F, ok = FaceF(x, X)
	if !ok {
		return c, F, false
	}
	s := rho * math.Abs(DX.Det()) / 2 / 12
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			c[i][j] = s
		}
		c[i][i] = 2 * s
	}
	return c, F, true
}

// Inertia writes the 15x15 generalized inertia M of a triangle into M (row-major,
// DOF order of InertiaDOFs), Weidner 2018 eq. 8: M = int rho J^T J dA over the material
// triangle with J of eq. 4, so that the kinetic energy is T = 1/2 qdot^T M qdot (eq. 7).
// M is symmetric positive semidefinite; for rank-2 F its null space is the 6-dimensional
// set xdot_k = F Xdot_k (k = a, b, c), the material standing still while the mesh moves
// over it (sec. 5.2), which the constraints of this package remove. It returns false,
// and leaves M zero, when D_X is singular.
func Inertia(rho float64, x [3]dense.Vec3, X [3]dense.Vec2, M *[InertiaDOFs * InertiaDOFs]float64) bool {
	*M = [InertiaDOFs * InertiaDOFs]float64{}
	c, F, ok := InertiaBlocks(rho, x, X)
	if !ok {
		return false
	}
	FtF := F.TMul(F)
	const n = InertiaDOFs
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			cij := c[i][j]
			li, lj := 3*i, 3*j // Lagrangian offsets
			ei, ej := 9+2*i, 9+2*j
			for r := 0; r < 3; r++ {
				M[(li+r)*n+lj+r] = cij
				for s := 0; s < 2; s++ {
					M[(li+r)*n+ej+s] = -cij * F[r][s]
					M[(ej+s)*n+li+r] = -cij * F[r][s]
				}
			}
			for r := 0; r < 2; r++ {
				for s := 0; s < 2; s++ {
					M[(ei+r)*n+ej+s] = cij * FtF[r][s]
				}
			}
		}
	}
	return true
}
