package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// randBox returns a box with small integer corners, so that touching and
// nested boxes are common.
func randBox(r *rand.Rand) AABB {
	var b AABB
	for k := range 3 {
		x, y := float64(r.Intn(7)-3), float64(r.Intn(7)-3)
		b.Lo[k], b.Hi[k] = math.Min(x, y), math.Max(x, y)
	}
	return b
}

// TestAABBOverlapIntervals compares Overlaps and Apart with explicit
// interval tests on each axis: closed boxes overlap when every axis's
// intervals share a point; they are apart by more than m when some axis's
// gap exceeds m.
func TestAABBOverlapIntervals(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for range 5000 {
		b, c := randBox(r), randBox(r)
		want := true
		gap := math.Inf(-1)
		for k := range 3 {
			lo, hi := math.Max(b.Lo[k], c.Lo[k]), math.Min(b.Hi[k], c.Hi[k])
			if lo > hi {
				want = false
			}
			gap = math.Max(gap, lo-hi)
		}
		if b.Overlaps(&c) != want || c.Overlaps(&b) != want {
			t.Fatalf("%v, %v: Overlaps %v, intervals %v", b, c, b.Overlaps(&c), want)
		}
		for _, m := range []float64{0, 0.5, 1, 2.5} {
			if got := b.Apart(&c, m); got != (gap > m) {
				t.Fatalf("%v, %v margin %g: Apart %v, largest gap %g", b, c, m, got, gap)
			}
			// Apart with a margin is Overlaps of the box padded by it.
			if b.Apart(&c, m) == pad(b, m).Overlaps(&c) {
				t.Fatalf("%v, %v margin %g: Apart and padded Overlaps agree", b, c, m)
			}
		}
	}
	// NaN coordinates are never apart (the exact tests decide on them).
	n := math.NaN()
	nan := AABB{Lo: dense.Vec3{n, n, n}, Hi: dense.Vec3{n, n, n}}
	box := AABB{Lo: dense.Vec3{5, 5, 5}, Hi: dense.Vec3{6, 6, 6}}
	if box.Apart(&nan, 0) || nan.Apart(&box, 0) {
		t.Fatal("a NaN box is apart")
	}
}

// TestAABBBuild checks EmptyAABB, Grow, Union, Pad and Bounds3 against the
// componentwise extremes of their points.
func TestAABBBuild(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	e := EmptyAABB()
	if overlaps(e, e.Grow(dense.Vec3{})) || e.Union(e) != e {
		t.Fatal("the empty box overlaps or is not the union's identity")
	}
	for range 200 {
		pts := make([]dense.Vec3, 1+r.Intn(6))
		for i := range pts {
			pts[i] = randVec(r, 3)
		}
		b := EmptyAABB()
		for _, p := range pts {
			b = b.Grow(p)
		}
		for k := range 3 {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range pts {
				if p[k] < lo {
					lo = p[k]
				}
				if p[k] > hi {
					hi = p[k]
				}
			}
			if b.Lo[k] != lo || b.Hi[k] != hi {
				t.Fatalf("axis %d: box [%g, %g], points' extremes [%g, %g]", k, b.Lo[k], b.Hi[k], lo, hi)
			}
		}
		if len(pts) >= 3 {
			if c := Bounds3(pts[0], pts[1], pts[2]); c != EmptyAABB().Grow(pts[0]).Grow(pts[1]).Grow(pts[2]) {
				t.Fatalf("Bounds3 %v", c)
			}
		}
		half := EmptyAABB()
		for _, p := range pts[:len(pts)/2] {
			half = half.Grow(p)
		}
		rest := EmptyAABB()
		for _, p := range pts[len(pts)/2:] {
			rest = rest.Grow(p)
		}
		if u := half.Union(rest); u != b {
			t.Fatalf("union %v, all points %v", u, b)
		}
		p := b.Pad(0.25)
		for k := range 3 {
			if p.Lo[k] != b.Lo[k]-0.25 || p.Hi[k] != b.Hi[k]+0.25 {
				t.Fatalf("Pad: %v from %v", p, b)
			}
		}
	}
}

func pad(b AABB, d float64) *AABB { p := b.Pad(d); return &p }

func overlaps(b, c AABB) bool { return b.Overlaps(&c) }
