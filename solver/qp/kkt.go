package qp

import (
	"github.com/loomsim/loom/solver/ldlt"
)

// Kinds of KKT entries (see kktPattern).
const (
	kP     uint8 = iota // off-diagonal entry of H
	kPdiag              // diagonal entry of H (shifted)
	kDiag               // diagonal with no H entry (shift only)
	kA                  // constraint coefficient
	kC                  // constraint-block diagonal
)

// kktPattern is the lower triangle of the quasi-definite matrix
//
//	[ H + s I   C^T ]
//	[ C        -R   ]
//
// with C = [Aeq; Ain], in the CSC layout of ldlt.Matrix. For every stored entry
// it records where its value comes from, so that values are refilled without
// touching the pattern: ADMM (s = sigma, R = diag(1/rho)) and polishing
// (s = delta, inactive rows of C zeroed, R = delta on active rows and 1 on
// inactive ones) share one symbolic analysis.
type kktPattern struct {
	n, m  int
	mat   *ldlt.Matrix
	kind  []uint8
	src   []int // index into P.Val, A.Val or constraint index
	signs []int8
}

// newKKTPattern builds the pattern from canonical P (n x n, symmetric, full)
// and A (m x n).
func newKKTPattern(p, a *CSR) *kktPattern {
	n, m := p.Rows, a.Rows
	// column access to A with entry indices
	colPtr := make([]int, n+1)
	for k := 0; k < a.RowPtr[m]; k++ {
		colPtr[a.Col[k]+1]++
	}
	for j := 0; j < n; j++ {
		colPtr[j+1] += colPtr[j]
	}
	aRow := make([]int, a.RowPtr[m])
	aIdx := make([]int, a.RowPtr[m])
	next := append([]int(nil), colPtr[:n]...)
	for i := 0; i < m; i++ {
		for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
			j := a.Col[k]
			aRow[next[j]] = i
			aIdx[next[j]] = k
			next[j]++
		}
	}
	nnzEst := (p.RowPtr[n]+n)/2 + n + a.RowPtr[m] + m
	k := &kktPattern{n: n, m: m}
	mat := &ldlt.Matrix{N: n + m, ColPtr: make([]int, n+m+1)}
	mat.RowIdx = make([]int, 0, nnzEst)
	k.kind = make([]uint8, 0, nnzEst)
	k.src = make([]int, 0, nnzEst)
	for j := 0; j < n; j++ {
		hasDiag := false
		for q := p.RowPtr[j]; q < p.RowPtr[j+1]; q++ {
			i := p.Col[q]
			if i < j {
				continue
			}
			if i == j {
				hasDiag = true
				k.kind = append(k.kind, kPdiag)
			} else {
				if !hasDiag {
					mat.RowIdx = append(mat.RowIdx, j)
					k.kind = append(k.kind, kDiag)
					k.src = append(k.src, j)
					hasDiag = true
				}
				k.kind = append(k.kind, kP)
			}
			mat.RowIdx = append(mat.RowIdx, i)
			k.src = append(k.src, q)
		}
		if !hasDiag {
			mat.RowIdx = append(mat.RowIdx, j)
			k.kind = append(k.kind, kDiag)
			k.src = append(k.src, j)
		}
		for q := colPtr[j]; q < colPtr[j+1]; q++ {
			mat.RowIdx = append(mat.RowIdx, n+aRow[q])
			k.kind = append(k.kind, kA)
			k.src = append(k.src, aIdx[q])
		}
		mat.ColPtr[j+1] = len(mat.RowIdx)
	}
	for i := 0; i < m; i++ {
		mat.RowIdx = append(mat.RowIdx, n+i)
		k.kind = append(k.kind, kC)
		k.src = append(k.src, i)
		mat.ColPtr[n+i+1] = len(mat.RowIdx)
	}
	mat.Val = make([]float64, len(mat.RowIdx))
	k.mat = mat
	k.signs = make([]int8, n+m)
	for i := range k.signs {
		if i < n {
			k.signs[i] = 1
		} else {
			k.signs[i] = -1
		}
	}
	return k
}

// fill writes the values of the KKT matrix: H block from p plus shift on the
// diagonal, constraint rows from a (rows with active[i] == false are zeroed
// when active != nil), and the constraint diagonal -cdiag.
func (k *kktPattern) fill(p, a *CSR, shift float64, active []bool, cdiag []float64) {
	v := k.mat.Val
	for q, kind := range k.kind {
		s := k.src[q]
		switch kind {
		case kP:
			v[q] = p.Val[s]
		case kPdiag:
			v[q] = p.Val[s] + shift
		case kDiag:
			v[q] = shift
		case kA:
			v[q] = a.Val[s]
		case kC:
			v[q] = -cdiag[s]
		}
	}
	if active != nil {
		for q, kind := range k.kind {
			if kind == kA && !active[k.mat.RowIdx[q]-k.n] {
				v[q] = 0
			}
		}
	}
}

// samePattern reports whether p and a have the pattern the KKT was built for.
func samePattern(p1, p2 *CSR) bool {
	if p1.Rows != p2.Rows || p1.Cols != p2.Cols || len(p1.Col) != len(p2.Col) {
		return false
	}
	for i, v := range p1.RowPtr {
		if p2.RowPtr[i] != v {
			return false
		}
	}
	for i, v := range p1.Col {
		if p2.Col[i] != v {
			return false
		}
	}
	return true
}
