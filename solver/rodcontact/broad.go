package rodcontact

import (
	"cmp"
	"slices"

	"github.com/loomsim/loom/solver/geom"
)

// Pair is a pair of box (segment) indices, A < B.
type Pair struct{ A, B int32 }

// Broad is a sweep-and-prune broad phase: boxes sorted by their low end
// along the axis of largest spread, each box tested against the boxes that
// start before its high end. Its buffers are kept between calls.
type Broad struct {
	order  []int32
	chunks [][]Pair
	boxes  []geom.AABB
	axis   int
	keep   func(a, b int32) bool
	body   func(lo, hi int)
	nchunk int
}

// chunkSize is the number of sorted boxes one task sweeps.
const chunkSize = 256

// Pairs returns the pairs of overlapping boxes for which keep (nil: all)
// returns true, sorted by (A, B), appended to dst[:0]. Tasks on r sweep
// disjoint runs of the sorted boxes into their own buffers, joined in run
// order and then sorted: the result does not depend on r. keep is called
// concurrently and must only read.
func (b *Broad) Pairs(r geom.Runner, boxes []geom.AABB, keep func(a, b int32) bool, dst []Pair) []Pair {
	dst = dst[:0]
	n := len(boxes)
	if n < 2 {
		return dst
	}
	all := geom.EmptyAABB()
	for i := range boxes {
		all.Include(&boxes[i])
	}
	ext := all.Hi.Sub(all.Lo)
	b.axis = 0
	for k := 1; k < 3; k++ {
		if ext[k] > ext[b.axis] {
			b.axis = k
		}
	}
	b.order = b.order[:0]
	for i := range boxes {
		b.order = append(b.order, int32(i))
	}
	ax := b.axis
	slices.SortFunc(b.order, func(p, q int32) int {
		if c := cmp.Compare(boxes[p].Lo[ax], boxes[q].Lo[ax]); c != 0 {
			return c
		}
		return cmp.Compare(p, q)
	})
	b.nchunk = (n + chunkSize - 1) / chunkSize
	for len(b.chunks) < b.nchunk {
		b.chunks = append(b.chunks, nil)
	}
	b.boxes, b.keep = boxes, keep
	if b.body == nil {
		b.body = b.sweep
	}
	if r == nil {
		b.body(0, b.nchunk)
	} else {
		r.For(b.nchunk, b.body)
	}
	for c := 0; c < b.nchunk; c++ {
		dst = append(dst, b.chunks[c]...)
	}
	b.boxes, b.keep = nil, nil
	slices.SortFunc(dst, func(p, q Pair) int {
		if c := cmp.Compare(p.A, q.A); c != 0 {
			return c
		}
		return cmp.Compare(p.B, q.B)
	})
	return dst
}

// sweep collects the pairs of the sorted boxes in chunks [lo, hi).
func (b *Broad) sweep(lo, hi int) {
	ax, n := b.axis, len(b.order)
	for c := lo; c < hi; c++ {
		out := b.chunks[c][:0]
		for k := c * chunkSize; k < min((c+1)*chunkSize, n); k++ {
			i := b.order[k]
			bi := &b.boxes[i]
			for m := k + 1; m < n; m++ {
				j := b.order[m]
				bj := &b.boxes[j]
				if bj.Lo[ax] > bi.Hi[ax] {
					break
				}
				if !bi.Overlaps(bj) {
					continue
				}
				p := Pair{min(i, j), max(i, j)}
				if b.keep == nil || b.keep(p.A, p.B) {
					out = append(out, p)
				}
			}
		}
		b.chunks[c] = out
	}
}
