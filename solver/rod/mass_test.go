package rod

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// 5-point Gauss-Legendre rule on [0, 1] (exact to degree 9; J^T J is degree 2 in s).
var glX, glW = func() ([5]float64, [5]float64) {
	x := [5]float64{-0.9061798459386640, -0.5384693101056831, 0, 0.5384693101056831, 0.9061798459386640}
	w := [5]float64{0.2369268850561891, 0.4786286704993665, 0.5688888888888889, 0.4786286704993665, 0.2369268850561891}
	for i := range x {
		x[i] = 0.5 * (x[i] + 1)
		w[i] *= 0.5
	}
	return x, w
}()

// quadMass integrates rho J^T J du over the segment numerically, J from its
// definition (the velocity of the material point at fixed u).
func quadMass(xa, xb dense.Vec3, ua, ub, rho float64) [64]float64 {
	var M [64]float64
	du := ub - ua
	F := xb.Sub(xa).Scale(1 / du)
	for k := range glX {
		s := glX[k]
		var J [3][8]float64
		for i := 0; i < 3; i++ {
			J[i][i] = 1 - s
			J[i][3+i] = s
			J[i][6] = -(1 - s) * F[i]
			J[i][7] = -s * F[i]
		}
		for a := 0; a < 8; a++ {
			for b := 0; b < 8; b++ {
				M[a*8+b] += glW[k] * rho * du * (J[0][a]*J[0][b] + J[1][a]*J[1][b] + J[2][a]*J[2][b])
			}
		}
	}
	return M
}

func TestSegmentMass(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	worstQ, worstNull, worstSpan := 0.0, 0.0, 0.0
	for k := 0; k < 500; k++ {
		xa := randVec3(rng, 1)
		ua := rng.NormFloat64()
		du := 0.05 + 2*rng.Float64()
		xb := xa.Add(randUnit(rng).Scale(du * (0.5 + rng.Float64())))
		rho := 0.1 + rng.Float64()
		var M [64]float64
		SegmentMass(xa, xb, ua, ua+du, rho, &M)
		Q := quadMass(xa, xb, ua, ua+du, rho)
		e := diffNorm(M[:], Q[:]) / norm(Q[:])
		worstQ = math.Max(worstQ, e)
		if e > 1e-14 {
			t.Fatalf("case %d: closed form vs quadrature rel err %g", k, e)
		}
		// Null space: exactly the two cancelling motions x' = F u' per node.
		var w [8]float64
		var q [64]float64
		dense.EigenSym(M[:], 8, w[:], q[:])
		idx := []int{0, 1, 2, 3, 4, 5, 6, 7}
		sort.Slice(idx, func(i, j int) bool { return w[idx[i]] < w[idx[j]] })
		wmax := w[idx[7]]
		if math.Abs(w[idx[0]]) > 1e-13*wmax || math.Abs(w[idx[1]]) > 1e-13*wmax {
			t.Fatalf("case %d: expected two zero eigenvalues, got %v", k, w)
		}
		if w[idx[2]] < 1e-4*wmax {
			t.Fatalf("case %d: third eigenvalue %g too small (null space > 2)", k, w[idx[2]])
		}
		F := xb.Sub(xa).Scale(1 / du)
		n1 := [8]float64{F[0], F[1], F[2], 0, 0, 0, 1, 0}
		n2 := [8]float64{0, 0, 0, F[0], F[1], F[2], 0, 1}
		for _, nv := range [][8]float64{n1, n2} {
			var Mv [8]float64
			for a := 0; a < 8; a++ {
				for b := 0; b < 8; b++ {
					Mv[a] += M[a*8+b] * nv[b]
				}
			}
			r := norm(Mv[:]) / (wmax * norm(nv[:]))
			worstNull = math.Max(worstNull, r)
			if r > 1e-14 {
				t.Fatalf("case %d: M n = %v", k, Mv)
			}
		}
		// The numerical null eigenvectors lie in span{n1, n2} (n1 is orthogonal to n2).
		for _, c := range idx[:2] {
			var v [8]float64
			for a := 0; a < 8; a++ {
				v[a] = q[a*8+c]
			}
			var res [8]float64
			copy(res[:], v[:])
			for _, nv := range [][8]float64{n1, n2} {
				pr := 0.0
				nn := 0.0
				for a := range v {
					pr += v[a] * nv[a]
					nn += nv[a] * nv[a]
				}
				for a := range res {
					res[a] -= pr / nn * nv[a]
				}
			}
			r := norm(res[:])
			worstSpan = math.Max(worstSpan, r)
			if r > 1e-8 {
				t.Fatalf("case %d: null eigenvector outside span{n1,n2}: residual %g", k, r)
			}
		}
		// Pure translation has kinetic energy 1/2 m |v|^2, m = rho du.
		vel := randVec3(rng, 1)
		qd := [8]float64{vel[0], vel[1], vel[2], vel[0], vel[1], vel[2], 0, 0}
		T := 0.0
		for a := 0; a < 8; a++ {
			for b := 0; b < 8; b++ {
				T += 0.5 * qd[a] * M[a*8+b] * qd[b]
			}
		}
		if want := 0.5 * rho * du * vel.Dot(vel); math.Abs(T-want) > 1e-13*want {
			t.Fatalf("translation KE %g want %g", T, want)
		}
	}
	t.Logf("mass: quadrature rel err %.3g, |M n|/(lmax|n|) %.3g, null-eigvec residual %.3g", worstQ, worstNull, worstSpan)
}
