package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

func near(a, b dense.Vec3, tol float64) bool {
	return math.Abs(a[0]-b[0]) <= tol && math.Abs(a[1]-b[1]) <= tol && math.Abs(a[2]-b[2]) <= tol
}

// TestAppendFeaturesBox checks a box's 12 edges and 8 corners against the
// box's signed distance: moved out by the thickness along both (all three)
// faces' normals, an edge's points lie sqrt(2) thickness from the box, a
// corner sqrt(3) thickness, and the normals N are the faces' outward normals.
func TestAppendFeaturesBox(t *testing.T) {
	const th = 0.01
	s := &Shape{Kind: Box, Center: dense.Vec3{0.1, 0.2, 0.3}, HalfExtents: dense.Vec3{0.5, 0.25, 0.125}}
	off, vel := dense.Vec3{0, 0, -0.05}, dense.Vec3{1, 2, 3}
	fs := AppendFeatures(nil, s, off, vel, 7, th)
	if len(fs) != 20 {
		t.Fatalf("%d features, want 20", len(fs))
	}
	ids := map[int32]bool{}
	for i := range fs {
		f := &fs[i]
		if f.Obstacle != 7 || f.Vel != vel || ids[f.ID] {
			t.Fatalf("feature %d: obstacle %d, vel %v, id %d (seen %v)", i, f.Obstacle, f.Vel, f.ID, ids[f.ID])
		}
		ids[f.ID] = true
		switch {
		case i < 12:
			if f.Kind != FeatureEdge || f.Wire {
				t.Fatalf("feature %d: kind %v wire %v", i, f.Kind, f.Wire)
			}
			axis := i / 4
			if want := 2 * s.HalfExtents[axis]; f.Length != want || f.Dir[axis] != 1 {
				t.Fatalf("edge %d: length %g dir %v", i, f.Length, f.Dir)
			}
			for _, u := range []float64{0, 0.3, 1} {
				p := f.At(u * f.Length)
				d, n := SignedDistance(s, off, p)
				if math.Abs(d-math.Sqrt2*th) > 1e-12 {
					t.Fatalf("edge %d at %g: distance %g, want %g", i, u, d, math.Sqrt2*th)
				}
				bis := f.N[0].Add(f.N[1]).Scale(1 / math.Sqrt2)
				if !near(n, bis, 1e-12) {
					t.Fatalf("edge %d: box normal %v, faces' bisector %v", i, n, bis)
				}
			}
		default:
			if f.Kind != FeatureCorner {
				t.Fatalf("feature %d: kind %v", i, f.Kind)
			}
			d, n := SignedDistance(s, off, f.P0)
			if math.Abs(d-math.Sqrt(3)*th) > 1e-12 {
				t.Fatalf("corner %d: distance %g", i, d)
			}
			sum := f.N[0].Add(f.N[1]).Add(f.N[2]).Scale(1 / math.Sqrt(3))
			if !near(n, sum, 1e-12) {
				t.Fatalf("corner %d: box normal %v, faces' %v", i, n, sum)
			}
		}
	}
	if fs = AppendFeatures(fs[:0], &Shape{Kind: Sphere, Radius: 1}, off, vel, 0, th); len(fs) != 0 {
		t.Fatalf("sphere: %d features", len(fs))
	}
	if fs = AppendFeatures(fs[:0], &Shape{Kind: Plane, Normal: dense.Vec3{0, 0, 1}}, off, vel, 0, th); len(fs) != 0 {
		t.Fatalf("plane: %d features", len(fs))
	}
}

// TestAppendFeaturesWireAndPoint checks a capsule's wire (its axis, radius
// grown by the thickness) and a nail's tip (moved out along its axis).
func TestAppendFeaturesWireAndPoint(t *testing.T) {
	const th = 0.01
	off := dense.Vec3{0.1, 0, 0}
	c := &Shape{Kind: Capsule, A: dense.Vec3{0, 0, 0}, B: dense.Vec3{0, 3, 4}, Radius: 0.2}
	fs := AppendFeatures(nil, c, off, dense.Vec3{}, 2, th)
	if len(fs) != 1 {
		t.Fatalf("capsule: %d features", len(fs))
	}
	f := fs[0]
	if !f.Wire || f.Kind != FeatureEdge || f.Length != 5 || math.Abs(f.Radius-(0.2+th)) > 1e-15 || !near(f.P0, off, 0) || !near(f.At(5), c.B.Add(off), 1e-15) {
		t.Fatalf("wire: %+v", f)
	}
	// A point at the wire's radius from its axis is th outside the capsule.
	p := f.Project(dense.Vec3{1, 1, 1})
	if d, _ := SignedDistance(c, off, p); math.Abs(d-th) > 1e-12 {
		t.Fatalf("wire projection %v: capsule distance %g, want %g", p, d, th)
	}
	n := &Shape{Kind: Point, Center: dense.Vec3{0, 0, 1}, Normal: dense.Vec3{0, 0, 1}}
	fs = AppendFeatures(nil, n, off, dense.Vec3{}, 3, th)
	if len(fs) != 1 || fs[0].Kind != FeaturePoint || !near(fs[0].P0, dense.Vec3{0.1, 0, 1 + th}, 1e-15) {
		t.Fatalf("point: %+v", fs)
	}
	if q := fs[0].Project(dense.Vec3{5, 5, 5}); q != fs[0].P0 {
		t.Fatalf("point projection %v", q)
	}
}

