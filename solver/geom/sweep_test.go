package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// rigidStep returns random reference points p (3 per point, in a 0.4 m
// cube) and their positions at the start and end of a step of h with a
// random rigid pose (x1 = R p + t) and velocity field v = vel + omega x
// (x1 - c), x0 = x1 - h v: the motion SelfCollision gives an obstacle.
func rigidStep(rng *rand.Rand, n int, h float64) (p, x0, x1 []float64) {
	R := dense.QuatExp(dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}).Mat()
	t := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	vel := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	omega := dense.Vec3{3 * rng.NormFloat64(), 3 * rng.NormFloat64(), 3 * rng.NormFloat64()}
	for range n {
		q := dense.Vec3{0.4 * rng.Float64(), 0.4 * rng.Float64(), 0.4 * rng.Float64()}
		x := R.MulVec(q).Add(t)
		v := vel.Add(omega.Cross(x.Sub(t)))
		y := x.Sub(v.Scale(h))
		p = append(p, q[0], q[1], q[2])
		x0 = append(x0, y[0], y[1], y[2])
		x1 = append(x1, x[0], x[1], x[2])
	}
	return p, x0, x1
}

// fittedSweep is the sweep of the rigid step p -> x0 -> x1 (rigidStep) as
// selfcontact fits it: both ends' affine maps, padded by twice the larger
// deviation.
func fittedSweep(p, x0, x1 []float64) *Sweep {
	verts := allVerts(len(p) / 3)
	f := NewAffineFrame(p, verts)
	var m Sweep
	d0, d1 := 0.0, 0.0
	m.A0, m.B0, d0 = f.Fit(p, x0, verts)
	m.A1, m.B1, d1 = f.Fit(p, x1, verts)
	m.Pad = 2*max(d0, d1) + 1e-12
	m.Prepare()
	return &m
}

func allVerts(n int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(i)
	}
	return v
}

// TestAffineFrameFit: the affine fit of a rigid step's start and end
// positions is exact to rounding; a jitter of 1e-4 shows as that
// deviation; a flat body has no frame.
func TestAffineFrameFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p, x0, x1 := rigidStep(rng, 200, 0.01)
	verts := allVerts(200)
	f := NewAffineFrame(p, verts)
	if !f.Ok() {
		t.Fatal("no frame for a solid cloud")
	}
	for _, x := range [][]float64{x0, x1} {
		if _, _, dev := f.Fit(p, x, verts); !(dev < 1e-13) {
			t.Fatalf("rigid deviation %g", dev)
		}
	}
	x1[3*17+1] += 1e-4
	if _, _, dev := f.Fit(p, x1, verts); math.Abs(dev-1e-4) > 1e-12 {
		t.Fatalf("jittered deviation %g, want 1e-4", dev)
	}
	x1[3*17+1] = math.NaN()
	if _, _, dev := f.Fit(p, x1, verts); !math.IsNaN(dev) {
		t.Fatalf("NaN position: deviation %g", dev)
	}
	flat := slices.Clone(p)
	for i := 2; i < len(flat); i += 3 {
		flat[i] = 0.1
	}
	if g := NewAffineFrame(flat, verts); g.Ok() {
		t.Fatal("a flat body has a frame")
	}
}

// TestOverlappingSwept: on random triangles of a rigid step, the tree
// fitted once at the reference positions and queried with the fitted
// sweep reports, in increasing order, every triangle whose swept box
// (brute force over its corners at both ends, padded by the margin)
// overlaps the query, and few others.
func TestOverlappingSwept(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 300
	p, x0, x1 := rigidStep(rng, n, 0.01)
	var faces []int32
	for range 400 {
		a := rng.IntN(n)
		// Triangles of nearby points: three of the 20 following a.
		faces = append(faces, int32(a), int32((a+1+rng.IntN(20))%n), int32((a+1+rng.IntN(20))%n))
	}
	m := fittedSweep(p, x0, x1)
	var b BVH
	b.Build(nil, p, faces, 0)
	const margin = 0.002
	var got, stack []int32
	extra, exact := 0, 0
	for range 200 {
		// Near a random vertex's start position.
		v := rng.IntN(n)
		c := dense.Vec3(x0[3*v : 3*v+3]).Add(dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.05))
		q := AABB{Lo: c, Hi: c.Add(dense.Vec3{0.02, 0.02, 0.02})}
		got, stack, _ = b.OverlappingSwept(&q, m, margin, got, stack)
		if !slices.IsSorted(got) {
			t.Fatal("not in increasing order")
		}
		for tri := range int32(len(faces) / 3) {
			box := EmptyAABB()
			for _, x := range [][]float64{x0, x1} {
				for _, v := range faces[3*tri : 3*tri+3] {
					box = box.Grow(dense.Vec3(x[3*v : 3*v+3]))
				}
			}
			box = box.Pad(margin)
			_, found := slices.BinarySearch(got, tri)
			if box.Overlaps(&q) {
				exact++
			}
			if box.Overlaps(&q) && !found {
				t.Fatalf("triangle %d overlaps the query and is not reported", tri)
			}
			if !box.Overlaps(&q) && found {
				extra++
			}
		}
	}
	if exact < 200 {
		t.Fatalf("only %d overlaps in all: the queries miss the triangles", exact)
	}
	t.Logf("%d overlaps, %d reported beyond them (rotated boxes are looser)", exact, extra)
}

