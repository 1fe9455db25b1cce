package blockqp

import (
	"fmt"
	"slices"
)

// H in group order. Internally the variables are numbered group by group:
// group g's variables are gptr[g] .. gptr[g+1]-1, in the order of
// Groups[g].Vars, so every group's variables are contiguous and the vectors
// need no index map. H is stored as block rows of dense group-pair blocks:
// block row g holds, for every group h it couples to (g itself always
// included), the k_g x k_h block H_gh, row major, at bval[bvo[b]:]; the
// blocks b of row g are bptr[g] .. bptr[g+1]-1, bdiag[g] the diagonal one,
// the lower ones (h < g) before it in ascending h and the upper ones after
// it in descending h (so each Gauss-Seidel sweep meets the group it has just
// updated last), and bcol[b], bk[b] are the offset and size of h (bvo has a
// last entry len(bval)); all3[g] says that block row g is of 3 x 3 blocks
// only, so its values are 9 a block in block order.

// buildBlocks checks the entries of H (or the blocks of HG) and copies them
// into the block rows and the diagonal blocks s.hgg; it returns the index of
// the first bad entry in H.Col/H.Val (in group order), or with HG that of
// the first bad block, or -1. Both of its passes run on the Runner by blocks
// of groups (passPattern, then passValues); between them the
// block rows' offsets are summed in order.
func (s *Solver) buildBlocks() int {
	ng, nb := s.ng, s.nb
	hg := s.p.HG
	// Room for each block of groups' rows in s.scratch: at most its H rows'
	// entries (HG: its blocks) and each group itself.
	s.soff = resize(s.soff, nb+1)
	for b := 0; b < nb; b++ {
		g0, g1 := s.groups(b)
		m := g1 - g0
		if hg != nil {
			m += int(hg.Ptr[g1] - hg.Ptr[g0])
		} else {
			rp := s.p.H.RowPtr
			for _, i := range s.gvar[s.gptr[g0]:s.gptr[g1]] {
				m += rp[i+1] - rp[i]
			}
		}
		s.soff[b+1] = s.soff[b] + int32(m)
	}
	s.scratch = resize(s.scratch, int(s.soff[nb]))
	s.bad = resize(s.bad, nb)
	s.bnv = resize(s.bnv, nb+1)
	s.bptr = resize(s.bptr, ng+1)
	s.parallel(s.fnPattern)
	for _, k := range s.bad {
		if k >= 0 {
			return int(k)
		}
	}
	// bptr held each row's length; bnv each block's values.
	for g := 0; g < ng; g++ {
		s.bptr[g+1] += s.bptr[g]
	}
	nv := int32(0)
	for b := 0; b < nb; b++ {
		nv, s.bnv[b] = nv+s.bnv[b], nv
	}
	s.bnv[nb] = nv
	nblk := int(s.bptr[ng])
	s.bgrp = resize(s.bgrp, nblk)
	s.bcol = resize(s.bcol, nblk)
	s.bk = resize(s.bk, nblk)
	s.bvo = resize(s.bvo, nblk+1)
	s.bdiag = resize(s.bdiag, ng)
	s.all3 = resize(s.all3, ng)
	s.bval = resize(s.bval, int(nv))
	s.parallel(s.fnValues)
	s.bvo[nblk] = nv
	return -1
}

// blockKey orders block row g: lower groups ascending, then g, then upper
// groups descending (a group's own index at or below g, its mirror above).
func blockKey(o, g, ng int32) int32 {
	if o > g {
		return 2*ng - o
	}
	return o
}

// passPattern finds the block rows of the blocks of groups [lo, hi): each
// row's groups in blockKey order go to s.scratch from s.soff[b], its length
// to s.bptr[g+1], the block's number of values (sum of k_g k_h) to
// s.bnv[b], and the first bad entry of H (of HG: the first bad block), if
// any, to s.bad[b].
func (s *Solver) passPattern(lo, hi int) {
	for b := lo; b < hi; b++ {
		g0, g1 := s.groups(b)
		w := s.scratch[s.soff[b]:s.soff[b+1]]
		n, nv := 0, 0
		s.bad[b] = -1
		for g := g0; g < g1; g++ {
			start := n
			w[n] = int32(g)
			n++
			var bad int
			if s.p.HG != nil {
				n, bad = s.groupsOfHG(g, w, n)
			} else {
				n, bad = s.groupsOfH(g, w, n)
			}
			if bad >= 0 {
				s.bad[b] = int32(bad)
				break
			}
			nv += s.finishRow(g, w[start:n])
		}
		s.bnv[b] = int32(nv)
	}
}