// TestFeatureLines compares ClosestOnLine and SegmentLine with a search over
// a fine parameter grid, and Project and WireNormal with their definitions.
func TestFeatureLines(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for range 100 {
		dir := randVec(r, 1)
		dir = dir.Scale(1 / dir.Norm())
		f := Feature{Kind: FeatureEdge, P0: randVec(r, 1), Dir: dir, Length: 0.5 + r.Float64(), Wire: true, Radius: 0.1}
		p := randVec(r, 2)
		dist := func(t float64) float64 {
			q := dense.Vec3{f.P0[0] + t*dir[0], f.P0[1] + t*dir[1], f.P0[2] + t*dir[2]}
			return math.Hypot(math.Hypot(p[0]-q[0], p[1]-q[1]), p[2]-q[2])
		}
		best := math.Inf(1)
		const n = 20000
		for i := 0; i <= n; i++ {
			best = math.Min(best, dist(f.Length*float64(i)/n))
		}
		tc := f.ClosestOnLine(p)
		if tc < 0 || tc > f.Length || dist(tc) > best+1e-12 || dist(tc) < best-f.Length/n {
			t.Fatalf("ClosestOnLine %g: distance %g, grid %g", tc, dist(tc), best)
		}
		// Segment a-b against the infinite line.
		a, b := randVec(r, 2), randVec(r, 2)
		s, tl := f.SegmentLine(a, b)
		pair := func(s float64) float64 {
			x := a.Add(b.Sub(a).Scale(s))
			w := x.Sub(f.P0)
			w = w.Sub(dir.Scale(w.Dot(dir)))
			return w.Norm()
		}
		gbest := math.Inf(1)
		for i := 0; i <= n; i++ {
			gbest = math.Min(gbest, pair(float64(i)/n))
		}
		if s < 0 || s > 1 || pair(s) > gbest+1e-9 {
			t.Fatalf("SegmentLine s %g: line distance %g, grid %g", s, pair(s), gbest)
		}
		x := a.Add(b.Sub(a).Scale(s))
		if q := f.At(tl); x.Sub(q).Dot(dir) > 1e-9 || x.Sub(q).Dot(dir) < -1e-9 {
			t.Fatalf("SegmentLine t %g is not the projection of the segment's point", tl)
		}
		// Wire: the normal is unit, across the wire, towards p; Project lies
		// at the radius from the axis.
		wn := f.WireNormal(p)
		if math.Abs(wn.Norm()-1) > 1e-12 || math.Abs(wn.Dot(dir)) > 1e-12 || wn.Dot(p.Sub(f.P0)) <= 0 {
			t.Fatalf("WireNormal %v for p %v", wn, p)
		}
		pr := f.Project(p)
		if w := pr.Sub(f.P0); math.Abs(w.Sub(dir.Scale(w.Dot(dir))).Norm()-f.Radius) > 1e-12 {
			t.Fatalf("Project %v is not at the wire's radius", pr)
		}
	}
}

// TestLeaveInward checks that a lifted vertex's relative velocity never
// points into a box edge's wedge, a corner's octant or a wire's axis, and
// that velocities already leaving are unchanged.
func TestLeaveInward(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	fs := AppendFeatures(nil, &Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}}, dense.Vec3{}, dense.Vec3{}, 0, 0)
	fs = AppendFeatures(fs, &Shape{Kind: Capsule, A: dense.Vec3{-1, 0, 0}, B: dense.Vec3{1, 0, 0}, Radius: 0.5}, dense.Vec3{}, dense.Vec3{}, 1, 0)
	for i := range fs {
		f := &fs[i]
		p := f.Project(randVec(r, 2))
		for range 50 {
			rel := randVec(r, 1)
			out := f.LeaveInward(p, rel)
			if f.Wire {
				nw := f.WireNormal(p)
				if out.Dot(nw) < -1e-12 {
					t.Fatalf("wire: %v points inward", out)
				}
				if rel.Dot(nw) >= 0 && out != rel {
					t.Fatalf("wire: leaving %v changed to %v", rel, out)
				}
				continue
			}
			inward, leaving := true, false
			for _, n := range f.N {
				if n == (dense.Vec3{}) {
					continue
				}
				if out.Dot(n) >= -1e-12 {
					inward = false
				}
				if rel.Dot(n) >= 0 {
					leaving = true
				}
			}
			if inward {
				t.Fatalf("feature %d: %v (from %v) points into the box", i, out, rel)
			}
			if leaving && out != rel {
				t.Fatalf("feature %d: leaving %v changed to %v", i, rel, out)
			}
		}
	}
	pt := Feature{Kind: FeaturePoint}
	if v := (dense.Vec3{0, 0, -1}); pt.LeaveInward(dense.Vec3{}, v) != v {
		t.Fatal("a point feature changed a velocity")
	}
}
