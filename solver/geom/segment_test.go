package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestSegmentClosestGrid compares SegmentClosest with the least distance over
// a fine grid of parameter pairs, on random segments and on parallel,
// collinear and degenerate-angle ones.
func TestSegmentClosestGrid(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	type seg struct{ p0, p1, q0, q1 dense.Vec3 }
	var cases []seg
	for range 40 {
		cases = append(cases, seg{randVec(r, 1), randVec(r, 1), randVec(r, 1), randVec(r, 1)})
	}
	cases = append(cases,
		seg{dense.Vec3{0, 0, 0}, dense.Vec3{1, 0, 0}, dense.Vec3{0.5, 1, 0}, dense.Vec3{1.5, 1, 0}},  // parallel
		seg{dense.Vec3{0, 0, 0}, dense.Vec3{1, 0, 0}, dense.Vec3{2, 0, 0}, dense.Vec3{3, 0, 0}},      // collinear, apart
		seg{dense.Vec3{0, 0, 0}, dense.Vec3{1, 0, 0}, dense.Vec3{0.5, -1, 0}, dense.Vec3{0.5, 1, 0}}, // crossing
		seg{dense.Vec3{0, 0, 0}, dense.Vec3{1, 0, 0}, dense.Vec3{1, 1, 1}, dense.Vec3{2, 2, 1}},      // beyond both ends
	)
	const n = 500
	dist := func(c seg, s, t float64) float64 {
		var d2 float64
		for k := range 3 {
			x := c.p0[k] + s*(c.p1[k]-c.p0[k]) - c.q0[k] - t*(c.q1[k]-c.q0[k])
			d2 += x * x
		}
		return math.Sqrt(d2)
	}
	for ci, c := range cases {
		s, tt, d := SegmentClosest(c.p0, c.p1, c.q0, c.q1)
		if s < 0 || s > 1 || tt < 0 || tt > 1 {
			t.Fatalf("case %d: parameters %g, %g outside [0, 1]", ci, s, tt)
		}
		if math.Abs(d-dist(c, s, tt)) > 1e-12 {
			t.Fatalf("case %d: distance %g, distance of the returned points %g", ci, d, dist(c, s, tt))
		}
		best := math.Inf(1)
		for i := 0; i <= n; i++ {
			for j := 0; j <= n; j++ {
				best = math.Min(best, dist(c, float64(i)/n, float64(j)/n))
			}
		}
		// The grid's best is within a cell of the true minimum.
		cell := (c.p1.Sub(c.p0).Norm() + c.q1.Sub(c.q0).Norm()) / n
		if d > best+1e-12 || d < best-cell {
			t.Fatalf("case %d: distance %g, grid's least %g", ci, d, best)
		}
	}
}
