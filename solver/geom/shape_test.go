package geom

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// boxSurface returns the points of an n x n grid on each face of the box
// about c with half extents half.
func boxSurface(c, half dense.Vec3, n int) []dense.Vec3 {
	var pts []dense.Vec3
	for axis := range 3 {
		for _, side := range []float64{-1, 1} {
			b, d := (axis+1)%3, (axis+2)%3
			for i := 0; i <= n; i++ {
				for j := 0; j <= n; j++ {
					var p dense.Vec3
					p[axis] = c[axis] + side*half[axis]
					p[b] = c[b] - half[b] + 2*half[b]*float64(i)/float64(n)
					p[d] = c[d] - half[d] + 2*half[d]*float64(j)/float64(n)
					pts = append(pts, p)
				}
			}
		}
	}
	return pts
}

func nearest(pts []dense.Vec3, p dense.Vec3) float64 {
	best := math.Inf(1)
	for _, q := range pts {
		best = math.Min(best, math.Sqrt((p[0]-q[0])*(p[0]-q[0])+(p[1]-q[1])*(p[1]-q[1])+(p[2]-q[2])*(p[2]-q[2])))
	}
	return best
}

func randVec(r *rand.Rand, s float64) dense.Vec3 {
	return dense.Vec3{s * (2*r.Float64() - 1), s * (2*r.Float64() - 1), s * (2*r.Float64() - 1)}
}

// checkNormal compares the returned normal with the central-difference
// gradient of the distance where the distance is smooth.
func checkNormal(t *testing.T, s *Shape, off, p dense.Vec3, n dense.Vec3, tol float64) {
	t.Helper()
	const h = 1e-6
	var g dense.Vec3
	for k := range 3 {
		pp, pm := p, p
		pp[k] += h
		pm[k] -= h
		dp, _ := SignedDistance(s, off, pp)
		dm, _ := SignedDistance(s, off, pm)
		g[k] = (dp - dm) / (2 * h)
	}
	for k := range 3 {
		if math.Abs(g[k]-n[k]) > tol {
			t.Fatalf("%v at %v: normal %v, distance gradient %v", s.Kind, p, n, g)
		}
	}
}

// TestSignedDistanceBoxBruteForce compares a box's signed distance with the
// distance to densely sampled surface points, its sign with the interval
// test for inside, and its normal with the distance's gradient.
func TestSignedDistanceBoxBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	c, half, off := dense.Vec3{0.1, -0.2, 0.3}, dense.Vec3{0.3, 0.2, 0.5}, dense.Vec3{0.05, 0, -0.1}
	s := &Shape{Kind: Box, Center: c, HalfExtents: half}
	const n = 200
	pts := boxSurface(c.Add(off), half, n)
	// The sample grid's diagonal bounds how far the true nearest point is
	// from a sample.
	tol := math.Sqrt(2) * 2 * 0.5 / n
	for range 300 {
		p := c.Add(off).Add(randVec(r, 1))
		d, nrm := SignedDistance(s, off, p)
		q := p.Sub(c.Add(off))
		inside := math.Abs(q[0]) < half[0] && math.Abs(q[1]) < half[1] && math.Abs(q[2]) < half[2]
		if inside != (d < 0) {
			t.Fatalf("p %v: inside %v but distance %g", p, inside, d)
		}
		if want := nearest(pts, p); math.Abs(math.Abs(d)-want) > tol {
			t.Fatalf("p %v: |distance| %g, nearest sample %g", p, math.Abs(d), want)
		}
		if math.Abs(nrm.Norm()-1) > 1e-12 {
			t.Fatalf("p %v: normal %v not unit", p, nrm)
		}
		checkNormal(t, s, off, p, nrm, 1e-5)
	}
}