// TestRefitSweptNear: a tree refitted near a region (RefitSweptNear) reports
// exactly what the fully refitted tree reports for every query inside the
// region, brute-force checked against the triangles' swept boxes; it fits
// fewer nodes than the tree has when the region covers part of the body.
func TestRefitSweptNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 400
	p, x0, x1 := rigidStep(rng, n, 0.01)
	// Small triangles: each point with its two nearest.
	var faces []int32
	at := func(i int) dense.Vec3 { return dense.Vec3(p[3*i : 3*i+3]) }
	for a := range n {
		b, c := -1, -1
		for j := range n {
			if j == a {
				continue
			}
			d := at(j).Sub(at(a)).Norm()
			switch {
			case b < 0 || d < at(b).Sub(at(a)).Norm():
				b, c = j, b
			case c < 0 || d < at(c).Sub(at(a)).Norm():
				c = j
			}
		}
		faces = append(faces, int32(a), int32(b), int32(c))
	}
	m := fittedSweep(p, x0, x1)
	const margin = 0.002
	var ref, full, near BVH
	ref.Build(nil, p, faces, 0)
	full.Build(nil, p, faces, 0)
	near.Build(nil, p, faces, 0)
	// near's boxes start out covering everything (a stale fit), which
	// RefitSweptNear must replace everywhere a query can reach.
	near.Margin = 10
	near.RefitSwept(nil, x0, x1)
	full.Margin, near.Margin = margin, margin
	full.RefitSwept(nil, x0, x1)
	// The region: a box about one vertex's start position, a quarter of
	// the body's size.
	c := dense.Vec3(x0[0:3])
	region := AABB{Lo: c.Sub(dense.Vec3{0.1, 0.1, 0.1}), Hi: c.Add(dense.Vec3{0.1, 0.1, 0.1})}
	near.RefitSweptNear(nil, x0, x1, &ref, m, &region)
	if k := len(near.nearByDepth); k == 0 || k >= near.Nodes()/2 {
		t.Fatalf("%d of %d nodes fitted: want some, and under half", k, near.Nodes())
	}
	var got, want, stack []int32
	hits := 0
	for range 300 {
		lo := region.Lo.Add(dense.Vec3{0.18 * rng.Float64(), 0.18 * rng.Float64(), 0.18 * rng.Float64()})
		q := AABB{Lo: lo, Hi: lo.Add(dense.Vec3{0.02, 0.02, 0.02})}
		got, stack, _ = near.OverlappingBox(&q, got, stack)
		want, stack, _ = full.OverlappingBox(&q, want, stack)
		if !slices.Equal(got, want) {
			t.Fatalf("query %v: near-refitted tree reports %v, fully refitted %v", q, got, want)
		}
		for tri := range int32(len(faces) / 3) {
			box := EmptyAABB()
			for _, x := range [][]float64{x0, x1} {
				for _, v := range faces[3*tri : 3*tri+3] {
					box = box.Grow(dense.Vec3(x[3*v : 3*v+3]))
				}
			}
			if box = box.Pad(margin); box.Overlaps(&q) {
				hits++
				if _, found := slices.BinarySearch(got, tri); !found {
					t.Fatalf("triangle %d overlaps the query and is not reported", tri)
				}
			}
		}
	}
	t.Logf("%d of %d nodes fitted, %d overlaps", len(near.nearByDepth), near.Nodes(), hits)
	if hits < 100 {
		t.Fatalf("only %d overlaps in all: the queries miss the triangles", hits)
	}
}
