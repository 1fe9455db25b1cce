package blockqp

import "fmt"

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

// buildBlocks checks the entries of H and copies them into the block rows
// and the diagonal blocks s.hgg; it returns the index of the first bad entry
// in H.Col/H.Val, or -1.
func (s *Solver) buildBlocks() int {
	h := s.p.H
	rp, col, val := h.RowPtr, h.Col, h.Val
	ng := s.ng
	s.bptr = resizeI32(s.bptr, ng+1)
	s.bdiag = resizeI32(s.bdiag, ng)
	s.mark = resizeI32(s.mark, ng)
	clear(s.mark)
	s.bgrp = s.bgrp[:0]
	// The groups each block row couples to, sorted.
	for g := 0; g < ng; g++ {
		start := len(s.bgrp)
		s.mark[g] = int32(g + 1)
		s.bgrp = append(s.bgrp, int32(g))
		for _, i := range s.gvar[s.gptr[g]:s.gptr[g+1]] {
			last := int32(-1) // a row's entries of one group usually follow each other
			for k := rp[i]; k < rp[i+1]; k++ {
				j := col[k]
				if j < 0 || j >= s.n || !finite(val[k]) {
					return k
				}
				if o := s.gof[j]; o != last {
					last = o
					if s.mark[o] != int32(g+1) {
						s.mark[o] = int32(g + 1)
						s.bgrp = append(s.bgrp, o)
					}
				}
			}
		}
		// Insertion sort (rows are short): lower blocks ascending, then the
		// diagonal, then upper blocks descending.
		// The sort key: a group's own index below and at g, its mirror above
		// g, so ascending keys put the upper groups in descending order.
		row := s.bgrp[start:]
		key := func(o int32) int32 {
			if o > int32(g) {
				return 2*int32(ng) - o
			}
			return o
		}
		for a := 1; a < len(row); a++ {
			o := row[a]
			ko := key(o)
			b := a
			for ; b > 0 && ko < key(row[b-1]); b-- {
				row[b] = row[b-1]
			}
			row[b] = o
		}
		for b, o := range row {
			if o == int32(g) {
				s.bdiag[g] = int32(start + b)
			}
		}
		s.bptr[g+1] = int32(len(s.bgrp))
	}
	nb := len(s.bgrp)
	s.bcol = resizeI32(s.bcol, nb)
	s.bk = resizeI8(s.bk, nb)
	s.bvo = resizeI32(s.bvo, nb+1)
	nv := 0
	for g := 0; g < ng; g++ {
		kg := int(s.gptr[g+1] - s.gptr[g])
		for b := s.bptr[g]; b < s.bptr[g+1]; b++ {
			o := s.bgrp[b]
			kh := int(s.gptr[o+1] - s.gptr[o])
			s.bcol[b], s.bk[b], s.bvo[b] = s.gptr[o], int8(kh), int32(nv)
			nv += kg * kh
		}
	}
	s.bvo[nb] = int32(nv)
	s.all3 = resizeB(s.all3, ng)
	for g := 0; g < ng; g++ {
		all3 := s.gptr[g+1]-s.gptr[g] == 3
		for b := s.bptr[g]; b < s.bptr[g+1]; b++ {
			all3 = all3 && s.bk[b] == 3
		}
		s.all3[g] = all3
	}
	s.bval = resizeF(s.bval, nv)
	clear(s.bval)
	// Values: mark[o] now holds the block of row g that couples to o.
	for g := 0; g < ng; g++ {
		for b := s.bptr[g]; b < s.bptr[g+1]; b++ {
			s.mark[s.bgrp[b]] = b
		}
		for a, i := range s.gvar[s.gptr[g]:s.gptr[g+1]] {
			last, row := int32(-1), []float64(nil) // row: H_g,last's row a
			for k := rp[i]; k < rp[i+1]; k++ {
				j := col[k]
				if o := s.gof[j]; o != last {
					last = o
					b := s.mark[o]
					kh := int(s.bk[b])
					row = s.bval[int(s.bvo[b])+a*kh : int(s.bvo[b])+a*kh+kh]
				}
				row[s.gloc[j]] += val[k]
			}
		}
		kg := int(s.gptr[g+1] - s.gptr[g])
		d := s.bval[s.bvo[s.bdiag[g]]:]
		hg := s.hgg[g*sq : g*sq+sq]
		clear(hg)
		for a := 0; a < kg; a++ {
			copy(hg[a*MaxGroupSize:a*MaxGroupSize+kg], d[a*kg:a*kg+kg])
		}
	}
	return -1
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
