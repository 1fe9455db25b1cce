package developable

import (
	"fmt"
	"math"
	"sort"
)

// Mesh is the nonconforming discretization of one body: its faces over
// vertices, the edges (the unknowns), and the rest geometry.
type Mesh struct {
	NumVerts int
	Faces    [][3]int32 // vertex indices, CCW in material space
	// FaceEdges[f][k] is the edge of face f opposite its corner k: edge
	// (Faces[f][k+1], Faces[f][k+2]).
	FaceEdges [][3]int32
	Edges     [][2]int32 // vertex pairs, lower index first
	EdgeFaces [][2]int32 // the faces holding each edge; [1] = -1 on the border
	FaceArea  []float64  // rest area (m^2)
	// Mid[f][k] is the rest distance between the midpoints of face f's
	// edges k+1 and k+2: half the rest length of edge k (the midsegment
	// theorem).
	Mid      [][3]float64
	MeanEdge float64 // m, the mean rest edge length
	// Rest material coordinates of each face's corners.
	FaceU [][3][2]float64
	// VertFaces lists, per vertex, its faces (increasing) and the corner
	// each holds it at: VertFaces[VertStart[v]:VertStart[v+1]].
	VertStart  []int32
	VertFaces  []int32
	VertCorner []int8
	Boundary   []bool // per vertex, on the border
}

