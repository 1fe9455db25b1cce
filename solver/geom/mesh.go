package geom

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// MeshSurface is a triangle-mesh obstacle's surface in its own frame (the
// obstacle's Shape turns and moves it): vertex positions, optional vertex
// velocities of a deforming mesh, the triangles, and a BVH over them for
// closest-point queries.
//
// Sign. A closed mesh (every edge shared by exactly two triangles that
// traverse it in opposite directions, so consistently oriented) encloses a
// solid, and the sign of a point's distance is that of (p - q) . N, with q
// the closest surface point and N the angle-weighted pseudo-normal of the
// feature q lies on (Baerentzen & Aanaes 2005, "Signed distance computation
// using the angle weighted pseudonormal": the face normal inside a face, the
// sum of the two face normals on an edge, the sum of the incident face
// normals weighted by their angles at a vertex; Theorem 1 there: the sign is
// right for every point). Its faces must wind counter-clockwise seen from
// outside (positive volume).
//
// An open mesh (some edge with one triangle, or non-manifold or
// inconsistently oriented) encloses nothing: its distance is unsigned, a
// thin two-sided shell, so cloth on either side is kept out of the contact
// layer, and nothing is ever inside it. Its normal points from the closest
// surface point to p (the feature's pseudo-normal when p is on the surface).
//
// A mesh whose vertices move (Update) keeps its triangles and tree shape;
// its BVH is refitted, its normals recomputed. A triangle of zero area has
// no normal and adds nothing to its vertices' and edges' pseudo-normals.
type MeshSurface struct {
	Pos    []float64 // 3 per vertex, current, in the shape's frame
	Vel    []float64 // 3 per vertex, the deformation velocity; nil when rigid
	Faces  []int32   // 3 per triangle, counter-clockwise from outside
	Closed bool

	bvh       BVH
	twin      []int32      // per half-edge 3t+k (corner k to k+1): its opposite half-edge, -1 on the boundary
	faceN     []dense.Vec3 // unit face normals (zero for a zero-area face)
	edgeN     []dense.Vec3 // per half-edge: the edge's pseudo-normal (not unit)
	vertN     []dense.Vec3 // per vertex: the angle-weighted pseudo-normal (not unit)
	sharp     []int32      // the sharp edges' half-edges (MarkSharpEdges)
	corners   []meshCorner // the sharp edges' trihedral corners (MarkSharpEdges)
	sharpEnds [][2]int32   // per sharp edge: the corner feature IDs at its ends, -1 none
}

// NewMeshSurface checks and indexes a mesh: pos holds 3 finite coordinates
// per vertex, faces 3 vertex indices per triangle, each in range, with three
// distinct corners. A closed mesh (see MeshSurface) must have positive
// volume. It keeps pos and faces (the caller must not change them) and
// builds the BVH on r.
func NewMeshSurface(r Runner, pos []float64, faces []int32) (*MeshSurface, error) {
	nv, nt := len(pos)/3, len(faces)/3
	switch {
	case nv == 0 || len(pos) != 3*nv:
		return nil, fmt.Errorf("mesh has no vertices (or %d coordinates, not 3 per vertex)", len(pos))
	case nt == 0 || len(faces) != 3*nt:
		return nil, fmt.Errorf("mesh has no triangles (or %d indices, not 3 per triangle)", len(faces))
	}
	for i, x := range pos {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("vertex %d: coordinate %v is not finite", i/3, x)
		}
	}
	for t := range nt {
		f := faces[3*t : 3*t+3]
		for _, v := range f {
			if v < 0 || int(v) >= nv {
				return nil, fmt.Errorf("triangle %d: vertex %d out of range [0, %d)", t, v, nv)
			}
		}
		if f[0] == f[1] || f[1] == f[2] || f[0] == f[2] {
			return nil, fmt.Errorf("triangle %d repeats a vertex (%d %d %d)", t, f[0], f[1], f[2])
		}
	}
	m := &MeshSurface{Pos: pos, Faces: faces, twin: make([]int32, 3*nt),
		faceN: make([]dense.Vec3, nt), edgeN: make([]dense.Vec3, 3*nt), vertN: make([]dense.Vec3, nv)}
	m.Closed = m.matchEdges()
	m.normals()
	if m.Closed {
		if v := m.volume(); !(v > 0) {
			return nil, fmt.Errorf("closed mesh has volume %.3g <= 0: its triangles wind clockwise seen from outside (inside out)", v)
		}
	}
	m.bvh.Build(r, pos, faces, 0)
	return m, nil
}

// matchEdges fills twin and reports whether the mesh is closed: every
// half-edge a->b has exactly one opposite b->a and no duplicate.
func (m *MeshSurface) matchEdges() bool {
	type edge struct{ a, b int32 }
	half := make(map[edge]int32, len(m.Faces))
	closed := true
	for h := range m.Faces {
		e := edge{m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]}
		if _, dup := half[e]; dup {
			closed = false
		}
		half[e] = int32(h)
	}
	for h := range m.Faces {
		a, b := m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]
		o, ok := half[edge{b, a}]
		if !ok {
			o, closed = -1, false
		}
		m.twin[h] = o
	}
	return closed
}

