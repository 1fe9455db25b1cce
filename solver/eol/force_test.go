package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

// TestForceMapsAreJacobianTransposes builds J = (I, -F) densely (eq. 4 at a node) and
// checks eq. 9, (f; -F^T f) = J^T f, and eq. 10 for a node pair, the blocks of
// J_i^T K J_j.
func TestForceMapsAreJacobianTransposes(t *testing.T) {
	rng := rand.New(rand.NewSource(20))
	for k := 0; k < 200; k++ {
		Fi, Fj := randMat32(rng), randMat32(rng)
		f := randVec3(rng)
		var g mat.VecDense
		g.MulVec(nodeJ(Fi).T(), mat.NewVecDense(3, f[:]))
		fE := EulerianForce(f, Fi)
		for i := 0; i < 3; i++ {
			if g.AtVec(i) != f[i] {
				t.Fatalf("case %d: J^T f Lagrangian part %v, f %v", k, mat.Formatted(&g), f)
			}
		}
		for i := 0; i < 2; i++ {
			if d := math.Abs(g.AtVec(3+i) - fE[i]); d > 1e-14*(1+math.Abs(fE[i])) {
				t.Fatalf("case %d: J^T f Eulerian part %v, EulerianForce %v", k, mat.Formatted(&g), fE)
			}
		}
		var K dense.Mat3
		for i := range K {
			for j := range K[i] {
				K[i][j] = rng.NormFloat64()
			}
		}
		var JK, G mat.Dense
		JK.Mul(nodeJ(Fi).T(), mat3ToDense(K))
		G.Mul(&JK, nodeJ(Fj))
		LE, EL, EE := MapStiffness(K, Fi, Fj)
		var H [5][5]float64
		for r := 0; r < 3; r++ {
			for s := 0; s < 3; s++ {
				H[r][s] = K[r][s]
			}
			for s := 0; s < 2; s++ {
				H[r][3+s] = LE[r][s]
				H[3+s][r] = EL[s][r]
			}
		}
		for r := 0; r < 2; r++ {
			for s := 0; s < 2; s++ {
				H[3+r][3+s] = EE[r][s]
			}
		}
		for r := 0; r < 5; r++ {
			for s := 0; s < 5; s++ {
				if d := math.Abs(H[r][s] - G.At(r, s)); d > 1e-13*(1+math.Abs(G.At(r, s))) {
					t.Fatalf("case %d: block entry (%d,%d) = %g, J_i^T K J_j has %g", k, r, s, H[r][s], G.At(r, s))
				}
			}
		}
	}
}

// TestMappedForceDoesNoWorkOnCancellingMotion: a cancelling motion (xdot = F Xdot)
// leaves the material at rest, so a mapped force does no work on it,
// f.xdot + f^E.Xdot = 0 (sec. 5.2), and the mapped stiffness has it in its null space.
func TestMappedForceDoesNoWorkOnCancellingMotion(t *testing.T) {
	rng := rand.New(rand.NewSource(21))
	for k := 0; k < 100; k++ {
		F := randMat32(rng)
		f := randVec3(rng)
		Xd := randVec2(rng)
		xd := F.MulVec(Xd)
		fE := EulerianForce(f, F)
		work := f.Dot(xd) + fE[0]*Xd[0] + fE[1]*Xd[1]
		if math.Abs(work) > 1e-13*f.Norm()*xd.Norm() {
			t.Fatalf("case %d: work %g on a cancelling motion", k, work)
		}
		var K dense.Mat3
		for i := range K {
			for j := range K[i] {
				K[i][j] = rng.NormFloat64()
			}
		}
		LE, EL, EE := MapStiffness(K, F, F)
		lag := K.MulVec(xd).Add(LE.MulVec(Xd))
		eul := EE.MulVec(Xd)
		for r := 0; r < 2; r++ {
			eul[r] += EL[r][0]*xd[0] + EL[r][1]*xd[1] + EL[r][2]*xd[2]
		}
		if n := math.Hypot(lag.Norm(), math.Hypot(eul[0], eul[1])); n > 1e-12*(1+xd.Norm()) {
			t.Fatalf("case %d: mapped stiffness times a cancelling motion = %v %v", k, lag, eul)
		}
	}
}