// NewMesh builds the nonconforming mesh of faces over nverts vertices with
// rest material coordinates faceU (per face corner). It rejects
// out-of-range indices, degenerate faces and non-manifold edges.
func NewMesh(nverts int, faces [][3]int32, faceU [][3][2]float64) (*Mesh, error) {
	if len(faceU) != len(faces) {
		return nil, fmt.Errorf("developable: %d faces but %d rest triples", len(faces), len(faceU))
	}
	if len(faces) == 0 {
		return nil, fmt.Errorf("developable: no faces")
	}
	m := &Mesh{NumVerts: nverts, Faces: faces, FaceU: faceU,
		FaceEdges: make([][3]int32, len(faces)), FaceArea: make([]float64, len(faces)), Mid: make([][3]float64, len(faces))}
	type half struct {
		a, b int32
		f    int32
		k    int8
	}
	hs := make([]half, 0, 3*len(faces))
	for f, t := range faces {
		for k := range 3 {
			if t[k] < 0 || int(t[k]) >= nverts {
				return nil, fmt.Errorf("developable: face %d: vertex %d out of range [0,%d)", f, t[k], nverts)
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
			return nil, fmt.Errorf("developable: face %d repeats a vertex: %v", f, t)
		}
		u := faceU[f]
		area := 0.5 * ((u[1][0]-u[0][0])*(u[2][1]-u[0][1]) - (u[2][0]-u[0][0])*(u[1][1]-u[0][1]))
		if !(area > 0) {
			return nil, fmt.Errorf("developable: face %d has non-positive rest area %g", f, area)
		}
		m.FaceArea[f] = area
		for k := range 3 {
			a, b := t[(k+1)%3], t[(k+2)%3]
			if a > b {
				a, b = b, a
			}
			hs = append(hs, half{a, b, int32(f), int8(k)})
			p, q := u[(k+1)%3], u[(k+2)%3]
			m.Mid[f][k] = 0.5 * math.Hypot(p[0]-q[0], p[1]-q[1])
		}
	}
	sort.SliceStable(hs, func(i, j int) bool {
		if hs[i].a != hs[j].a {
			return hs[i].a < hs[j].a
		}
		return hs[i].b < hs[j].b
	})
	// Number edges by their first face occurrence (face order), so the
	// numbering follows the input, not the sort.
	first := make([]int32, 0, len(hs))
	for i := 0; i < len(hs); {
		j := i
		for j < len(hs) && hs[j].a == hs[i].a && hs[j].b == hs[i].b {
			j++
		}
		if j-i > 2 {
			return nil, fmt.Errorf("developable: edge (%d, %d) has %d faces (non-manifold)", hs[i].a, hs[i].b, j-i)
		}
		first = append(first, int32(i))
		i = j
	}
	order := make([]int32, len(first))
	for i := range order {
		order[i] = int32(i)
	}
	key := func(g int32) int32 { h := hs[first[g]]; return 3*h.f + int32(h.k) }
	sort.Slice(order, func(i, j int) bool { return key(order[i]) < key(order[j]) })
	m.Edges = make([][2]int32, len(first))
	m.EdgeFaces = make([][2]int32, len(first))
	total := 0.0
	for e, g := range order {
		i := int(first[g])
		m.Edges[e] = [2]int32{hs[i].a, hs[i].b}
		m.EdgeFaces[e] = [2]int32{hs[i].f, -1}
		m.FaceEdges[hs[i].f][hs[i].k] = int32(e)
		if i+1 < len(hs) && hs[i+1].a == hs[i].a && hs[i+1].b == hs[i].b {
			m.EdgeFaces[e][1] = hs[i+1].f
			m.FaceEdges[hs[i+1].f][hs[i+1].k] = int32(e)
		}
		f, k := hs[i].f, hs[i].k
		total += 2 * m.Mid[f][k]
	}
	m.MeanEdge = total / float64(len(first))
	m.VertStart = make([]int32, nverts+1)
	for _, t := range faces {
		for _, v := range t {
			m.VertStart[v+1]++
		}
	}
	for v := range nverts {
		m.VertStart[v+1] += m.VertStart[v]
	}
	m.VertFaces = make([]int32, 3*len(faces))
	m.VertCorner = make([]int8, 3*len(faces))
	next := append([]int32(nil), m.VertStart[:nverts]...)
	for f, t := range faces {
		for k, v := range t {
			m.VertFaces[next[v]], m.VertCorner[next[v]] = int32(f), int8(k)
			next[v]++
		}
	}
	m.Boundary = make([]bool, nverts)
	for e, ef := range m.EdgeFaces {
		if ef[1] < 0 {
			m.Boundary[m.Edges[e][0]], m.Boundary[m.Edges[e][1]] = true, true
		}
	}
	for v := range nverts {
		if m.VertStart[v] == m.VertStart[v+1] {
			return nil, fmt.Errorf("developable: vertex %d is in no face", v)
		}
	}
	return m, nil
}

// NumEdges returns the number of edges: the unknowns, 3 coordinates each.
func (m *Mesh) NumEdges() int { return len(m.Edges) }

// EdgeMasses returns each edge's mass: a third of the mass (density times
// rest area) of each incident face (English & Bridson 2008, sec. 3).
func (m *Mesh) EdgeMasses(density float64) []float64 {
	mass := make([]float64, len(m.Edges))
	for f, fe := range m.FaceEdges {
		for _, e := range fe {
			mass[e] += density * m.FaceArea[f] / 3
		}
	}
	return mass
}

// cornerWeights returns the coefficients of corner k of face f's
// extrapolated position a = m_b + m_c - m_a (English & Bridson 2008): +1 on
// the edges k+1 and k+2 at the corner, -1 on the opposite edge k.
func (m *Mesh) cornerWeights(f int32, k int8) [3]entry {
	fe := m.FaceEdges[f]
	return [3]entry{{fe[(k+1)%3], 1}, {fe[(k+2)%3], 1}, {fe[k], -1}}
}

// entry is one coefficient of a linear combination of edge positions.
type entry struct {
	edge int32
	w    float64
}

// Midpoints returns the edge midpoints of vertex positions x (3 per
// vertex): the nonconforming state of a conforming configuration.
func (m *Mesh) Midpoints(x []float64) []float64 {
	out := make([]float64, 3*len(m.Edges))
	for e, ab := range m.Edges {
		for c := range 3 {
			out[3*e+c] = 0.5 * (x[3*ab[0]+int32(c)] + x[3*ab[1]+int32(c)])
		}
	}
	return out
}

// InPlaneError returns the largest relative error | |x_i - x_j| - d_ij | /
// d_ij over every face's midpoint pairs: the in-plane strain of the
// nonconforming mesh at x.
func (m *Mesh) InPlaneError(x []float64) float64 {
	worst := 0.0
	for f, fe := range m.FaceEdges {
		for p := range 3 {
			i, j := 3*int(fe[(p+1)%3]), 3*int(fe[(p+2)%3])
			l := math.Sqrt((x[i]-x[j])*(x[i]-x[j]) + (x[i+1]-x[j+1])*(x[i+1]-x[j+1]) + (x[i+2]-x[j+2])*(x[i+2]-x[j+2]))
			worst = math.Max(worst, math.Abs(l-m.Mid[f][p])/m.Mid[f][p])
		}
	}
	return worst
}
