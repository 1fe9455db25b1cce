package export

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

func boxShape() *geom.Shape {
	return &geom.Shape{Kind: geom.Box, Center: dense.Vec3{0.2, -0.1, 0.3}, HalfExtents: dense.Vec3{0.3, 0.2, 0.1}}
}

// TestObstacleMeshOnSurface: every vertex of a sphere, capsule or box
// (turned and moved) lies on the shape's surface by geom.SignedDistance, and
// every face's normal points out (a point just off its centroid along the
// normal is farther out than one just inside).
func TestObstacleMeshOnSurface(t *testing.T) {
	turn := dense.Mat3{{0.8, -0.6, 0}, {0.6, 0.8, 0}, {0, 0, 1}} // 36.87 degrees about z
	offset := dense.Vec3{0.05, 0.1, -0.2}
	shapes := map[string]*geom.Shape{
		"sphere":  {Kind: geom.Sphere, Center: dense.Vec3{1, 2, 3}, Radius: 0.25},
		"capsule": {Kind: geom.Capsule, A: dense.Vec3{0, -0.5, 0}, B: dense.Vec3{0, 0.5, 0.2}, Radius: 0.05, Rotated: true, R: turn},
		"box":     boxShape(),
		"turned":  {Kind: geom.Box, Center: dense.Vec3{0, 0, 1}, HalfExtents: dense.Vec3{0.6, 0.75, 0.5}, Rotated: true, R: turn},
	}
	// A closed triangle mesh (a tetrahedron, faces wound outward), turned.
	tet, err := geom.NewMeshSurface(nil, []float64{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, []int32{0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	shapes["mesh"] = &geom.Shape{Kind: geom.Mesh, Mesh: tet, Rotated: true, R: turn}
	for name, s := range shapes {
		m := ObstacleMesh(name, s, offset, 1)
		if err := m.check(); err != nil || len(m.Faces) == 0 {
			t.Fatalf("%s: %v, %d faces", name, err, len(m.Faces))
		}
		for i, p := range m.Pos {
			if d, _ := geom.SignedDistance(s, offset, dense.Vec3(p)); math.Abs(d) > 1e-12 {
				t.Fatalf("%s: vertex %d at distance %g from the surface", name, i, d)
			}
		}
		for fi, f := range m.Faces {
			a, b, c := dense.Vec3(m.Pos[f[0]]), dense.Vec3(m.Pos[f[1]]), dense.Vec3(m.Pos[f[2]])
			n := b.Sub(a).Cross(c.Sub(a))
			if n.Norm() == 0 {
				t.Fatalf("%s: face %d is degenerate", name, fi)
			}
			n = n.Scale(1e-4 / n.Norm())
			g := a.Add(b).Add(c).Scale(1.0 / 3)
			out, _ := geom.SignedDistance(s, offset, g.Add(n))
			in, _ := geom.SignedDistance(s, offset, g.Sub(n))
			if !(out > in) {
				t.Fatalf("%s: face %d faces inward", name, fi)
			}
		}
	}
	// A plane is a square of the given half-size through its point, normal
	// along its normal; a nail a cone whose tip is the nail tip.
	pl := ObstacleMesh("ground", &geom.Shape{Kind: geom.Plane, Center: dense.Vec3{0, 0, -1}, Normal: dense.Vec3{0, 0, 1}}, dense.Vec3{}, 2)
	for _, n := range VertexNormals(pl.Pos, pl.Faces) {
		if n != [3]float64{0, 0, 1} {
			t.Fatalf("plane normal %v", n)
		}
	}
	for _, p := range pl.Pos {
		if p[2] != -1 || math.Abs(math.Hypot(p[0], p[1])-2*math.Sqrt2) > 1e-12 {
			t.Fatalf("plane corner %v", p)
		}
	}
	nail := ObstacleMesh("nail", &geom.Shape{Kind: geom.Point, Center: dense.Vec3{0.1, 0.1, 0}, Normal: dense.Vec3{0, 0, 1}}, dense.Vec3{}, 1)
	if nail.Pos[0] != [3]float64{0.1, 0.1, 0} || nail.Pos[1][2] != -nailHeight {
		t.Fatalf("nail cone %v %v", nail.Pos[0], nail.Pos[1])
	}
}

// TestVertexNormals: a flat square has normal +z at every vertex (faces
// counter-clockwise from above), and on a sphere's mesh each vertex normal is
// within 3 degrees of the radial direction (the area weighting leans the
// ring next to a pole by 2.6 degrees; a face normal is up to 7.5 degrees
// off, half the 15-degree ring spacing).
func TestVertexNormals(t *testing.T) {
	sq := [][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	for _, n := range VertexNormals(sq, [][3]int32{{0, 1, 2}, {0, 2, 3}}) {
		if n != [3]float64{0, 0, 1} {
			t.Fatalf("square normal %v", n)
		}
	}
	c := dense.Vec3{1, 2, 3}
	m := ObstacleMesh("s", &geom.Shape{Kind: geom.Sphere, Center: c, Radius: 0.5}, dense.Vec3{}, 1)
	for i, n := range VertexNormals(m.Pos, m.Faces) {
		r := dense.Vec3(m.Pos[i]).Sub(c).Scale(2)
		if a := math.Acos(min(1, dense.Vec3(n).Dot(r))); a > 3*math.Pi/180 {
			t.Fatalf("vertex %d: normal %v is %.2f degrees off radial", i, n, a*180/math.Pi)
		}
	}
}
