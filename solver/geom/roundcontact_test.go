package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestRoundTriangleContact checks RoundTriangleContact on random triangles
// against sampling and against ShapeTriangleDepth: the nearest point and its
// distance, no sampled point of the triangle nearer the shape, and moving the
// triangle by the gap along n leaves it just touching the shape.
func TestRoundTriangleContact(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	shapes := []Shape{
		{Kind: Sphere, Center: dense.Vec3{0.5, 0.5, 0.5}, Radius: 0.2},
		{Kind: Capsule, A: dense.Vec3{0.3, 0.4, 0.5}, B: dense.Vec3{0.7, 0.6, 0.45}, Radius: 0.08},
		{Kind: Capsule, A: dense.Vec3{0.3, 0.4, 0.5}, B: dense.Vec3{0.7, 0.6, 0.45}, Radius: 0.08, Rotated: true, R: turn},
	}
	offset := dense.Vec3{0.01, -0.02, 0.03}
	for si := range shapes {
		s := &shapes[si]
		into, ok := 0, 0
		for it := 0; it < 200; it++ {
			tr := randTri(r, 0.35)
			for k := range tr {
				tr[k] = tr[k].Scale(0.5).Add(dense.Vec3{0.25, 0.25, 0.25})
			}
			gap, w, n, good := RoundTriangleContact(s, offset, tr[0], tr[1], tr[2])
			depth := ShapeTriangleDepth(s, offset, tr[0], tr[1], tr[2])
			if !good {
				if depth <= s.Radius {
					t.Fatalf("%v case %d: no contact though the core misses the triangle (depth %g)", s.Kind, it, depth)
				}
				continue
			}
			ok++
			if math.Abs(w[0]+w[1]+w[2]-1) > 1e-12 || min(w[0], w[1], w[2]) < 0 {
				t.Fatalf("%v case %d: weights %v", s.Kind, it, w)
			}
			if math.Abs(n.Norm()-1) > 1e-12 {
				t.Fatalf("%v case %d: |n| = %g", s.Kind, it, n.Norm())
			}
			if gap < 0 {
				into++
				if math.Abs(-gap-depth) > 1e-12 {
					t.Fatalf("%v case %d: gap %g, depth %g", s.Kind, it, gap, depth)
				}
			} else if depth != 0 {
				t.Fatalf("%v case %d: gap %g but depth %g", s.Kind, it, gap, depth)
			}
			// No sampled point lies nearer the shape's surface than the gap.
			for _, p := range triSamples(tr[0], tr[1], tr[2], 30) {
				if d, _ := SignedDistance(s, offset, p); d < gap-1e-12 {
					t.Fatalf("%v case %d: sample at signed distance %g below the gap %g", s.Kind, it, d, gap)
				}
			}
			// The nearest point is at the gap from the surface.
			x := tr[0].Scale(w[0]).Add(tr[1].Scale(w[1])).Add(tr[2].Scale(w[2]))
			if d, _ := SignedDistance(s, offset, x); math.Abs(d-gap) > 1e-12 {
				t.Fatalf("%v case %d: nearest point at %g, gap %g", s.Kind, it, d, gap)
			}
			// Moved out along n by the gap and a little, the triangle
			// clears the shape.
			if gap < 0 {
				m := n.Scale(-gap + 1e-9)
				if d := ShapeTriangleDepth(s, offset, tr[0].Add(m), tr[1].Add(m), tr[2].Add(m)); d != 0 {
					t.Fatalf("%v case %d: moved out by %g, still %g deep", s.Kind, it, -gap, d)
				}
			}
		}
		t.Logf("%v (rotated %v): %d of 200 with a contact, %d of them into the shape", s.Kind, s.Rotated, ok, into)
		if into < 20 || ok-into < 20 {
			t.Fatalf("%v: %d contacts into the shape, %d outside: too few cases", s.Kind, into, ok-into)
		}
	}
	box := Shape{Kind: Box, Center: dense.Vec3{0.5, 0.5, 0.5}, HalfExtents: dense.Vec3{0.2, 0.2, 0.2}}
	if _, _, _, ok := RoundTriangleContact(&box, dense.Vec3{}, dense.Vec3{}, dense.Vec3{1, 0, 0}, dense.Vec3{0, 1, 0}); ok {
		t.Fatal("a box has no round contact")
	}
}
