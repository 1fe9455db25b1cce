package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// triSamples returns the points of a barycentric grid of n intervals per
// side over triangle abc.
func triSamples(a, b, c dense.Vec3, n int) []dense.Vec3 {
	var ps []dense.Vec3
	for i := 0; i <= n; i++ {
		for j := 0; i+j <= n; j++ {
			u, v := float64(i)/float64(n), float64(j)/float64(n)
			ps = append(ps, a.Add(b.Sub(a).Scale(u)).Add(c.Sub(a).Scale(v)))
		}
	}
	return ps
}

func TestClosestOnTriangleAndSegmentDistanceSampled(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for it := range 25 {
		tr := randTri(r, 0.3)
		ps := triSamples(tr[0], tr[1], tr[2], 150)
		p := dense.Vec3{r.Float64(), r.Float64(), r.Float64()}
		q := p.Add(dense.Vec3{0.6 * (r.Float64() - 0.5), 0.6 * (r.Float64() - 0.5), 0.6 * (r.Float64() - 0.5)})
		best := math.Inf(1)
		for _, s := range ps {
			best = math.Min(best, p.Sub(s).Norm())
		}
		_, got := PointTriangleClosest(p, tr[0], tr[1], tr[2])
		// the grid's spacing bounds how far the nearest sample can be
		if got > best+1e-12 || best-got > 4e-3 {
			t.Fatalf("case %d: point distance %g, sampled %g", it, got, best)
		}
		segBest := math.Inf(1)
		for k := 0; k <= 150; k++ {
			x := p.Add(q.Sub(p).Scale(float64(k) / 150))
			for _, s := range ps {
				segBest = math.Min(segBest, x.Sub(s).Norm())
			}
		}
		got = SegmentTriangleDistance(p, q, tr[0], tr[1], tr[2])
		if got > segBest+1e-12 || segBest-got > 6e-3 {
			t.Fatalf("case %d: segment distance %g, sampled %g", it, got, segBest)
		}
	}
}

// support returns the largest u.x over x in shape s (offset 0) or, for the
// triangle, over its corners.
func support(s *Shape, u dense.Vec3) float64 {
	if s.Rotated {
		// h_{c + R(x - c)}(u) = c.u + h_x(R^T u) - c.(R^T u)
		c := s.RotationCenter()
		local := *s
		local.Rotated = false
		ru := dense.Vec3{s.R[0][0]*u[0] + s.R[1][0]*u[1] + s.R[2][0]*u[2], s.R[0][1]*u[0] + s.R[1][1]*u[1] + s.R[2][1]*u[2], s.R[0][2]*u[0] + s.R[1][2]*u[1] + s.R[2][2]*u[2]}
		return c.Dot(u) + support(&local, ru) - c.Dot(ru)
	}
	switch s.Kind {
	case Sphere:
		return s.Center.Dot(u) + s.Radius
	case Capsule:
		return math.Max(s.A.Dot(u), s.B.Dot(u)) + s.Radius
	default:
		h := 0.0
		for k := range 3 {
			h += s.HalfExtents[k] * math.Abs(u[k])
		}
		return s.Center.Dot(u) + h
	}
}

// bruteDepth searches the unit directions for the smallest overlap of shape
// s and triangle tri along them: a direction-sampling estimate of the
// penetration depth (every direction gives an upper bound), refined by a
// shrinking random search around the best samples.
func bruteDepth(s *Shape, tri [3]dense.Vec3, r *rand.Rand) float64 {
	overlap := func(u dense.Vec3) float64 {
		u = u.Scale(1 / u.Norm())
		lo := math.Inf(1)
		for _, p := range tri {
			lo = math.Min(lo, p.Dot(u))
		}
		return support(s, u) - lo
	}
	const n = 4000
	type cand struct {
		u dense.Vec3
		o float64
	}
	var best []cand
	for k := range n {
		z := 1 - (2*float64(k)+1)/n
		phi := float64(k) * math.Pi * (3 - math.Sqrt(5))
		rho := math.Sqrt(1 - z*z)
		u := dense.Vec3{rho * math.Cos(phi), rho * math.Sin(phi), z}
		best = append(best, cand{u, overlap(u)})
	}
	// refine the 8 best starts
	for pass := 0; pass < 8; pass++ {
		bi := pass
		for k := pass + 1; k < len(best); k++ {
			if best[k].o < best[bi].o {
				bi = k
			}
		}
		best[pass], best[bi] = best[bi], best[pass]
	}
	res := math.Inf(1)
	for _, c := range best[:8] {
		u, o := c.u, c.o
		for step := 0.05; step > 1e-9; {
			improved := false
			for range 60 {
				v := u.Add(dense.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}.Scale(step))
				v = v.Scale(1 / v.Norm())
				if ov := overlap(v); ov < o {
					u, o, improved = v, ov, true
				}
			}
			if !improved {
				step *= 0.7
			}
		}
		res = math.Min(res, o)
	}
	return res
}

