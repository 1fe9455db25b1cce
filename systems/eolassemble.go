package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/qp"
	"github.com/loomsim/loom/solver/sparse"
)

// eolAssembly is the assembly of the system matrix of eq. 12 (see
// EOLCloth.assemble), its buffers reused from step to step.
type eolAssembly struct {
	// The generalized inertia's entries (eq. 8), in the order inertia adds
	// them.
	r, c []int
	v    []float64
	// The same sorted by row, then column, stably, so that the contributions
	// to one entry keep their order: row R's are col, val[ptr[R]:ptr[R+1]].
	// at, tr, tc and tv are the sort's scratch.
	ptr, col, at, tr, tc []int
	val, tv              []float64

	seen  []bool  // per face: inertia has added it (false between steps)
	faces []int32 // the faces inertia added

	// The row builders of the chunks of rows (see assemble), and where each
	// chunk's entries start in h.
	chunks []rowBuilder
	start  []int
	fnRows func(lo, hi int) // assembles chunks [lo, hi)
	fnCopy func(lo, hi int) // copies them into h
	n      int              // vertices of the matrix being assembled

	h qp.CSR // the assembled matrix
}

// rowBuilder assembles the rows of one chunk of the matrix into its own
// buffers: row after row in col and val, rowEnd[r] the end of its r-th row.
type rowBuilder struct {
	col    []int
	val    []float64
	rowEnd []int
	ip, ie int // the sorted inertia entries of the row being built not yet merged

	// The blocks of a row of A in an EOL vertex's column, by EOL index, and
	// the blocks of the row mapped by eq. 10.
	eb []int32
	le []dense.Mat32
	el [][2][3]float64
	ee []dense.Mat2
}

// Chunks of assemble: lagChunk vertices' rows (3 each), or eolChunk EOL
// vertices' Eulerian rows (2 each).
const (
	lagChunk = 128
	eolChunk = 32
)

// reset empties the inertia's entries.
func (t *eolAssembly) reset() { t.r, t.c, t.v = t.r[:0], t.c[:0], t.v[:0] }

// add appends the inertia's entry v at (r, c) unless it is zero.
func (t *eolAssembly) add(r, c int, v float64) {
	if v == 0 {
		return
	}
	t.r, t.c, t.v = append(t.r, r), append(t.c, c), append(t.v, v)
}

// sortInertia sorts the inertia's entries into ptr, col and val by a stable
// counting sort on the column, then on the row.
func (t *eolAssembly) sortInertia(N int) {
	nt := len(t.r)
	t.at = resize(t.at, N+1)
	clear(t.at)
	for _, j := range t.c {
		t.at[j+1]++
	}
	for j := 0; j < N; j++ {
		t.at[j+1] += t.at[j]
	}
	t.tr, t.tc, t.tv = resize(t.tr, nt), resize(t.tc, nt), resize(t.tv, nt)
	for k, j := range t.c {
		p := t.at[j]
		t.tr[p], t.tc[p], t.tv[p] = t.r[k], j, t.v[k]
		t.at[j]++
	}
	t.ptr = resize(t.ptr, N+1)
	clear(t.ptr)
	for _, i := range t.tr {
		t.ptr[i+1]++
	}
	for i := 0; i < N; i++ {
		t.ptr[i+1] += t.ptr[i]
	}
	copy(t.at, t.ptr[:N])
	t.col, t.val = resize(t.col, nt), resize(t.val, nt)
	for k, i := range t.tr {
		p := t.at[i]
		t.col[p], t.val[p] = t.tc[k], t.tv[k]
		t.at[i]++
	}
}

// startRow begins row R of the matrix, whose sorted inertia entries are
// t's.
func (b *rowBuilder) startRow(t *eolAssembly, R int) {
	b.ip, b.ie = t.ptr[R], t.ptr[R+1]
}

