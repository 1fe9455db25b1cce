package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// orient3 is the signed volume det[b-a, c-a, d-a] (six times the
// tetrahedron's volume): positive when d is on the side of plane abc that
// (b-a) x (c-a) points to.
func orient3(a, b, c, d dense.Vec3) float64 {
	return b.Sub(a).Cross(c.Sub(a)).Dot(d.Sub(a))
}

// SegmentTriangleIntersect reports whether segment pq crosses triangle abc:
// p and q are not strictly on one side of the triangle's plane and the line
// pq passes through the closed triangle (the three orientations of pq with
// the triangle's edges agree in sign). A segment lying in the triangle's
// plane (within a relative 1e-12) is reported as not crossing it (the coplanar case is degenerate for
// cloth, whose triangles are tested edge by edge both ways).
func SegmentTriangleIntersect(p, q, a, b, c dense.Vec3) bool {
	n := b.Sub(a).Cross(c.Sub(a))
	nn := n.Norm()
	if !(nn > 0) {
		return false // zero-area triangle
	}
	// Signed distances to the plane, snapped to zero within a relative
	// 1e-12 of the scale, so that nearly coplanar pairs (rounding noise in a
	// flat sheet) count as coplanar rather than as a random crossing.
	pa, qa := p.Sub(a), q.Sub(a)
	eps := 1e-12 * (pa.Norm() + qa.Norm() + b.Sub(a).Norm() + c.Sub(a).Norm())
	op, oq := n.Dot(pa)/nn, n.Dot(qa)/nn
	if math.Abs(op) <= eps {
		op = 0
	}
	if math.Abs(oq) <= eps {
		oq = 0
	}
	if (op > 0 && oq > 0) || (op < 0 && oq < 0) || (op == 0 && oq == 0) {
		return false
	}
	u, v, w := orient3(p, q, a, b), orient3(p, q, b, c), orient3(p, q, c, a)
	if (u > 0 || v > 0 || w > 0) && (u < 0 || v < 0 || w < 0) {
		return false
	}
	return u != 0 || v != 0 || w != 0
}

// TriTriIntersect reports whether triangles a and b intersect: whether some
// edge of one crosses the other (SegmentTriangleIntersect). For two
// non-coplanar triangles that is exact: their intersection is a segment
// whose end points lie on edges of the triangles. Triangles sharing a vertex
// touch there; callers counting intersections skip such pairs.
func TriTriIntersect(a0, a1, a2, b0, b1, b2 dense.Vec3) bool {
	return SegmentTriangleIntersect(a0, a1, b0, b1, b2) ||
		SegmentTriangleIntersect(a1, a2, b0, b1, b2) ||
		SegmentTriangleIntersect(a2, a0, b0, b1, b2) ||
		SegmentTriangleIntersect(b0, b1, a0, a1, a2) ||
		SegmentTriangleIntersect(b1, b2, a0, a1, a2) ||
		SegmentTriangleIntersect(b2, b0, a0, a1, a2)
}

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
