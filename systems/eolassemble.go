package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/blockqp"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
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

	n          int              // vertices of the matrix being assembled
	nval, voff []int32          // per block row: its values, and where they start
	unsorted   []bool           // per block row: its row of A is not sorted
	fnCount    func(lo, hi int) // countRows
	fnRows     func(lo, hi int) // assembleRows
	hg         blockqp.GroupMatrix
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

// assemble builds the system matrix of eq. 12 over the generalized
// velocities (see solve) in c.asm.hg, by pairs of vertices in the group
// order c.groups (blockqp.GroupMatrix), once inertia has collected the
// entries of the generalized inertia (eq. 8). Block row g is vertex i =
// c.order[g]'s: one block for each block A_ij of the force fill's A (whose
// rows are sorted by column with no repeats, as sparse.Pattern makes them),
// of k_i x k_j values (3, or 5 for an EOL vertex: world then material
// velocity). Its world rows and columns hold A_ij; for EOL vertices A_ij (less
// the lumped mass on the diagonal, which inertia replaces) is mapped by eq.
// 10 with J_i = (I, -F_i) into -A_ij F_j (world rows, material columns),
// -F_i^T A_ij and F_i^T A_ij F_j (material rows). Then the inertia's
// entries are added, in the order inertia added them, so every entry is the
// stiffness value followed by its inertia contributions summed left to right,
// as if all had been summed as triplets in that order.
//
// Two passes over the block rows run on run: the first counts each row's
// values (and checks that A's row is sorted), the second, after the counts
// are summed in order, lays out and fills each row in its own part of the
// matrix, so the matrix does not depend on the worker count.
func (c *EOLCloth) assemble(run *ecs.Pool, n int) (*blockqp.GroupMatrix, error) {
	t := &c.asm
	if t.fnCount == nil {
		t.fnCount, t.fnRows = c.countRows, c.assembleRows
	}
	t.sortInertia(3*n + 2*len(c.verts))
	t.n = n
	ng := len(c.order)
	t.nval = resize(t.nval, ng)
	t.unsorted = resize(t.unsorted, ng)
	run.For(ng, t.fnCount)
	m, A := &t.hg, c.state.A
	m.Ptr = resize(m.Ptr, ng+1)
	t.voff = resize(t.voff, ng+1)
	for g, i := range c.order {
		if t.unsorted[g] {
			return nil, fmt.Errorf("force matrix row %d is not sorted by column", i)
		}
		m.Ptr[g+1] = m.Ptr[g] + A.RowPtr[i+1] - A.RowPtr[i]
		t.voff[g+1] = t.voff[g] + t.nval[g]
	}
	m.Col, m.Off = resize(m.Col, int(m.Ptr[ng])), resize(m.Off, int(m.Ptr[ng]))
	m.Val = resize(m.Val, int(t.voff[ng]))
	run.For(ng, t.fnRows)
	return m, nil
}

// groupSize returns the number of generalized velocities of vertex i.
func (c *EOLCloth) groupSize(i int32) int {
	if c.eolOf[i] >= 0 {
		return 5
	}
	return 3
}

// countRows sets, for the block rows of groups [lo, hi), their number of
// values and whether their row of A is unsorted.
func (c *EOLCloth) countRows(lo, hi int) {
	t, A := &c.asm, c.state.A
	for g := lo; g < hi; g++ {
		i := c.order[g]
		cols := A.Col[A.RowPtr[i]:A.RowPtr[i+1]]
		w := int32(0)
		t.unsorted[g] = false
		for q, j := range cols {
			w += int32(c.groupSize(j))
			if q > 0 && j <= cols[q-1] {
				t.unsorted[g] = true
			}
		}
		t.nval[g] = int32(c.groupSize(i)) * w
	}
}

// assembleRows lays out and fills the block rows of groups [lo, hi) of
// assemble.
func (c *EOLCloth) assembleRows(lo, hi int) {
	t := &c.asm
	n, A, m := t.n, c.state.A, &t.hg
	for g := lo; g < hi; g++ {
		i := int(c.order[g])
		ki := c.groupSize(int32(i))
		p0, off := int(m.Ptr[g])-int(A.RowPtr[i]), t.voff[g]
		for q := A.RowPtr[i]; q < A.RowPtr[i+1]; q++ {
			j := A.Col[q]
			kj := c.groupSize(j)
			m.Col[p0+int(q)], m.Off[p0+int(q)] = c.groupOf[j], off
			blk := m.Val[off : off+int32(ki*kj) : off+int32(ki*kj)]
			off += int32(ki * kj)
			clear(blk)
			for r := 0; r < 3; r++ {
				copy(blk[r*kj:r*kj+3], A.Val[9*int(q)+3*r:9*int(q)+3*r+3])
			}
			if ki == 3 && kj == 3 {
				continue
			}
			LE, EL, EE := c.mapBlock(i, int(q))
			if kj == 5 {
				for r := 0; r < 3; r++ {
					blk[r*kj+3], blk[r*kj+4] = LE[r][0], LE[r][1]
				}
			}
			if ki == 5 {
				for r := 0; r < 2; r++ {
					copy(blk[(3+r)*kj:(3+r)*kj+3], EL[r][:])
					if kj == 5 {
						blk[(3+r)*kj+3], blk[(3+r)*kj+4] = EE[r][0], EE[r][1]
					}
				}
			}
		}
		// The inertia's entries of the group's rows, each row's by column in
		// the order inertia added them.
		for a := 0; a < ki; a++ {
			R := 3*i + a
			if a >= 3 {
				R = 3*n + 2*int(c.eolOf[i]) + a - 3
			}
			for p := t.ptr[R]; p < t.ptr[R+1]; p++ {
				C := t.col[p]
				j, b := int32(C/3), C%3 // vertex and local index of column C
				if C >= 3*n {
					k := (C - 3*n) / 2
					j, b = c.verts[k].v, 3+(C-3*n)%2
				}
				q := int(A.RowPtr[i])
				for A.Col[q] != j {
					q++
				}
				m.Val[int(m.Off[p0+q])+a*c.groupSize(j)+b] += t.val[p]
			}
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