// putA puts the row's stiffness entries of row r of the blocks lo..hi-1 of
// the force fill's A.
func (b *rowBuilder) putA(t *eolAssembly, A *sparse.BSR, lo, hi, r int) {
	for k := lo; k < hi; k++ {
		j, v := 3*int(A.Col[k]), A.Val[9*k+3*r:9*k+3*r+3:9*k+3*r+3]
		b.put(t, j, v[0])
		b.put(t, j+1, v[1])
		b.put(t, j+2, v[2])
	}
}

// put puts the row's stiffness entry v in column j, columns ascending.
func (b *rowBuilder) put(t *eolAssembly, j int, v float64) {
	if b.ip < b.ie {
		b.merge(t, j, v)
	} else if v != 0 {
		b.col, b.val = append(b.col, j), append(b.val, v)
	}
}

// merge is put where the row may have inertia entries left: those in
// columns before j go first, those in column j are added to v after it.
func (b *rowBuilder) merge(t *eolAssembly, j int, v float64) {
	for b.ip < b.ie && t.col[b.ip] < j {
		b.flush(t)
	}
	has := v != 0
	for ; b.ip < b.ie && t.col[b.ip] == j; b.ip++ {
		if has {
			v += t.val[b.ip]
		} else {
			v, has = t.val[b.ip], true
		}
	}
	if has {
		b.col, b.val = append(b.col, j), append(b.val, v)
	}
}

// flush appends the sum of the row's next inertia entries, all in one
// column (none of them is zero).
func (b *rowBuilder) flush(t *eolAssembly) {
	j, v := t.col[b.ip], t.val[b.ip]
	for b.ip++; b.ip < b.ie && t.col[b.ip] == j; b.ip++ {
		v += t.val[b.ip]
	}
	b.col, b.val = append(b.col, j), append(b.val, v)
}

// endRow appends the row's remaining inertia entries and closes it.
func (b *rowBuilder) endRow(t *eolAssembly) {
	for b.ip < b.ie {
		b.flush(t)
	}
	b.rowEnd = append(b.rowEnd, len(b.col))
}

// assemble builds the system matrix of eq. 12 over the generalized
// velocities (see solve) in c.asm.h, once inertia has collected the entries
// of the generalized inertia (eq. 8). The Lagrangian blocks are the force
// fill's A (whose rows are sorted by column with no repeats, as
// sparse.Pattern makes them); for EOL vertices i and j the 3x3 block S of A
// (less the lumped mass on the diagonal, which inertia replaces) is mapped by
// eq. 10 with J_i = (I, -F_i) into the blocks -S F_j (Lagrangian row i,
// Eulerian column j), -F_i^T S and F_i^T S F_j (Eulerian row i).
//
// Each row is built in column order with its inertia entries merged in: an
// entry is the stiffness value followed by the inertia contributions in the
// order inertia added them, summed left to right, and it exists only if one
// of them is nonzero, just as if all of them had been summed as triplets in
// that order (qp.NewCSR), so the matrix is the same bit for bit.
//
// The rows go in fixed chunks (lagChunk vertices' rows, then eolChunk EOL
// vertices' rows) that run on run, each into its own buffers, and are then
// copied into place, so the matrix does not depend on the worker count.
func (c *EOLCloth) assemble(run *ecs.Pool, n int) (*qp.CSR, error) {
	A := c.state.A
	if A.N != n {
		return nil, fmt.Errorf("force matrix has %d block rows for %d vertices", A.N, n)
	}
	for i := 0; i < n; i++ {
		for b := A.RowPtr[i] + 1; b < A.RowPtr[i+1]; b++ {
			if A.Col[b] <= A.Col[b-1] {
				return nil, fmt.Errorf("force matrix row %d is not sorted by column", i)
			}
		}
	}
	t := &c.asm
	if t.fnRows == nil {
		t.fnRows, t.fnCopy = c.assembleChunks, c.copyChunks
	}
	N := 3*n + 2*len(c.verts)
	t.sortInertia(N)
	t.n = n
	nc := (n+lagChunk-1)/lagChunk + (len(c.verts)+eolChunk-1)/eolChunk
	if len(t.chunks) < nc {
		t.chunks = append(t.chunks, make([]rowBuilder, nc-len(t.chunks))...)
	}
	t.chunks = t.chunks[:nc]
	run.For(nc, t.fnRows)
	H := &t.h
	H.Rows, H.Cols = N, N
	H.RowPtr = append(H.RowPtr[:0], 0)
	t.start = t.start[:0]
	for k := range t.chunks {
		b := &t.chunks[k]
		at := H.RowPtr[len(H.RowPtr)-1]
		t.start = append(t.start, at)
		for _, e := range b.rowEnd {
			H.RowPtr = append(H.RowPtr, at+e)
		}
	}
	nnz := H.RowPtr[N]
	H.Col, H.Val = resize(H.Col, nnz), resize(H.Val, nnz)
	run.For(nc, t.fnCopy)
	return H, nil
}

