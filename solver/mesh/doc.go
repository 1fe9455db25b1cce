// Package mesh owns the topology of triangle meshes, once, for the packages
// that edit or read it (remesh, conformal, the hinges of scenes and the EOL
// cloth's systems). It knows no geometry and no ECS: a mesh is a list of
// faces, each a triple of vertex indices in 0..n-1, and everything here is
// derived from that list in face order, never by iterating over a map, so it
// is reproducible bit for bit.
//
// # Incidence
//
// A face t = (t0, t1, t2) has three corners and holds the three directed
// edges t0->t1, t1->t2, t2->t0. Incidence lists, per vertex v (or per key
// node(v), when vertices are grouped into nodes), the faces with a corner at
// v in increasing face order and, beside each, the vertex after that corner,
// so that row v is also the list of directed edges v->x and their faces. It
// is a counting sort of the 3F corners by key: O(F + n) time, stored in
// compressed rows (Start, Faces, Next). A directed edge a->b has no face
// across it, i.e. a->b is a border edge, when row b holds no b->a.
//
// # Hinges
//
// A hinge is an interior edge a-b (a < b in the first face's order) with the
// faces f (holding a->b) and g (holding b->a) on its two sides and their
// vertices c (of f) and d (of g) opposite it: (a, b, c, d). HingeBuilder
// finds them from an Incidence, in face order.
//
// # Live meshes
//
// Live is a mesh under local edits (remeshing, conformal preprocessing):
// faces are appended and killed, never rewritten, so the first F0 faces are
// the input's; per vertex it keeps the list of live faces around it and the
// vertex after it in each, which answer "which face holds a->b" by scanning
// one short list. It also holds the epoch marks that the editors use for
// neighbourhood tests (the link condition of an edge collapse: no vertex but
// the wings' third vertices is adjacent to both ends), and writes the live
// faces out renumbered (Renumber: survivors numbered 0, 1, ... in order).
package mesh

// Corner returns the corner (0, 1 or 2) of face t at vertex v, or -1.
func Corner(t [3]int32, v int32) int {
	switch v {
	case t[0]:
		return 0
	case t[1]:
		return 1
	case t[2]:
		return 2
	}
	return -1
}

// HasDirected reports whether face t holds the directed edge a->b.
func HasDirected(t [3]int32, a, b int32) bool {
	return (t[0] == a && t[1] == b) || (t[1] == a && t[2] == b) || (t[2] == a && t[0] == b)
}

// Third returns the vertex of face t that is neither a nor b (the first
// such, in corner order), or -1.
func Third(t [3]int32, a, b int32) int32 {
	for k := 0; k < 3; k++ {
		if t[k] != a && t[k] != b {
			return t[k]
		}
	}
	return -1
}

// resize returns s with length n, reusing its storage when large enough;
// the contents are not cleared.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
