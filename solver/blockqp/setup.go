package blockqp

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/qp"
)

// depTol is the relative size below which a row's component orthogonal to
// the earlier rows of its group counts as zero (the rows are dependent).
const depTol = 1e-8

// blockGroups is the number of groups in one block of the parallel loops and
// of the fixed reduction order.
const blockGroups = 64

// setup validates p (except the values of H, checked by buildBlocks) and
// lays out the group and row structure into the Solver's buffers.
func (s *Solver) setup(p *Problem) error {
	if p == nil {
		return fmt.Errorf("blockqp: nil problem")
	}
	n := len(p.F)
	switch {
	case p.H == nil && p.HG == nil:
		return fmt.Errorf("blockqp: H is nil")
	case p.H != nil && p.HG != nil:
		return fmt.Errorf("blockqp: both H and HG are given")
	case p.H != nil:
		if err := checkCSR(p.H, n); err != nil {
			return err
		}
	}
	s.fInf = 0
	for i, f := range p.F {
		if !finite(f) {
			return fmt.Errorf("blockqp: F[%d] is %v", i, f)
		}
		s.fInf = math.Max(s.fInf, math.Abs(f))
	}

	ng := len(p.Groups)
	s.n, s.ng, s.nr = n, ng, len(p.Rows)
	s.nb = (ng + blockGroups - 1) / blockGroups
	s.gof = resize(s.gof, n)
	s.gloc = resize(s.gloc, n)
	for i := range s.gof {
		s.gof[i] = -1
	}
	s.gptr = resize(s.gptr, ng+1)
	s.gvar = s.gvar[:0]
	for g, grp := range p.Groups {
		k := len(grp.Vars)
		if k < 1 || k > MaxGroupSize {
			return fmt.Errorf("blockqp: group %d has %d variables, want 1 to %d", g, k, MaxGroupSize)
		}
		for a, v := range grp.Vars {
			if v < 0 || int(v) >= n {
				return fmt.Errorf("blockqp: group %d: variable %d outside [0, %d)", g, v, n)
			}
			if o := s.gof[v]; o >= 0 {
				return fmt.Errorf("blockqp: variable %d is in groups %d and %d", v, o, g)
			}
			s.gof[v] = int32(g)
			s.gloc[v] = int8(a)
		}
		s.gvar = append(s.gvar, grp.Vars...)
		s.gptr[g+1] = int32(len(s.gvar))
	}
	for i, g := range s.gof {
		if g < 0 {
			return fmt.Errorf("blockqp: variable %d is in no group", i)
		}
	}
	if m := p.HG; m != nil {
		if len(m.Ptr) != ng+1 || m.Ptr[0] != 0 {
			return fmt.Errorf("blockqp: HG: len(Ptr) = %d, want %d (groups + 1), starting at 0", len(m.Ptr), ng+1)
		}
		for g := 0; g < ng; g++ {
			if m.Ptr[g+1] < m.Ptr[g] {
				return fmt.Errorf("blockqp: HG: Ptr decreases at group %d", g)
			}
		}
		if nb := int(m.Ptr[ng]); len(m.Col) < nb || len(m.Off) < nb {
			return fmt.Errorf("blockqp: HG: Ptr[%d] = %d but len(Col) = %d, len(Off) = %d", ng, nb, len(m.Col), len(m.Off))
		}
	}
	if err := s.setDomains(p.Domains); err != nil {
		return err
	}

	// Rows by group, in row order (counting sort).
	s.rptr = resize(s.rptr, ng+1)
	clear(s.rptr)
	s.bInf, s.aInf = 0, 0
	for i := range p.Rows {
		r := &p.Rows[i]
		if r.Group < 0 || int(r.Group) >= ng {
			return fmt.Errorf("blockqp: row %d: group %d does not exist (%d groups)", i, r.Group, ng)
		}
		k := int(s.gptr[r.Group+1] - s.gptr[r.Group])
		if len(r.Coef) != k {
			return fmt.Errorf("blockqp: row %d: %d coefficients for group %d of %d variables", i, len(r.Coef), r.Group, k)
		}
		if !finite(r.Target) {
			return fmt.Errorf("blockqp: row %d: target is %v", i, r.Target)
		}
		a1 := 0.0
		for k, c := range r.Coef {
			if !finite(c) {
				return fmt.Errorf("blockqp: row %d: coefficient %d is %v", i, k, c)
			}
			a1 += math.Abs(c)
		}
		if a1 == 0 {
			return fmt.Errorf("blockqp: row %d: all coefficients are zero", i)
		}
		s.aInf = math.Max(s.aInf, a1)
		s.bInf = math.Max(s.bInf, math.Abs(r.Target))
		s.rptr[r.Group+1]++
	}
	for g := 0; g < ng; g++ {
		s.rptr[g+1] += s.rptr[g]
	}
	s.ridx = resize(s.ridx, s.nr)
	s.next = resize(s.next, ng)
	copy(s.next, s.rptr[:ng])
	for i := range p.Rows {
		g := p.Rows[i].Group
		s.ridx[s.next[g]] = int32(i)
		s.next[g]++
	}

	// Independence of each group's rows, and ||A||_1 (largest column sum;
	// columns of different groups never share a row).
	s.a1 = 0
	var q [MaxGroupSize * MaxGroupSize]float64
	for g := 0; g < ng; g++ {
		rows := s.ridx[s.rptr[g]:s.rptr[g+1]]
		k := int(s.gptr[g+1] - s.gptr[g])
		if len(rows) > k {
			return fmt.Errorf("blockqp: group %d has %d rows but %d variables: its rows are dependent", g, len(rows), k)
		}
		var col [MaxGroupSize]float64
		for j, ri := range rows {
			coef := p.Rows[ri].Coef
			var u [MaxGroupSize]float64
			nrm := 0.0
			for a, c := range coef {
				u[a] = c
				nrm += c * c
				col[a] += math.Abs(c)
			}
			var l [MaxGroupSize]float64
			nu := orthogonalize(q[:], j, k, u[:], l[:])
			if nu <= depTol*math.Sqrt(nrm) {
				return fmt.Errorf("blockqp: group %d: row %d is linearly dependent on rows %v of the group", g, ri, rows[:j])
			}
			for a := 0; a < k; a++ {
				q[j*MaxGroupSize+a] = u[a] / nu
			}
		}
		for _, c := range col[:k] {
			s.a1 = math.Max(s.a1, c)
		}
	}
	return nil
}