// assembleChunks builds the rows of chunks [lo, hi) of assemble.
func (c *EOLCloth) assembleChunks(lo, hi int) {
	t := &c.asm
	n, A := t.n, c.state.A
	nl := (n + lagChunk - 1) / lagChunk
	for k := lo; k < hi; k++ {
		b := &t.chunks[k]
		b.col, b.val, b.rowEnd = b.col[:0], b.val[:0], b.rowEnd[:0]
		if k < nl {
			for i := k * lagChunk; i < min((k+1)*lagChunk, n); i++ {
				c.lagrangianRows(b, A, i)
			}
			continue
		}
		for e := (k - nl) * eolChunk; e < min((k-nl+1)*eolChunk, len(c.verts)); e++ {
			c.eulerianRows(b, A, e)
		}
	}
}

// lagrangianRows builds the three rows of vertex i's world velocity.
func (c *EOLCloth) lagrangianRows(b *rowBuilder, A *sparse.BSR, i int) {
	t := &c.asm
	n := t.n
	lo, hi := int(A.RowPtr[i]), int(A.RowPtr[i+1])
	c.eolBlocks(b, lo, hi)
	b.le = b.le[:0]
	for _, k := range b.eb {
		LE, _, _ := c.mapBlock(i, int(k))
		b.le = append(b.le, LE)
	}
	for r := 0; r < 3; r++ {
		b.startRow(t, 3*i+r)
		b.putA(t, A, lo, hi, r)
		for e, k := range b.eb {
			j := 3*n + 2*int(c.eolOf[A.Col[k]])
			b.put(t, j, b.le[e][r][0])
			b.put(t, j+1, b.le[e][r][1])
		}
		b.endRow(t)
	}
}

// eulerianRows builds the two rows of EOL vertex k's material velocity.
func (c *EOLCloth) eulerianRows(b *rowBuilder, A *sparse.BSR, k int) {
	t := &c.asm
	n := t.n
	i := int(c.verts[k].v)
	lo, hi := int(A.RowPtr[i]), int(A.RowPtr[i+1])
	c.eolBlocks(b, lo, hi)
	b.el, b.ee = b.el[:0], b.ee[:0]
	for q := lo; q < hi; q++ {
		_, EL, EE := c.mapBlock(i, q)
		b.el, b.ee = append(b.el, EL), append(b.ee, EE)
	}
	for r := 0; r < 2; r++ {
		b.startRow(t, 3*n+2*k+r)
		for q := lo; q < hi; q++ {
			j, v := 3*int(A.Col[q]), &b.el[q-lo][r]
			b.put(t, j, v[0])
			b.put(t, j+1, v[1])
			b.put(t, j+2, v[2])
		}
		for _, q := range b.eb {
			j, v := 3*n+2*int(c.eolOf[A.Col[q]]), &b.ee[int(q)-lo][r]
			b.put(t, j, v[0])
			b.put(t, j+1, v[1])
		}
		b.endRow(t)
	}
}

// copyChunks copies the entries of chunks [lo, hi) into the matrix.
func (c *EOLCloth) copyChunks(lo, hi int) {
	t := &c.asm
	for k := lo; k < hi; k++ {
		b := &t.chunks[k]
		copy(t.h.Col[t.start[k]:], b.col)
		copy(t.h.Val[t.start[k]:], b.val)
	}
}

