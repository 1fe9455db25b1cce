package geom

import (
	"cmp"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
)

// DefaultFeatureAngle is the least angle (radians) between the two face
// normals of a mesh edge that makes it a sharp feature when a scene gives
// none: 30 degrees, so a cube's edges (90) and a 60-degree wedge's ridge
// (120) count and the edges of a smooth sphere mesh (a few to 15 degrees at
// 24 segments and more) do not.
const DefaultFeatureAngle = math.Pi / 6

// MarkSharpEdges selects a rigid, closed mesh's sharp features for EOL
// contact (Weidner 2018 sec. 3 and 5 treat the edges and corners of
// polyhedral obstacles): the convex edges whose two faces' normals differ by
// more than minAngle radians, and the trihedral corners where three of them
// meet (markCorners). An edge is convex when the far corner of either face
// lies behind the other face's plane. An open mesh has no inside, so no
// convex edges: it gets none. It returns the number of edges selected;
// AppendMeshFeatures turns them and the corners into features. Marked on the
// current pose: a deforming mesh's selection would not follow its motion, so
// callers mark rigid meshes only.
func (m *MeshSurface) MarkSharpEdges(minAngle float64) int {
	m.sharp, m.corners, m.sharpEnds = m.sharp[:0], m.corners[:0], m.sharpEnds[:0]
	if !m.Closed {
		return 0
	}
	concave := map[int32]bool{} // vertices on a concave sharp edge
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
			concave[m.Faces[h]], concave[m.Faces[3*(h/3)+(h+1)%3]] = true, true
			continue
		}
		m.sharp = append(m.sharp, int32(h))
	}
	m.markCorners(concave)
	return len(m.sharp)
}

// cornerPlaneTol (radians) is how far a face normal at a corner may be from
// one of the corner's three planes: the faces of a polyhedral corner lie in
// them, to the rounding of an OBJ file's coordinates.
const cornerPlaneTol = 1e-3

// meshCorner is a trihedral corner of a mesh: vertex V, where exactly three
// sharp convex edges meet, the outward normals of its three face planes.
type meshCorner struct {
	V int32
	N [3]dense.Vec3
}

// markCorners selects the corners of the marked sharp edges: the vertices
// where exactly three of them meet and no concave sharp edge, whose every
// incident face lies in one of three planes (the normals of the faces on
// either side of the three edges), the planes independent. That is a box's
// corner or a wedge's ridge end: a convex trihedral cone, the corner
// feature of Weidner 2018 sec. 5. Where more planes meet (a pyramid's apex)
// there is no corner: the edges' ends are plain ends.
func (m *MeshSurface) markCorners(concave map[int32]bool) {
	edges := map[int32][]int32{} // vertex -> its sharp half-edges
	for _, h := range m.sharp {
		for _, v := range []int32{m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]} {
			edges[v] = append(edges[v], h)
		}
	}
	cand := map[int32]int{} // vertex -> index into m.corners
	for v, hs := range edges {
		if len(hs) != 3 || concave[v] {
			continue
		}
		var c meshCorner
		k := 0
	planes:
		for _, h := range hs {
			for _, n := range []dense.Vec3{m.faceN[h/3], m.faceN[m.twin[h]/3]} {
				switch {
				case planeOf(c.N[:k], n) >= 0:
				case k == 3:
					k = 4 // a fourth plane
					break planes
				default:
					c.N[k], k = n, k+1
				}
			}
		}
		if k != 3 || math.Abs(c.N[0].Dot(c.N[1].Cross(c.N[2]))) < 1e-6 {
			continue
		}
		c.V = v
		cand[v] = len(m.corners)
		m.corners = append(m.corners, c)
	}
	drop := map[int]bool{}
	for h, v := range m.Faces {
		if i, ok := cand[v]; ok && planeOf(m.corners[i].N[:], m.faceN[h/3]) < 0 {
			drop[i] = true // a face off the three planes
		}
	}
	kept := m.corners[:0]
	for i, c := range m.corners {
		if !drop[i] {
			kept = append(kept, c)
		}
	}
	m.corners = kept
	// Map iteration order is random: the feature IDs follow the vertices.
	slices.SortFunc(m.corners, func(a, b meshCorner) int { return cmp.Compare(a.V, b.V) })
	id := map[int32]int32{} // vertex -> its corner's feature ID
	for j, c := range m.corners {
		id[c.V] = int32(len(m.sharp) + j)
	}
	for _, h := range m.sharp {
		ends := [2]int32{-1, -1}
		for k, v := range [2]int32{m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]} {
			if j, ok := id[v]; ok {
				ends[k] = j
			}
		}
		m.sharpEnds = append(m.sharpEnds, ends)
	}
}

// planeOf returns the index of the normal in ns within cornerPlaneTol of n,
// or -1.
func planeOf(ns []dense.Vec3, n dense.Vec3) int {
	for i, p := range ns {
		if math.Atan2(p.Cross(n).Norm(), p.Dot(n)) <= cornerPlaneTol {
			return i
		}
	}
	return -1
}

// CornerOffset returns how far a corner with three face normals n0, n1, n2
// (unit, independent) is moved out so that it lies at distance thickness
// from all three faces' planes (Weidner 2018 sec. 5: EOL vertices sit on the
// feature, in the contact layer): the d with n_k.d = thickness, by Cramer's
// rule thickness (n1 x n2 + n2 x n0 + n0 x n1) / (n0 . (n1 x n2)); thickness
// (n0 + n1 + n2) for a box's orthogonal normals. The edges' EdgeOffset lines
// pass through it.
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

// appendMeshFeatures appends mesh m's sharp edges and corners
// (MarkSharpEdges), in its frame translated by offset and moving at vel, as
// obstacle oi: feature ID k < E is the k-th marked edge, from its
// half-edge's first corner to its second, with its two faces' normals (the
// half-edge's face first) and moved out by EdgeOffset; ID E + j is the j-th
// corner (in vertex order), with its three planes' normals, moved out by
// CornerOffset. An edge's end where no corner was found is a plain end
// (EdgeHit keeps reach from it).
func appendMeshFeatures(dst []Feature, m *MeshSurface, offset, vel dense.Vec3, oi int32, thickness float64) []Feature {
	for k, h := range m.sharp {
		n0, n1 := m.faceN[h/3], m.faceN[m.twin[h]/3]
		a := m.vertex(m.Faces[h])
		d := m.vertex(m.Faces[3*(h/3)+(h+1)%3]).Sub(a)
		l := d.Norm()
		dst = append(dst, Feature{Obstacle: oi, ID: int32(k), Kind: FeatureEdge,
			P0: a.Add(offset).Add(EdgeOffset(n0, n1, thickness)), Dir: d.Scale(1 / l), Length: l,
			N: [3]dense.Vec3{n0, n1}, Vel: vel, Ends: m.sharpEnds[k]})
	}
	for j, c := range m.corners {
		dst = append(dst, Feature{Obstacle: oi, ID: int32(len(m.sharp) + j), Kind: FeatureCorner,
			P0: m.vertex(c.V).Add(offset).Add(CornerOffset(c.N[0], c.N[1], c.N[2], thickness)), N: c.N, Vel: vel,
			Ends: [2]int32{-1, -1}})
	}
	return dst
}