// turn is a rotation by 30 degrees about z, then 20 about x, written out.
var turn = func() dense.Mat3 {
	cz, sz := math.Cos(math.Pi/6), math.Sin(math.Pi/6)
	cx, sx := math.Cos(math.Pi/9), math.Sin(math.Pi/9)
	rz := dense.Mat3{{cz, -sz, 0}, {sz, cz, 0}, {0, 0, 1}}
	rx := dense.Mat3{{1, 0, 0}, {0, cx, -sx}, {0, sx, cx}}
	var r dense.Mat3
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				r[i][j] += rx[i][k] * rz[k][j]
			}
		}
	}
	return r
}()

func TestShapeTriangleDepthAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	shapes := []Shape{
		{Kind: Sphere, Center: dense.Vec3{0.5, 0.5, 0.5}, Radius: 0.2},
		{Kind: Capsule, A: dense.Vec3{0.3, 0.4, 0.5}, B: dense.Vec3{0.7, 0.6, 0.45}, Radius: 0.08},
		{Kind: Box, Center: dense.Vec3{0.5, 0.5, 0.5}, HalfExtents: dense.Vec3{0.2, 0.15, 0.1}},
		// turned by 30 degrees about z, then 20 about x (a turned capsule
		// takes the same path back into its frame)
		{Kind: Box, Center: dense.Vec3{0.5, 0.5, 0.5}, HalfExtents: dense.Vec3{0.2, 0.15, 0.1}, Rotated: true, R: turn},
	}
	for si := range shapes {
		s := &shapes[si]
		overlapping := 0
		for it := 0; it < 60; it++ {
			tr := randTri(r, 0.35)
			// pull the triangle towards the shape so that many overlap
			for k := range tr {
				tr[k] = tr[k].Scale(0.5).Add(dense.Vec3{0.25, 0.25, 0.25})
			}
			got := ShapeTriangleDepth(s, dense.Vec3{}, tr[0], tr[1], tr[2])
			// every sampled point of the triangle inside the shape is at most
			// the depth deep
			pointDepth := 0.0
			for _, p := range triSamples(tr[0], tr[1], tr[2], 60) {
				d, _ := SignedDistance(s, dense.Vec3{}, p)
				pointDepth = math.Max(pointDepth, -d)
			}
			if pointDepth > got+1e-12 {
				t.Fatalf("%v case %d: depth %g below a sampled point depth %g", s.Kind, it, got, pointDepth)
			}
			brute := bruteDepth(s, tr, r)
			if got == 0 {
				if pointDepth > 0 {
					t.Fatalf("%v case %d: depth 0 with a point inside (%g)", s.Kind, it, pointDepth)
				}
				if brute > 1e-3 {
					t.Fatalf("%v case %d: depth 0, brute force %g", s.Kind, it, brute)
				}
				continue
			}
			overlapping++
			// every direction's overlap bounds the depth from above; the
			// search gets within 1e-6 of it
			if got > brute+1e-12 || brute-got > 1e-6 {
				t.Fatalf("%v case %d: depth %.10g, brute force %.10g", s.Kind, it, got, brute)
			}
		}
		t.Logf("%v: %d of 60 overlapping", s.Kind, overlapping)
		if overlapping < 15 {
			t.Fatalf("%v: only %d overlapping cases", s.Kind, overlapping)
		}
	}
}

