package remesh

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/mesh"
)

// Edge is an undirected material-space edge between two verts. F[0] is the
// face that holds the directed edge V[0]->V[1] (counter-clockwise); F[1] the
// face across it holding V[1]->V[0], or -1 when the edge is on a panel
// boundary. Partner is, for a boundary edge on a seam, the index of the
// boundary edge of the other panel (or of the same panel, for a dart) whose
// verts lie on the same two nodes; -1 otherwise.
type Edge struct {
	V       [2]int32
	F       [2]int32
	Partner int32
}

// Boundary reports whether the edge has a single face.
func (e Edge) Boundary() bool { return e.F[1] < 0 }

// Adjacency is the derived connectivity of a Mesh. Everything is built in
// face order (edges are numbered by first appearance while walking faces
// 0..n-1 and their edges F[k]->F[k+1]), never by iterating over a map, so it
// is reproducible bit for bit.
type Adjacency struct {
	// VertFaces[VertFaceStart[v]:VertFaceStart[v+1]] are the faces around
	// vert v, in increasing face order.
	VertFaceStart, VertFaces []int32
	// NodeVerts[NodeVertStart[n]:NodeVertStart[n+1]] are the verts on node
	// n, in increasing vert order (more than one: a seam node).
	NodeVertStart, NodeVerts []int32
	Edges                    []Edge
	// FaceEdges[f][k] is the edge between F[f][k] and F[f][(k+1)%3].
	FaceEdges [][3]int32
}

// FacesOf returns the faces around vert v.
func (a *Adjacency) FacesOf(v int) []int32 {
	return a.VertFaces[a.VertFaceStart[v]:a.VertFaceStart[v+1]]
}

// VertsOf returns the verts on node n.
func (a *Adjacency) VertsOf(n int) []int32 {
	return a.NodeVerts[a.NodeVertStart[n]:a.NodeVertStart[n+1]]
}

// BoundaryEdges returns the indices of the boundary edges, in edge order.
func (a *Adjacency) BoundaryEdges() []int32 {
	var out []int32
	for i, e := range a.Edges {
		if e.Boundary() {
			out = append(out, int32(i))
		}
	}
	return out
}

// SeamPairs returns each pair of seam edges once, lower edge index first.
func (a *Adjacency) SeamPairs() [][2]int32 {
	var out [][2]int32
	for i, e := range a.Edges {
		if e.Partner > int32(i) {
			out = append(out, [2]int32{int32(i), e.Partner})
		}
	}
	return out
}

