package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// rotXYZ returns Rz*Ry*Rx for angles in radians.
func rotXYZ(a, b, g float64) dense.Mat3 {
	sa, ca := math.Sincos(a)
	sb, cb := math.Sincos(b)
	sg, cg := math.Sincos(g)
	rx := dense.Mat3{{1, 0, 0}, {0, ca, -sa}, {0, sa, ca}}
	ry := dense.Mat3{{cb, 0, sb}, {0, 1, 0}, {-sb, 0, cb}}
	rz := dense.Mat3{{cg, -sg, 0}, {sg, cg, 0}, {0, 0, 1}}
	return rz.Mul(ry.Mul(rx))
}

// surfaceSamples returns points densely covering the surface of the rotated,
// offset shape s (box or capsule), with the spacing between neighbours.
func surfaceSamples(s *Shape, off dense.Vec3, n int) (pts []dense.Vec3, spacing float64) {
	c := s.RotationCenter()
	world := func(local dense.Vec3) dense.Vec3 { return c.Add(off).Add(s.R.MulVec(local.Sub(c))) }
	switch s.Kind {
	case Box:
		h := s.HalfExtents
		for a := range 3 {
			b, d := (a+1)%3, (a+2)%3
			for _, sg := range []float64{-1, 1} {
				for i := 0; i <= n; i++ {
					for j := 0; j <= n; j++ {
						var q dense.Vec3
						q[a] = sg * h[a]
						q[b] = h[b] * (2*float64(i)/float64(n) - 1)
						q[d] = h[d] * (2*float64(j)/float64(n) - 1)
						pts = append(pts, world(s.Center.Add(q)))
					}
				}
			}
		}
		spacing = 2 * math.Max(h[0], math.Max(h[1], h[2])) / float64(n)
	case Capsule:
		ab := s.B.Sub(s.A)
		l := ab.Norm()
		u := ab.Scale(1 / l)
		v := dense.Perp(u)
		w := u.Cross(v)
		for j := 0; j < 2*n; j++ { // the cylinder, then the two hemispherical caps
			ph := math.Pi * float64(j) / float64(n)
			for k := 0; k <= n; k++ {
				dir := v.Scale(math.Cos(ph)).Add(w.Scale(math.Sin(ph)))
				pts = append(pts, world(s.A.Add(ab.Scale(float64(k)/float64(n))).Add(dir.Scale(s.Radius))))
			}
			for i := 0; i <= n; i++ {
				th := math.Pi / 2 * float64(i) / float64(n)
				dir := v.Scale(math.Sin(th) * math.Cos(ph)).Add(w.Scale(math.Sin(th) * math.Sin(ph)))
				pts = append(pts, world(s.B.Add(dir.Add(u.Scale(math.Cos(th))).Scale(s.Radius))),
					world(s.A.Add(dir.Sub(u.Scale(math.Cos(th))).Scale(s.Radius))))
			}
		}
		spacing = math.Max(l/float64(n), math.Pi*s.Radius/float64(n))
	}
	return pts, spacing
}

// TestRotatedDistanceBruteForce compares the signed distance of a turned box
// and capsule with the distance to densely sampled points of their turned
// surfaces, the sign with a point-in-shape test in the shape's frame, and
// the normal with the distance's gradient.
func TestRotatedDistanceBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	shapes := []*Shape{
		{Kind: Box, Center: dense.Vec3{0.1, -0.2, 0.3}, HalfExtents: dense.Vec3{0.5, 0.25, 0.125}, Rotated: true, R: rotXYZ(0.3, -0.7, 1.1)},
		{Kind: Capsule, A: dense.Vec3{-0.3, 0.1, 0}, B: dense.Vec3{0.4, 0.2, 0.1}, Radius: 0.15, Rotated: true, R: rotXYZ(-1.2, 0.4, 2.5)},
	}
	off := dense.Vec3{0.05, 0.02, -0.1}
	for _, s := range shapes {
		pts, spacing := surfaceSamples(s, off, 80)
		c := s.RotationCenter().Add(off)
		for trial := 0; trial < 300; trial++ {
			p := c.Add(dense.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Scale(1.6))
			d, n := SignedDistance(s, off, p)
			best := math.Inf(1)
			for _, q := range pts {
				best = math.Min(best, q.Sub(p).Norm())
			}
			// Samples lie on the surface, so the exact distance is at most
			// the nearest sample's, and at least it minus half a diagonal.
			if math.Abs(d) > best+1e-12 || math.Abs(d) < best-spacing {
				t.Fatalf("kind %v p %v: |d| = %g, nearest sample %g (spacing %g)", s.Kind, p, math.Abs(d), best, spacing)
			}
			// Sign: inside in the shape's own frame.
			l := s.R.T().MulVec(p.Sub(c))
			var inside bool
			if s.Kind == Box {
				inside = math.Abs(l[0]) < s.HalfExtents[0] && math.Abs(l[1]) < s.HalfExtents[1] && math.Abs(l[2]) < s.HalfExtents[2]
			} else {
				loc := s.RotationCenter().Add(l)
				d0, _ := SignedDistance(&Shape{Kind: Capsule, A: s.A, B: s.B, Radius: s.Radius}, dense.Vec3{}, loc)
				inside = d0 < 0
			}
			if inside != (d < 0) {
				t.Fatalf("kind %v p %v: d = %g, inside %v", s.Kind, p, d, inside)
			}
			if math.Abs(n.Norm()-1) > 1e-12 {
				t.Fatalf("normal %v not unit", n)
			}
			if d > 1e-3 { // outside: the normal is the distance's gradient
				checkNormal(t, s, off, p, n, 1e-5)
			}
		}
	}
}

