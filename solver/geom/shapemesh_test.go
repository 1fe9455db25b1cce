package geom

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestShapeMesh: the meshes are closed and wound outward (every edge used
// once each way, enclosed volume positive and near the shape's), their
// vertices lie on the surface, and every point of every triangle lies inside
// the shape by at most the returned chordal error, which is at most the one
// asked for (checked with SignedDistance on a grid of points per triangle);
// so the enclosed volume is between the shape's and that less its area
// times the error.
func TestShapeMesh(t *testing.T) {
	cases := []struct {
		name   string
		s      Shape
		maxErr float64
		volume float64
		area   float64
	}{
		{"box", Shape{Kind: Box, Center: dense.Vec3{0.1, -0.2, 0.3}, HalfExtents: dense.Vec3{0.6, 0.75, 0.5}}, 1e-4, 8 * 0.6 * 0.75 * 0.5, 0},
		{"sphere", Shape{Kind: Sphere, Center: dense.Vec3{0, 0.1, 0.2}, Radius: 0.1}, 1e-4, 4.0 / 3 * math.Pi * 1e-3, 4 * math.Pi * 0.01},
		{"coarse sphere", Shape{Kind: Sphere, Radius: 0.25}, 5e-3, 4.0 / 3 * math.Pi * 0.25 * 0.25 * 0.25, 4 * math.Pi * 0.25 * 0.25},
		{"capsule", Shape{Kind: Capsule, A: dense.Vec3{-0.3, 0.1, 0}, B: dense.Vec3{0.2, 0.4, 0.1}, Radius: 0.05}, 1e-4, 0, 0},
	}
	for _, c := range cases {
		pos, faces, err, ok := ShapeMesh(&c.s, c.maxErr)
		if !ok || len(faces) == 0 {
			t.Fatalf("%s: no mesh", c.name)
		}
		if err > c.maxErr {
			t.Fatalf("%s: chordal error %g above %g", c.name, err, c.maxErr)
		}
		if c.volume == 0 { // capsule: cylinder plus ball
			l := c.s.B.Sub(c.s.A).Norm()
			r := c.s.Radius
			c.volume = math.Pi*r*r*l + 4.0/3*math.Pi*r*r*r
			c.area = 2*math.Pi*r*l + 4*math.Pi*r*r
		}
		edges := map[[2]int32]int{}
		vol := 0.0
		worst := 0.0
		for f := 0; f < len(faces); f += 3 {
			p := [3]dense.Vec3{pos[faces[f]], pos[faces[f+1]], pos[faces[f+2]]}
			for k := range 3 {
				edges[[2]int32{faces[f+k], faces[f+(k+1)%3]}]++
			}
			vol += p[0].Dot(p[1].Cross(p[2])) / 6
			const m = 8
			for i := 0; i <= m; i++ {
				for j := 0; i+j <= m; j++ {
					a, b := float64(i)/m, float64(j)/m
					q := p[0].Scale(1 - a - b).Add(p[1].Scale(a)).Add(p[2].Scale(b))
					d, _ := SignedDistance(&c.s, dense.Vec3{}, q)
					if d > 1e-12 {
						t.Fatalf("%s: point %v of face %d outside by %g", c.name, q, f/3, d)
					}
					worst = max(worst, -d)
				}
			}
		}
		for e, n := range edges {
			if n != 1 || edges[[2]int32{e[1], e[0]}] != 1 {
				t.Fatalf("%s: edge %v used %d times, reverse %d: not closed and consistently wound", c.name, e, n, edges[[2]int32{e[1], e[0]}])
			}
		}
		if worst > err*(1+1e-9)+1e-15 {
			t.Fatalf("%s: a face point %g inside, above the stated error %g", c.name, worst, err)
		}
		if !(vol <= c.volume*(1+1e-12)) || !(vol >= c.volume-c.area*err-1e-12) {
			t.Fatalf("%s: enclosed volume %g, shape's %g (area %g, error %g)", c.name, vol, c.volume, c.area, err)
		}
		t.Logf("%s: %d vertices, %d triangles, chordal error %.3g (asked %.3g), deepest face point %.3g", c.name, len(pos), len(faces)/3, err, c.maxErr, worst)
	}
	for _, k := range []ShapeKind{Plane, Point} {
		if _, _, _, ok := ShapeMesh(&Shape{Kind: k, Normal: dense.Vec3{0, 0, 1}}, 1e-3); ok {
			t.Fatalf("kind %d meshed", k)
		}
	}
}
