package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

func symDense15(M *[InertiaDOFs * InertiaDOFs]float64) *mat.SymDense {
	return mat.NewSymDense(InertiaDOFs, append([]float64(nil), M[:]...))
}

func splitQdot(q []float64) (xd [3]dense.Vec3, Xd [3]dense.Vec2) {
	for k := 0; k < 3; k++ {
		xd[k] = dense.Vec3{q[3*k], q[3*k+1], q[3*k+2]}
		Xd[k] = dense.Vec2{q[9+2*k], q[10+2*k]}
	}
	return xd, Xd
}

// TestInertiaIsKineticEnergy checks eq. 8 against eq. 5: the kinetic energy
// T = 1/2 int rho |xdot(X)|^2 dA of the material over the triangle, with xdot(X) from
// eq. 2 (itself checked against eq. 1 by TestWorldVelocityMatchesDerivativeOfEq1). The
// integrand is quadratic in the barycentric coordinates, so the edge-midpoint rule
// (weights A/3) integrates it exactly; 1/2 qdot^T M qdot must agree to rounding.
func TestInertiaIsKineticEnergy(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	mids := [3][3]float64{{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}}
	var M [InertiaDOFs * InertiaDOFs]float64
	for k := 0; k < 200; k++ {
		x, X := randTriangle(rng)
		rho := 0.1 + rng.Float64()
		if !Inertia(rho, x, X, &M) {
			t.Fatalf("case %d: singular", k)
		}
		F, _ := FaceF(x, X)
		e1, e2 := X[1].Sub(X[0]), X[2].Sub(X[0])
		A := math.Abs(e1[0]*e2[1]-e1[1]*e2[0]) / 2
		q := make([]float64, InertiaDOFs)
		for i := range q {
			q[i] = rng.NormFloat64()
		}
		xd, Xd := splitQdot(q)
		Tquad := 0.0
		for _, b := range mids {
			v := WorldVelocity(b, xd, Xd, F)
			Tquad += 0.5 * rho * A / 3 * v.Dot(v)
		}
		qv := mat.NewVecDense(InertiaDOFs, q)
		TM := 0.5 * mat.Inner(qv, symDense15(&M), qv)
		if math.Abs(TM-Tquad) > 1e-12*Tquad {
			t.Fatalf("case %d: 1/2 qdot^T M qdot = %.17g, quadrature = %.17g", k, TM, Tquad)
		}
		// Symmetric and positive semidefinite.
		for i := 0; i < InertiaDOFs; i++ {
			for j := 0; j < i; j++ {
				if M[i*InertiaDOFs+j] != M[j*InertiaDOFs+i] {
					t.Fatalf("case %d: M[%d][%d] = %g, M[%d][%d] = %g", k, i, j, M[i*InertiaDOFs+j], j, i, M[j*InertiaDOFs+i])
				}
			}
		}
		var es mat.EigenSym
		if !es.Factorize(symDense15(&M), false) {
			t.Fatalf("case %d: eigen-decomposition failed", k)
		}
		ev := es.Values(nil)
		if ev[0] < -1e-13*ev[InertiaDOFs-1] {
			t.Fatalf("case %d: M has eigenvalue %g (largest %g)", k, ev[0], ev[InertiaDOFs-1])
		}
	}
}