// TestRotatedIdentityIsAxisAligned: a shape turned by the identity gives
// the axis-aligned results.
func TestRotatedIdentityIsAxisAligned(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	id := dense.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for _, s := range []Shape{
		{Kind: Box, Center: dense.Vec3{0.1, -0.2, 0.3}, HalfExtents: dense.Vec3{0.5, 0.25, 0.125}},
		{Kind: Capsule, A: dense.Vec3{-0.3, 0.1, 0}, B: dense.Vec3{0.4, 0.2, 0.1}, Radius: 0.15},
	} {
		r := s
		r.Rotated, r.R = true, id
		for trial := 0; trial < 100; trial++ {
			p := dense.Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}
			d0, n0 := SignedDistance(&s, dense.Vec3{0.01, 0, 0}, p)
			d1, n1 := SignedDistance(&r, dense.Vec3{0.01, 0, 0}, p)
			if math.Abs(d0-d1) > 1e-14 || !near(n0, n1, 1e-14) {
				t.Fatalf("kind %v: %g %v vs %g %v", s.Kind, d0, n0, d1, n1)
			}
		}
	}
}

// TestAppendFeaturesRotatedBox: a turned box's edges lie sqrt(2) thickness
// from it with the faces' bisector as its normal, its corners sqrt(3)
// thickness, the face normals are the turned axes, and the features carry
// the velocity of a turning body.
func TestAppendFeaturesRotatedBox(t *testing.T) {
	const th = 0.01
	R := rotXYZ(0.2, 0.5, -0.9)
	s := &Shape{Kind: Box, Center: dense.Vec3{0.1, 0.2, 0.3}, HalfExtents: dense.Vec3{0.5, 0.25, 0.125}, Rotated: true, R: R}
	off, vel, omega := dense.Vec3{0, 0, -0.05}, dense.Vec3{1, 2, 3}, dense.Vec3{0.3, -0.2, 0.5}
	fs := AppendMovingFeatures(nil, s, off, vel, omega, 7, th)
	if len(fs) != 20 {
		t.Fatalf("%d features", len(fs))
	}
	c := s.Center.Add(off)
	for i := range fs {
		f := &fs[i]
		if i < 12 {
			axis := i / 4
			if want := (dense.Vec3{R[0][axis], R[1][axis], R[2][axis]}); !near(f.Dir, want, 1e-15) {
				t.Fatalf("edge %d: dir %v, want %v", i, f.Dir, want)
			}
			for _, u := range []float64{0, 0.3, 1} {
				p := f.At(u * f.Length)
				d, n := SignedDistance(s, off, p)
				if math.Abs(d-math.Sqrt2*th) > 1e-12 {
					t.Fatalf("edge %d: distance %g", i, d)
				}
				if bis := f.N[0].Add(f.N[1]).Scale(1 / math.Sqrt2); !near(n, bis, 1e-12) {
					t.Fatalf("edge %d: normal %v, bisector %v", i, n, bis)
				}
				if want := vel.Add(omega.Cross(p.Sub(c))); !near(f.VelAt(p), want, 1e-15) {
					t.Fatalf("edge %d: VelAt %v, want %v", i, f.VelAt(p), want)
				}
			}
			continue
		}
		d, n := SignedDistance(s, off, f.P0)
		if math.Abs(d-math.Sqrt(3)*th) > 1e-12 {
			t.Fatalf("corner %d: distance %g", i, d)
		}
		if sum := f.N[0].Add(f.N[1]).Add(f.N[2]).Scale(1 / math.Sqrt(3)); !near(n, sum, 1e-12) {
			t.Fatalf("corner %d: normal %v, faces' %v", i, n, sum)
		}
	}
	// A turned capsule's wire runs along its turned axis.
	cs := &Shape{Kind: Capsule, A: dense.Vec3{-0.3, 0, 0}, B: dense.Vec3{0.3, 0, 0}, Radius: 0.05, Rotated: true, R: R}
	w := AppendMovingFeatures(nil, cs, off, vel, omega, 0, th)[0]
	if !near(w.Dir, dense.Vec3{R[0][0], R[1][0], R[2][0]}, 1e-15) || !near(w.P0, off.Add(R.MulVec(cs.A)), 1e-15) {
		t.Fatalf("wire %+v", w)
	}
}