func TestShapeTriangleDepthConstructed(t *testing.T) {
	v := func(x, y, z float64) dense.Vec3 { return dense.Vec3{x, y, z} }
	// A box edge (along y, at x = 0, z = 0.1 of a box below) poking 10 mm
	// through a large face tilted by 45 degrees about y: all its corners lie
	// outside the box.
	box := Shape{Kind: Box, Center: v(-0.1, 0, 0), HalfExtents: v(0.1, 0.5, 0.1)}
	c := math.Sqrt(0.5)
	edge := v(0, 0, 0.1) // the box edge's point under the face
	// the plane through edge + 0.01 (c, 0, c)... put the face's plane at
	// distance 0.01 from the edge along the bisector n = (c, 0, c)
	n := v(c, 0, c)
	o := edge.Sub(n.Scale(0.01))
	t1 := v(-c, 0, c)
	tri := [3]dense.Vec3{o.Add(t1.Scale(-1)).Add(v(0, -1, 0)), o.Add(t1.Scale(1)).Add(v(0, -1, 0)), o.Add(v(0, 1, 0))}
	for _, p := range tri {
		if d, _ := SignedDistance(&box, dense.Vec3{}, p); d <= 0 {
			t.Fatalf("corner %v inside the box", p)
		}
	}
	if got := ShapeTriangleDepth(&box, dense.Vec3{}, tri[0], tri[1], tri[2]); math.Abs(got-0.01) > 1e-12 {
		t.Errorf("box edge through face: depth %g, want 0.01", got)
	}
	// A box corner through a face whose normal is (1,1,1)/sqrt 3.
	box2 := Shape{Kind: Box, Center: v(0, 0, 0), HalfExtents: v(0.1, 0.1, 0.1)}
	n3 := v(1, 1, 1).Scale(1 / math.Sqrt(3))
	o3 := v(0.1, 0.1, 0.1).Sub(n3.Scale(0.004))
	a3, b3 := v(1, -1, 0).Scale(1/math.Sqrt2), v(1, 1, -2).Scale(1/math.Sqrt(6))
	tri3 := [3]dense.Vec3{o3.Add(a3), o3.Add(a3.Scale(-0.5)).Add(b3.Scale(0.9)), o3.Add(a3.Scale(-0.5)).Add(b3.Scale(-0.9))}
	if got := ShapeTriangleDepth(&box2, dense.Vec3{}, tri3[0], tri3[1], tri3[2]); math.Abs(got-0.004) > 1e-12 {
		t.Errorf("box corner through face: depth %g, want 0.004", got)
	}
	// A sphere 8 mm through the middle of a big face; and a capsule 3 mm.
	sph := Shape{Kind: Sphere, Center: v(0.1, 0.1, -0.092), Radius: 0.1}
	big := [3]dense.Vec3{v(-1, -1, 0), v(1, -1, 0), v(0, 1, 0)}
	if got := ShapeTriangleDepth(&sph, v(0, 0, 0), big[0], big[1], big[2]); math.Abs(got-0.008) > 1e-12 {
		t.Errorf("sphere through face: depth %g, want 0.008", got)
	}
	capsule := Shape{Kind: Capsule, A: v(-0.5, 0, -0.017), B: v(0.5, 0.1, -0.017), Radius: 0.02}
	if got := ShapeTriangleDepth(&capsule, v(0, 0, 0), big[0], big[1], big[2]); math.Abs(got-0.003) > 1e-12 {
		t.Errorf("capsule through face: depth %g, want 0.003", got)
	}
	// Planes and points are measured at vertices.
	pl := Shape{Kind: Plane, Normal: v(0, 0, 1)}
	if got := ShapeTriangleDepth(&pl, v(0, 0, 0), big[0], big[1], big[2]); got != 0 {
		t.Errorf("plane: %g", got)
	}
	if _, ok := PenetrationBounds(&pl, v(0, 0, 0)); ok {
		t.Errorf("plane has penetration bounds")
	}
}

func TestPenetrationBoundsHoldShape(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	off := dense.Vec3{0.1, -0.2, 0.3}
	for _, s := range []Shape{
		{Kind: Sphere, Center: dense.Vec3{0.5, 0.5, 0.5}, Radius: 0.2},
		{Kind: Capsule, A: dense.Vec3{0.3, 0.4, 0.5}, B: dense.Vec3{0.7, 0.6, 0.45}, Radius: 0.08},
		{Kind: Box, Center: dense.Vec3{0.5, 0.5, 0.5}, HalfExtents: dense.Vec3{0.2, 0.15, 0.1}},
	} {
		b, ok := PenetrationBounds(&s, off)
		if !ok {
			t.Fatalf("%v: no bounds", s.Kind)
		}
		for range 20000 {
			p := dense.Vec3{r.Float64()*1.4 - 0.2, r.Float64()*1.4 - 0.2, r.Float64()*1.4 - 0.2}
			if d, _ := SignedDistance(&s, off, p); d < 0 {
				pb := AABB{Lo: p, Hi: p}
				if !b.Overlaps(&pb) {
					t.Fatalf("%v: inside point %v outside the bounds %v", s.Kind, p, b)
				}
			}
		}
	}
}
