package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestEdgeHitBox crosses a box edge (the +x+y edge along z of a unit box,
// 0 thickness) with cloth edges: across it at its middle (a hit, at the
// crossing point), on one side of it, too near its ends, and too far out.
func TestEdgeHitBox(t *testing.T) {
	fs := AppendFeatures(nil, &Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}}, dense.Vec3{}, dense.Vec3{}, 0, 0)
	var f *Feature
	for i := range fs {
		if fs[i].Kind == FeatureEdge && fs[i].Dir == (dense.Vec3{0, 0, 1}) && fs[i].P0 == (dense.Vec3{1, 1, -1}) {
			f = &fs[i]
		}
	}
	if f == nil {
		t.Fatal("no +x+y edge")
	}
	const reach = 0.05
	// Across the edge, over the wedge from the +x face's side to the +y
	// face's side: the segment from (1.2, 0.9) to (0.9, 1.2) passes the
	// edge's outside at (1.05, 1.05), 0.07 out along the bisector: beyond
	// reach. Moved to pass at 0.03 it hits.
	s, tt, x, ok := f.EdgeHit(dense.Vec3{1.2, 0.9, 0.5}, dense.Vec3{0.9, 1.2, 0.5}, reach)
	if ok {
		t.Fatalf("hit %g %g %v beyond reach", s, tt, x)
	}
	s, tt, x, ok = f.EdgeHit(dense.Vec3{1.1, 0.9, 0.5}, dense.Vec3{0.9, 1.1, 0.5}, reach)
	if !ok || math.Abs(s-0.5) > 1e-12 || math.Abs(tt-1.5) > 1e-12 || !near(x, dense.Vec3{1, 1, 0.5}, 1e-12) {
		t.Fatalf("crossing: ok %v s %g t %g x %v", ok, s, tt, x)
	}
	// Both ends on the +x face's side.
	if _, _, _, ok := f.EdgeHit(dense.Vec3{1.1, 0.9, 0.5}, dense.Vec3{1.05, 0.95, 0.6}, reach); ok {
		t.Fatal("hit from one side")
	}
	// Near the edge's end (t < reach).
	if _, _, _, ok := f.EdgeHit(dense.Vec3{1.1, 0.9, -0.98}, dense.Vec3{0.9, 1.1, -0.98}, reach); ok {
		t.Fatal("hit at the edge's end")
	}
}

// TestEdgeHitWire passes cloth edges over a wire: within the radius plus
// reach (a hit, placed on the wire's surface above the axis) and beyond it.
func TestEdgeHitWire(t *testing.T) {
	fs := AppendFeatures(nil, &Shape{Kind: Capsule, A: dense.Vec3{0, 0, 0}, B: dense.Vec3{2, 0, 0}, Radius: 0.1}, dense.Vec3{}, dense.Vec3{}, 0, 0)
	f := &fs[0]
	const reach = 0.01
	s, tt, x, ok := f.EdgeHit(dense.Vec3{0.5, -1, 0.105}, dense.Vec3{0.5, 1, 0.105}, reach)
	if !ok || math.Abs(s-0.5) > 1e-12 || math.Abs(tt-0.5) > 1e-12 || !near(x, dense.Vec3{0.5, 0, 0.1}, 1e-12) {
		t.Fatalf("over the wire: ok %v s %g t %g x %v", ok, s, tt, x)
	}
	if _, _, _, ok := f.EdgeHit(dense.Vec3{0.5, -1, 0.12}, dense.Vec3{0.5, 1, 0.12}, reach); ok {
		t.Fatal("hit beyond the radius plus reach")
	}
	if _, _, _, ok := f.EdgeHit(dense.Vec3{0.5, 0.1, 0.105}, dense.Vec3{0.5, 1, 0.105}, reach); ok {
		t.Fatal("hit by an edge that does not pass the axis")
	}
}

// TestPointHit compares PointHit on random triangles with an independent
// inside test (same side of all three edges) and checks the barycentric
// coordinates reproduce the point's projection.
func TestPointHit(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	const reach = 0.2
	hits := 0
	for range 2000 {
		a, b, c := randVec(r, 1), randVec(r, 1), randVec(r, 1)
		f := Feature{Kind: FeaturePoint, P0: randVec(r, 0.5)}
		w, ok := f.PointHit(a, b, c, reach)
		nrm := b.Sub(a).Cross(c.Sub(a))
		nrm = nrm.Scale(1 / nrm.Norm())
		dist := f.P0.Sub(a).Dot(nrm)
		q := f.P0.Sub(nrm.Scale(dist))
		side := func(u, v dense.Vec3) float64 { return v.Sub(u).Cross(q.Sub(u)).Dot(nrm) }
		inside := side(a, b) > 1e-9 && side(b, c) > 1e-9 && side(c, a) > 1e-9
		outside := side(a, b) < -1e-9 || side(b, c) < -1e-9 || side(c, a) < -1e-9
		within := math.Abs(dist) < reach-1e-9
		beyond := math.Abs(dist) > reach+1e-9
		switch {
		case inside && within && !ok:
			t.Fatalf("missed: point %v, triangle %v %v %v", f.P0, a, b, c)
		case (outside || beyond) && ok:
			t.Fatalf("false hit: point %v, triangle %v %v %v", f.P0, a, b, c)
		}
		if ok {
			hits++
			x := a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
			if !near(x, q, 1e-9) {
				t.Fatalf("barycentric %v give %v, projection %v", w, x, q)
			}
		}
	}
	if hits == 0 {
		t.Fatal("no hits")
	}
}
