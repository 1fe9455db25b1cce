package sparse

import (
	"errors"
	"fmt"
	"math"
	"sync"
)

// ElementGroup is a list of elements that all have Stride vertices (3 for
// triangles, 4 for hinges). Verts holds Stride vertex indices per element,
// element after element, so len(Verts) = Stride * count. Form says how each
// element's Hessian is stored (Dense when zero).
type ElementGroup struct {
	Stride int
	Verts  []int32
	Form   HessForm
}

// HessForm is how an element group stores each element's Hessian in the flat
// element-Hessian array. With k vertices per element the Hessian is 3k x 3k, a
// k x k grid of 3x3 blocks where block (a, b) couples local vertices a and b.
type HessForm uint8

const (
	// Dense stores the whole Hessian, row-major: 9k^2 entries.
	Dense HessForm = iota
	// Packed stores the blocks (a, b) with a <= b, each 3x3 row-major, in
	// the order (0,0), (0,1), ..., (0,k-1), (1,1), ..., (k-1,k-1):
	// 9k(k+1)/2 entries, a third less than Dense for triangles. Block
	// (b, a) is read as the transpose of block (a, b), so the element
	// Hessian must be symmetric; the assembled matrix is then the one its
	// Dense form gives, bit for bit.
	Packed
	// Factor stores a vector u of 3k entries, the Hessian being the rank-one
	// u u^T (a Gauss-Newton Hessian, say): block (a, b) is u_a u_b^T, each
	// entry formed by one product during assembly, so the element's part of
	// the matrix is exactly symmetric. 12 entries for a hinge against
	// Dense's 144.
	Factor
)

// size returns the number of entries an element with k vertices takes.
func (f HessForm) size(k int) int {
	switch f {
	case Packed:
		return 9 * k * (k + 1) / 2
	case Factor:
		return 3 * k
	}
	return 9 * k * k
}

// contrib locates one 3x3 source block inside the flat element-Hessian array.
// stride > 0: a stored block whose top-left entry is at off and whose rows are
// stride entries apart; stride == 0: the transpose of the row-major block at
// off (a Packed block read from below the diagonal); stride < 0: the rank-one
// block u v^T with u at off and v at -stride-1 (a Factor element).
type contrib struct {
	off, stride int32
}

type groupInfo struct {
	stride, count      int
	form               HessForm
	size               int // entries per element in the element-Hessian array
	hessBase, gradBase int
}

// Pattern is the block-sparsity pattern of a symmetric matrix with n block rows
// (3x3 blocks), built from element connectivity, together with the contribution
// maps that drive deterministic assembly. Build it once per topology and reuse it
// while the topology is unchanged. A Pattern is immutable after NewPattern and
// safe for concurrent use; one made by a PatternBuilder stays so until the
// builder's next Build.
//
// The pattern stores both triangles (full block CSR); columns are sorted within a
// row and the diagonal block is always present, even for isolated vertices.
//
// Element Hessian layout: element e of group g with k = Stride vertices has its
// Hessian at HessOffset(g, e) in the group's form (HessForm; Dense: a (3k x 3k)
// row-major matrix, i.e. a k x k grid of 3x3 blocks where block (a, b) couples
// local vertices a and b). Element gradients are 3k long at GradOffset(g, e),
// vertex a at entries 3a..3a+2.
type Pattern struct {
	n      int
	groups []groupInfo

	rowPtr []int32 // n+1
	col    []int32 // nnzb, sorted per row
	diag   []int32 // n, index of the diagonal block of each row

	hPtr []int32   // nnzb+1: contributions of block j are hCon[hPtr[j]:hPtr[j+1]]
	hCon []contrib // ordered by (group, element)

	gPtr []int32 // n+1: gradient contributions of vertex i are gOff[gPtr[i]:gPtr[i+1]]
	gOff []int32

	hessLen, gradLen int
}

