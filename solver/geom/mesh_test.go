package geom

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/internal/testrun"
)

// torusMesh returns a closed torus (radii big, small) of nu x nv quads
// split into triangles, counter-clockwise from outside.
func torusMesh(big, small float64, nu, nv int) ([]float64, []int32) {
	var pos []float64
	for i := range nu {
		for j := range nv {
			u, v := 2*math.Pi*float64(i)/float64(nu), 2*math.Pi*float64(j)/float64(nv)
			pos = append(pos, (big+small*math.Cos(v))*math.Cos(u), (big+small*math.Cos(v))*math.Sin(u), small*math.Sin(v))
		}
	}
	id := func(i, j int) int32 { return int32((i%nu)*nv + j%nv) }
	var faces []int32
	for i := range nu {
		for j := range nv {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			faces = append(faces, a, b, c, a, c, d)
		}
	}
	return pos, faces
}

// refTriangleDistance is the distance from p to triangle abc written
// independently of PointTriangleClosest: the distance to the plane when
// the projection falls inside (same-side tests), else to the nearest edge.
func refTriangleDistance(p, a, b, c dense.Vec3) float64 {
	n := b.Sub(a).Cross(c.Sub(a))
	n = n.Scale(1 / n.Norm())
	h := p.Sub(a).Dot(n)
	q := p.Sub(n.Scale(h))
	in := true
	for _, e := range [3][2]dense.Vec3{{a, b}, {b, c}, {c, a}} {
		if e[1].Sub(e[0]).Cross(q.Sub(e[0])).Dot(n) < 0 {
			in = false
		}
	}
	if in {
		return math.Abs(h)
	}
	d := math.Inf(1)
	for _, e := range [3][2]dense.Vec3{{a, b}, {b, c}, {c, a}} {
		ab := e[1].Sub(e[0])
		t := math.Max(0, math.Min(1, p.Sub(e[0]).Dot(ab)/ab.Dot(ab)))
		d = math.Min(d, p.Sub(e[0].Add(ab.Scale(t))).Norm())
	}
	return d
}

// refInside tells whether p is inside the closed mesh by the parity of the
// crossings of a ray from p (Moller-Trumbore), independent of the
// pseudo-normals.
func refInside(p dense.Vec3, pos []float64, faces []int32, dir dense.Vec3) bool {
	v := func(i int32) dense.Vec3 { return dense.Vec3(pos[3*i : 3*i+3]) }
	odd := false
	for t := 0; t < len(faces); t += 3 {
		a, b, c := v(faces[t]), v(faces[t+1]), v(faces[t+2])
		e1, e2 := b.Sub(a), c.Sub(a)
		pv := dir.Cross(e2)
		det := e1.Dot(pv)
		if math.Abs(det) < 1e-14 {
			continue
		}
		s := p.Sub(a)
		u := s.Dot(pv) / det
		qv := s.Cross(e1)
		w := dir.Dot(qv) / det
		if u < 0 || w < 0 || u+w > 1 {
			continue
		}
		if e2.Dot(qv)/det > 0 {
			odd = !odd
		}
	}
	return odd
}

