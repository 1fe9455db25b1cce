package strainlimit

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/loomsim/loom/solver/dense"
)

// TestJacobiSingleFace: for one face a Jacobi sweep is the exact projection:
// a uniform 1.2 stretch becomes the 1.05 scaling about the mass-weighted
// centroid in one sweep, for any masses; an anisotropic stretch keeps its
// in-limit direction.
func TestJacobiSingleFace(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	X := [3]dense.Vec2{{0.1, 0.2}, {1.3, 0.1}, {0.4, 0.9}}
	for trial := 0; trial < 3; trial++ {
		R := randRotation(rng)
		tr := randVec3(rng)
		var x [3]dense.Vec3
		for a := range x {
			x[a] = embed(R, dense.Mat2{{1.2, 0}, {0, 1.2}}, tr, X[a])
		}
		p := singleTriangle(t, X, x, [3]float64{0.5 + rng.Float64(), 0.5 + rng.Float64(), 0.5 + rng.Float64()})
		c0 := centroid(p.X, p.Mass)
		res, err := Jacobi(p, JacobiSettings{Tolerance: 1e-12}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.OuterIterations != 1 || !res.Converged {
			t.Errorf("trial %d: %+v", trial, res)
		}
		for a := range p.X {
			want := c0.Add(x[a].Sub(c0).Scale(1.05 / 1.2))
			if d := p.X[a].Sub(want).Norm(); d > 1e-14 {
				t.Errorf("trial %d: corner %d is %g from the projection", trial, a, d)
			}
		}
	}
	// Anisotropic: stretch 1.3 along material x, 1.02 along y.
	var x [3]dense.Vec3
	for a := range x {
		x[a] = dense.Vec3{1.3 * X[a][0], 1.02 * X[a][1], 0.5}
	}
	p := singleTriangle(t, X, x, [3]float64{1, 2, 3})
	if _, err := Jacobi(p, JacobiSettings{}, nil); err != nil {
		t.Fatal(err)
	}
	s := singular(p, 0)
	if math.Abs(s[0]-1.05) > 1e-14 || math.Abs(s[1]-1.02) > 1e-14 {
		t.Errorf("anisotropic: singular values %v, want 1.05 1.02", s)
	}
}

// TestJacobiPinned: a face with a pinned corner is projected about that
// corner, which does not move.
func TestJacobiPinned(t *testing.T) {
	X := [3]dense.Vec2{{0, 0}, {1, 0}, {0, 1}}
	x := [3]dense.Vec3{{0.3, 0.1, 0}, {1.5, 0.1, 0}, {0.3, 1.3, 0}}
	p := singleTriangle(t, X, x, [3]float64{1, 1, 1})
	p.Fixed = []bool{false, true, false}
	if _, err := Jacobi(p, JacobiSettings{}, nil); err != nil {
		t.Fatal(err)
	}
	if p.X[1] != x[1] {
		t.Errorf("pinned corner moved to %v", p.X[1])
	}
	s := singular(p, 0)
	if math.Abs(s[0]-1.05) > 1e-14 || math.Abs(s[1]-1.05) > 1e-14 {
		t.Errorf("singular values %v, want 1.05 1.05", s)
	}
	want := x[1].Add(x[0].Sub(x[1]).Scale(1.05 / 1.2))
	if d := p.X[0].Sub(want).Norm(); d > 1e-14 {
		t.Errorf("corner 0 is %g from the projection about the pinned corner", d)
	}
}

// TestJacobiFigure7Small: Jacobi converges on a coarse Fig. 7 mesh and its
// violation trace starts at the initial violation and ends at the result.
func TestJacobiFigure7Small(t *testing.T) {
	p, err := Figure7(4)
	if err != nil {
		t.Fatal(err)
	}
	var first, last float64
	iters := 0
	res, err := Jacobi(p, JacobiSettings{MaxIterations: 20000, Trace: func(it int, _ time.Duration, v float64) {
		if it == 0 {
			first = v
		}
		last, iters = v, it
	}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || iters != res.OuterIterations || last != res.MaxViolation {
		t.Errorf("%+v; trace ended at iteration %d with %g", res, iters, last)
	}
	if v := independentMaxViolation(p); v > DefaultTolerance || first < 0.4 {
		t.Errorf("violation %g -> %g", first, v)
	}
}

// TestFigure7 checks what Figure7 builds.
func TestFigure7(t *testing.T) {
	const n = 10
	p, err := Figure7(n)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Faces) != 2*n*n || len(p.X) != (n+1)*(n+1) {
		t.Fatalf("%d faces, %d nodes", len(p.Faces), len(p.X))
	}
	M := 0.0
	for _, m := range p.Mass {
		M += m
	}
	if math.Abs(M-Figure7Density) > 1e-15 {
		t.Errorf("total mass %g, want %g", M, Figure7Density)
	}
	// Bottom edge stretched to 1.5, top edge compressed to 0.5.
	if d := p.X[n][0] - p.X[0][0]; math.Abs(d-1.5) > 1e-15 {
		t.Errorf("bottom edge length %g", d)
	}
	top := n * (n + 1)
	if d := p.X[top+n][0] - p.X[top][0]; math.Abs(d-0.5) > 1e-15 {
		t.Errorf("top edge length %g", d)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range p.Faces {
		e := singular(p, j)
		lo, hi = math.Min(lo, e[1]-1), math.Max(hi, e[0]-1)
	}
	// Continuum extremes (see Figure7's doc): +0.6283 at the stretched
	// corners, -0.5630 at the compressed ones; faces sample near them.
	if hi < 0.55 || hi > 0.6284 || lo > -0.5 || lo < -0.5631 {
		t.Errorf("strain range [%g, %g], want about [-0.563, 0.628]", lo, hi)
	}
	if _, err := Figure7(0); err == nil {
		t.Error("Figure7(0) accepted")
	}
}