// TestSignedDistanceRoundShapes checks spheres, capsules and points against
// the nearest of densely sampled surface points, and planes against the
// projection formula.
func TestSignedDistanceRoundShapes(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	off := dense.Vec3{0, 0.1, 0.2}
	sphere := &Shape{Kind: Sphere, Center: dense.Vec3{0.2, 0, 0}, Radius: 0.4}
	capsule := &Shape{Kind: Capsule, A: dense.Vec3{-0.3, 0, 0}, B: dense.Vec3{0.4, 0.2, 0.1}, Radius: 0.15}
	point := &Shape{Kind: Point, Center: dense.Vec3{0, 0, 0.1}, Normal: dense.Vec3{0, 0, 1}}
	// Fibonacci sphere directions.
	const m = 4000
	dirs := make([]dense.Vec3, m)
	for i := range dirs {
		z := 1 - 2*(float64(i)+0.5)/m
		phi := float64(i) * math.Pi * (3 - math.Sqrt(5))
		rr := math.Sqrt(1 - z*z)
		dirs[i] = dense.Vec3{rr * math.Cos(phi), rr * math.Sin(phi), z}
	}
	var spherePts, capPts []dense.Vec3
	sc := sphere.Center.Add(off)
	for _, u := range dirs {
		spherePts = append(spherePts, sc.Add(u.Scale(sphere.Radius)))
	}
	a, b := capsule.A.Add(off), capsule.B.Add(off)
	// The capsule's surface: a cylinder about a-b and a hemisphere at each
	// end.
	ab := b.Sub(a)
	e := ab.Scale(1 / ab.Norm())
	u := e.Cross(dense.Vec3{0, 0, 1})
	u = u.Scale(1 / u.Norm())
	v := e.Cross(u)
	for i := 0; i <= 400; i++ {
		ax := a.Add(ab.Scale(float64(i) / 400))
		for j := range 400 {
			th := 2 * math.Pi * float64(j) / 400
			capPts = append(capPts, ax.Add(u.Scale(capsule.Radius*math.Cos(th))).Add(v.Scale(capsule.Radius*math.Sin(th))))
		}
	}
	for _, w := range dirs {
		if w.Dot(e) < 0 {
			capPts = append(capPts, a.Add(w.Scale(capsule.Radius)))
		} else {
			capPts = append(capPts, b.Add(w.Scale(capsule.Radius)))
		}
	}
	for range 200 {
		p := randVec(r, 1)
		d, _ := SignedDistance(sphere, off, p)
		if want := nearest(spherePts, p); math.Abs(math.Abs(d)-want) > 0.02 {
			t.Fatalf("sphere, p %v: |distance| %g, nearest sample %g", p, math.Abs(d), want)
		}
		if in := p.Sub(sc).Norm() < sphere.Radius; in != (d < 0) {
			t.Fatalf("sphere, p %v: inside %v, distance %g", p, in, d)
		}
		d, nrm := SignedDistance(capsule, off, p)
		if want := nearest(capPts, p); math.Abs(math.Abs(d)-want) > 0.02 {
			t.Fatalf("capsule, p %v: |distance| %g, nearest sample %g", p, math.Abs(d), want)
		}
		checkNormal(t, capsule, off, p, nrm, 1e-5)
		d, nrm = SignedDistance(point, off, p)
		if want := p.Sub(point.Center.Add(off)).Norm(); math.Abs(d-want) > 1e-12 {
			t.Fatalf("point, p %v: distance %g, want %g", p, d, want)
		}
		checkNormal(t, point, off, p, nrm, 1e-5)
	}
	plane := &Shape{Kind: Plane, Center: dense.Vec3{0, 0, -0.5}, Normal: dense.Vec3{0, 0.6, 0.8}}
	p := dense.Vec3{1, 2, 3}
	d, nrm := SignedDistance(plane, off, p)
	want := 0.6*(2-0.1) + 0.8*(3+0.5-0.2)
	if math.Abs(d-want) > 1e-12 || nrm != plane.Normal {
		t.Fatalf("plane: distance %g normal %v, want %g %v", d, nrm, want, plane.Normal)
	}
	// At a round shape's centre the normal is +z and the depth the radius.
	if d, nrm := SignedDistance(sphere, off, sc); d != -sphere.Radius || nrm != (dense.Vec3{0, 0, 1}) {
		t.Fatalf("sphere centre: %g %v", d, nrm)
	}
}