// CheckShape checks the array lengths, index ranges and finiteness of m:
// the part of Validate that does not depend on its connectivity, which is
// what a mesh known to have valid connectivity needs checked after a
// change of its per-node state (see Remesher.RemeshValid).
func (m *Mesh) CheckShape() error {
	nn, nv := len(m.X), len(m.U)
	if len(m.V) != nn {
		return fmt.Errorf("remesh: len(V) = %d, want len(X) = %d", len(m.V), nn)
	}
	if m.Locked != nil && len(m.Locked) != nn {
		return fmt.Errorf("remesh: len(Locked) = %d, want 0 or len(X) = %d", len(m.Locked), nn)
	}
	if !(m.LockedClearance >= 0) || math.IsInf(m.LockedClearance, 0) {
		return fmt.Errorf("remesh: LockedClearance = %v, want finite >= 0", m.LockedClearance)
	}
	if m.NExtra < 0 {
		return fmt.Errorf("remesh: NExtra = %d is negative", m.NExtra)
	}
	if len(m.Extra) != nn*m.NExtra {
		return fmt.Errorf("remesh: len(Extra) = %d, want NExtra*len(X) = %d", len(m.Extra), nn*m.NExtra)
	}
	if len(m.Node) != nv {
		return fmt.Errorf("remesh: len(Node) = %d, want len(U) = %d", len(m.Node), nv)
	}
	if nn > math.MaxInt32/2 || nv > math.MaxInt32/2 || len(m.F) > math.MaxInt32/2 {
		return fmt.Errorf("remesh: mesh too large for int32 indices")
	}
	for i := range m.X {
		for c := 0; c < 3; c++ {
			if !finite(m.X[i][c]) {
				return fmt.Errorf("remesh: node %d: X[%d] = %v is not finite", i, c, m.X[i][c])
			}
			if !finite(m.V[i][c]) {
				return fmt.Errorf("remesh: node %d: V[%d] = %v is not finite", i, c, m.V[i][c])
			}
		}
	}
	for i, e := range m.Extra {
		if !finite(e) {
			return fmt.Errorf("remesh: node %d: Extra[%d] = %v is not finite", i/m.NExtra, i%m.NExtra, e)
		}
	}
	for v := range m.U {
		if !finite(m.U[v][0]) || !finite(m.U[v][1]) {
			return fmt.Errorf("remesh: vert %d: U = %v is not finite", v, m.U[v])
		}
		if n := m.Node[v]; n < 0 || int(n) >= nn {
			return fmt.Errorf("remesh: vert %d: Node = %d out of range [0,%d)", v, n, nn)
		}
	}
	for i, pr := range m.Preserved {
		if pr[0] < 0 || int(pr[0]) >= nn || pr[1] < 0 || int(pr[1]) >= nn || pr[0] == pr[1] {
			return fmt.Errorf("remesh: Preserved[%d] = %v: want two different nodes in [0,%d)", i, pr, nn)
		}
	}
	for f, t := range m.F {
		for k := 0; k < 3; k++ {
			if t[k] < 0 || int(t[k]) >= nv {
				return fmt.Errorf("remesh: face %d: vert %d out of range [0,%d)", f, t[k], nv)
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[2] == t[0] {
			return fmt.Errorf("remesh: face %d = %v repeats a vert", f, t)
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// NewAdjacency builds the adjacency of m. It fails, naming the edge or vert,
// when m is not an edge-manifold consistently oriented mesh (a directed edge
// used by two faces) or when a seam is ambiguous (more than two boundary edges
// on one pair of nodes).
func NewAdjacency(m *Mesh) (*Adjacency, error) {
	if err := m.CheckShape(); err != nil {
		return nil, err
	}
	a := &Adjacency{}
	nv, nn := len(m.U), len(m.X)
	// Row v of the incidence lists the faces around v and, beside each,
	// the vert after v in it: that face holds the directed edge v->next[s].
	var inc mesh.Incidence
	inc.Build(m.F, nil, nv)
	a.VertFaceStart, a.VertFaces = inc.Start, inc.Faces
	next := inc.Next
	a.NodeVertStart = make([]int32, nn+1)
	for _, n := range m.Node {
		a.NodeVertStart[n+1]++
	}
	for n := 0; n < nn; n++ {
		a.NodeVertStart[n+1] += a.NodeVertStart[n]
	}
	a.NodeVerts = make([]int32, nv)
	fill := make([]int32, nn)
	for v, n := range m.Node {
		a.NodeVerts[a.NodeVertStart[n]+fill[n]] = int32(v)
		fill[n]++
	}

	// faceWith returns the face holding the directed edge p->q, checking that
	// there is at most one.
	faceWith := func(p, q int32) (int32, error) {
		g := int32(-1)
		for s := a.VertFaceStart[p]; s < a.VertFaceStart[p+1]; s++ {
			if next[s] == q {
				h := a.VertFaces[s]
				if g >= 0 {
					return -1, fmt.Errorf("remesh: directed edge %d->%d is in faces %d and %d (non-manifold edge or inconsistent orientation)", p, q, g, h)
				}
				g = h
			}
		}
		return g, nil
	}
	// unique: no directed edge is in two faces (no vert has a repeated
	// next vert), so that only a mesh with such an edge needs faceWith to
	// look for a second face holding each edge (to name the first one).
	unique := true
	for v := 0; v < nv && unique; v++ {
		l := next[a.VertFaceStart[v]:a.VertFaceStart[v+1]]
		for x := range l {
			for y := x + 1; y < len(l); y++ {
				unique = unique && l[x] != l[y]
			}
		}
	}
	a.FaceEdges = make([][3]int32, len(m.F))
	// Each face edge is an edge's first or second side, and a boundary
	// vert of a valid mesh starts one boundary edge: at most
	// (3*faces + verts)/2 edges.
	a.Edges = make([]Edge, 0, (3*len(m.F)+nv)/2)
	for f, t := range m.F {
		for k := 0; k < 3; k++ {
			p, q := t[k], t[(k+1)%3]
			if !unique {
				if _, err := faceWith(p, q); err != nil {
					return nil, err
				}
			}
			g, err := faceWith(q, p)
			if err != nil {
				return nil, err
			}
			if g >= 0 && g < int32(f) {
				a.FaceEdges[f][k] = a.FaceEdges[g][mesh.Corner(m.F[g], q)]
				continue
			}
			a.FaceEdges[f][k] = int32(len(a.Edges))
			a.Edges = append(a.Edges, Edge{V: [2]int32{p, q}, F: [2]int32{int32(f), g}, Partner: -1})
		}
	}
	// Seam partners: boundary edges on the same pair of nodes.
	for i := range a.Edges {
		e := &a.Edges[i]
		if !e.Boundary() {
			continue
		}
		na, nb := m.Node[e.V[0]], m.Node[e.V[1]]
		if na == nb {
			return nil, fmt.Errorf("remesh: edge %d-%d joins two verts of node %d", e.V[0], e.V[1], na)
		}
		for _, v2 := range a.VertsOf(int(na)) {
			for _, h := range a.FacesOf(int(v2)) {
				for k := 0; k < 3; k++ {
					j := a.FaceEdges[h][k]
					if j == int32(i) || !a.Edges[j].Boundary() {
						continue
					}
					ej := a.Edges[j]
					if !((ej.V[0] == v2 && m.Node[ej.V[1]] == nb) || (ej.V[1] == v2 && m.Node[ej.V[0]] == nb)) {
						continue
					}
					if e.Partner >= 0 && e.Partner != j {
						return nil, fmt.Errorf("remesh: nodes %d-%d carry more than two boundary edges (edges %d, %d, %d): non-manifold seam", na, nb, i, e.Partner, j)
					}
					e.Partner = j
				}
			}
		}
	}
	return a, nil
}

// Validate returns an error naming the problem when m is not a valid mesh:
// array lengths, index ranges, non-finite values, faces with non-positive
// material-space area, edges with more than two faces or inconsistent
// orientation, non-manifold verts (the faces around a vert must form one fan),
// duplicate faces, verts referenced by no face, nodes with no vert, seam
// nodes with a vert inside a panel, pairs of nodes carrying more than two
// faces' worth of edges (non-manifold in world space), and Preserved pairs
// that are out of range or share no edge.
func (m *Mesh) Validate() error {
	a, err := NewAdjacency(m)
	if err != nil {
		return err
	}
	for f, t := range m.F {
		if ar := triArea2(m.U[t[0]], m.U[t[1]], m.U[t[2]]); !(ar > 0) {
			return fmt.Errorf("remesh: face %d = %v has material-space area %g <= 0 (degenerate or clockwise)", f, t, ar/2)
		}
	}
	// Duplicate faces. Two with the same orientation would share a directed
	// edge, which NewAdjacency rejects, so a pair left lies on the two sides
	// of each of its edges, with the same third vert. The first pair in the
	// order of the loop below (by vert, then by the faces around it) is dup,
	// at its lowest vert dupVert.
	dupVert, dup := int32(len(m.U)), [2]int32{}
	// fanStart[v] is the first face around v whose edge into v is a
	// boundary edge, or -1: where checkFan starts its walk.
	fanStart := make([]int32, len(m.U))
	for v := range fanStart {
		fanStart[v] = -1
	}
	for _, e := range a.Edges {
		if e.Boundary() {
			if s := fanStart[e.V[1]]; s < 0 || e.F[0] < s {
				fanStart[e.V[1]] = e.F[0]
			}
			continue
		}
		f, g := min(e.F[0], e.F[1]), max(e.F[0], e.F[1])
		if mesh.Third(m.F[f], e.V[0], e.V[1]) != mesh.Third(m.F[g], e.V[0], e.V[1]) {
			continue
		}
		for _, v := range m.F[f] {
			if v < dupVert || v == dupVert && f < dup[0] {
				dupVert, dup = v, [2]int32{f, g}
			}
		}
	}
	for v := range m.U {
		fs := a.FacesOf(v)
		if len(fs) == 0 {
			return fmt.Errorf("remesh: vert %d is in no face", v)
		}
		if int32(v) == dupVert {
			return fmt.Errorf("remesh: faces %d and %d have the same verts %v", dup[0], dup[1], m.F[dup[0]])
		}
		// One fan: walk around v from a face, crossing edges into neighbours.
		if err := checkFan(m, a, int32(v), fs, fanStart[v]); err != nil {
			return err
		}
	}
	for n := range m.X {
		vs := a.VertsOf(n)
		if len(vs) == 0 {
			return fmt.Errorf("remesh: node %d has no vert", n)
		}
		if len(vs) > 1 {
			for _, v := range vs {
				if !vertOnBoundary(m, a, v) {
					return fmt.Errorf("remesh: seam node %d has vert %d inside its panel", n, v)
				}
			}
		}
	}
	if err := checkPreservedEdges(m.Preserved, m.F, m.Node,
		func(n int32) []int32 { return a.VertsOf(int(n)) }, func(v int32) []int32 { return a.FacesOf(int(v)) }); err != nil {
		return err
	}
	// World-space manifoldness along seams: a pair of nodes may carry at most
	// two faces in all.
	for i, e := range a.Edges {
		na, nb := m.Node[e.V[0]], m.Node[e.V[1]]
		if a.NodeVertStart[na+1]-a.NodeVertStart[na] < 2 || a.NodeVertStart[nb+1]-a.NodeVertStart[nb] < 2 {
			continue
		}
		cnt := 0
		for _, v2 := range a.VertsOf(int(na)) {
			for _, h := range a.FacesOf(int(v2)) {
				for k := 0; k < 3; k++ {
					ej := a.Edges[a.FaceEdges[h][k]]
					if (ej.V[0] == v2 && m.Node[ej.V[1]] == nb) || (ej.V[1] == v2 && m.Node[ej.V[0]] == nb) {
						cnt++
					}
				}
			}
		}
		if cnt > 2 {
			return fmt.Errorf("remesh: nodes %d-%d (edge %d) carry %d faces: non-manifold in world space", na, nb, i, cnt)
		}
	}
	return nil
}

// checkPreservedEdges returns an error naming the first pair of pres whose nodes
// share no edge (no face around a vert of the first node has a vert on the
// second) in the mesh of faces f over verts on nodes node; verts(n) lists
// the verts on node n and faces(v) the faces around vert v.
func checkPreservedEdges(pres [][2]int32, f [][3]int32, node []int32, verts, faces func(int32) []int32) error {
	for i, pr := range pres {
		if !nodesShareEdge(f, node, verts, faces, pr[0], pr[1]) {
			return fmt.Errorf("remesh: Preserved[%d] = %v: nodes %d and %d share no edge", i, pr, pr[0], pr[1])
		}
	}
	return nil
}

// nodesShareEdge reports whether some edge joins a vert of node p to a vert
// of node q (see checkPreservedEdges).
func nodesShareEdge(f [][3]int32, node []int32, verts, faces func(int32) []int32, p, q int32) bool {
	for _, v := range verts(p) {
		for _, g := range faces(v) {
			for _, x := range f[g] {
				if node[x] == q {
					return true
				}
			}
		}
	}
	return false
}

func vertOnBoundary(m *Mesh, a *Adjacency, v int32) bool {
	for _, f := range a.FacesOf(int(v)) {
		for k := 0; k < 3; k++ {
			e := a.Edges[a.FaceEdges[f][k]]
			if e.Boundary() && (e.V[0] == v || e.V[1] == v) {
				return true
			}
		}
	}
	return false
}

// checkFan checks that the faces fs around v are one edge-connected fan;
// start is the first of them whose incoming edge prev->v is a boundary
// edge, or -1.
func checkFan(m *Mesh, a *Adjacency, v int32, fs []int32, start int32) error {
	if len(fs) == 1 {
		return nil
	}
	// Start from the face whose incoming edge is a boundary (if any), then
	// walk forward across v->next edges.
	if start < 0 {
		start = fs[0]
	}
	f, seen := start, 1
	for {
		t := m.F[f]
		p := mesh.Corner(t, v)
		e := a.Edges[a.FaceEdges[f][p]]
		g := e.F[0]
		if g == f {
			g = e.F[1]
		}
		if g < 0 || g == start {
			break
		}
		f = g
		seen++
		if seen > len(fs) {
			break
		}
	}
	if seen != len(fs) {
		return fmt.Errorf("remesh: vert %d is non-manifold: its %d faces do not form one fan (walk reached %d)", v, len(fs), seen)
	}
	return nil
}

// triArea2 is twice the signed area of the triangle (a, b, c).
func triArea2(a, b, c [2]float64) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}