func TestMeshDistanceMatchesBruteForce(t *testing.T) {
	pos, faces := torusMesh(0.3, 0.1, 24, 12)
	m, err := NewMeshSurface(testrun.Chunked{Workers: 3, Grain: 5}, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	if !m.Closed {
		t.Fatal("torus not recognized as closed")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	dir := dense.Vec3{0.3123, 0.7771, 0.5463}
	wrongSign := 0
	for k := range 2000 {
		p := dense.Vec3{rng.Float64()*1 - 0.5, rng.Float64()*1 - 0.5, rng.Float64()*0.4 - 0.2}
		if k%4 == 0 { // near the surface: a vertex pushed along a random direction
			i := rng.IntN(len(pos) / 3)
			p = dense.Vec3(pos[3*i : 3*i+3]).Add(dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.01))
		}
		ref := math.Inf(1)
		for f := 0; f < len(faces); f += 3 {
			ref = math.Min(ref, refTriangleDistance(p, dense.Vec3(pos[3*faces[f]:3*faces[f]+3]), dense.Vec3(pos[3*faces[f+1]:3*faces[f+1]+3]), dense.Vec3(pos[3*faces[f+2]:3*faces[f+2]+3])))
		}
		q := m.Closest(p)
		if math.Abs(math.Abs(q.Distance)-ref) > 1e-12 {
			t.Fatalf("p %v: |distance| %v, brute force %v", p, math.Abs(q.Distance), ref)
		}
		if (q.Distance < 0) != refInside(p, pos, faces, dir) {
			wrongSign++
			t.Errorf("p %v: signed distance %v, ray parity says inside=%v", p, q.Distance, refInside(p, pos, faces, dir))
		}
		// The normal points from the closest point to p (outside) or from p
		// to it (inside): p - d n is on the surface.
		back := p.Sub(q.Normal.Scale(q.Distance))
		f := faces[3*q.Tri : 3*q.Tri+3]
		if d := refTriangleDistance(back, dense.Vec3(pos[3*f[0]:3*f[0]+3]), dense.Vec3(pos[3*f[1]:3*f[1]+3]), dense.Vec3(pos[3*f[2]:3*f[2]+3])); d > 1e-12 {
			t.Fatalf("p %v: p - d n is %v off the closest triangle", p, d)
		}
	}
}

// TestMeshSignAtFeatures puts points just outside and inside a cube mesh
// next to its edges and corners, where face normals alone give the wrong
// sign and the angle-weighted pseudo-normals the right one.
func TestMeshSignAtFeatures(t *testing.T) {
	pos, faces := cubeMesh()
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 500 {
		// A point near a random corner or edge of the unit cube [-1,1]^3.
		var p dense.Vec3
		for k := range 3 {
			p[k] = float64(2*rng.IntN(2)-1) * (1 + 0.02*rng.NormFloat64())
			if rng.IntN(3) == 0 {
				p[k] = rng.Float64()*1.8 - 0.9 // along an edge
			}
		}
		inside := math.Abs(p[0]) < 1 && math.Abs(p[1]) < 1 && math.Abs(p[2]) < 1
		d, _ := SignedDistance(&Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}}, dense.Vec3{}, p)
		q := m.Closest(p)
		if (q.Distance < 0) != inside || math.Abs(q.Distance-d) > 1e-12 {
			t.Fatalf("p %v: mesh distance %v, box %v (inside %v)", p, q.Distance, d, inside)
		}
	}
}

// cubeMesh is the cube [-1,1]^3 as 12 triangles, counter-clockwise from
// outside.
func cubeMesh() ([]float64, []int32) {
	var pos []float64
	for k := range 8 {
		pos = append(pos, float64(2*(k&1)-1), float64(2*((k>>1)&1)-1), float64(2*((k>>2)&1)-1))
	}
	faces := []int32{
		0, 2, 3, 0, 3, 1, // z = -1
		4, 5, 7, 4, 7, 6, // z = +1
		0, 1, 5, 0, 5, 4, // y = -1
		2, 6, 7, 2, 7, 3, // y = +1
		0, 4, 6, 0, 6, 2, // x = -1
		1, 3, 7, 1, 7, 5, // x = +1
	}
	return pos, faces
}