// groupsOfH appends to w[:n] (which holds group g and the groups found so
// far) the other groups that H's rows of group g's variables reach, and
// returns the new length and the index of the first bad entry of those
// rows, or -1. A group's rows usually share one column pattern (a cloth
// vertex's three rows do), so a row whose columns repeat the previous row's
// adds no groups and is only checked.
func (s *Solver) groupsOfH(g int, w []int32, n int) (int, int) {
	h := s.p.H
	rp, col, val := h.RowPtr, h.Col, h.Val
	start := n - 1
	var prev []int
	for _, i := range s.gvar[s.gptr[g]:s.gptr[g+1]] {
		cols := col[rp[i]:rp[i+1]]
		for k, j := range cols {
			if j < 0 || j >= s.n || !finite(val[rp[i]+k]) {
				return n, rp[i] + k
			}
		}
		if slices.Equal(cols, prev) {
			continue
		}
		prev = cols
		last := int32(-1) // a row's entries of one group usually follow each other
		for _, j := range cols {
			if o := s.gof[j]; o != last {
				last = o
				if !slices.Contains(w[start:n], o) {
					w[n] = o
					n++
				}
			}
		}
	}
	return n, -1
}

// groupsOfHG is groupsOfH for HG: the groups are those block row g's blocks
// list, and a bad block is a group outside the problem or listed twice, or
// values outside Val or not finite.
func (s *Solver) groupsOfHG(g int, w []int32, n int) (int, int) {
	m := s.p.HG
	for q := m.Ptr[g]; q < m.Ptr[g+1]; q++ {
		if s.groupBlockError(g, q) != "" {
			return n, int(q)
		}
		if o := m.Col[q]; o != int32(g) {
			w[n] = o
			n++
		}
	}
	return n, -1
}

// finishRow sorts block row g's groups into blockKey order (rows are short:
// insertion sort), sets its length s.bptr[g+1] and returns its number of
// values.
func (s *Solver) finishRow(g int, row []int32) int {
	g32, ng := int32(g), int32(s.ng)
	for q := 1; q < len(row); q++ {
		o := row[q]
		ko := blockKey(o, g32, ng)
		p := q
		for p > 0 && blockKey(row[p-1], g32, ng) > ko {
			row[p] = row[p-1]
			p--
		}
		row[p] = o
	}
	s.bptr[g+1] = int32(len(row))
	kg, nv := int(s.gptr[g+1]-s.gptr[g]), 0
	for _, o := range row {
		nv += kg * int(s.gptr[o+1]-s.gptr[o])
	}
	return nv
}

// groupBlockError says what is wrong with block q of HG's block row g, or
// returns "".
func (s *Solver) groupBlockError(g int, q int32) string {
	m := s.p.HG
	o := m.Col[q]
	if o < 0 || int(o) >= s.ng {
		return fmt.Sprintf("its group %d is outside the %d groups", o, s.ng)
	}
	if slices.Contains(m.Col[m.Ptr[g]:q], o) {
		return fmt.Sprintf("group %d is listed twice", o)
	}
	kg, kh := int(s.gptr[g+1]-s.gptr[g]), int(s.gptr[o+1]-s.gptr[o])
	off := int(m.Off[q])
	if off < 0 || off+kg*kh > len(m.Val) {
		return fmt.Sprintf("its %dx%d values at Off %d are outside len(Val) = %d", kg, kh, off, len(m.Val))
	}
	for k, v := range m.Val[off : off+kg*kh] {
		if !finite(v) {
			return fmt.Sprintf("value %d is %v", k, v)
		}
	}
	return ""
}

// maxReuse is the longest row of H whose value offsets passValues keeps for
// the next row of the same columns.
const maxReuse = 256

