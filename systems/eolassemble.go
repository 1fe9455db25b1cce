package systems

import (
	"fmt"
	"slices"

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
	ip, ie               int // the sorted entries of the row being built not yet merged
	k                    int // the matrix's entries so far

	seen  []bool  // per face: inertia has added it (false between steps)
	faces []int32 // the faces inertia added

	// The blocks of a row of A in an EOL vertex's column, by EOL index, and
	// the blocks of the row mapped by eq. 10.
	eb []int32
	le []dense.Mat32
	el [][2][3]float64
	ee []dense.Mat2

	h qp.CSR // the assembled matrix
}

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

// startRow begins row R of the matrix, with room for up to m stiffness
// entries.
func (t *eolAssembly) startRow(R, m int) {
	t.ip, t.ie = t.ptr[R], t.ptr[R+1]
	if need := t.k + m + t.ie - t.ip; need > len(t.h.Col) {
		t.h.Col = slices.Grow(t.h.Col[:t.k], need-t.k)
		t.h.Val = slices.Grow(t.h.Val[:t.k], need-t.k)
		t.h.Col, t.h.Val = t.h.Col[:cap(t.h.Col)], t.h.Val[:cap(t.h.Val)]
	}
}

// putA puts the row's stiffness entries of row r of the blocks lo..hi-1 of
// the force fill's A.
func (t *eolAssembly) putA(A *sparse.BSR, lo, hi, r int) {
	if t.ip < t.ie {
		for b := lo; b < hi; b++ {
			j, v := 3*int(A.Col[b]), A.Val[9*b+3*r:9*b+3*r+3]
			t.merge(j, v[0])
			t.merge(j+1, v[1])
			t.merge(j+2, v[2])
		}
		return
	}
	col, val, k := t.h.Col, t.h.Val, t.k
	for b := lo; b < hi; b++ {
		j, v := 3*int(A.Col[b]), A.Val[9*b+3*r:9*b+3*r+3:9*b+3*r+3]
		if v[0] != 0 {
			col[k], val[k] = j, v[0]
			k++
		}
		if v[1] != 0 {
			col[k], val[k] = j+1, v[1]
			k++
		}
		if v[2] != 0 {
			col[k], val[k] = j+2, v[2]
			k++
		}
	}
	t.k = k
}

// put puts the row's stiffness entry v in column j, columns ascending.
func (t *eolAssembly) put(j int, v float64) {
	if t.ip < t.ie {
		t.merge(j, v)
	} else if v != 0 {
		t.h.Col[t.k], t.h.Val[t.k] = j, v
		t.k++
	}
}

// merge is put where the row may have inertia entries left: those in
// columns before j go first, those in column j are added to v after it.
func (t *eolAssembly) merge(j int, v float64) {
	for t.ip < t.ie && t.col[t.ip] < j {
		t.flush()
	}
	has := v != 0
	for ; t.ip < t.ie && t.col[t.ip] == j; t.ip++ {
		if has {
			v += t.val[t.ip]
		} else {
			v, has = t.val[t.ip], true
		}
	}
	if has {
		t.h.Col[t.k], t.h.Val[t.k] = j, v
		t.k++
	}
}

// flush appends the sum of the row's next inertia entries, all in one
// column (none of them is zero).
func (t *eolAssembly) flush() {
	j, v := t.col[t.ip], t.val[t.ip]
	for t.ip++; t.ip < t.ie && t.col[t.ip] == j; t.ip++ {
		v += t.val[t.ip]
	}
	t.h.Col[t.k], t.h.Val[t.k] = j, v
	t.k++
}

// endRow appends the row's remaining inertia entries and closes it.
func (t *eolAssembly) endRow() {
	for t.ip < t.ie {
		t.flush()
	}
	t.h.RowPtr = append(t.h.RowPtr, t.k)
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
func (c *EOLCloth) assemble(n int) (*qp.CSR, error) {
	A := c.state.A
	if A.N != n {
		return nil, fmt.Errorf("force matrix has %d block rows for %d vertices", A.N, n)
	}
	t := &c.asm
	N := 3*n + 2*len(c.verts)
	t.sortInertia(N)
	H := &t.h
	H.Rows, H.Cols = N, N
	H.RowPtr = append(H.RowPtr[:0], 0)
	H.Col, H.Val = H.Col[:cap(H.Col)], H.Val[:cap(H.Val)]
	t.k = 0
	for i := 0; i < n; i++ {
		lo, hi := int(A.RowPtr[i]), int(A.RowPtr[i+1])
		for b := lo + 1; b < hi; b++ {
			if A.Col[b] <= A.Col[b-1] {
				return nil, fmt.Errorf("force matrix row %d is not sorted by column", i)
			}
		}
		c.eolBlocks(lo, hi)
		t.le = t.le[:0]
		for _, b := range t.eb {
			LE, _, _ := c.mapBlock(i, int(b))
			t.le = append(t.le, LE)
		}
		for r := 0; r < 3; r++ {
			t.startRow(3*i+r, 3*(hi-lo)+2*len(t.eb))
			t.putA(A, lo, hi, r)
			for e, b := range t.eb {
				j := 3*n + 2*int(c.eolOf[A.Col[b]])
				t.put(j, t.le[e][r][0])
				t.put(j+1, t.le[e][r][1])
			}
			t.endRow()
		}
	}
	for k := range c.verts {
		i := int(c.verts[k].v)
		lo, hi := int(A.RowPtr[i]), int(A.RowPtr[i+1])
		c.eolBlocks(lo, hi)
		t.el, t.ee = t.el[:0], t.ee[:0]
		for b := lo; b < hi; b++ {
			_, EL, EE := c.mapBlock(i, b)
			t.el, t.ee = append(t.el, EL), append(t.ee, EE)
		}
		for r := 0; r < 2; r++ {
			t.startRow(3*n+2*k+r, 3*(hi-lo)+2*len(t.eb))
			for b := lo; b < hi; b++ {
				j, v := 3*int(A.Col[b]), &t.el[b-lo][r]
				t.put(j, v[0])
				t.put(j+1, v[1])
				t.put(j+2, v[2])
			}
			for _, b := range t.eb {
				j, v := 3*n+2*int(c.eolOf[A.Col[b]]), &t.ee[int(b)-lo][r]
				t.put(j, v[0])
				t.put(j+1, v[1])
			}
			t.endRow()
		}
	}
	H.Col, H.Val = H.Col[:t.k], H.Val[:t.k]
	return H, nil
}

// eolBlocks sets c.asm.eb to the blocks lo..hi-1 of A whose column is an
// EOL vertex, by EOL index.
func (c *EOLCloth) eolBlocks(lo, hi int) {
	A, t := c.state.A, &c.asm
	t.eb = t.eb[:0]
	for b := lo; b < hi; b++ {
		if c.eolOf[A.Col[b]] < 0 {
			continue
		}
		t.eb = append(t.eb, int32(b))
		for e := len(t.eb) - 1; e > 0 && c.eolOf[A.Col[t.eb[e]]] < c.eolOf[A.Col[t.eb[e-1]]]; e-- {
			t.eb[e], t.eb[e-1] = t.eb[e-1], t.eb[e]
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