// TestMeshOpenIsUnsigned: a single square (open) reads a positive distance
// on both sides, with the normal towards the point, so cloth on either side
// is kept off it.
func TestMeshOpenIsUnsigned(t *testing.T) {
	pos := []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0}
	m, err := NewMeshSurface(nil, pos, []int32{0, 1, 2, 0, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if m.Closed {
		t.Fatal("a square reads as closed")
	}
	for _, c := range []struct {
		p, n dense.Vec3
		d    float64
	}{
		{dense.Vec3{0.3, 0.6, 0.2}, dense.Vec3{0, 0, 1}, 0.2},
		{dense.Vec3{0.3, 0.6, -0.2}, dense.Vec3{0, 0, -1}, 0.2},
		{dense.Vec3{1.3, 0.5, -0.4}, dense.Vec3{0.6, 0, -0.8}, 0.5},
	} {
		q := m.Closest(c.p)
		if math.Abs(q.Distance-c.d) > 1e-12 || q.Normal.Sub(c.n).Norm() > 1e-12 {
			t.Errorf("p %v: distance %v normal %v, want %v %v", c.p, q.Distance, q.Normal, c.d, c.n)
		}
	}
}

// TestMeshRotatedShape: a turned, moved mesh obstacle measures like the
// brute force over its vertices placed in the world.
func TestMeshRotatedShape(t *testing.T) {
	pos, faces := torusMesh(0.3, 0.1, 16, 8)
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	R := dense.QuatExp(dense.Vec3{0.3, -0.5, 0.9}).Mat()
	center, offset := dense.Vec3{0.1, 0, 0.05}, dense.Vec3{0.2, -0.1, 0.3}
	s := Shape{Kind: Mesh, Mesh: m, Center: center, Rotated: true, R: R}
	world := make([]float64, len(pos))
	for i := 0; i < len(pos); i += 3 {
		w := center.Add(offset).Add(R.MulVec(dense.Vec3(pos[i : i+3]).Sub(center)))
		copy(world[i:i+3], w[:])
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		p := offset.Add(dense.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5})
		ref := math.Inf(1)
		for f := 0; f < len(faces); f += 3 {
			ref = math.Min(ref, refTriangleDistance(p, dense.Vec3(world[3*faces[f]:3*faces[f]+3]), dense.Vec3(world[3*faces[f+1]:3*faces[f+1]+3]), dense.Vec3(world[3*faces[f+2]:3*faces[f+2]+3])))
		}
		if refInside(p, world, faces, dense.Vec3{0.1, 0.2, 0.97}) {
			ref = -ref
		}
		if d, _ := SignedDistance(&s, offset, p); math.Abs(d-ref) > 1e-12 {
			t.Fatalf("p %v: %v, brute force %v", p, d, ref)
		}
	}
}

// TestMeshDeformingVelocity: after Update the surface velocity at the
// closest point is the barycentric blend of the vertex velocities, and the
// refitted tree finds the moved surface.
func TestMeshDeformingVelocity(t *testing.T) {
	pos, faces := cubeMesh()
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	moved := make([]float64, len(pos))
	vel := make([]float64, len(pos))
	for i := range pos {
		moved[i] = 2 * pos[i] // the cube grows to [-2,2]^3 ...
		vel[i] = pos[i]       // ... moving outward at its corners' positions
	}
	m.Update(nil, moved, vel)
	q := m.Closest(dense.Vec3{0.5, -0.25, 2.5})
	if math.Abs(q.Distance-0.5) > 1e-12 || q.Vel.Sub(dense.Vec3{0.25, -0.125, 1}).Norm() > 1e-12 {
		t.Fatalf("distance %v velocity %v, want 0.5 and [0.25 -0.125 1]", q.Distance, q.Vel)
	}
	s := Shape{Kind: Mesh, Mesh: m, Rotated: true, R: dense.QuatExp(dense.Vec3{0, 0, math.Pi / 2}).Mat()}
	_, n, u := SignedDistanceVel(&s, dense.Vec3{}, dense.Vec3{0.25, 0.5, 2.5})
	if n.Sub(dense.Vec3{0, 0, 1}).Norm() > 1e-12 || u.Sub(dense.Vec3{0.125, 0.25, 1}).Norm() > 1e-12 {
		t.Fatalf("turned: normal %v velocity %v, want [0 0 1] and [0.125 0.25 1]", n, u)
	}
}

func TestMeshBadInput(t *testing.T) {
	pos, faces := cubeMesh()
	inverted := append([]int32(nil), faces...)
	for i := 0; i < len(inverted); i += 3 {
		inverted[i+1], inverted[i+2] = inverted[i+2], inverted[i+1]
	}
	nan := append([]float64(nil), pos...)
	nan[4] = math.NaN()
	for _, c := range []struct {
		name  string
		pos   []float64
		faces []int32
		want  string
	}{
		{"no vertices", nil, faces, "no vertices"},
		{"no triangles", pos, nil, "no triangles"},
		{"NaN", nan, faces, "vertex 1: coordinate NaN is not finite"},
		{"range", pos, []int32{0, 1, 8}, "triangle 0: vertex 8 out of range"},
		{"repeat", pos, []int32{0, 1, 1}, "repeats a vertex"},
		{"inside out", pos, inverted, "inside out"},
	} {
		if _, err := NewMeshSurface(nil, c.pos, c.faces); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
