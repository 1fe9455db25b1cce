package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

// gonumTransfer solves eq. 13 as written, [F^T F, A^T; A, 0] (Xdot, lambda) =
// (-F^T xw, 0), with a gonum dense solve.
func gonumTransfer(xw dense.Vec3, F dense.Mat32, eq []dense.Vec2) dense.Vec2 {
	n := 2 + len(eq)
	K := mat.NewDense(n, n, nil)
	var FtF mat.Dense
	FtF.Mul(toDense32(F).T(), toDense32(F))
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			K.Set(i, j, FtF.At(i, j))
		}
	}
	for r, a := range eq {
		for j := 0; j < 2; j++ {
			K.Set(2+r, j, a[j])
			K.Set(j, 2+r, a[j])
		}
	}
	rhs := mat.NewVecDense(n, nil)
	var g mat.VecDense
	g.MulVec(toDense32(F).T(), mat.NewVecDense(3, xw[:]))
	rhs.SetVec(0, -g.AtVec(0))
	rhs.SetVec(1, -g.AtVec(1))
	var sol mat.VecDense
	if err := sol.SolveVec(K, rhs); err != nil {
		panic(err)
	}
	return dense.Vec2{sol.AtVec(0), sol.AtVec(1)}
}

// TestTransferVelocityAgainstGonum: eq. 13 with 0, 1 and 2 Eulerian equality rows
// against a dense solve; the split reproduces the world velocity through eq. 2 at the
// node, satisfies the rows, and with no rows leaves a Lagrangian velocity orthogonal to
// the cloth's tangent plane (all tangential motion went into Xdot).
func TestTransferVelocityAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(40))
	for k := 0; k < 300; k++ {
		F := randMat32(rng)
		xw := randVec3(rng)
		m := k % 3
		eq := make([]dense.Vec2, m)
		for r := range eq {
			s := 0.01 + 10*rng.Float64()
			a := randVec2(rng)
			eq[r] = dense.Vec2{s * a[0], s * a[1]}
		}
		xd, Xd, err := TransferVelocity(xw, F, eq)
		if err != nil {
			t.Fatalf("case %d: %v", k, err)
		}
		want := gonumTransfer(xw, F, eq)
		scale := xw.Norm() / math.Sqrt(F.TMul(F).Det()/F.FrobDot(F)) // |xw| over the smallest singular value, roughly
		if d := math.Hypot(Xd[0]-want[0], Xd[1]-want[1]); d > 1e-12*(1+scale) {
			t.Fatalf("case %d (%d rows): Xdot = %v, gonum %v", k, m, Xd, want)
		}
		if d := LiftOffVelocity(xd, Xd, F).Sub(xw).Norm(); d > 1e-13*(xw.Norm()+xd.Norm()) {
			t.Fatalf("case %d: xdot - F Xdot = %v, xw = %v", k, LiftOffVelocity(xd, Xd, F), xw)
		}
		for r, a := range eq {
			if v := a[0]*Xd[0] + a[1]*Xd[1]; math.Abs(v) > 1e-13*math.Hypot(a[0], a[1])*(1+math.Hypot(Xd[0], Xd[1])) {
				t.Fatalf("case %d: row %d: a.Xdot = %g", k, r, v)
			}
		}
		if m == 0 {
			g := F.TMul(dense.Mat32{{xd[0], 0}, {xd[1], 0}, {xd[2], 0}})
			if math.Hypot(g[0][0], g[1][0]) > 1e-12*frob32(F)*xd.Norm()+1e-14 {
				t.Fatalf("case %d: F^T xdot = (%g, %g), want 0", k, g[0][0], g[1][0])
			}
		}
		if m == 2 && math.Hypot(Xd[0], Xd[1]) > 1e-13*xw.Norm() {
			t.Fatalf("case %d: two independent rows leave Xdot = %v", k, Xd)
		}
	}
}

// TestTransferVelocityOnEdge: a vertex inserted on the box edge of the draped cloth
// (constraints_test.go) with world velocity xw. The equality tbar.Xdot = 0 keeps
// motion along the edge Lagrangian; motion across the edge becomes Eulerian sliding.
func TestTransferVelocityOnEdge(t *testing.T) {
	F := drapedVertexF(t)
	// Motion along the bisector normal (1, 0, -1) of the fold plus motion along the edge:
	// nothing of it lies along the crossing direction F(:, 1) = (e_x + e_z)/sqrt 2, so
	// nothing slides, and motion along the edge is Lagrangian.
	xw := dense.Vec3{0.3, 2, -0.3}
	xd, Xd, err := TransferVelocity(xw, F, []dense.Vec2{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if Xd[1] != 0 || math.Abs(Xd[0]) > 1e-15 || xd.Sub(xw).Norm() > 1e-15 {
		t.Fatalf("xdot = %v, Xdot = %v", xd, Xd)
	}
	// The material moving across the edge, -sqrt 2 F(:, 1), plus along the edge: the
	// crossing part becomes Eulerian sliding, Xdot = (sqrt 2, 0), which cancels it in
	// xdot = xw + F Xdot.
	xw = dense.Vec3{-1, 2, -1}
	xd, Xd, err = TransferVelocity(xw, F, []dense.Vec2{{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	want := dense.Vec2{math.Sqrt2, 0}
	if math.Hypot(Xd[0]-want[0], Xd[1]-want[1]) > 1e-15 || xd.Sub(dense.Vec3{0, 2, 0}).Norm() > 1e-15 {
		t.Fatalf("xdot = %v, Xdot = %v; want xdot (0 2 0), Xdot %v", xd, Xd, want)
	}
}

func TestTransferVelocityErrors(t *testing.T) {
	F := dense.Mat32{{1, 0}, {0, 1}, {0, 0}}
	rank1 := dense.Outer32(dense.Vec3{1, 2, 3}, dense.Vec2{1, -1})
	xw := dense.Vec3{1, 2, 3}
	cases := []struct {
		name string
		F    dense.Mat32
		eq   []dense.Vec2
	}{
		{"three rows", F, []dense.Vec2{{1, 0}, {0, 1}, {1, 1}}},
		{"zero row", F, []dense.Vec2{{0, 0}}},
		{"dependent rows", F, []dense.Vec2{{1, 2}, {-2, -4}}},
		{"rank-1 F, no rows", rank1, nil},
		{"rank-1 F, row leaving its null direction (1, 1) free", rank1, []dense.Vec2{{1, -1}}},
		{"zero F", dense.Mat32{}, nil},
	}
	for _, c := range cases {
		if _, _, err := TransferVelocity(xw, c.F, c.eq); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// Rank-1 F with a row that removes its null direction (1, 1) is regular.
	if _, _, err := TransferVelocity(xw, rank1, []dense.Vec2{{1, 1}}); err != nil {
		t.Errorf("rank-1 F with a row across its null direction: %v", err)
	}
}
