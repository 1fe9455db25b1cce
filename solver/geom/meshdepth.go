package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// meshTriangleDepth is ShapeTriangleDepth for a mesh surface (its frame):
// how far the mesh pokes through triangle abc. For every mesh triangle that
// intersects abc (exact test), each of its edges is clipped to the prism
// over abc (the points that project into the triangle), and the depth is
// the largest distance of the clipped part beyond abc's plane on the side
// the edge's pseudo-normal points to (the mesh's outside): a mesh vertex or
// edge through the face between its vertices reads how far it stands out
// of it, as a box corner or edge does in the box measure. Where the cloth
// face has sunk into the mesh instead, the mesh's edges above it read its
// depth too. An edge parallel to the face's plane in its pseudo-normal
// (neither side) reads 0. For an open mesh, which has no outside, the
// larger side is taken.
func meshTriangleDepth(m *MeshSurface, a, b, c dense.Vec3) float64 {
	box := Bounds3(a, b, c)
	return m.triangleDepth(a, b, c, m.bvh.Overlapping(&box, nil))
}

// triangleDepth is meshTriangleDepth over the candidate mesh triangles.
func (m *MeshSurface) triangleDepth(a, b, c dense.Vec3, candidates []int32) float64 {
	n := b.Sub(a).Cross(c.Sub(a))
	l := n.Norm()
	if l == 0 {
		return 0
	}
	n = n.Scale(1 / l)
	tri := [3]dense.Vec3{a, b, c}
	depth := 0.0
	for _, t := range candidates {
		f := m.Faces[3*t : 3*t+3]
		x := [3]dense.Vec3{m.vertex(f[0]), m.vertex(f[1]), m.vertex(f[2])}
		if !TrianglesIntersect(a, b, c, x[0], x[1], x[2]) {
			continue
		}
		for k := range 3 {
			p, q, ok := clipToPrism(x[k], x[(k+1)%3], tri, n)
			if !ok {
				continue
			}
			hp, hq := p.Sub(a).Dot(n), q.Sub(a).Dot(n)
			side := m.edgeN[3*int(t)+k].Dot(n)
			switch {
			case !m.Closed:
				depth = max(depth, math.Abs(hp), math.Abs(hq))
			case side > 0:
				depth = max(depth, hp, hq)
			case side < 0:
				depth = max(depth, -hp, -hq)
			}
		}
	}
	return depth
}

// clipToPrism clips segment pq to the infinite prism over triangle tri
// (unit normal n): the points whose projection along n lies in the closed
// triangle. It reports false when nothing is left.
func clipToPrism(p, q dense.Vec3, tri [3]dense.Vec3, n dense.Vec3) (dense.Vec3, dense.Vec3, bool) {
	t0, t1 := 0.0, 1.0
	d := q.Sub(p)
	for k := range 3 {
		in := n.Cross(tri[(k+1)%3].Sub(tri[k])) // inward normal of edge k's side
		s0, ds := p.Sub(tri[k]).Dot(in), d.Dot(in)
		switch {
		case ds == 0:
			if s0 < 0 {
				return p, q, false
			}
		case ds > 0:
			t0 = math.Max(t0, -s0/ds)
		default:
			t1 = math.Min(t1, -s0/ds)
		}
	}
	if t0 > t1 {
		return p, q, false
	}
	return p.Add(d.Scale(t0)), p.Add(d.Scale(t1)), true
}
