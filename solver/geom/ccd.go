package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Impact is a contact found by continuous collision detection between four
// moving points x_i(t) = x_i + t d_i, t in [0, 1]: a vertex and a face
// (x_0 the vertex, x_1..x_3 the face) or two edges (x_0 x_1 and x_2 x_3).
// W are weights with sum W_i x_i(T) the vector from the second primitive's
// contact point to the first's (W = {1, -b0, -b1, -b2} for a vertex and a
// face with barycentric weights b; {1-s, s, -(1-u), -u} for edges at
// parameters s and u), so sum W_i = 0. N is a unit normal at T oriented so
// that N . sum W_i x_i(0) >= 0: the side the first primitive started on, the
// direction in which the impulse pushes it (Bridson et al. 2002 sec. 7.1).
type Impact struct {
	T float64
	W [4]float64
	N dense.Vec3
}

// VertexFaceCCD returns the earliest time in [0, 1] at which vertex x[0]
// comes within tol of triangle x[1] x[2] x[3] while the four points are
// coplanar, moving linearly by d over the unit interval, and reports whether
// there is one (Provot 1997; Bridson et al. 2002 sec. 6.1).
func VertexFaceCCD(x, d *[4]dense.Vec3, tol float64) (Impact, bool) {
	return ccd(x, d, tol, false)
}

// EdgeEdgeCCD is VertexFaceCCD for edge x[0] x[1] against edge x[2] x[3].
func EdgeEdgeCCD(x, d *[4]dense.Vec3, tol float64) (Impact, bool) {
	return ccd(x, d, tol, true)
}

// ccd finds the times in [0, 1] at which the four points are coplanar (the
// roots of the cubic det[x1-x0, x2-x0, x3-x0](t) = 0) and, in increasing
// order, checks the proximity of the primitives there. The cubic is split
// at its critical points into monotone pieces, on each of which a sign
// change brackets exactly one root, found by bisection: no root in a piece
// with a sign change is missed, whatever the conditioning. The critical
// points themselves are also checked, which catches grazing contacts (a
// double root that the sign test cannot see) within tol.
func ccd(x, d *[4]dense.Vec3, tol float64, edge bool) (Impact, bool) {
	a0, a1 := x[1].Sub(x[0]), d[1].Sub(d[0])
	b0, b1 := x[2].Sub(x[0]), d[2].Sub(d[0])
	c0, c1 := x[3].Sub(x[0]), d[3].Sub(d[0])
	// det[a(t), b(t), c(t)] = a(t) . (b(t) x c(t)) expanded in t.
	k0 := a0.Dot(b0.Cross(c0))
	k1 := a1.Dot(b0.Cross(c0)) + a0.Dot(b1.Cross(c0)) + a0.Dot(b0.Cross(c1))
	k2 := a1.Dot(b1.Cross(c0)) + a1.Dot(b0.Cross(c1)) + a0.Dot(b1.Cross(c1))
	k3 := a1.Dot(b1.Cross(c1))
	f := func(t float64) float64 { return ((k3*t+k2)*t+k1)*t + k0 }

	// Break points: 0, critical points in (0, 1) sorted, 1.
	var br [4]float64
	nb := 0
	br[nb] = 0
	nb++
	c1s, c2s, nc := quadRoots(3*k3, 2*k2, k1)
	if nc == 2 && c2s < c1s {
		c1s, c2s = c2s, c1s
	}
	if nc >= 1 && c1s > 0 && c1s < 1 {
		br[nb] = c1s
		nb++
	}
	if nc == 2 && c2s > 0 && c2s < 1 && c2s != c1s {
		br[nb] = c2s
		nb++
	}
	br[nb] = 1
	nb++

	// Candidate times in increasing order: each break point and the root
	// bracketed in the piece after it.
	for i := range nb {
		l := br[i]
		fl := f(l)
		if i > 0 || fl == 0 {
			// Critical points and an exactly coplanar start: proximity check.
			if imp, ok := proximityAt(x, d, l, tol, edge); ok {
				return imp, true
			}
		}
		if i == nb-1 {
			break
		}
		r := br[i+1]
		fr := f(r)
		if (fl < 0 && fr > 0) || (fl > 0 && fr < 0) {
			lo, hi := l, r
			for range 100 {
				m := 0.5 * (lo + hi)
				if m <= lo || m >= hi {
					break
				}
				fm := f(m)
				if fm == 0 {
					lo, hi = m, m
					break
				}
				if (fm < 0) == (fl < 0) {
					lo = m
				} else {
					hi = m
				}
			}
			// Check at the bracket's upper end: the root is in [lo, hi], a
			// few ulps wide.
			if imp, ok := proximityAt(x, d, hi, tol, edge); ok {
				return imp, true
			}
		}
	}
	return Impact{}, false
}

