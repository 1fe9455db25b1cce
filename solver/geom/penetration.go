package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// This file measures how far an obstacle pokes through a cloth triangle, for
// the max_penetration stat. The measure is the penetration depth of the
// obstacle and the (closed, zero-thickness) triangle: the length of the
// shortest translation that separates them, 0 when they do not overlap.
// It is at least the depth of every point of the triangle inside the
// obstacle (so of its vertices), and it sees an obstacle's edge, corner or
// cap that crosses the face between vertices:
//
//   - sphere (centre c, radius r): r - dist(c, triangle);
//   - capsule (segment S, radius r): r - dist(S, triangle) when S misses the
//     triangle, r + the penetration depth of S and the triangle when it
//     crosses it;
//   - box: the smallest overlap of the box and the triangle projected on the
//     13 separating axes (the box's 3 face normals, the triangle's normal,
//     and the 9 cross products of a box edge with a triangle edge), which is
//     exactly the penetration depth of the two convex polytopes. A box edge
//     or corner through the face's interior reads its distance beyond the
//     face's plane when that is the shortest way out.
//
//   - mesh: how far the mesh's edges (and so its vertices) that cross the
//     face's prism stand out beyond the face, for the mesh triangles that
//     intersect it (meshdepth.go): a one-sided measure along the face's
//     normal, not a penetration depth of two solids.
//
// Planes and nail points have no depth through a face beyond that of the
// face's corners; callers measure them at the vertices.

// PenetrationBounds returns the bounding box of shape s translated by
// offset, and false for the shapes the triangle measure does not handle
// (plane, point): the cull for ShapeTriangleDepth.
func PenetrationBounds(s *Shape, offset dense.Vec3) (AABB, bool) {
	if s.Kind == Mesh {
		mb := s.Mesh.Bounds()
		if !s.Rotated {
			return AABB{Lo: mb.Lo.Add(offset), Hi: mb.Hi.Add(offset)}, true
		}
		c := s.RotationCenter()
		out := EmptyAABB()
		for k := range 8 {
			p := dense.Vec3{mb.Lo[0], mb.Lo[1], mb.Lo[2]}
			for j := range 3 {
				if k&(1<<j) != 0 {
					p[j] = mb.Hi[j]
				}
			}
			out = out.Grow(c.Add(offset).Add(s.R.MulVec(p.Sub(c))))
		}
		return out, true
	}
	if s.Rotated && (s.Kind == Box || s.Kind == Capsule) {
		// The bounds of the turned shape: its centre plus, per axis, the
		// extent of the turned half extents (|R| h) or segment ends.
		c := s.RotationCenter().Add(offset)
		if s.Kind == Capsule {
			h := s.R.MulVec(s.B.Sub(s.A).Scale(0.5))
			return AABB{Lo: c.Sub(h), Hi: c.Sub(h)}.Grow(c.Add(h)).Pad(s.Radius), true
		}
		var e dense.Vec3
		for i := range 3 {
			for k := range 3 {
				e[i] += math.Abs(s.R[i][k]) * s.HalfExtents[k]
			}
		}
		return AABB{Lo: c.Sub(e), Hi: c.Add(e)}, true
	}
	switch s.Kind {
	case Sphere:
		c := s.Center.Add(offset)
		return AABB{Lo: c, Hi: c}.Pad(s.Radius), true
	case Capsule:
		a, b := s.A.Add(offset), s.B.Add(offset)
		return AABB{Lo: a, Hi: a}.Grow(b).Pad(s.Radius), true
	case Box:
		c := s.Center.Add(offset)
		return AABB{Lo: c.Sub(s.HalfExtents), Hi: c.Add(s.HalfExtents)}, true
	}
	return AABB{}, false
}

// ShapeTriangleDepth returns the penetration depth (see above) of shape s,
// translated by offset, and triangle abc: 0 when they do not overlap, and 0
// for planes and points.
//
// A Rotated shape is measured in its own frame, the triangle taken back by
// R^T about the (offset) rotation centre: the depth is invariant under the
// rigid motion.
func ShapeTriangleDepth(s *Shape, offset, a, b, c dense.Vec3) float64 {
	if s.Rotated {
		o := s.RotationCenter()
		local := *s
		local.Rotated = false
		back := func(p dense.Vec3) dense.Vec3 { return o.Add(s.R.T().MulVec(p.Sub(o.Add(offset)))) }
		return ShapeTriangleDepth(&local, dense.Vec3{}, back(a), back(b), back(c))
	}
	switch s.Kind {
	case Sphere:
		o := s.Center.Add(offset)
		_, d := PointTriangleClosest(o, a, b, c)
		return math.Max(0, s.Radius-d)
	case Capsule:
		p, q := s.A.Add(offset), s.B.Add(offset)
		if segmentCrossesTriangle(p, q, a, b, c) {
			return s.Radius + segmentTriangleDepth(p, q, a, b, c)
		}
		return math.Max(0, s.Radius-SegmentTriangleDistance(p, q, a, b, c))
	case Box:
		return boxTriangleDepth(s.Center.Add(offset), [3]dense.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, s.HalfExtents, a, b, c)
	case Mesh:
		return meshTriangleDepth(s.Mesh, a.Sub(offset), b.Sub(offset), c.Sub(offset))
	}
	return 0
}

