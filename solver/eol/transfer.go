package eol

import (
	"errors"
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// pivotTol is the relative pivot size below which the normalized KKT system of
// TransferVelocity counts as singular.
const pivotTol = 1e-12

// TransferVelocity splits the world velocity xw of a new EOL vertex (from barycentric
// averaging where it was inserted) into Lagrangian and Eulerian parts, putting as much
// of it as possible into the Eulerian velocity (Weidner 2018 sec. 6.2 eq. 13):
//
//	minimize 1/2 |xw + F Xdot|^2  subject to  a.Xdot = 0 for each a in eq,
//
// solved through the KKT system [F^T F, A^T; A, 0] (Xdot, lambda) = (-F^T xw, 0), and
// then xdot = xw + F Xdot, so that the world velocity of the material at the vertex,
// xdot - F Xdot (LiftOffVelocity), is exactly xw. eq holds the vertex's Eulerian
// equality rows (the E of its Eq rows: none at a corner or point, one on an edge, one
// more on the border); at most 2. Before elimination the rows are normalized and F^T F
// is divided by |F|_F^2, which leaves the minimizer unchanged and makes the pivot test
// scale-free. It returns an error when there are more than 2 rows, a row is zero, or
// the system is singular (rank-deficient F with too few rows, or dependent rows).
func TransferVelocity(xw dense.Vec3, F dense.Mat32, eq []dense.Vec2) (dense.Vec3, dense.Vec2, error) {
	m := len(eq)
	if m > 2 {
		return dense.Vec3{}, dense.Vec2{}, fmt.Errorf("eol: TransferVelocity: %d Eulerian equality rows, at most 2", m)
	}
	f2 := F.FrobDot(F)
	if !(f2 > 0) || math.IsInf(f2, 0) {
		return dense.Vec3{}, dense.Vec2{}, fmt.Errorf("eol: TransferVelocity: deformation gradient with |F|^2 = %g", f2)
	}
	n := 2 + m
	var K [4][5]float64 // augmented [KKT | rhs]
	FtF := F.TMul(F)
	g := EulerianForce(xw, F) // -F^T xw
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			K[i][j] = FtF[i][j] / f2
		}
		K[i][n] = g[i] / f2
	}
	for r, a := range eq {
		na := math.Hypot(a[0], a[1])
		if !(na > 0) || math.IsInf(na, 0) {
			return dense.Vec3{}, dense.Vec2{}, fmt.Errorf("eol: TransferVelocity: Eulerian row %d is %v", r, a)
		}
		for j := 0; j < 2; j++ {
			K[2+r][j] = a[j] / na
			K[j][2+r] = a[j] / na
		}
	}
	sol, err := solveSmall(&K, n)
	if err != nil {
		return dense.Vec3{}, dense.Vec2{}, fmt.Errorf("eol: TransferVelocity: KKT system of eq. 13 with %d rows: %w", m, err)
	}
	Xd := dense.Vec2{sol[0], sol[1]}
	return xw.Add(F.MulVec(Xd)), Xd, nil
}

var errSingular = errors.New("singular")

// solveSmall solves the n x n system in the augmented matrix K (rhs in column n) by
// Gaussian elimination with partial pivoting; all entries of K are O(1), so a pivot
// below pivotTol means a singular system.
func solveSmall(K *[4][5]float64, n int) ([4]float64, error) {
	var x [4]float64
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(K[r][c]) > math.Abs(K[p][c]) {
				p = r
			}
		}
		if !(math.Abs(K[p][c]) > pivotTol) {
			return x, errSingular
		}
		K[c], K[p] = K[p], K[c]
		for r := c + 1; r < n; r++ {
			l := K[r][c] / K[c][c]
			for j := c; j <= n; j++ {
				K[r][j] -= l * K[c][j]
			}
		}
	}
	for r := n - 1; r >= 0; r-- {
		s := K[r][n]
		for j := r + 1; j < n; j++ {
			s -= K[r][j] * x[j]
		}
		x[r] = s / K[r][r]
	}
	return x, nil
}