// quadRoots returns the real roots of a t^2 + b t + c (n of them, 0 to 2),
// computed stably.
func quadRoots(a, b, c float64) (r1, r2 float64, n int) {
	if a == 0 {
		if b == 0 {
			return 0, 0, 0
		}
		return -c / b, 0, 1
	}
	disc := b*b - 4*a*c
	if disc < 0 {
		return 0, 0, 0
	}
	q := -0.5 * (b + math.Copysign(math.Sqrt(disc), b))
	if q == 0 {
		return 0, 0, 1
	}
	return q / a, c / q, 2
}

// proximityAt checks whether the primitives at time t are within tol and
// returns the impact there.
func proximityAt(x, d *[4]dense.Vec3, t, tol float64, edge bool) (Impact, bool) {
	var p [4]dense.Vec3
	for i := range 4 {
		p[i] = x[i].Add(d[i].Scale(t))
	}
	imp := Impact{T: t}
	// Cheap rejection first: the distance to the face's plane (or between
	// the edges' lines) bounds the distance from below.
	var e1, e2, r1 dense.Vec3
	if edge {
		e1, e2, r1 = p[1].Sub(p[0]), p[3].Sub(p[2]), p[2].Sub(p[0])
	} else {
		e1, e2, r1 = p[2].Sub(p[1]), p[3].Sub(p[1]), p[0].Sub(p[1])
	}
	n := e1.Cross(e2)
	if math.Abs(n.Dot(r1)) > (1+1e-6)*tol*n.Norm() {
		return Impact{}, false
	}
	// And the boxes: the vertex (first edge) against the face's (second
	// edge's) box grown by tol; this rejects the coplanar neighbours of a
	// flat sheet, which the plane test cannot.
	for k := range 3 {
		lo, hi := min(p[2][k], p[3][k]), max(p[2][k], p[3][k])
		if !edge {
			lo, hi = min(lo, p[1][k]), max(hi, p[1][k])
		}
		plo, phi := p[0][k], p[0][k]
		if edge {
			plo, phi = min(plo, p[1][k]), max(phi, p[1][k])
		}
		if plo > hi+tol || phi < lo-tol {
			return Impact{}, false
		}
	}
	var dist float64
	if edge {
		s, u, dd := EdgeEdgeClosest(p[0], p[1], p[2], p[3])
		dist = dd
		imp.W = [4]float64{1 - s, s, -(1 - u), -u}
	} else {
		w, dd := PointTriangleClosest(p[0], p[1], p[2], p[3])
		dist = dd
		imp.W = [4]float64{1, -w[0], -w[1], -w[2]}
	}
	if !(dist <= tol) {
		return Impact{}, false
	}
	var r, r0 dense.Vec3
	for i := range 4 {
		r = r.Add(p[i].Scale(imp.W[i]))
		r0 = r0.Add(x[i].Scale(imp.W[i]))
	}
	// The plane normal is the contact normal; where it degenerates (parallel
	// edges, a sliver), the separation direction at t or at the start.
	if nn := n.Norm(); nn > 1e-6*e1.Norm()*e2.Norm() {
		n = n.Scale(1 / nn)
	} else if rn := r.Norm(); rn > 0 {
		n = r.Scale(1 / rn)
	} else if rn := r0.Norm(); rn > 0 {
		n = r0.Scale(1 / rn)
	} else {
		n = dense.Vec3{0, 0, 1}
	}
	if n.Dot(r0) < 0 {
		n = n.Scale(-1)
	}
	imp.N = n
	return imp, true
}

// EdgeEdgeClosest is SegmentClosest made safe for zero-length segments.
func EdgeEdgeClosest(p0, p1, q0, q1 dense.Vec3) (s, u, d float64) {
	dp, dq := p1.Sub(p0), q1.Sub(q0)
	switch {
	case dp.Dot(dp) == 0 && dq.Dot(dq) == 0:
		return 0, 0, p0.Sub(q0).Norm()
	case dp.Dot(dp) == 0:
		u, d = PointSegmentClosest(p0, q0, q1)
		return 0, u, d
	case dq.Dot(dq) == 0:
		s, d = PointSegmentClosest(q0, p0, p1)
		return s, 0, d
	}
	return SegmentClosest(p0, p1, q0, q1)
}
