package sparse

import "slices"

// RCM is a reverse Cuthill-McKee ordering (Cuthill and McKee 1969; George
// 1971) of a symmetric sparsity pattern: a breadth-first numbering that
// starts each connected component at a vertex of least degree and visits
// the neighbours of each vertex in order of increasing degree, reversed. It
// keeps coupled rows close, which is what a Gauss-Seidel sweep needs to
// carry a correction across the mesh in few iterations (solver/blockqp
// sweeps its groups in the order it is given them).
//
// Ties go to the lower index, so the order depends only on the pattern. The
// zero value is ready; buffers are kept between calls.
type RCM struct {
	order, deg, starts, nb []int32
	seen                   []bool
}

// Order returns the ordering of the n rows of the pattern rowPtr, col
// (row i's columns col[rowPtr[i]:rowPtr[i+1]], the diagonal among them or
// not, both triangles stored): order[k] is the row placed k-th. The slice
// belongs to r until the next call. Columns outside [0, n) are ignored.
func (r *RCM) Order(n int, rowPtr, col []int32) []int32 {
	r.order = slices.Grow(r.order[:0], n)
	r.deg = slices.Grow(r.deg[:0], n)[:n]
	r.seen = slices.Grow(r.seen[:0], n)[:n]
	clear(r.seen)
	for i := 0; i < n; i++ {
		d := int32(0)
		for _, j := range col[rowPtr[i]:rowPtr[i+1]] {
			if int(j) != i && j >= 0 && int(j) < n {
				d++
			}
		}
		r.deg[i] = d
	}
	byDegree := func(a, b int32) int {
		if r.deg[a] != r.deg[b] {
			return int(r.deg[a] - r.deg[b])
		}
		return int(a - b)
	}
	// Each component starts at its unvisited row of least degree (lowest
	// index first): the next unvisited one of all rows by degree.
	r.starts = slices.Grow(r.starts[:0], n)
	for i := 0; i < n; i++ {
		r.starts = append(r.starts, int32(i))
	}
	slices.SortFunc(r.starts, byDegree)
	next := 0
	for len(r.order) < n {
		for r.seen[r.starts[next]] {
			next++
		}
		start := r.starts[next]
		r.seen[start] = true
		r.order = append(r.order, start)
		for head := len(r.order) - 1; head < len(r.order); head++ {
			v := r.order[head]
			r.nb = r.nb[:0]
			for _, j := range col[rowPtr[v]:rowPtr[v+1]] {
				if j >= 0 && int(j) < n && !r.seen[j] {
					r.seen[j] = true
					r.nb = append(r.nb, j)
				}
			}
			slices.SortFunc(r.nb, byDegree)
			r.order = append(r.order, r.nb...)
		}
	}
	slices.Reverse(r.order)
	return r.order
}