// passValues lays out the block rows of the blocks of groups [lo, hi) that
// passPattern found, adds H's entries (copies HG's blocks) into them, and
// copies the diagonal blocks to s.hgg.
func (s *Solver) passValues(lo, hi int) {
	var reuse rowReuse
	for b := lo; b < hi; b++ {
		src, nv := s.scratch[s.soff[b]:], s.bnv[b]
		g0, g1 := s.groups(b)
		for g := g0; g < g1; g++ {
			var row []int32
			row, src, nv = s.layoutRow(g, src, nv)
			if s.p.HG != nil {
				s.valuesOfHG(g, row)
			} else {
				s.valuesOfH(g, row, &reuse)
			}
			s.copyDiag(g)
		}
	}
}

// rowReuse is valuesOfH's record of the last row it placed: entry e went to
// dst[e] + a k[e] in row a of its block.
type rowReuse struct {
	dst, k [maxReuse]int32
}

// valuesOfH adds the entries of H's rows of group g into its laid-out block
// row. Entry e of the group's row a goes to the block of its column's group
// h at row a, offset dst_e + a k_h; a row with the previous row's columns
// reuses dst and k_h.
func (s *Solver) valuesOfH(g int, row []int32, ru *rowReuse) {
	h := s.p.H
	rp, col, val := h.RowPtr, h.Col, h.Val
	b0, bval := s.bptr[g], s.bval
	var prev []int
	for a, i := range s.gvar[s.gptr[g]:s.gptr[g+1]] {
		cols, vals := col[rp[i]:rp[i+1]], val[rp[i]:rp[i+1]]
		if len(cols) <= maxReuse && slices.Equal(cols, prev) {
			for e, v := range vals {
				bval[ru.dst[e]+int32(a)*ru.k[e]] += v
			}
			continue
		}
		prev = cols
		last, at, kh := int32(-1), int32(0), int32(0) // at: the block of group last, row 0
		for e, j := range cols {
			if o := s.gof[j]; o != last {
				last = o
				q := 0
				for row[q] != o {
					q++
				}
				bq := b0 + int32(q)
				at, kh = s.bvo[bq], int32(s.bk[bq])
			}
			d := at + int32(s.gloc[j])
			bval[d+int32(a)*kh] += vals[e]
			if e < maxReuse {
				ru.dst[e], ru.k[e] = d, kh
			}
		}
	}
}

// valuesOfHG copies HG's blocks of block row g into its laid-out block row.
func (s *Solver) valuesOfHG(g int, row []int32) {
	m := s.p.HG
	cols := m.Col[m.Ptr[g]:m.Ptr[g+1]]
	kg := s.gptr[g+1] - s.gptr[g]
	for q, o := range row {
		bq := s.bptr[g] + int32(q)
		if k := slices.Index(cols, o); k >= 0 {
			off, at := m.Off[int(m.Ptr[g])+k], s.bvo[bq]
			copy(s.bval[at:at+kg*int32(s.bk[bq])], m.Val[off:])
		}
	}
}

// layoutRow lays out block row g, whose groups are at the start of src,
// from value offset nv: it sets the row's s.bgrp, s.bcol, s.bk, s.bvo,
// s.bdiag[g] and s.all3[g], zeroes its values and returns the row, the rest
// of src and the next value offset.
func (s *Solver) layoutRow(g int, src []int32, nv int32) ([]int32, []int32, int32) {
	b0, b1 := s.bptr[g], s.bptr[g+1]
	row := s.bgrp[b0:b1]
	src = src[copy(row, src):]
	kg := s.gptr[g+1] - s.gptr[g]
	all3 := kg == 3
	start := nv
	for q, o := range row {
		kh := s.gptr[o+1] - s.gptr[o]
		bq := b0 + int32(q)
		s.bcol[bq], s.bk[bq], s.bvo[bq] = s.gptr[o], int8(kh), nv
		nv += kg * kh
		all3 = all3 && kh == 3
		if o == int32(g) {
			s.bdiag[g] = bq
		}
	}
	s.all3[g] = all3
	clear(s.bval[start:nv])
	return row, src, nv
}

