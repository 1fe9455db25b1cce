package sparse

import (
	"math/rand"
	"slices"
	"testing"
)

// gridPattern returns the pattern (both triangles and the diagonal) of an
// nx x ny triangulated grid whose vertices are numbered by label.
func gridPattern(nx, ny int, label []int32) (rowPtr, col []int32) {
	n := nx * ny
	adj := make([][]int32, n)
	link := func(a, b int) {
		la, lb := label[a], label[b]
		adj[la] = append(adj[la], lb)
		adj[lb] = append(adj[lb], la)
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			v := i*ny + j
			if i+1 < nx {
				link(v, v+ny)
			}
			if j+1 < ny {
				link(v, v+1)
			}
			if i+1 < nx && j+1 < ny {
				link(v, v+ny+1)
			}
		}
	}
	rowPtr = []int32{0}
	for i := range adj {
		adj[i] = append(adj[i], int32(i))
		slices.Sort(adj[i])
		col = append(col, adj[i]...)
		rowPtr = append(rowPtr, int32(len(col)))
	}
	return rowPtr, col
}

// randomLabels returns a random numbering of n vertices (seeded).
func randomLabels(n int, seed int64) []int32 {
	label := make([]int32, n)
	for i, p := range rand.New(rand.NewSource(seed)).Perm(n) {
		label[i] = int32(p)
	}
	return label
}

// bandwidth returns the largest |pos(i) - pos(j)| over the pattern's entries
// when row i is placed at pos[i].
func bandwidth(rowPtr, col []int32, pos []int) int {
	b := 0
	for i := 0; i+1 < len(rowPtr); i++ {
		for _, j := range col[rowPtr[i]:rowPtr[i+1]] {
			b = max(b, pos[i]-pos[j], pos[j]-pos[i])
		}
	}
	return b
}

// TestRCMBandwidth: on a 40 x 25 grid numbered at random, the order is a
// permutation whose bandwidth is that of a grid numbered along its short
// side (at most 2 (ny + 1)), against hundreds for the random numbering; it
// depends only on the pattern.
func TestRCMBandwidth(t *testing.T) {
	const nx, ny = 40, 25
	n := nx * ny
	rowPtr, col := gridPattern(nx, ny, randomLabels(n, 1))
	identity := make([]int, n)
	for i := range identity {
		identity[i] = i
	}
	var r RCM
	order := r.Order(n, rowPtr, col)
	pos := make([]int, n)
	for i := range pos {
		pos[i] = -1
	}
	for k, i := range order {
		if pos[i] >= 0 {
			t.Fatalf("row %d placed twice", i)
		}
		pos[i] = k
	}
	if len(order) != n {
		t.Fatalf("%d rows ordered, want %d", len(order), n)
	}
	before, after := bandwidth(rowPtr, col, identity), bandwidth(rowPtr, col, pos)
	t.Logf("bandwidth: %d numbered at random, %d in RCM order", before, after)
	if after > 2*(ny+1) {
		t.Errorf("RCM bandwidth %d, want at most %d", after, 2*(ny+1))
	}
	again := slices.Clone(order)
	var r2 RCM
	if !slices.Equal(r2.Order(n, rowPtr, col), again) || !slices.Equal(r.Order(n, rowPtr, col), again) {
		t.Error("the order differs between calls")
	}
}

// TestRCMSmall: a path numbered 2-0-3-1 is ordered end to end, starting the
// breadth-first search at the lower-index end (then reversed); an isolated
// row and a second component are ordered too.
func TestRCMSmall(t *testing.T) {
	// Rows 0..3: the path 2-0-3-1; row 4 alone; rows 5, 6 linked.
	adj := [][]int32{{2, 3}, {3}, {0}, {0, 1}, {}, {6}, {5}}
	rowPtr := []int32{0}
	var col []int32
	for _, a := range adj {
		col = append(col, a...)
		rowPtr = append(rowPtr, int32(len(col)))
	}
	var r RCM
	got := r.Order(len(adj), rowPtr, col)
	// Components by least degree: row 4 (degree 0), then the path from its
	// end 1, then 5-6; reversed.
	want := []int32{6, 5, 2, 0, 3, 1, 4}
	if !slices.Equal(got, want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