// eolBlocks sets b.eb to the blocks lo..hi-1 of A whose column is an EOL
// vertex, by EOL index.
func (c *EOLCloth) eolBlocks(b *rowBuilder, lo, hi int) {
	A := c.state.A
	b.eb = b.eb[:0]
	for q := lo; q < hi; q++ {
		if c.eolOf[A.Col[q]] < 0 {
			continue
		}
		b.eb = append(b.eb, int32(q))
		for e := len(b.eb) - 1; e > 0 && c.eolOf[A.Col[b.eb[e]]] < c.eolOf[A.Col[b.eb[e-1]]]; e-- {
			b.eb[e], b.eb[e-1] = b.eb[e-1], b.eb[e]
		}
	}
}

// mapBlock maps block b of row i of A by eq. 10 (eol.MapStiffness), the
// lumped mass taken out of a diagonal block.
func (c *EOLCloth) mapBlock(i, b int) (LE dense.Mat32, EL [2][3]float64, EE dense.Mat2) {
	s := c.state
	j := int(s.A.Col[b])
	var S dense.Mat3
	for r := 0; r < 3; r++ {
		for q := 0; q < 3; q++ {
			S[r][q] = s.A.Val[9*b+3*r+q]
		}
	}
	if i == j {
		for d := 0; d < 3; d++ {
			S[d][d] -= s.MassDiag[3*i+d]
		}
	}
	var Fi, Fj dense.Mat32
	if e := c.eolOf[i]; e >= 0 {
		Fi = c.verts[e].F
	}
	if e := c.eolOf[j]; e >= 0 {
		Fj = c.verts[e].F
	}
	return eol.MapStiffness(S, Fi, Fj)
}

// inertia collects, on every face with an EOL corner, the generalized
// inertia of eq. 8 less the lumped mass it replaces (damped by 1 + h alpha
// in the matrix) as triplets, and adds its M q' to the right-hand side.
func (c *EOLCloth) inertia(n int) {
	s := c.state
	h := s.H
	t := &c.asm
	t.reset()
	t.seen = resize(t.seen, len(s.Faces)/3)
	t.faces = t.faces[:0]
	for k := range c.verts {
		for _, f := range c.vfList[c.vfStart[c.verts[k].v]:c.vfStart[c.verts[k].v+1]] {
			if t.seen[f] {
				continue
			}
			t.seen[f] = true
			t.faces = append(t.faces, f)
			x, u := c.faceX(int(f))
			rho := c.density[s.FaceBody[f]]
			eol.Inertia(rho, x, u, &c.m8)
			lumped := rho * s.FaceRest[f].Area / 3
			var idx [15]int // generalized DOF of each of the 15 local DOFs, -1: none
			for a := 0; a < 3; a++ {
				v := int(s.Faces[3*int(f)+a])
				for d := 0; d < 3; d++ {
					idx[3*a+d] = 3*v + d
				}
				if e := c.eolOf[v]; e >= 0 {
					idx[9+2*a], idx[10+2*a] = 3*n+2*int(e), 3*n+2*int(e)+1
				} else {
					idx[9+2*a], idx[10+2*a] = -1, -1
				}
			}
			damp := 1 + h*s.Alpha[s.Faces[3*int(f)]]
			for r := 0; r < 15; r++ {
				if idx[r] < 0 {
					continue
				}
				for q := 0; q < 15; q++ {
					if idx[q] < 0 {
						continue
					}
					mv := c.m8[15*r+q]
					if r < 9 && q == r {
						mv -= lumped
					}
					t.add(idx[r], idx[q], damp*mv)
					c.rhs[idx[r]] += mv * c.velocityOf(idx[q], n)
				}
			}
		}
	}
	for _, f := range t.faces {
		t.seen[f] = false
	}
}

// velocityOf returns generalized velocity j at the start of the step.
func (c *EOLCloth) velocityOf(j, n int) float64 {
	if j < 3*n {
		return c.state.V[j]
	}
	k := (j - 3*n) / 2
	return c.verts[k].xdot[(j-3*n)%2]
}
