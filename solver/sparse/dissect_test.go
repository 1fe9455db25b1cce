package sparse

import (
	"slices"
	"testing"
)

// TestDissect: an RCM order of a 40 x 25 grid numbered at random, cut into
// 1 to 4 domains. The new order is a permutation; no entry of the pattern
// couples two different domains; the domains differ in size by at most 10%
// of the largest; the separator is at most one band (2 (ny + 1) rows) per
// cut; and the order within each domain and within the separator is that of
// the input. One part gives back the input and no bounds.
func TestDissect(t *testing.T) {
	const nx, ny = 40, 25
	n := nx * ny
	rowPtr, col := gridPattern(nx, ny, randomLabels(n, 2))
	var r RCM
	in := slices.Clone(r.Order(n, rowPtr, col))
	posIn := make([]int, n)
	for k, i := range in {
		posIn[i] = k
	}
	var d Dissection
	if order, bounds := d.Dissect(in, 1, rowPtr, col); bounds != nil || !slices.Equal(order, in) {
		t.Fatalf("one part: bounds %v, order changed: %v", bounds, !slices.Equal(order, in))
	}
	for parts := 2; parts <= 4; parts++ {
		order, bounds := d.Dissect(in, parts, rowPtr, col)
		if len(order) != n || len(bounds) != parts+1 || bounds[0] != 0 {
			t.Fatalf("%d parts: %d rows, bounds %v", parts, len(order), bounds)
		}
		// part[i]: row i's domain, parts for the separator.
		part := make([]int, n)
		for i := range part {
			part[i] = -1
		}
		for k, i := range order {
			p := slices.IndexFunc(bounds[1:], func(b int) bool { return k < b })
			if p < 0 {
				p = parts
			}
			if part[i] >= 0 {
				t.Fatalf("%d parts: row %d placed twice", parts, i)
			}
			part[i] = p
			if k > 0 && part[order[k-1]] == p && posIn[order[k-1]] > posIn[i] {
				t.Errorf("%d parts: rows %d and %d swapped within part %d", parts, order[k-1], i, p)
			}
		}
		for i := 0; i < n; i++ {
			for _, j := range col[rowPtr[i]:rowPtr[i+1]] {
				if a, b := part[i], part[j]; a != b && a < parts && b < parts {
					t.Fatalf("%d parts: rows %d and %d are coupled but in domains %d and %d", parts, i, j, a, b)
				}
			}
		}
		lo, hi := n, 0
		for p := 0; p < parts; p++ {
			lo, hi = min(lo, bounds[p+1]-bounds[p]), max(hi, bounds[p+1]-bounds[p])
		}
		sep := n - bounds[parts]
		t.Logf("%d parts: domains of %d to %d rows, separator %d", parts, lo, hi, sep)
		if hi-lo > hi/10 {
			t.Errorf("%d parts: domains of %d to %d rows", parts, lo, hi)
		}
		if sep > (parts-1)*2*(ny+1) {
			t.Errorf("%d parts: separator of %d rows, want at most %d", parts, sep, (parts-1)*2*(ny+1))
		}
	}
}
