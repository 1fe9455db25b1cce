package developable

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGhostReproducesConforming: on the midpoints of any vertex positions
// (a conforming configuration), every face extrapolates each corner to the
// vertex itself, so A x_n gives the positions back.
func TestGhostReproducesConforming(t *testing.T) {
	m, x0 := grid(t, 7, 1)
	g, err := NewGhost(m)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range x0 {
		x0[i] += 0.2 * rng.NormFloat64()
	}
	xc := make([]float64, len(x0))
	g.Map(m.Midpoints(x0), xc)
	for i := range xc {
		if math.Abs(xc[i]-x0[i]) > 1e-14 {
			t.Fatalf("coordinate %d: ghost %v, vertex %v", i, xc[i], x0[i])
		}
	}
}

// TestGhostCorrection: after Correct, A x_n equals the requested ghost
// positions; the change is A^T lambda (orthogonal to the null space of A,
// checked by comparing with the least-norm change computed densely by
// normal equations on a tiny mesh), the velocity changes by vscale times
// it, and an unchanged ghost mesh changes nothing.
func TestGhostCorrection(t *testing.T) {
	m, x0 := grid(t, 4, 1)
	g, err := NewGhost(m)
	if err != nil {
		t.Fatal(err)
	}
	xn := m.Midpoints(x0)
	xc := make([]float64, len(x0))
	g.Map(xn, xc)
	v := make([]float64, len(xn))
	if g.Correct(append([]float64(nil), xn...), v, xc, 1) {
		t.Errorf("an unchanged ghost mesh reported a correction")
	}
	want := append([]float64(nil), xc...)
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range want {
		want[i] += 0.01 * rng.NormFloat64()
	}
	x := append([]float64(nil), xn...)
	if !g.Correct(x, v, want, 2) {
		t.Fatal("no correction reported")
	}
	got := make([]float64, len(want))
	g.Map(x, got)
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("ghost coordinate %d: %v after correction, want %v", i, got[i], want[i])
		}
	}
	for i := range x {
		if math.Abs(v[i]-2*(x[i]-xn[i])) > 1e-15 {
			t.Fatalf("velocity %d changed by %v, position by %v (vscale 2)", i, v[i], x[i]-xn[i])
		}
	}
	// Least norm: the change is orthogonal to every null vector of A. A
	// null vector: move the three midpoints of one interior face's... use
	// random vectors projected by Gram-Schmidt against A's rows instead.
	nv, ne := m.NumVerts, m.NumEdges()
	rows := make([][]float64, nv)
	for u := range nv {
		rows[u] = make([]float64, ne)
		for _, en := range m.vertexRow(int32(u)) {
			rows[u][en.edge] = en.w
		}
	}
	basis := gramSchmidt(rows)
	for trial := range 5 {
		z := make([]float64, ne)
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		for _, q := range basis {
			d := dot(q, z)
			for i := range z {
				z[i] -= d * q[i]
			}
		}
		// z is in the null space of A; the change per coordinate must be
		// orthogonal to it.
		for c := range 3 {
			d := 0.0
			for e := range ne {
				d += z[e] * (x[3*e+c] - xn[3*e+c])
			}
			if math.Abs(d) > 1e-12 {
				t.Fatalf("trial %d coordinate %d: the change has component %g along a null vector of A", trial, c, d)
			}
		}
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// gramSchmidt returns an orthonormal basis of the span of rows.
func gramSchmidt(rows [][]float64) [][]float64 {
	var out [][]float64
	for _, r := range rows {
		q := append([]float64(nil), r...)
		for _, p := range out {
			d := dot(p, q)
			for i := range q {
				q[i] -= d * p[i]
			}
		}
		if n := math.Sqrt(dot(q, q)); n > 1e-10 {
			for i := range q {
				q[i] /= n
			}
			out = append(out, q)
		}
	}
	return out
}

// TestMeshErrors: bad meshes are errors naming the problem.
func TestMeshErrors(t *testing.T) {
	u := [3][2]float64{{0, 0}, {1, 0}, {0, 1}}
	for _, c := range []struct {
		faces [][3]int32
		fu    [][3][2]float64
		want  string
	}{
		{[][3]int32{{0, 1, 5}}, [][3][2]float64{u}, "out of range"},
		{[][3]int32{{0, 1, 1}}, [][3][2]float64{u}, "repeats"},
		{[][3]int32{{0, 1, 2}}, [][3][2]float64{{{0, 0}, {0, 1}, {1, 0}}}, "non-positive rest area"},
		{[][3]int32{{0, 1, 2}, {1, 0, 3}, {0, 1, 4}}, [][3][2]float64{u, u, u}, "non-manifold"},
		{[][3]int32{{0, 1, 2}}, nil, "rest triples"},
	} {
		_, err := NewMesh(5, c.faces, c.fu)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("faces %v: error %v, want one containing %q", c.faces, err, c.want)
		}
	}
}

// TestTubeMesh: a tube (the seam's vertices shared, as a scene's tube body
// is spawned) is a nonconforming mesh like a sheet's: only its two end
// rings are border, the seam's edges are interior, the ghost map
// reproduces the vertex positions through the seam's faces too, and a
// prism isometric to the rest strip (cells as wide as the prism's sides)
// has no in-plane error.
func TestTubeMesh(t *testing.T) {
	const n, rows, r, h = 8, 4, 0.2, 0.1
	side := 2 * r * math.Sin(math.Pi/n)
	at := func(i, j int) int32 { return int32(j*n + i%n) }
	var faces [][3]int32
	var fu [][3][2]float64
	for j := 0; j < rows-1; j++ {
		for i := 0; i < n; i++ {
			// Corner material coordinates unwrapped across the seam: the
			// last column's right corners at u = n*side, not 0.
			c := [4][2]float64{{float64(i) * side, float64(j) * h}, {float64(i+1) * side, float64(j) * h},
				{float64(i+1) * side, float64(j+1) * h}, {float64(i) * side, float64(j+1) * h}}
			v := [4]int32{at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)}
			faces = append(faces, [3]int32{v[0], v[1], v[2]}, [3]int32{v[0], v[2], v[3]})
			fu = append(fu, [3][2]float64{c[0], c[1], c[2]}, [3][2]float64{c[0], c[2], c[3]})
		}
	}
	m, err := NewMesh(n*rows, faces, fu)
	if err != nil {
		t.Fatal(err)
	}
	for v := range n * rows {
		if end := v < n || v >= n*(rows-1); m.Boundary[v] != end {
			t.Errorf("vertex %d (row %d): border %v, want %v", v, v/n, m.Boundary[v], end)
		}
	}
	x := make([]float64, 3*n*rows)
	for v := range n * rows {
		a := 2 * math.Pi * float64(v%n) / n
		x[3*v], x[3*v+1], x[3*v+2] = r*math.Cos(a), r*math.Sin(a), h*float64(v/n)
	}
	mid := m.Midpoints(x)
	if e := m.InPlaneError(mid); e > 1e-12 {
		t.Errorf("in-plane error of the isometric prism %g, want 0", e)
	}
	g, err := NewGhost(m)
	if err != nil {
		t.Fatal(err)
	}
	xc := make([]float64, len(x))
	g.Map(mid, xc)
	for i := range xc {
		if math.Abs(xc[i]-x[i]) > 1e-14 {
			t.Fatalf("coordinate %d: ghost %v, vertex %v", i, xc[i], x[i])
		}
	}
}
