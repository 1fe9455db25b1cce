package ldlt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// bisectionLeaf is the size at or below which Bisection stops dissecting a
// part and orders it as it is. Measured on a tablecloth rod Newton matrix
// (8,408 unknowns): leaves of 16, 64 and 256 unknowns gave nnz(L) within 8%
// of each other.
const bisectionLeaf = 64

// Bisection returns a nested-dissection ordering (George 1973, "Nested
// dissection of a regular finite element mesh") of A's unknowns from their
// coordinates, for AnalyzePerm: each part of the unknowns is split at the
// median of its coordinates along its longest extent, the unknowns of the
// lower half coupled to the upper half form the separator, and the two
// halves are ordered (recursively) before their separator. The elimination
// tree is then postordered, as Analyze does for AMD.
//
// It is for matrices with the structure of a thin sheet or a network in
// space, whose couplings are short compared with the sheet: the rod Newton
// systems of a woven stack, where AMD's minimum-degree choices fill far
// more (tablecloth, three plain-weave layers of 24 x 24 yarns, 35,310
// unknowns: nnz(L) 36.4M with AMD, 6.0M with Bisection; factor 40.8 s
// against 0.45 s on this 2-core VM). coord holds 3 coordinates per unknown
// (3 A.N); unknowns at one point (a node's position and its Eulerian
// coordinate) stay together. The ordering depends only on A's pattern and
// coord.
func Bisection(A *Matrix, coord []float64) ([]int, error) {
	if err := A.Validate(); err != nil {
		return nil, err
	}
	n := A.N
	if len(coord) != 3*n {
		return nil, fmt.Errorf("ldlt: Bisection: %d coordinates for %d unknowns, want %d", len(coord), n, 3*n)
	}
	for i, c := range coord {
		if math.IsNaN(c) || math.IsInf(c, 0) {
			return nil, fmt.Errorf("ldlt: Bisection: coordinate %d of unknown %d is %v", i%3, i/3, c)
		}
	}
	b := bisector{coord: coord, side: make([]int8, n), perm: make([]int, 0, n)}
	b.adjacency(A)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	b.dissect(all)
	// Postorder the elimination tree: the same fill, contiguous subtrees
	// and larger supernodes.
	post := postorder(symbolicTree(A, b.perm).parent)
	perm := make([]int, n)
	for k, v := range post {
		perm[k] = b.perm[v]
	}
	return perm, nil
}

// bisector is Bisection's workspace.
type bisector struct {
	coord  []float64
	adjPtr []int // the symmetric adjacency of A without its diagonal
	adj    []int
	side   []int8 // per unknown of the part being split: 1 lower, 2 upper
	perm   []int
}

// adjacency builds the symmetric adjacency lists of A's pattern.
func (b *bisector) adjacency(A *Matrix) {
	n := A.N
	b.adjPtr = make([]int, n+1)
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			if i := A.RowIdx[p]; i != j {
				b.adjPtr[i+1]++
				b.adjPtr[j+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		b.adjPtr[i+1] += b.adjPtr[i]
	}
	b.adj = make([]int, b.adjPtr[n])
	next := slices.Clone(b.adjPtr[:n])
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			if i := A.RowIdx[p]; i != j {
				b.adj[next[i]] = j
				next[i]++
				b.adj[next[j]] = i
				next[j]++
			}
		}
	}
}

// dissect appends the ordering of the unknowns in part (which it may
// reorder) to b.perm.
func (b *bisector) dissect(part []int) {
	if len(part) <= bisectionLeaf {
		b.perm = append(b.perm, part...)
		return
	}
	var lo, hi [3]float64
	for a := range 3 {
		lo[a], hi[a] = math.Inf(1), math.Inf(-1)
	}
	for _, i := range part {
		for a := range 3 {
			lo[a] = math.Min(lo[a], b.coord[3*i+a])
			hi[a] = math.Max(hi[a], b.coord[3*i+a])
		}
	}
	axis := 0
	for a := 1; a < 3; a++ {
		if hi[a]-lo[a] > hi[axis]-lo[axis] {
			axis = a
		}
	}
	// Sort along the axis (ties by index: deterministic); the lower half
	// is every unknown below the median coordinate, so that the unknowns
	// of one point fall on one side.
	slices.SortFunc(part, func(i, j int) int {
		return cmp.Or(cmp.Compare(b.coord[3*i+axis], b.coord[3*j+axis]), cmp.Compare(i, j))
	})
	median := b.coord[3*part[len(part)/2]+axis]
	split := 0
	for split < len(part) && b.coord[3*part[split]+axis] < median {
		split++
	}
	if split == 0 { // more than half the part at one coordinate
		b.perm = append(b.perm, part...)
		return
	}
	for k, i := range part {
		b.side[i] = 1
		if k >= split {
			b.side[i] = 2
		}
	}
	// The separator: the lower unknowns coupled to an upper one.
	lower := make([]int, 0, split)
	var sep []int
	for _, i := range part[:split] {
		cut := false
		for _, j := range b.adj[b.adjPtr[i]:b.adjPtr[i+1]] {
			if b.side[j] == 2 {
				cut = true
				break
			}
		}
		if cut {
			sep = append(sep, i)
		} else {
			lower = append(lower, i)
		}
	}
	for _, i := range part {
		b.side[i] = 0
	}
	upper := part[split:]
	b.dissect(lower)
	b.dissect(upper)
	b.perm = append(b.perm, sep...)
}