// checkCSR checks the structure of H as a CSR matrix of n rows (its entries
// are checked by buildBlocks).
func checkCSR(h *qp.CSR, n int) error {
	if h.Rows != n || h.Cols != n {
		return fmt.Errorf("blockqp: H is %dx%d, want %dx%d (len(F))", h.Rows, h.Cols, n, n)
	}
	if len(h.RowPtr) != n+1 || h.RowPtr[0] != 0 {
		return fmt.Errorf("blockqp: H: len(RowPtr) = %d, want %d, starting at 0", len(h.RowPtr), n+1)
	}
	for i := 0; i < n; i++ {
		if h.RowPtr[i+1] < h.RowPtr[i] {
			return fmt.Errorf("blockqp: H: RowPtr decreases at row %d", i)
		}
	}
	if nnz := h.RowPtr[n]; len(h.Col) < nnz || len(h.Val) < nnz {
		return fmt.Errorf("blockqp: H: RowPtr[%d] = %d but len(Col) = %d, len(Val) = %d", n, nnz, len(h.Col), len(h.Val))
	}
	return nil
}

// setDomains checks the bounds of Problem.Domains and sets s.dom: without
// Domains, one domain of all groups and no separator.
func (s *Solver) setDomains(d []int) error {
	s.dom = s.dom[:0]
	if len(d) == 0 {
		s.dom = append(s.dom, 0, int32(s.ng))
	} else {
		if d[0] != 0 {
			return fmt.Errorf("blockqp: Domains[0] = %d, want 0", d[0])
		}
		for i, b := range d {
			if b > s.ng || (i > 0 && b < d[i-1]) {
				return fmt.Errorf("blockqp: Domains[%d] = %d: the bounds must ascend within [0, %d] groups", i, b, s.ng)
			}
			s.dom = append(s.dom, int32(b))
		}
	}
	s.dpart = resize(s.dpart, len(s.dom)-1)
	return nil
}

// orthogonalize removes from u[:k] its components along the orthonormal rows
// q[j*MaxGroupSize:][:k], j < m (two Gram-Schmidt passes, for accuracy), adds
// the removed coefficients to l[:m] and returns the norm of what is left.
func orthogonalize(q []float64, m, k int, u, l []float64) float64 {
	for pass := 0; pass < 2; pass++ {
		for j := 0; j < m; j++ {
			qj := q[j*MaxGroupSize : j*MaxGroupSize+k]
			d := 0.0
			for a, x := range qj {
				d += x * u[a]
			}
			l[j] += d
			for a, x := range qj {
				u[a] -= d * x
			}
		}
	}
	nu := 0.0
	for _, x := range u[:k] {
		nu += x * x
	}
	return math.Sqrt(nu)
}

// resize returns b resliced to length n, its contents left as they are, or a
// new zeroed slice with a quarter more capacity than n when b is too short:
// sizes that follow a remeshed cloth settle without reallocating every solve.
func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n, n+n/4)
	}
	return b[:n]
}
