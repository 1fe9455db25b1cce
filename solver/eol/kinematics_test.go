package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

// gonumBary returns the barycentric coordinates of p in X from a gonum solve of
// (X_a X_b X_c; 1 1 1) bary = (p; 1), independent of Barycentric.
func gonumBary(X [3]dense.Vec2, p dense.Vec2) [3]float64 {
	A := mat.NewDense(3, 3, []float64{
		X[0][0], X[1][0], X[2][0],
		X[0][1], X[1][1], X[2][1],
		1, 1, 1,
	})
	var b mat.VecDense
	if err := b.SolveVec(A, mat.NewVecDense(3, []float64{p[0], p[1], 1})); err != nil {
		panic(err)
	}
	return [3]float64{b.AtVec(0), b.AtVec(1), b.AtVec(2)}
}

func TestFaceFMapsEdges(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for k := 0; k < 200; k++ {
		x, X := randTriangle(rng)
		F, ok := FaceF(x, X)
		if !ok {
			t.Fatalf("case %d: FaceF reported a singular D_X", k)
		}
		// eq. 3: F maps material edges onto world edges.
		for _, e := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
			got := F.MulVec(X[e[1]].Sub(X[e[0]]))
			want := x[e[1]].Sub(x[e[0]])
			if d := got.Sub(want).Norm(); d > 1e-12*(1+want.Norm()) {
				t.Fatalf("case %d edge %v: F dX = %v, dx = %v", k, e, got, want)
			}
		}
	}
	// Collinear material points: singular.
	x, _ := randTriangle(rng)
	X := [3]dense.Vec2{{0, 0}, {1, 1}, {3, 3}}
	if _, ok := FaceF(x, X); ok {
		t.Fatal("FaceF accepted a degenerate material triangle")
	}
	if _, ok := Barycentric(X, dense.Vec2{1, 0}); ok {
		t.Fatal("Barycentric accepted a degenerate material triangle")
	}
}

func TestBarycentricAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for k := 0; k < 200; k++ {
		_, X := randTriangle(rng)
		p := randVec2(rng)
		got, ok := Barycentric(X, p)
		if !ok {
			t.Fatalf("case %d: singular", k)
		}
		want := gonumBary(X, p)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
				t.Fatalf("case %d: Barycentric = %v, gonum = %v", k, got, want)
			}
		}
	}
}

// TestWorldVelocityMatchesDerivativeOfEq1 differentiates eq. 1 by central differences:
// a fixed material point X_p sits at world position x_p(t) = sum_k bary_k(X(t); X_p) x_k(t)
// while both the nodes (x(t) = x + t xdot) and their material coordinates
// (X(t) = X + t Xdot) move; d x_p/dt at t = 0 must equal eq. 2. The central difference
// has truncation error O(h^2) ~ 1e-12 and rounding error O(eps/h) ~ 1e-10, so a relative
// tolerance of 1e-8 has margin; dropping or flipping the F term misses by O(1).
func TestWorldVelocityMatchesDerivativeOfEq1(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const h = 1e-6
	for k := 0; k < 200; k++ {
		x, X := randTriangle(rng)
		var xd [3]dense.Vec3
		var Xd [3]dense.Vec2
		for i := 0; i < 3; i++ {
			xd[i] = randVec3(rng)
			Xd[i] = randVec2(rng)
		}
		// A material point strictly inside the triangle.
		b0 := [3]float64{rng.Float64() + 0.1, rng.Float64() + 0.1, rng.Float64() + 0.1}
		s := b0[0] + b0[1] + b0[2]
		var Xp dense.Vec2
		for i := 0; i < 3; i++ {
			Xp[0] += b0[i] / s * X[i][0]
			Xp[1] += b0[i] / s * X[i][1]
		}
		pos := func(t float64) dense.Vec3 {
			var xt [3]dense.Vec3
			var Xt [3]dense.Vec2
			for i := 0; i < 3; i++ {
				xt[i] = x[i].Add(xd[i].Scale(t))
				Xt[i] = dense.Vec2{X[i][0] + t*Xd[i][0], X[i][1] + t*Xd[i][1]}
			}
			b := gonumBary(Xt, Xp)
			return xt[0].Scale(b[0]).Add(xt[1].Scale(b[1])).Add(xt[2].Scale(b[2])) // eq. 1
		}
		fd := pos(h).Sub(pos(-h)).Scale(1 / (2 * h))
		F, ok := FaceF(x, X)
		if !ok {
			t.Fatalf("case %d: singular", k)
		}
		bary, _ := Barycentric(X, Xp)
		got := WorldVelocity(bary, xd, Xd, F)
		if d := got.Sub(fd).Norm(); d > 1e-8*fd.Norm() {
			t.Fatalf("case %d: eq. 2 gives %v, d/dt of eq. 1 gives %v (|diff| = %g)", k, got, fd, d)
		}
		// At a node, eq. 2 reduces to J = (I, -F): LiftOffVelocity.
		for i := 0; i < 3; i++ {
			var e [3]float64
			e[i] = 1
			node := WorldVelocity(e, xd, Xd, F)
			if d := node.Sub(LiftOffVelocity(xd[i], Xd[i], F)).Norm(); d > 1e-14*(1+node.Norm()) {
				t.Fatalf("case %d node %d: WorldVelocity %v, LiftOffVelocity %v", k, i, node, LiftOffVelocity(xd[i], Xd[i], F))
			}
		}
	}
}