// TestInertiaNullSpace: for rank-2 F the generalized inertia is singular exactly on
// the motions xdot_k = F Xdot_k (sec. 5.2: the mesh slides while the material stays
// still). Those 6 directions are annihilated; the 7th eigenvalue is bounded away from
// zero (it is at least rho A/12 times the smallest eigenvalue 1 of I + F F^T, and the
// largest is at most 4 rho A/12 (1 + |F|^2)), and the eigenvectors of the 6 zero
// eigenvalues all have that form.
func TestInertiaNullSpace(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var M [InertiaDOFs * InertiaDOFs]float64
	for k := 0; k < 100; k++ {
		x, X := randTriangle(rng)
		if !Inertia(1, x, X, &M) {
			t.Fatalf("case %d: singular", k)
		}
		F, _ := FaceF(x, X)
		Ms := symDense15(&M)
		// Cancelling motions are annihilated.
		q := make([]float64, InertiaDOFs)
		for i := 0; i < 3; i++ {
			Xd := randVec2(rng)
			xd := F.MulVec(Xd)
			copy(q[3*i:], xd[:])
			copy(q[9+2*i:], Xd[:])
		}
		var Mq mat.VecDense
		Mq.MulVec(Ms, mat.NewVecDense(InertiaDOFs, q))
		normM := mat.Norm(Ms, 2)
		if r := mat.Norm(&Mq, 2); r > 1e-13*normM*floatsNorm(q) {
			t.Fatalf("case %d: |M qdot| = %g for a cancelling motion", k, r)
		}
		var es mat.EigenSym
		if !es.Factorize(Ms, true) {
			t.Fatalf("case %d: eigen-decomposition failed", k)
		}
		ev := es.Values(nil)
		lmax := ev[InertiaDOFs-1]
		bound := 1.0 / (4 * (1 + F.FrobDot(F)))
		for i := 0; i < 6; i++ {
			if math.Abs(ev[i]) > 1e-13*lmax {
				t.Fatalf("case %d: eigenvalue %d is %g (largest %g), want 0", k, i, ev[i], lmax)
			}
		}
		if ev[6] < 0.99*bound*lmax {
			t.Fatalf("case %d: 7th eigenvalue %g, largest %g: ratio below %g", k, ev[6], lmax, bound)
		}
		var V mat.Dense
		es.VectorsTo(&V)
		for c := 0; c < 6; c++ {
			v := mat.Col(nil, c, &V)
			for i := 0; i < 3; i++ {
				want := F.MulVec(dense.Vec2{v[9+2*i], v[10+2*i]})
				got := dense.Vec3{v[3*i], v[3*i+1], v[3*i+2]}
				if d := got.Sub(want).Norm(); d > 1e-10 {
					t.Fatalf("case %d: null vector %d node %d: xdot %v, F Xdot %v", k, c, i, got, want)
				}
			}
		}
	}
}

func floatsNorm(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

func TestInertiaBlocksMatchInertia(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	x, X := randTriangle(rng)
	var M [InertiaDOFs * InertiaDOFs]float64
	Inertia(2.5, x, X, &M)
	c, F, ok := InertiaBlocks(2.5, x, X)
	if !ok {
		t.Fatal("singular")
	}
	FtF := F.TMul(F)
	const n = InertiaDOFs
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			for r := 0; r < 3; r++ {
				for s := 0; s < 3; s++ {
					want := 0.0
					if r == s {
						want = c[i][j]
					}
					if got := M[(3*i+r)*n+3*j+s]; got != want {
						t.Fatalf("LL(%d,%d)[%d][%d] = %g, want %g", i, j, r, s, got, want)
					}
				}
				for s := 0; s < 2; s++ {
					if got, want := M[(3*i+r)*n+9+2*j+s], -c[i][j]*F[r][s]; got != want {
						t.Fatalf("LE(%d,%d)[%d][%d] = %g, want %g", i, j, r, s, got, want)
					}
				}
			}
			for r := 0; r < 2; r++ {
				for s := 0; s < 2; s++ {
					if got, want := M[(9+2*i+r)*n+9+2*j+s], c[i][j]*FtF[r][s]; got != want {
						t.Fatalf("EE(%d,%d)[%d][%d] = %g, want %g", i, j, r, s, got, want)
					}
				}
			}
		}
	}
	if !(math.Abs(c[0][0]-2*c[0][1]) < 1e-15*c[0][0]) {
		t.Fatalf("pattern %v is not (1 + delta_ij)", c)
	}
	// Degenerate material triangle.
	if Inertia(1, x, [3]dense.Vec2{{0, 0}, {1, 0}, {2, 0}}, &M) {
		t.Fatal("Inertia accepted a degenerate material triangle")
	}
	for _, v := range M {
		if v != 0 {
			t.Fatal("Inertia left non-zero entries after failing")
		}
	}
}

func TestInertiaDoesNotAllocate(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	x, X := randTriangle(rng)
	var M [InertiaDOFs * InertiaDOFs]float64
	F := []dense.Mat32{randMat32(rng), randMat32(rng), randMat32(rng)}
	w := []float64{1, 2, 3}
	n := testing.AllocsPerRun(100, func() {
		Inertia(1, x, X, &M)
		VertexF(F, w)
		_, _, _ = TransferVelocity(x[0], F[0], []dense.Vec2{X[0]})
	})
	if n != 0 {
		t.Fatalf("%g allocations per call", n)
	}
}
