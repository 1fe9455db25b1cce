package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// DefaultFeatureAngle is the least angle (radians) between the two face
// normals of a mesh edge that makes it a sharp feature when a scene gives
// none: 30 degrees, so a cube's edges (90) and a 60-degree wedge's ridge
// (120) count and the edges of a smooth sphere mesh (a few to 15 degrees at
// 24 segments and more) do not.
const DefaultFeatureAngle = math.Pi / 6

// meshCorner is a mesh vertex where exactly three sharp edges meet, with a
// triangle on each of its three faces' planes.
type meshCorner struct {
	v   int32
	tri [3]int32
}

// MarkSharpEdges selects a rigid, closed mesh's sharp features for EOL
// contact (Weidner 2018 sec. 3 and 5 treat the edges and corners of
// polyhedral obstacles): the convex edges whose two faces' normals differ by
// more than minAngle radians, and the corners where exactly three of them
// meet and the incident triangles lie in exactly three planes (a box's
// corner, a prism's; an apex of four or more planes is not a corner feature:
// its edges end there). An edge is convex when the far corner of either face
// lies behind the other face's plane. An open mesh has no inside, so no
// convex edges: it gets none. It returns the number of edges selected;
// appendMeshFeatures turns them and the corners into features. Marked on the
// current pose: a deforming mesh's selection would not follow its motion, so
// callers mark rigid meshes only.
func (m *MeshSurface) MarkSharpEdges(minAngle float64) int {
	m.sharp, m.corners = m.sharp[:0], m.corners[:0]
	if !m.Closed {
		return 0
	}
	for h, o := range m.twin {
		if o < int32(h) { // each edge once, from its lower half-edge
			continue
		}
		n0, n1 := m.faceN[h/3], m.faceN[o/3]
		if n0 == (dense.Vec3{}) || n1 == (dense.Vec3{}) {
			continue
		}
		if math.Atan2(n0.Cross(n1).Norm(), n0.Dot(n1)) <= minAngle {
			continue
		}
		a := m.vertex(m.Faces[h])
		far := m.vertex(m.Faces[3*(o/3)+(o+2)%3]) // the twin face's corner off the edge
		if far.Sub(a).Dot(n0) >= 0 {
			continue // concave
		}
		m.sharp = append(m.sharp, int32(h))
	}
	m.markCorners()
	return len(m.sharp)
}

// markCorners finds the corners among the sharp edges' ends (see
// MarkSharpEdges), in vertex order.
func (m *MeshSurface) markCorners() {
	edges := make([]int8, len(m.Pos)/3)
	for _, h := range m.sharp {
		edges[m.Faces[h]]++
		edges[m.Faces[3*(h/3)+(h+1)%3]]++
	}
	planes := make(map[int32][]int32) // a candidate's triangles, one per distinct plane
	for t := range len(m.Faces) / 3 {
		for _, v := range m.Faces[3*t : 3*t+3] {
			if edges[v] != 3 {
				continue
			}
			n := m.faceN[t]
			seen := n == (dense.Vec3{})
			for _, o := range planes[v] {
				seen = seen || m.faceN[o].Sub(n).Norm() < 1e-9
			}
			if !seen {
				planes[v] = append(planes[v], int32(t))
			}
		}
	}
	for v, k := range edges {
		if p := planes[int32(v)]; k == 3 && len(p) == 3 {
			m.corners = append(m.corners, meshCorner{v: int32(v), tri: [3]int32{p[0], p[1], p[2]}})
		}
	}
}

// CornerOffset returns how far a corner feature with face normals n0, n1, n2
// (unit, independent) is moved out so that it lies at distance thickness from
// all three faces' planes: the d with d.nk = thickness for each k, by
// Cramer's rule thickness (n1 x n2 + n2 x n0 + n0 x n1) / (n0 . n1 x n2);
// thickness (n0 + n1 + n2) at a box's corner.
func CornerOffset(n0, n1, n2 dense.Vec3, thickness float64) dense.Vec3 {
	s := n1.Cross(n2).Add(n2.Cross(n0)).Add(n0.Cross(n1))
	return s.Scale(thickness / n0.Dot(n1.Cross(n2)))
}

// EdgeOffset returns how far an edge feature with face normals n0 and n1
// (unit) is moved out so that it lies at distance thickness from both faces'
// planes, in the layer where the contacts keep the cloth on the faces
// (Weidner 2018 sec. 5: EOL vertices sit on the feature):
// thickness (n0 + n1) / (1 + n0.n1), which solves d.n0 = d.n1 = thickness
// for d in the plane of n0 and n1. Its length is thickness / cos(theta/2) for
// normals theta apart: thickness sqrt 2 at a right angle (a box edge, where
// it is thickness (n0 + n1)), 2 thickness on a 60-degree wedge's ridge
// (theta = 120 degrees).
func EdgeOffset(n0, n1 dense.Vec3, thickness float64) dense.Vec3 {
	return n0.Add(n1).Scale(thickness / (1 + n0.Dot(n1)))
}

// appendMeshFeatures appends mesh m's sharp edges (MarkSharpEdges), in its
// frame translated by offset and moving at vel, as obstacle oi: feature ID k
// is the k-th marked edge, from its half-edge's first corner to its second,
// with its two faces' normals (the half-edge's face first) and moved out by
// EdgeOffset; then its corners (IDs from the number of edges on), with their
// three faces' normals, moved out by CornerOffset.
func appendMeshFeatures(dst []Feature, m *MeshSurface, offset, vel dense.Vec3, oi int32, thickness float64) []Feature {
	for k, h := range m.sharp {
		n0, n1 := m.faceN[h/3], m.faceN[m.twin[h]/3]
		a := m.vertex(m.Faces[h])
		d := m.vertex(m.Faces[3*(h/3)+(h+1)%3]).Sub(a)
		l := d.Norm()
		dst = append(dst, Feature{Obstacle: oi, ID: int32(k), Kind: FeatureEdge,
			P0: a.Add(offset).Add(EdgeOffset(n0, n1, thickness)), Dir: d.Scale(1 / l), Length: l,
			N: [3]dense.Vec3{n0, n1}, Vel: vel})
	}
	for k, c := range m.corners {
		n := [3]dense.Vec3{m.faceN[c.tri[0]], m.faceN[c.tri[1]], m.faceN[c.tri[2]]}
		dst = append(dst, Feature{Obstacle: oi, ID: int32(len(m.sharp) + k), Kind: FeatureCorner,
			P0: m.vertex(c.v).Add(offset).Add(CornerOffset(n[0], n[1], n[2], thickness)), N: n, Vel: vel})
	}
	return dst
}
