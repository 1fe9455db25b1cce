package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

func rv(rng *rand.Rand, s float64) dense.Vec3 {
	return dense.Vec3{s * (2*rng.Float64() - 1), s * (2*rng.Float64() - 1), s * (2*rng.Float64() - 1)}
}

// Reference kernels written independently of the package's, from plain
// formulas on [3]float64.

func rsub(a, b dense.Vec3) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func rdot(a, b [3]float64) float64    { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func rcross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// refPointSegment is the distance from p to segment ab.
func refPointSegment(p, a, b dense.Vec3) float64 {
	ab, ap := rsub(b, a), rsub(p, a)
	t := 0.0
	if l := rdot(ab, ab); l > 0 {
		t = math.Max(0, math.Min(1, rdot(ap, ab)/l))
	}
	r := [3]float64{ap[0] - t*ab[0], ap[1] - t*ab[1], ap[2] - t*ab[2]}
	return math.Sqrt(rdot(r, r))
}

// refPointTriangle: the projection onto the plane if it falls inside (by
// barycentrics from a 2x2 solve), else the nearest edge.
func refPointTriangle(p, a, b, c dense.Vec3) float64 {
	e0, e1, ap := rsub(b, a), rsub(c, a), rsub(p, a)
	m00, m01, m11 := rdot(e0, e0), rdot(e0, e1), rdot(e1, e1)
	r0, r1 := rdot(ap, e0), rdot(ap, e1)
	det := m00*m11 - m01*m01
	u := (m11*r0 - m01*r1) / det
	v := (m00*r1 - m01*r0) / det
	if u >= 0 && v >= 0 && u+v <= 1 {
		q := [3]float64{ap[0] - u*e0[0] - v*e1[0], ap[1] - u*e0[1] - v*e1[1], ap[2] - u*e0[2] - v*e1[2]}
		return math.Sqrt(rdot(q, q))
	}
	return math.Min(refPointSegment(p, a, b), math.Min(refPointSegment(p, b, c), refPointSegment(p, c, a)))
}

// refSegSeg: end point distances, and the interior line-line solution when
// both parameters fall inside.
func refSegSeg(p0, p1, q0, q1 dense.Vec3) float64 {
	d := math.Min(math.Min(refPointSegment(p0, q0, q1), refPointSegment(p1, q0, q1)),
		math.Min(refPointSegment(q0, p0, p1), refPointSegment(q1, p0, p1)))
	u, v, w := rsub(p1, p0), rsub(q1, q0), rsub(p0, q0)
	a, b, c, dd, e := rdot(u, u), rdot(u, v), rdot(v, v), rdot(u, w), rdot(v, w)
	den := a*c - b*b
	if den > 1e-12*a*c {
		s := (b*e - c*dd) / den
		t := (a*e - b*dd) / den
		if s >= 0 && s <= 1 && t >= 0 && t <= 1 {
			r := [3]float64{w[0] + s*u[0] - t*v[0], w[1] + s*u[1] - t*v[1], w[2] + s*u[2] - t*v[2]}
			d = math.Min(d, math.Sqrt(rdot(r, r)))
		}
	}
	return d
}

func TestPointTriangleClosestMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const n = 150
	for range 300 {
		a, b, c, p := rv(rng, 1), rv(rng, 1), rv(rng, 1), rv(rng, 1.5)
		w, d := PointTriangleClosest(p, a, b, c)
		if w[0] < -1e-12 || w[1] < -1e-12 || w[2] < -1e-12 || math.Abs(w[0]+w[1]+w[2]-1) > 1e-12 {
			t.Fatalf("weights %v", w)
		}
		q := a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
		if math.Abs(p.Sub(q).Norm()-d) > 1e-12 {
			t.Fatal("distance does not match the weights")
		}
		if r := refPointTriangle(p, a, b, c); math.Abs(r-d) > 1e-9 {
			t.Fatalf("distance %v, reference %v", d, r)
		}
		best := math.Inf(1)
		for i := 0; i <= n; i++ {
			for j := 0; i+j <= n; j++ {
				u, v := float64(i)/n, float64(j)/n
				s := a.Scale(1 - u - v).Add(b.Scale(u)).Add(c.Scale(v))
				best = math.Min(best, p.Sub(s).Norm())
			}
		}
		diam := math.Max(b.Sub(a).Norm(), math.Max(c.Sub(a).Norm(), c.Sub(b).Norm()))
		if best < d-1e-12 || best > d+2*diam/n {
			t.Fatalf("sampled %v, exact %v", best, d)
		}
	}
}

func TestEdgeEdgeClosestMatchesSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const n = 400
	for i := range 300 {
		p0, p1, q0, q1 := rv(rng, 1), rv(rng, 1), rv(rng, 1), rv(rng, 1)
		if i%10 == 0 { // nearly parallel
			q1 = q0.Add(p1.Sub(p0).Scale(0.7)).Add(rv(rng, 1e-9))
		}
		s, u, d := EdgeEdgeClosest(p0, p1, q0, q1)
		ps, qu := p0.Add(p1.Sub(p0).Scale(s)), q0.Add(q1.Sub(q0).Scale(u))
		if math.Abs(ps.Sub(qu).Norm()-d) > 1e-12 || s < 0 || s > 1 || u < 0 || u > 1 {
			t.Fatal("parameters do not match the distance")
		}
		if r := refSegSeg(p0, p1, q0, q1); math.Abs(r-d) > 1e-9 {
			t.Fatalf("case %d: distance %v, reference %v", i, d, r)
		}
		best := math.Inf(1)
		for a := 0; a <= n; a++ {
			x := p0.Add(p1.Sub(p0).Scale(float64(a) / n))
			for b := 0; b <= n; b += 4 {
				best = math.Min(best, x.Sub(q0.Add(q1.Sub(q0).Scale(float64(b)/n))).Norm())
			}
		}
		if best < d-1e-9 || best > d+8.0/n*2 { // SegmentClosest loses ~1e-10 on nearly parallel edges
			t.Fatalf("sampled %v, exact %v", best, d)
		}
	}
}