// SegmentTriangleDistance returns the distance between segment pq and the
// closed triangle abc: 0 when they meet; otherwise the nearest pair has an
// end of the segment or a point of a triangle edge in it.
func SegmentTriangleDistance(p, q, a, b, c dense.Vec3) float64 {
	if segmentCrossesTriangle(p, q, a, b, c) {
		return 0
	}
	_, _, d := segmentTriangleNearest(p, q, a, b, c)
	return d
}

// segmentTriangleNearest returns, for segment pq and triangle abc that do
// not meet, the segment's point nearest the triangle, the barycentric
// weights of the triangle's point nearest it, and their distance: the pair
// has an end of the segment or a point of a triangle edge in it.
func segmentTriangleNearest(p, q, a, b, c dense.Vec3) (core dense.Vec3, w [3]float64, d float64) {
	d = math.Inf(1)
	for _, e := range [2]dense.Vec3{p, q} {
		if we, de := PointTriangleClosest(e, a, b, c); de < d {
			core, w, d = e, we, de
		}
	}
	corners := [3]dense.Vec3{a, b, c}
	for k := range 3 {
		sp, te, de := SegmentClosest(p, q, corners[k], corners[(k+1)%3])
		if de < d {
			core, d = p.Add(q.Sub(p).Scale(sp)), de
			w = [3]float64{}
			w[k], w[(k+1)%3] = 1-te, te
		}
	}
	return core, w, d
}

// segmentCrossesTriangle reports whether segment pq meets the closed
// triangle abc at a point where it crosses or touches the triangle's plane
// (a segment in the plane reports false; its distance is then found by the
// edge and end tests).
func segmentCrossesTriangle(p, q, a, b, c dense.Vec3) bool {
	return edgeMeetsTriangle(p, q, orient3d(a, b, c, p), orient3d(a, b, c, q), a, b, c)
}

// satDepth returns the smallest overlap of point sets u and v projected on
// the unit axes, or 0 when some axis separates them: the penetration depth
// of their convex hulls when the axes hold the face normals of their
// Minkowski difference.
func satDepth(u, v []dense.Vec3, axes []dense.Vec3) float64 {
	depth := math.Inf(1)
	for _, ax := range axes {
		ulo, uhi := interval(u, ax)
		vlo, vhi := interval(v, ax)
		o := math.Min(uhi-vlo, vhi-ulo)
		if o <= 0 {
			return 0
		}
		depth = math.Min(depth, o)
	}
	if math.IsInf(depth, 1) {
		return 0
	}
	return depth
}

// appendAxis appends the unit vector along u x v unless u and v are (nearly)
// parallel: such a pair spans no face of the Minkowski difference.
func appendAxis(axes []dense.Vec3, u, v dense.Vec3) []dense.Vec3 {
	w := u.Cross(v)
	l := w.Norm()
	if l <= 1e-12*u.Norm()*v.Norm() || l == 0 {
		return axes
	}
	return append(axes, w.Scale(1/l))
}

func interval(ps []dense.Vec3, ax dense.Vec3) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range ps {
		d := p.Dot(ax)
		lo, hi = math.Min(lo, d), math.Max(hi, d)
	}
	return lo, hi
}

// boxTriangleDepth is the penetration depth of the box with centre c, unit
// axes ax and half extents h, and triangle abc (separating axis theorem).
func boxTriangleDepth(c dense.Vec3, ax [3]dense.Vec3, h dense.Vec3, a, b, t dense.Vec3) float64 {
	var box [8]dense.Vec3
	for k := range 8 {
		p := c
		for j := range 3 {
			p = p.Add(ax[j].Scale(h[j] * float64(2*((k>>j)&1)-1)))
		}
		box[k] = p
	}
	tri := [3]dense.Vec3{a, b, t}
	edges := [3]dense.Vec3{b.Sub(a), t.Sub(b), a.Sub(t)}
	axes := make([]dense.Vec3, 0, 13)
	axes = append(axes, ax[0], ax[1], ax[2])
	axes = appendAxis(axes, edges[0], edges[1])
	for j := range 3 {
		for _, e := range edges {
			axes = appendAxis(axes, ax[j], e)
		}
	}
	return satDepth(box[:], tri[:], axes)
}

// segmentTriangleDepth is the penetration depth of segment pq and triangle
// abc: their Minkowski difference is a prism whose faces are normal to the
// triangle's normal and to the segment crossed with each triangle edge.
func segmentTriangleDepth(p, q, a, b, c dense.Vec3) float64 {
	d := q.Sub(p)
	edges := [3]dense.Vec3{b.Sub(a), c.Sub(b), a.Sub(c)}
	axes := appendAxis(make([]dense.Vec3, 0, 4), edges[0], edges[1])
	for _, e := range edges {
		axes = appendAxis(axes, d, e)
	}
	return satDepth([]dense.Vec3{p, q}, []dense.Vec3{a, b, c}, axes)
}
