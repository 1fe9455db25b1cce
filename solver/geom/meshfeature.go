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

// MarkSharpEdges selects a rigid, closed mesh's sharp features for EOL
// contact (Weidner 2018 sec. 3 and 5 treat the edges of polyhedral
// obstacles): the convex edges whose two faces' normals differ by more than
// minAngle radians. An edge is convex when the far corner of either face lies
// behind the other face's plane. An open mesh has no inside, so no convex
// edges: it gets none. It returns the number of edges selected;
// AppendMeshFeatures turns them into features. Marked on the current pose:
// a deforming mesh's selection would not follow its motion, so callers mark
// rigid meshes only.
func (m *MeshSurface) MarkSharpEdges(minAngle float64) int {
	m.sharp = m.sharp[:0]
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
	return len(m.sharp)
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
// EdgeOffset. Where three or more meet there is no corner feature: the
// edges' ends are plain ends (EdgeHit keeps reach from them).
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
	return dst
}
