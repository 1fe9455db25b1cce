package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestMeshDepthApexThroughFace: an octahedron's apex through a large
// horizontal cloth face between its vertices reads how far it stands out,
// and nothing once the face is above it.
func TestMeshDepthApexThroughFace(t *testing.T) {
	pos := []float64{1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1, 0, 0, 0, 1, 0, 0, -1}
	faces := []int32{0, 2, 4, 2, 1, 4, 1, 3, 4, 3, 0, 4, 2, 0, 5, 1, 2, 5, 3, 1, 5, 0, 3, 5}
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	s := Shape{Kind: Mesh, Mesh: m}
	for _, d := range []float64{1e-4, 0.003, 0.2, -0.01} {
		z := 1 - d
		a, b, c := dense.Vec3{-3, -2, z}, dense.Vec3{3, -2, z}, dense.Vec3{0.1, 3, z}
		got := ShapeTriangleDepth(&s, dense.Vec3{}, a, b, c)
		if want := math.Max(d, 0); math.Abs(got-want) > 1e-12 {
			t.Errorf("apex %v through the face: depth %v", d, got)
		}
		// Its vertices are all outside: only the surface measure sees it.
		for _, p := range []dense.Vec3{a, b, c} {
			if dd, _ := SignedDistance(&s, dense.Vec3{}, p); dd < 0 {
				t.Fatalf("corner %v inside", p)
			}
		}
	}
}

// TestMeshDepthMatchesBoxAtEdges: a box as 12 triangles and the analytic
// box give the same depth for large tilted faces that a box edge pokes
// through between their vertices (where the box measure's shortest way out
// is along the face's normal).
func TestMeshDepthMatchesBoxAtEdges(t *testing.T) {
	pos, faces := cubeMesh()
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	rot := dense.QuatExp(dense.Vec3{0.2, -0.1, 0.4}).Mat()
	mesh := Shape{Kind: Mesh, Mesh: m, Rotated: true, R: rot}
	box := Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}, Rotated: true, R: rot}
	off := dense.Vec3{0.3, -0.2, 0.5}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		// A face over the edge x = 1, z = 1 (along y), tilted by up to 40
		// degrees either way about it, its plane d below the edge.
		tilt := (rng.Float64() - 0.5) * 1.4
		d := 0.05 * rng.Float64()
		n := dense.Vec3{math.Sin(tilt + math.Pi/4), 0, math.Cos(tilt + math.Pi/4)}
		u := dense.Vec3{n[2], 0, -n[0]}
		o := dense.Vec3{1, 0, 1}.Sub(n.Scale(d))
		y := 0.8 * rng.Float64()
		local := [3]dense.Vec3{o.Add(u.Scale(-0.5)).Add(dense.Vec3{0, -y, 0}), o.Add(u.Scale(0.5)).Add(dense.Vec3{0, -y, 0}), o.Add(dense.Vec3{0, 0.9, 0})}
		var w [3]dense.Vec3
		for k := range 3 {
			w[k] = off.Add(rot.MulVec(local[k]))
		}
		want := ShapeTriangleDepth(&box, off, w[0], w[1], w[2])
		got := ShapeTriangleDepth(&mesh, off, w[0], w[1], w[2])
		if math.Abs(got-want) > 1e-12 || math.Abs(want-d) > 1e-9 {
			t.Fatalf("tilt %.3g, edge %.3g beyond the face: mesh depth %v, box %v", tilt, d, got, want)
		}
	}
}

// TestMeshDepthTreeMatchesAllTriangles: the BVH's candidates give the same
// depth as every triangle of the mesh, on faces thrown around a torus.
func TestMeshDepthTreeMatchesAllTriangles(t *testing.T) {
	pos, faces := torusMesh(0.3, 0.1, 24, 12)
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]int32, len(faces)/3)
	for i := range all {
		all[i] = int32(i)
	}
	rng := rand.New(rand.NewPCG(9, 10))
	hits := 0
	for range 2000 {
		c := dense.Vec3{rng.Float64()*0.9 - 0.45, rng.Float64()*0.9 - 0.45, rng.Float64()*0.3 - 0.15}
		r := func() dense.Vec3 {
			return c.Add(dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.05))
		}
		a, b, cc := r(), r(), r()
		got := meshTriangleDepth(m, a, b, cc)
		if want := m.triangleDepth(a, b, cc, all); got != want {
			t.Fatalf("tree %v, all triangles %v", got, want)
		}
		if got > 0 {
			hits++
		}
	}
	if hits < 100 {
		t.Fatalf("only %d of 2000 faces cut the torus", hits)
	}
}
