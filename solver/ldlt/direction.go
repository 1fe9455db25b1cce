package ldlt

import (
	"errors"
	"fmt"
)

// PivotDirection sets x to the direction that the failed pivot of the last
// Refactor (or Factor) certifies: x = P^T L^-T e_k, k the pivot position of
// e's column, computed from L's columns before k (those the factorization
// finished before it stopped). The leading k pivots form P A P^T's first k
// rows of L D L^T, so x^T A x = d_k, e's pivot, in exact arithmetic, and
// |x| >= 1 (x's entry at e's column is 1). Where d_k <= 0, x is a direction
// of non-positive curvature: A + mu I is not positive definite for any
// mu <= -x^T A x / x^T x (the Rayleigh quotient bounds the smallest
// eigenvalue from above), which lets a caller skip shifts that cannot
// succeed. len(x) must be N. e must be the error of this Factor's last
// factorization (Symbolic.Factor returns no Factor when its factorization
// fails; one from NewFactor stays for this).
//
// Only columns that are descendants of k in the elimination tree give x
// nonzero entries; entries of L multiplying a zero entry of x are not read,
// so columns the factorization had not reached (stale or partial values)
// do not matter.
func (f *Factor) PivotDirection(e *PivotError, x []float64) error {
	s := f.sym
	if len(x) != s.n {
		return fmt.Errorf("ldlt: len(x) = %d, want %d", len(x), s.n)
	}
	if e == nil || e.Column < 0 || e.Column >= s.n {
		return errors.New("ldlt: PivotDirection needs the factorization's pivot error")
	}
	k := s.pinv[e.Column]
	w := f.work
	clear(w)
	w[k] = 1
	if f.sw != nil {
		f.superDirection(k, w)
	} else {
		f.upDirection(k, w)
	}
	for i, p := range s.perm {
		x[p] = w[i]
	}
	return nil
}

// upDirection solves L^T w = e_k (pivot order) over the simplicial factor's
// columns before k: upLooking stored rows 0..k of L (row k before its pivot
// check), lnz[c] entries of column c.
func (f *Factor) upDirection(k int, w []float64) {
	lp := f.sym.lp
	for c := k - 1; c >= 0; c-- {
		p0 := lp[c]
		vals := f.lx[p0 : p0+f.lnz[c]]
		var sum float64
		for q, r := range f.li[p0 : p0+f.lnz[c]] {
			if wr := w[r]; wr != 0 {
				sum += vals[q] * wr
			}
		}
		w[c] = -sum
	}
}

// superDirection solves L^T w = e_k (pivot order) over the supernodal
// factor's columns before k. In k's supernode, the columns of k's panel
// (factorBlock's group of four) are not yet scaled by their pivots' inverses
// when the pivot check fails; their sums are divided by the pivot here.
func (f *Factor) superDirection(k int, w []float64) {
	sn := f.sym.sn
	tk := int(sn.colSn[k])
	panel := sn.first[tk] + (k-sn.first[tk])&^3 // first column of k's panel
	for t := tk; t >= 0; t-- {
		fc, lc := sn.first[t], sn.first[t+1]
		rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
		nrow := len(rows)
		X := f.sw.x[sn.xoff[t]:sn.xoff[t+1]]
		for c := min(lc, k) - 1; c >= fc; c-- {
			col := X[(c-fc)*nrow : (c-fc+1)*nrow]
			var sum float64
			for i := c - fc + 1; i < nrow; i++ {
				if wr := w[rows[i]]; wr != 0 {
					sum += col[i] * wr
				}
			}
			if c >= panel {
				sum /= f.d[c]
			}
			w[c] = -sum
		}
	}
}