// incidence records that a vertex is local vertex a of an element whose
// vertices are groups[g].Verts[first : first+Stride].
type incidence struct {
	g, first, a int32
}

// mark is a vertex's state while one block row is built: row is the row that
// last met the vertex, and next counts the row's contributions to block
// (row, vertex), then becomes the next free slot of that block in hCon.
type mark struct {
	row, next int32
}

// rowScratch is the per-vertex workspace of one goroutine building block rows.
type rowScratch struct {
	marks []mark
	build uint64 // the Build for which marks were last reset
}

// rowChunk is the number of block rows per parallel chunk of a Build.
const rowChunk = 64

// NewPattern builds the pattern of a matrix with n block rows from the element
// groups. It returns an error for negative n, a non-positive stride, a Verts
// length that is not a multiple of the stride, a vertex index outside [0,n), a
// vertex repeated within one element, or arrays too large for 32-bit offsets.
func NewPattern(n int, groups []ElementGroup) (*Pattern, error) {
	var pb PatternBuilder
	return pb.pattern(Serial{}, n, groups)
}

// PatternBuilder builds pattern after pattern, as for a mesh whose topology
// changes every step, allocating only the Pattern and BSR headers once its
// storage has grown to the meshes' size: each Build reuses the builder's
// scratch space and the storage of the pattern and matrix the previous Build
// returned, so those must not be used once Build is called again (whatever it
// returns). The zero value is ready to use. A PatternBuilder is not safe for
// concurrent use.
//
// A Build lists each vertex's incidences serially, then builds the block rows
// on a Runner, in chunks of rowChunk rows: rows are independent of each other
// once the incidences are known, and so is where each row's contributions go
// in hCon (after those of the rows before, which the incidences count). Where
// a row's blocks go is known only once the rows before are built, so each
// chunk is built into slots of its own, as many as its rows can have blocks
// (one per contribution, plus the diagonal), and a serial pass then packs the
// chunks into the block CSR arrays. A row is built the same way whichever
// goroutine builds it, so the result is the same for any Runner.
type PatternBuilder struct {
	p *Pattern // the last pattern built, whose storage the next build takes over
	m *BSR     // the last matrix built

	inc    []incidence // vertex -> incidences, in (group, element) order
	fill   []int32     // per-vertex cursors into inc
	hStart []int32     // n+1: where each row's contributions start in hCon
	// The slots: the rows of the chunk that starts at row i go one after
	// the other from slot(i) on, their columns into slotCol and into
	// slotEnd where each block's contributions end in hCon (hPtr[j+1] for
	// block j).
	slotCol, slotEnd []int32

	// The build in progress, read by rowKernel.
	groups   []ElementGroup
	building *Pattern
	builds   uint64 // Builds started, to tell stale marks

	mu   sync.Mutex
	free []*rowScratch // idle workspaces of rowKernel, as many as ever ran at once
}

// Build returns the pattern NewPattern(n, groups) returns, or its error, and a
// zero matrix with the pattern's structure (Pattern.NewMatrix). It builds the
// block rows on r.
func (pb *PatternBuilder) Build(r Runner, n int, groups []ElementGroup) (*Pattern, *BSR, error) {
	p, err := pb.pattern(r, n, groups)
	if err != nil {
		return nil, nil, err
	}
	var val []float64
	if pb.m != nil {
		val = pb.m.Val
	}
	pb.m = &BSR{N: n, RowPtr: p.rowPtr, Col: p.col, Diag: p.diag, Val: reuse(val, 9*len(p.col))}
	clear(pb.m.Val)
	return p, pb.m, nil
}