// normals recomputes the face normals and the pseudo-normals of edges and
// vertices from Pos.
func (m *MeshSurface) normals() {
	clear(m.vertN)
	for t := range m.faceN {
		f := m.Faces[3*t : 3*t+3]
		x := [3]dense.Vec3{m.vertex(f[0]), m.vertex(f[1]), m.vertex(f[2])}
		n := x[1].Sub(x[0]).Cross(x[2].Sub(x[0]))
		if l := n.Norm(); l > 0 {
			n = n.Scale(1 / l)
		} else {
			n = dense.Vec3{}
		}
		m.faceN[t] = n
		for k := range 3 {
			u, w := x[(k+1)%3].Sub(x[k]), x[(k+2)%3].Sub(x[k])
			if lu, lw := u.Norm(), w.Norm(); lu > 0 && lw > 0 {
				angle := math.Acos(math.Max(-1, math.Min(1, u.Dot(w)/(lu*lw))))
				m.vertN[f[k]] = m.vertN[f[k]].Add(n.Scale(angle))
			}
		}
	}
	for h, o := range m.twin {
		n := m.faceN[h/3]
		if o >= 0 {
			n = n.Add(m.faceN[o/3])
		}
		m.edgeN[h] = n
	}
}

// volume is the signed volume enclosed by the triangles (divergence
// theorem).
func (m *MeshSurface) volume() float64 {
	v := 0.0
	for t := range len(m.Faces) / 3 {
		f := m.Faces[3*t : 3*t+3]
		v += m.vertex(f[0]).Dot(m.vertex(f[1]).Cross(m.vertex(f[2])))
	}
	return v / 6
}

func (m *MeshSurface) vertex(i int32) dense.Vec3 {
	return dense.Vec3(m.Pos[3*i : 3*i+3])
}

// Update moves the vertices to pos with velocities vel (3 per vertex each,
// the triangles unchanged; vel may be nil), refits the BVH on r and
// recomputes the normals. The mesh keeps pos and vel.
func (m *MeshSurface) Update(r Runner, pos, vel []float64) {
	m.Pos, m.Vel = pos, vel
	m.normals()
	m.bvh.Refit(r, pos)
}

// Bounds returns the box of the mesh in its frame.
func (m *MeshSurface) Bounds() AABB { return m.bvh.Bounds() }

// MeshPoint is the result of a closest-point query.
type MeshPoint struct {
	Tri      int32      // the triangle holding the closest point
	W        [3]float64 // its barycentric weights there
	Distance float64    // signed for a closed mesh (negative inside), unsigned for an open one
	Normal   dense.Vec3 // unit: outward for a closed mesh, towards p for an open one
	Vel      dense.Vec3 // the surface's velocity there (zero when rigid)
}

// Closest returns the point of the surface closest to p (all in the mesh's
// frame), its signed distance (see MeshSurface) and normal.
func (m *MeshSurface) Closest(p dense.Vec3) MeshPoint {
	var w [3]float64
	tri, d := m.bvh.Nearest(p, math.Inf(1), func(t int32) float64 {
		f := m.Faces[3*t : 3*t+3]
		_, d := PointTriangleClosest(p, m.vertex(f[0]), m.vertex(f[1]), m.vertex(f[2]))
		return d
	})
	f := m.Faces[3*tri : 3*tri+3]
	w, _ = PointTriangleClosest(p, m.vertex(f[0]), m.vertex(f[1]), m.vertex(f[2]))
	q := m.vertex(f[0]).Scale(w[0]).Add(m.vertex(f[1]).Scale(w[1])).Add(m.vertex(f[2]).Scale(w[2]))
	out := MeshPoint{Tri: tri, W: w, Distance: d}
	pseudo := m.pseudoNormal(tri, w)
	dir := p.Sub(q)
	outside := !m.Closed || dir.Dot(pseudo) >= 0
	switch {
	case d > 0 && outside:
		out.Normal = dir.Scale(1 / d)
	case d > 0:
		out.Distance, out.Normal = -d, dir.Scale(-1/d)
	default: // on the surface
		out.Normal = pseudo.Scale(1 / math.Max(pseudo.Norm(), math.SmallestNonzeroFloat64))
	}
	if m.Vel != nil {
		for k := range 3 {
			out.Vel = out.Vel.Add(dense.Vec3(m.Vel[3*f[k] : 3*f[k]+3]).Scale(w[k]))
		}
	}
	return out
}

// pseudoNormal returns the pseudo-normal of the feature of triangle tri at
// barycentric weights w: its face, an edge (one zero weight) or a vertex
// (two zero weights), as PointTriangleClosest reports them.
func (m *MeshSurface) pseudoNormal(tri int32, w [3]float64) dense.Vec3 {
	zeros := 0
	for _, x := range w {
		if x == 0 {
			zeros++
		}
	}
	switch zeros {
	case 2:
		for k, x := range w {
			if x != 0 {
				return m.vertN[m.Faces[3*int(tri)+k]]
			}
		}
	case 1:
		for k, x := range w {
			if x == 0 { // the edge opposite corner k: from corner k+1 to k+2
				return m.edgeN[3*int(tri)+(k+1)%3]
			}
		}
	}
	return m.faceN[tri]
}
