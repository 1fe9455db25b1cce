package sparse

import (
	"errors"
	"fmt"
	"math"
)

// ElementGroup is a list of elements that all have Stride vertices (3 for
// triangles, 4 for hinges). Verts holds Stride vertex indices per element,
// element after element, so len(Verts) = Stride * count.
type ElementGroup struct {
	Stride int
	Verts  []int32
}

// contrib locates one 3x3 source block inside the flat element-Hessian array:
// its top-left entry is at off and its rows are stride entries apart.
type contrib struct {
	off, stride int32
}

type groupInfo struct {
	stride, count      int
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
// Element Hessian layout: element e of group g with k = Stride vertices has a
// dense (3k x 3k) row-major Hessian at HessOffset(g, e), i.e. a k x k grid of 3x3
// blocks where block (a, b) couples local vertices a and b. Element gradients are
// 3k long at GradOffset(g, e), vertex a at entries 3a..3a+2.
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

// incidence records that local vertex a of element e of group g is some vertex.
type incidence struct {
	g, e, a int32
}

// NewPattern builds the pattern of a matrix with n block rows from the element
// groups. It returns an error for negative n, a non-positive stride, a Verts
// length that is not a multiple of the stride, a vertex index outside [0,n), a
// vertex repeated within one element, or arrays too large for 32-bit offsets.
func NewPattern(n int, groups []ElementGroup) (*Pattern, error) {
	var pb PatternBuilder
	return pb.pattern(n, groups)
}

// PatternBuilder builds pattern after pattern, as for a mesh whose topology
// changes every step, allocating only the Pattern and BSR headers once its
// storage has grown to the meshes' size: each Build reuses the builder's scratch space and the storage
// of the pattern and matrix the previous Build returned, so those must not be
// used once Build is called again (whatever it returns). The zero value is
// ready to use. A PatternBuilder is not safe for concurrent use.
type PatternBuilder struct {
	p *Pattern // the last pattern built, whose storage the next build takes over
	m *BSR     // the last matrix built

	inc       []incidence // vertex -> incidences, in (group, element) order
	cur, mark []int32     // per-vertex cursors and marks
}

// Build returns the pattern NewPattern(n, groups) returns, or its error, and a
// zero matrix with the pattern's structure (Pattern.NewMatrix).
func (pb *PatternBuilder) Build(n int, groups []ElementGroup) (*Pattern, *BSR, error) {
	p, err := pb.pattern(n, groups)
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

// pattern is NewPattern in the builder's storage.
func (pb *PatternBuilder) pattern(n int, groups []ElementGroup) (*Pattern, error) {
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
	hess, grad := 0, 0
	for g, grp := range groups {
		k := grp.Stride
		if k <= 0 {
			return nil, fmt.Errorf("sparse: group %d: stride %d must be positive", g, k)
		}
		if 3*k > math.MaxInt32/(3*k) {
			return nil, fmt.Errorf("sparse: group %d: stride %d too large", g, k)
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
			}
		}
		p.groups[g] = groupInfo{stride: k, count: cnt, hessBase: hess, gradBase: grad}
		hess += cnt * 9 * k * k
		grad += cnt * 3 * k
		if hess > math.MaxInt32 || grad > math.MaxInt32 {
			return nil, errors.New("sparse: element arrays exceed 32-bit offsets")
		}
	}
	p.hessLen, p.gradLen = hess, grad

	// Vertex -> (group, element, local index), in (group, element) order.
	incPtr := reuse(old.gPtr, n+1)
	clear(incPtr)
	for _, grp := range groups {
		for _, v := range grp.Verts {
			incPtr[v+1]++
		}
	}
	for i := 0; i < n; i++ {
		incPtr[i+1] += incPtr[i]
	}
	inc := reuse(pb.inc, int(incPtr[n]))
	pb.inc = inc
	cur := reuse(pb.cur, n)
	pb.cur = cur
	copy(cur, incPtr[:n])
	for g, grp := range groups {
		k := grp.Stride
		for idx, v := range grp.Verts {
			inc[cur[v]] = incidence{g: int32(g), e: int32(idx / k), a: int32(idx % k)}
			cur[v]++
		}
	}

	// Gradient contributions: exactly the incidences.
	p.gPtr = incPtr
	p.gOff = reuse(old.gOff, len(inc))
	for j, in := range inc {
		gi := p.groups[in.g]
		p.gOff[j] = int32(gi.gradBase + int(in.e)*3*gi.stride + 3*int(in.a))
	}

	// Block rows, one at a time: the union of the vertices of the incident
	// elements plus the diagonal, sorted, with the number of contributions
	// to each block, then the contributions themselves, ordered by (group,
	// element) as the incidences are.
	p.rowPtr = reuse(old.rowPtr, n+1)
	p.rowPtr[0] = 0
	p.diag = reuse(old.diag, n)
	p.col = old.col[:0]
	p.hPtr = append(old.hPtr[:0], 0)
	p.hCon = reuse(old.hCon, hess/9)
	mark := reuse(pb.mark, n)
	pb.mark = mark
	for i := range mark {
		mark[i] = -1
	}
	next := cur // per column of the row: contributions, then the next slot
	for i := 0; i < n; i++ {
		start := len(p.col)
		mark[i], next[i] = int32(i), 0
		p.col = append(p.col, int32(i))
		for _, in := range inc[incPtr[i]:incPtr[i+1]] {
			k := groups[in.g].Stride
			for _, v := range groups[in.g].Verts[int(in.e)*k : int(in.e)*k+k] {
				if mark[v] != int32(i) {
					mark[v], next[v] = int32(i), 0
					p.col = append(p.col, v)
				}
				next[v]++
			}
		}
		if len(p.col) >= math.MaxInt32 {
			return nil, errors.New("sparse: too many blocks for 32-bit indices")
		}
		row := p.col[start:]
		for a := 1; a < len(row); a++ {
			for b := a; b > 0 && row[b] < row[b-1]; b-- {
				row[b], row[b-1] = row[b-1], row[b]
			}
		}
		for j, v := range row {
			if v == int32(i) {
				p.diag[i] = int32(start + j)
			}
			h := p.hPtr[start+j]
			p.hPtr = append(p.hPtr, h+next[v])
			next[v] = h
		}
		p.rowPtr[i+1] = int32(len(p.col))
		for _, in := range inc[incPtr[i]:incPtr[i+1]] {
			gi := p.groups[in.g]
			k := gi.stride
			base := gi.hessBase + int(in.e)*9*k*k
			rs := 3 * k
			for b, v := range groups[in.g].Verts[int(in.e)*k : int(in.e)*k+k] {
				p.hCon[next[v]] = contrib{off: int32(base + 3*int(in.a)*rs + 3*b), stride: int32(rs)}
				next[v]++
			}
		}
	}
	pb.p = p
	return p, nil
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
// element-Hessian array: the sum of previous groups' count*9k^2 plus e*9k^2.
func (p *Pattern) HessOffset(g, e int) int {
	gi := p.groups[g]
	return gi.hessBase + e*9*gi.stride*gi.stride
}

// GradLen returns the length of the flat element-gradient array.
func (p *Pattern) GradLen() int { return p.gradLen }

// GradOffset returns the offset of element e of group g in the flat
// element-gradient array: the sum of previous groups' count*3k plus e*3k.
func (p *Pattern) GradOffset(g, e int) int {
	gi := p.groups[g]
	return gi.gradBase + e*3*gi.stride
}