// reuse returns s resliced to length n, with its old contents, or a new slice
// when s is too short.
func reuse[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// pattern is NewPattern in the builder's storage, with the rows built on r.
func (pb *PatternBuilder) pattern(r Runner, n int, groups []ElementGroup) (*Pattern, error) {
	if n < 0 {
		return nil, fmt.Errorf("sparse: negative vertex count %d", n)
	}
	if n >= math.MaxInt32 {
		return nil, fmt.Errorf("sparse: vertex count %d too large", n)
	}
	old := pb.p
	if old == nil {
		old = new(Pattern)
	}
	pb.p = nil
	p := &Pattern{n: n, groups: reuse(old.groups, len(groups))}

	// Check the elements; count each vertex's incidences and contributions
	// (k per incidence of an element with k vertices).
	incPtr := reuse(old.gPtr, n+1)
	clear(incPtr)
	hStart := reuse(pb.hStart, n+1)
	pb.hStart = hStart
	clear(hStart)
	hess, grad, ncon := 0, 0, 0 // ncon: contributions, k^2 per element
	for g, grp := range groups {
		k := grp.Stride
		if k <= 0 {
			return nil, fmt.Errorf("sparse: group %d: stride %d must be positive", g, k)
		}
		if 3*k > math.MaxInt32/(3*k) {
			return nil, fmt.Errorf("sparse: group %d: stride %d too large", g, k)
		}
		if grp.Form > Factor {
			return nil, fmt.Errorf("sparse: group %d: unknown Hessian form %d", g, grp.Form)
		}
		if len(grp.Verts)%k != 0 {
			return nil, fmt.Errorf("sparse: group %d: len(Verts)=%d is not a multiple of stride %d", g, len(grp.Verts), k)
		}
		cnt := len(grp.Verts) / k
		for e := 0; e < cnt; e++ {
			el := grp.Verts[e*k : e*k+k]
			for a, v := range el {
				if v < 0 || int(v) >= n {
					return nil, fmt.Errorf("sparse: group %d element %d: vertex index %d out of range [0,%d)", g, e, v, n)
				}
				for b := 0; b < a; b++ {
					if el[b] == v {
						return nil, fmt.Errorf("sparse: group %d element %d: vertex %d repeated", g, e, v)
					}
				}
				incPtr[v+1]++
				hStart[v+1] += int32(k)
			}
		}
		size := grp.Form.size(k)
		p.groups[g] = groupInfo{stride: k, count: cnt, form: grp.Form, size: size, hessBase: hess, gradBase: grad}
		hess += cnt * size
		grad += cnt * 3 * k
		ncon += cnt * k * k
		if hess > math.MaxInt32 || grad > math.MaxInt32 || n+ncon > math.MaxInt32 {
			return nil, errors.New("sparse: element arrays exceed 32-bit offsets")
		}
	}
	p.hessLen, p.gradLen = hess, grad
	for i := 0; i < n; i++ {
		incPtr[i+1] += incPtr[i]
		hStart[i+1] += hStart[i]
	}

	// Vertex -> incidences, in (group, element) order.
	inc := reuse(pb.inc, int(incPtr[n]))
	pb.inc = inc
	p.gPtr = incPtr
	p.gOff = reuse(old.gOff, len(inc))
	fill := reuse(pb.fill, n)
	pb.fill = fill
	copy(fill, incPtr[:n])
	for g, grp := range groups {
		k := grp.Stride
		for first := 0; first < len(grp.Verts); first += k {
			for a, v := range grp.Verts[first : first+k] {
				c := fill[v]
				inc[c] = incidence{g: int32(g), first: int32(first), a: int32(a)}
				fill[v] = c + 1
			}
		}
	}

	// The block rows, into the slots, each row's length into rowPtr[i+1]
	// and the index of its diagonal within the row into diag[i].
	p.rowPtr = reuse(old.rowPtr, n+1)
	p.diag = reuse(old.diag, n)
	p.hCon = reuse(old.hCon, ncon)
	pb.slotCol = reuse(pb.slotCol, n+ncon)
	pb.slotEnd = reuse(pb.slotEnd, n+ncon)
	pb.groups, pb.building = groups, p
	pb.builds++
	t := getTask()
	t.fn = rowKernel
	t.pb = pb
	r.For((n+rowChunk-1)/rowChunk, t.body)
	putTask(t)
	pb.groups, pb.building = nil, nil

	// Pack the slots.
	p.rowPtr[0] = 0
	nnzb := 0
	for i := 0; i < n; i++ {
		nnzb += int(p.rowPtr[i+1])
		if nnzb >= math.MaxInt32 {
			return nil, errors.New("sparse: too many blocks for 32-bit indices")
		}
		p.rowPtr[i+1] = int32(nnzb)
	}
	p.col = reuse(old.col, nnzb)
	p.hPtr = reuse(old.hPtr, nnzb+1)
	p.hPtr[0] = 0
	for i0 := 0; i0 < n; i0 += rowChunk {
		lo, hi := int(p.rowPtr[i0]), int(p.rowPtr[min(i0+rowChunk, n)])
		s := pb.slot(i0)
		copy(p.col[lo:hi], pb.slotCol[s:])
		copy(p.hPtr[lo+1:hi+1], pb.slotEnd[s:])
	}
	for i := range p.diag {
		p.diag[i] += p.rowPtr[i]
	}
	pb.p = p
	return p, nil
}

// rowKernel builds the block rows of chunks [lo, hi) of t.pb's build.
func rowKernel(t *task, lo, hi int) {
	pb := t.pb
	s := pb.scratch()
	for c := lo; c < hi; c++ {
		i0 := c * rowChunk
		at := pb.slot(i0)
		for i := i0; i < min(i0+rowChunk, pb.building.n); i++ {
			at += pb.row(i, at, s.marks)
		}
	}
	pb.mu.Lock()
	pb.free = append(pb.free, s)
	pb.mu.Unlock()
}

// scratch takes a workspace for rowKernel off the free list, or makes one,
// with its marks reset for the build in progress.
func (pb *PatternBuilder) scratch() *rowScratch {
	pb.mu.Lock()
	var s *rowScratch
	if k := len(pb.free); k > 0 {
		s, pb.free = pb.free[k-1], pb.free[:k-1]
	} else {
		s = new(rowScratch)
	}
	pb.mu.Unlock()
	if s.build != pb.builds {
		s.marks = reuse(s.marks, pb.building.n)
		for v := range s.marks {
			s.marks[v].row = -1
		}
		s.build = pb.builds
	}
	return s
}

// row builds block row i into the slots from at on and returns its length:
// the union of the vertices of the incident elements plus the diagonal,
// sorted, with the number of contributions to each block, then the
// contributions themselves, into hCon, ordered by (group, element) as the
// incidences are, and vertex i's gradient contributions. marks must hold no
// mark of row i.
func (pb *PatternBuilder) row(i, at int, marks []mark) int {
	p, groups := pb.building, pb.groups
	h0 := pb.hStart[i]
	cols := pb.slotCol[at : at+int(pb.hStart[i+1]-h0)+1]
	ends := pb.slotEnd[at : at+len(cols)]
	incs := pb.inc[p.gPtr[i]:p.gPtr[i+1]]
	me := int32(i)
	marks[i] = mark{row: me}
	cols[0] = me
	m := 1
	for _, in := range incs {
		grp := groups[in.g]
		for _, v := range grp.Verts[in.first : int(in.first)+grp.Stride] {
			// Whether v is new to the row is hard to predict, so v is
			// written as the next column either way (the slot has room)
			// and the rest compiles to conditional moves, not a branch.
			mk := &marks[v]
			cols[m] = v
			c := mk.next + 1
			if mk.row != me {
				c = 1
				m++
			}
			*mk = mark{row: me, next: c}
		}
	}
	row := cols[:m]
	for a := 1; a < len(row); a++ {
		v, b := row[a], a
		for ; b > 0 && row[b-1] > v; b-- {
			row[b] = row[b-1]
		}
		row[b] = v
	}
	h := h0
	for j, v := range row {
		if v == me {
			p.diag[i] = int32(j)
		}
		mk := &marks[v]
		mk.next, h = h, h+mk.next
		ends[j] = h
	}
	p.rowPtr[i+1] = int32(m)
	// Local vertex a of element e of a group with stride k, at index
	// idx = e*k+a of Verts, has its gradient at gradBase+3*idx.
	hCon, gOff := p.hCon, p.gOff[p.gPtr[i]:p.gPtr[i+1]]
	for c, in := range incs {
		grp, gi := groups[in.g], p.groups[in.g]
		k := int32(gi.stride)
		idx := in.first + in.a
		gOff[c] = int32(gi.gradBase) + 3*idx
		elem := int32(gi.hessBase) + int32(gi.size)*(in.first/k)
		for b, v := range grp.Verts[in.first : in.first+k] {
			mk := &marks[v]
			hCon[mk.next] = blockOf(gi.form, k, elem, in.a, int32(b))
			mk.next++
		}
	}
	return m
}

// blockOf returns where block (a, b) of the k-vertex element whose Hessian
// starts at elem is, in form f.
func blockOf(f HessForm, k, elem, a, b int32) contrib {
	switch f {
	case Packed:
		if a <= b {
			return contrib{off: elem + 9*packedBlock(k, a, b), stride: 3}
		}
		return contrib{off: elem + 9*packedBlock(k, b, a), stride: 0}
	case Factor:
		return contrib{off: elem + 3*a, stride: -(elem + 3*b) - 1}
	}
	return contrib{off: elem + 9*k*a + 3*b, stride: 3 * k}
}

// packedBlock returns the index of block (a, b), a <= b, among the Packed
// blocks of a k-vertex element: the k - r blocks of each row r < a come first.
func packedBlock(k, a, b int32) int32 {
	return a*k - a*(a-1)/2 + b - a
}

// slot returns where the slots of the rows from i on start: after room for
// the blocks of each row before i, one per contribution plus the diagonal.
func (pb *PatternBuilder) slot(i int) int {
	return int(pb.hStart[i]) + i
}

// N returns the number of block rows (vertices).
func (p *Pattern) N() int { return p.n }

// NNZB returns the number of stored 3x3 blocks (both triangles).
func (p *Pattern) NNZB() int { return len(p.col) }

// RowPtr returns the block-row pointers (len N()+1). Do not modify.
func (p *Pattern) RowPtr() []int32 { return p.rowPtr }

// Col returns the block column indices (len NNZB()), sorted within each row. Do
// not modify.
func (p *Pattern) Col() []int32 { return p.col }

// Diag returns, for each block row, the index of its diagonal block. Do not
// modify.
func (p *Pattern) Diag() []int32 { return p.diag }

// NumGroups returns the number of element groups.
func (p *Pattern) NumGroups() int { return len(p.groups) }

// GroupLen returns the number of elements in group g.
func (p *Pattern) GroupLen(g int) int { return p.groups[g].count }

// HessLen returns the length of the flat element-Hessian array.
func (p *Pattern) HessLen() int { return p.hessLen }

// HessOffset returns the offset of element e of group g in the flat
// element-Hessian array: the sum of previous groups' count*size plus e*size,
// size being the entries per element of the group's form (9k^2 for Dense).
func (p *Pattern) HessOffset(g, e int) int {
	gi := p.groups[g]
	return gi.hessBase + e*gi.size
}

// GradLen returns the length of the flat element-gradient array.
func (p *Pattern) GradLen() int { return p.gradLen }

// GradOffset returns the offset of element e of group g in the flat
// element-gradient array: the sum of previous groups' count*3k plus e*3k.
func (p *Pattern) GradOffset(g, e int) int {
	gi := p.groups[g]
	return gi.gradBase + e*3*gi.stride
}