// copyDiag copies block row g's diagonal block to s.hgg.
func (s *Solver) copyDiag(g int) {
	kg := int(s.gptr[g+1] - s.gptr[g])
	d := s.bval[s.bvo[s.bdiag[g]]:]
	hg := s.hgg[g*sq : g*sq+sq]
	clear(hg)
	for a := 0; a < kg; a++ {
		copy(hg[a*MaxGroupSize:a*MaxGroupSize+kg], d[a*kg:a*kg+kg])
	}
}

// checkDomains returns an error if H couples groups of two different
// domains (Problem.Domains).
func (s *Solver) checkDomains() error {
	nd := len(s.dom) - 1
	for d := 0; d < nd; d++ {
		lo, hi := s.dom[d], s.dom[d+1]
		for g := lo; g < hi; g++ {
			for _, o := range s.bgrp[s.bptr[g]:s.bptr[g+1]] {
				if (o < lo || o >= hi) && o < s.dom[nd] {
					return fmt.Errorf("blockqp: Domains: H couples group %d of domain %d to group %d of another domain", g, d, o)
				}
			}
		}
	}
	return nil
}

// mulRow sets t[:k_g] = (H v)_g, v in group order.
func (s *Solver) mulRow(g int, v []float64, t *[MaxGroupSize]float64) {
	s.mulBlocks(g, int(s.bptr[g]), int(s.bptr[g+1]), v, t)
}

// mul3 returns the sum of the 3 x 3 blocks m[9b:9b+9] (row major) times
// v[cols[b]:cols[b]+3].
func mul3(m []float64, cols []int32, v []float64) (a0, a1, a2 float64) {
	for _, j := range cols {
		x := (*[3]float64)(v[j:])
		mb := (*[9]float64)(m)
		m = m[9:]
		x0, x1, x2 := x[0], x[1], x[2]
		a0 += mb[0]*x0 + mb[1]*x1 + mb[2]*x2
		a1 += mb[3]*x0 + mb[4]*x1 + mb[5]*x2
		a2 += mb[6]*x0 + mb[7]*x1 + mb[8]*x2
	}
	return
}

// mulBlocks sets t[:k_g] to the sum of H_gh v_h over the blocks b0 <= b <
// b1 of block row g.
func (s *Solver) mulBlocks(g, b0, b1 int, v []float64, t *[MaxGroupSize]float64) {
	if s.all3[g] {
		t[0], t[1], t[2] = mul3(s.bval[s.bvo[b0]:s.bvo[b1]], s.bcol[b0:b1], v)
		return
	}
	if b0 >= b1 {
		*t = [MaxGroupSize]float64{}
		return
	}
	kg := int(s.gptr[g+1] - s.gptr[g])
	bcol, bk, bvo, bval := s.bcol[b0:b1], s.bk[b0:b1], s.bvo[b0:b1], s.bval
	if kg == 3 {
		var a0, a1, a2 float64
		for b, o := range bcol {
			m := bval[bvo[b]:]
			if bk[b] == 3 {
				x := v[o : o+3 : o+3]
				m = m[:9:9]
				a0 += m[0]*x[0] + m[1]*x[1] + m[2]*x[2]
				a1 += m[3]*x[0] + m[4]*x[1] + m[5]*x[2]
				a2 += m[6]*x[0] + m[7]*x[1] + m[8]*x[2]
				continue
			}
			kh := int(bk[b])
			x := v[o : int(o)+kh]
			m = m[:3*kh]
			for c, xc := range x {
				a0 += m[c] * xc
				a1 += m[kh+c] * xc
				a2 += m[2*kh+c] * xc
			}
		}
		t[0], t[1], t[2] = a0, a1, a2
		return
	}
	var acc [MaxGroupSize]float64
	for b, o := range bcol {
		kh := int(bk[b])
		x := v[o : int(o)+kh]
		m := bval[bvo[b]:]
		for a := 0; a < kg; a++ {
			row := m[a*kh : a*kh+kh]
			d := 0.0
			for c, xc := range x {
				d += row[c] * xc
			}
			acc[a] += d
		}
	}
	*t = acc
}
