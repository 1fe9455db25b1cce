package rodcontact

import (
	"cmp"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Pair is a pair of box (segment) indices, A < B.
type Pair struct{ A, B int32 }

// Broad is a uniform-grid broad phase over the two axes along which the
// boxes spread most: each box is filed in the grid cell of its low corner,
// the cells at least as wide as the widest box along them, so that two
// overlapping boxes lie in the same or in neighbouring cells; each box is
// tested against the boxes of higher index in its cell and the eight
// around it. (A sweep along one axis tested each box of a flat fabric
// against a whole slab of it.) Its buffers are kept between calls.
type Broad struct {
	cellOf    []int32 // box -> cell
	cellStart []int32 // cell c's boxes are order[cellStart[c]:cellStart[c+1]], ascending (cell nx*ny: those not finite)
	order     []int32
	chunks    [][]Pair
	boxes     []geom.AABB
	ax        [2]int     // the grid's axes
	lo        [2]float64 // the grid's corner
	inv       float64    // 1 / cell width
	nx, ny    int
	keep      func(a, b int32) bool
	body      func(lo, hi int)
	nchunk    int
}

// chunkSize is the number of boxes (in cell order) one task tests.
const chunkSize = 256

// maxCellsPerBox bounds the grid's cells by this many per box: wider cells
// where the boxes are sparse over the region.
const maxCellsPerBox = 2

// Pairs returns the pairs of overlapping boxes for which keep (nil: all)
// returns true, sorted by (A, B), appended to dst[:0]. Tasks on r test
// disjoint runs of the boxes into their own buffers, joined in run order
// and then sorted: the result does not depend on r. keep is called
// concurrently and must only read. Boxes with a coordinate that is not
// finite are tested against every box.
func (b *Broad) Pairs(r geom.Runner, boxes []geom.AABB, keep func(a, b int32) bool, dst []Pair) []Pair {
	dst = dst[:0]
	n := len(boxes)
	if n < 2 {
		return dst
	}
	b.grid(boxes)
	b.nchunk = (n + chunkSize - 1) / chunkSize
	for len(b.chunks) < b.nchunk {
		b.chunks = append(b.chunks, nil)
	}
	b.boxes, b.keep = boxes, keep
	if b.body == nil {
		b.body = b.test
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

// finite reports whether every coordinate of box x is finite.
func finite(x *geom.AABB) bool {
	for k := range 3 {
		if math.IsInf(x.Lo[k], 0) || math.IsNaN(x.Lo[k]) || math.IsInf(x.Hi[k], 0) || math.IsNaN(x.Hi[k]) {
			return false
		}
	}
	return true
}

// grid files the boxes in cells (counting sort by cell, each cell's boxes
// ascending); the boxes that are not finite go to the extra cell nx*ny.
func (b *Broad) grid(boxes []geom.AABB) {
	n := len(boxes)
	all := geom.EmptyAABB()
	var width dense.Vec3 // the widest box along each axis
	for i := range boxes {
		x := &boxes[i]
		if !finite(x) {
			continue
		}
		all.Include(x)
		for k := range 3 {
			width[k] = max(width[k], x.Hi[k]-x.Lo[k])
		}
	}
	ext := all.Hi.Sub(all.Lo)
	if !(ext[0] >= 0) { // no finite box
		ext = dense.Vec3{}
	}
	// The two axes of largest spread.
	a0, a1 := 0, 1
	if ext[1] > ext[0] {
		a0, a1 = 1, 0
	}
	if ext[2] > ext[a0] {
		a0, a1 = 2, a0
	} else if ext[2] > ext[a1] {
		a1 = 2
	}
	b.ax, b.lo = [2]int{a0, a1}, [2]float64{all.Lo[a0], all.Lo[a1]}
	h := max(width[a0], width[a1]) * (1 + 1e-9) // rounding in the cell of a low corner moves no neighbour two cells off
	if area := ext[a0] * ext[a1]; h*h*float64(maxCellsPerBox*n) < area {
		h = math.Sqrt(area / float64(maxCellsPerBox*n))
	}
	b.nx, b.ny = 1, 1
	b.inv = 0
	if h > 0 {
		b.inv = 1 / h
		b.nx, b.ny = int(ext[a0]*b.inv)+1, int(ext[a1]*b.inv)+1
	}
	cells := b.nx * b.ny
	b.cellStart = slices.Grow(b.cellStart[:0], cells+3)[:cells+3]
	clear(b.cellStart)
	b.cellOf = slices.Grow(b.cellOf[:0], n)[:n]
	for i := range boxes {
		c := cells
		if x := &boxes[i]; finite(x) {
			cx, cy := b.cell(x)
			c = cx + b.nx*cy
		}
		b.cellOf[i] = int32(c)
		b.cellStart[c+2]++
	}
	for c := 2; c < cells+3; c++ {
		b.cellStart[c] += b.cellStart[c-1]
	}
	b.order = slices.Grow(b.order[:0], n)[:n]
	for i, c := range b.cellOf {
		b.order[b.cellStart[c+1]] = int32(i)
		b.cellStart[c+1]++
	}
}

// cell returns the grid cell of box x's low corner.
func (b *Broad) cell(x *geom.AABB) (cx, cy int) {
	cx = min(int((x.Lo[b.ax[0]]-b.lo[0])*b.inv), b.nx-1)
	cy = min(int((x.Lo[b.ax[1]]-b.lo[1])*b.inv), b.ny-1)
	return max(cx, 0), max(cy, 0)
}

// test collects, for the boxes order[k] of chunks [lo, hi), the pairs with
// the boxes of higher index in the neighbouring cells (every box, for a
// box that is not finite, and the boxes that are not finite, for any box).
func (b *Broad) test(lo, hi int) {
	n := len(b.order)
	cells := b.nx * b.ny
	odd := b.order[b.cellStart[cells]:b.cellStart[cells+1]] // the boxes that are not finite
	for c := lo; c < hi; c++ {
		out := b.chunks[c][:0]
		for k := c * chunkSize; k < min((c+1)*chunkSize, n); k++ {
			i := b.order[k]
			bi := &b.boxes[i]
			try := func(j int32) {
				if j <= i || !bi.Overlaps(&b.boxes[j]) {
					return
				}
				if b.keep == nil || b.keep(i, j) {
					out = append(out, Pair{i, j})
				}
			}
			ci := int(b.cellOf[i])
			if ci == cells {
				for j := range int32(len(b.boxes)) {
					try(j)
				}
				continue
			}
			cx, cy := ci%b.nx, ci/b.nx
			for y := max(cy-1, 0); y <= min(cy+1, b.ny-1); y++ {
				c0, c1 := max(cx-1, 0)+b.nx*y, min(cx+1, b.nx-1)+b.nx*y
				for _, j := range b.order[b.cellStart[c0]:b.cellStart[c1+1]] {
					try(j)
				}
			}
			for _, j := range odd {
				try(j)
			}
		}
		b.chunks[c] = out
	}
}
