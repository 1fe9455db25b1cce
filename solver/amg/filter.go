package amg

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/sparse"
)

// SetupFiltered is Setup for the filtered system that sparse.PCG solves
// with the per-vertex filters S (Baraff & Witkin 1998, sec. 5.3; 9N, 3x3
// row-major, symmetric projections): the hierarchy is built for
//
//	A_S = S A S + d (I - S),   d_i = tr(A_ii) / 3 per vertex,
//
// the operator PCG's iteration sees on the range of S, completed on the
// constrained directions by a multiple of the identity at A's scale so that
// A_S stays symmetric positive definite. A V-cycle of A itself treats a
// pinned vertex as free: its smoother and coarse corrections move the free
// neighbours against couplings that the filter removes, and PCG (which
// applies S M^-1 S) pays in iterations (the cape of loom.CapeScene's game
// loop, 736 vertices with its shoulder row pinned, 500 steps: 8.4 PCG
// iterations a step with A's V-cycle, 3.7 with A_S's). Rows whose vertex
// and neighbours are all free are A's own. The matrix is formed in the
// preconditioner's own storage, so A and the filter may change afterwards
// (a lagged preconditioner, as with Setup). filter nil is Setup.
func (p *Preconditioner) SetupFiltered(r sparse.Runner, A *sparse.BSR, filter, x []float64) error {
	if filter == nil {
		return p.Setup(r, A, x)
	}
	if A == nil || len(A.RowPtr) != A.N+1 || len(A.Val) != 9*len(A.Col) || int(A.RowPtr[A.N]) != len(A.Col) || len(A.Diag) != A.N {
		return fmt.Errorf("amg: malformed matrix")
	}
	if len(filter) != 9*A.N {
		return fmt.Errorf("amg: %d filter entries for %d block rows, want %d", len(filter), A.N, 9*A.N)
	}
	for i, v := range filter {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("amg: filter entry %d is %v", i, v)
		}
	}
	f := &p.filt
	f.a, f.s = A, filter
	f.free = slices.Grow(f.free[:0], A.N)[:A.N]
	f.val = slices.Grow(f.val[:0], len(A.Val))[:len(A.Val)]
	if f.kFree == nil {
		f.kFree, f.kRows = f.freeKernel, f.rowsKernel
	}
	r.For(A.N, f.kFree)
	r.For(A.N, f.kRows)
	f.m = sparse.BSR{N: A.N, RowPtr: A.RowPtr, Col: A.Col, Diag: A.Diag, Val: f.val}
	f.a, f.s = nil, nil
	return p.Setup(r, &f.m, x)
}

// filtered is SetupFiltered's workspace: the filtered matrix A_S over A's
// pattern and, per vertex, whether its filter is the identity.
type filtered struct {
	a            *sparse.BSR
	s            []float64
	free         []bool
	val          []float64
	m            sparse.BSR
	kFree, kRows func(lo, hi int)
}

func (f *filtered) freeKernel(lo, hi int) {
	for i := lo; i < hi; i++ {
		f.free[i] = sparse.IdentityFilter(f.s[9*i : 9*i+9])
	}
}

// rowsKernel forms the block rows [lo, hi) of A_S: S_i A_ij S_j, plus
// d_i (I - S_i) on the diagonal.
func (f *filtered) rowsKernel(lo, hi int) {
	a := f.a
	for i := lo; i < hi; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			j := int(a.Col[k])
			src := (*[9]float64)(a.Val[9*k:])
			dst := (*[9]float64)(f.val[9*k:])
			if f.free[i] && f.free[j] {
				*dst = *src
				continue
			}
			var t [9]float64
			mulAdd3(t[:], (*[9]float64)(f.s[9*i:]), src)
			clear(dst[:])
			mulAdd3(dst[:], &t, (*[9]float64)(f.s[9*j:]))
			if i == j {
				s := (*[9]float64)(f.s[9*i:])
				d := (src[0] + src[4] + src[8]) / 3
				for e := range dst {
					dst[e] -= d * s[e]
				}
				dst[0] += d
				dst[4] += d
				dst[8] += d
			}
		}
	}
}
