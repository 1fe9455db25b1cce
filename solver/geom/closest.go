package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// PointTriangleClosest returns the barycentric weights w (w[0]a + w[1]b +
// w[2]c) of the point of triangle abc closest to p and the distance
// (Ericson, Real-Time Collision Detection, sec. 5.1.5, by Voronoi regions).
// A degenerate triangle is handled as its longest edge.
func PointTriangleClosest(p, a, b, c dense.Vec3) (w [3]float64, d float64) {
	ab, ac, ap := b.Sub(a), c.Sub(a), p.Sub(a)
	d1, d2 := ab.Dot(ap), ac.Dot(ap)
	done := func(w [3]float64) ([3]float64, float64) {
		q := a.Scale(w[0]).Add(b.Scale(w[1])).Add(c.Scale(w[2]))
		return w, p.Sub(q).Norm()
	}
	if d1 <= 0 && d2 <= 0 {
		return done([3]float64{1, 0, 0})
	}
	bp := p.Sub(b)
	d3, d4 := ab.Dot(bp), ac.Dot(bp)
	if d3 >= 0 && d4 <= d3 {
		return done([3]float64{0, 1, 0})
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		v := d1 / (d1 - d3)
		return done([3]float64{1 - v, v, 0})
	}
	cp := p.Sub(c)
	d5, d6 := ab.Dot(cp), ac.Dot(cp)
	if d6 >= 0 && d5 <= d6 {
		return done([3]float64{0, 0, 1})
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		v := d2 / (d2 - d6)
		return done([3]float64{1 - v, 0, v})
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		v := (d4 - d3) / ((d4 - d3) + (d5 - d6))
		return done([3]float64{0, 1 - v, v})
	}
	den := va + vb + vc
	if !(math.Abs(den) > 0) {
		// Degenerate (zero-area) triangle: closest point of its edges.
		best := [3]float64{1, 0, 0}
		bd := math.Inf(1)
		for _, e := range [3][2]int{{0, 1}, {1, 2}, {2, 0}} {
			v := [3]dense.Vec3{a, b, c}
			s, dd := PointSegmentClosest(p, v[e[0]], v[e[1]])
			if dd < bd {
				bd = dd
				best = [3]float64{}
				best[e[0]] += 1 - s
				best[e[1]] += s
			}
		}
		return best, bd
	}
	v, ww := vb/den, vc/den
	return done([3]float64{1 - v - ww, v, ww})
}

// PointSegmentClosest returns the parameter s in [0, 1] of the point of
// segment ab closest to p and the distance.
func PointSegmentClosest(p, a, b dense.Vec3) (s, d float64) {
	ab := b.Sub(a)
	if l2 := ab.Dot(ab); l2 > 0 {
		s = clamp01(p.Sub(a).Dot(ab) / l2)
	}
	return s, p.Sub(a.Add(ab.Scale(s))).Norm()
}
