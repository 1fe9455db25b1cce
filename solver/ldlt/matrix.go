package ldlt

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Matrix is a symmetric matrix in compressed sparse column form holding the
// lower triangle including the diagonal. Column j occupies
// RowIdx[ColPtr[j]:ColPtr[j+1]] and Val[ColPtr[j]:ColPtr[j+1]]; the row
// indices of a column are strictly ascending and all >= j, and the diagonal
// entry (j, j) must be present (stored first) in every column, even when its
// value is zero.
type Matrix struct {
	N      int
	ColPtr []int
	RowIdx []int
	Val    []float64
}

// Nnz returns the number of stored entries (lower triangle with diagonal).
func (a *Matrix) Nnz() int {
	if a == nil || len(a.ColPtr) == 0 {
		return 0
	}
	return a.ColPtr[a.N]
}

// At returns entry (i, j) of the symmetric matrix (either triangle). It is a
// slow helper for tests and debugging.
func (a *Matrix) At(i, j int) float64 {
	if i < j {
		i, j = j, i
	}
	rows := a.RowIdx[a.ColPtr[j]:a.ColPtr[j+1]]
	k := sort.SearchInts(rows, i)
	if k < len(rows) && rows[k] == i {
		return a.Val[a.ColPtr[j]+k]
	}
	return 0
}

// Validate checks the structural invariants of a: sizes, monotone column
// pointers, in-range strictly ascending lower-triangular row indices, a
// diagonal entry in every column. It does not inspect values.
func (a *Matrix) Validate() error {
	if a == nil {
		return fmt.Errorf("ldlt: nil matrix")
	}
	n := a.N
	if n < 0 {
		return fmt.Errorf("ldlt: negative dimension %d", n)
	}
	if len(a.ColPtr) != n+1 {
		return fmt.Errorf("ldlt: len(ColPtr) = %d, want N+1 = %d", len(a.ColPtr), n+1)
	}
	if a.ColPtr[0] != 0 {
		return fmt.Errorf("ldlt: ColPtr[0] = %d, want 0", a.ColPtr[0])
	}
	for j := 0; j < n; j++ {
		if a.ColPtr[j+1] < a.ColPtr[j] {
			return fmt.Errorf("ldlt: ColPtr decreases at column %d", j)
		}
	}
	nnz := a.ColPtr[n]
	if len(a.RowIdx) < nnz || len(a.Val) < nnz {
		return fmt.Errorf("ldlt: ColPtr[N] = %d but len(RowIdx) = %d, len(Val) = %d", nnz, len(a.RowIdx), len(a.Val))
	}
	for j := 0; j < n; j++ {
		lo, hi := a.ColPtr[j], a.ColPtr[j+1]
		if lo == hi || a.RowIdx[lo] != j {
			return fmt.Errorf("ldlt: column %d: missing diagonal entry (first stored row must be %d)", j, j)
		}
		prev := -1
		for p := lo; p < hi; p++ {
			i := a.RowIdx[p]
			if i < 0 || i >= n {
				return fmt.Errorf("ldlt: column %d: row index %d out of range [0,%d)", j, i, n)
			}
			if i < j {
				return fmt.Errorf("ldlt: column %d: row index %d above the diagonal (only the lower triangle may be stored)", j, i)
			}
			if i <= prev {
				return fmt.Errorf("ldlt: column %d: row indices not strictly ascending (%d after %d)", j, i, prev)
			}
			prev = i
		}
	}
	return nil
}

// checkFinite reports the first non-finite stored value.
func (a *Matrix) checkFinite() error {
	for j := 0; j < a.N; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			v := a.Val[p]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("ldlt: non-finite value %v at (%d, %d)", v, a.RowIdx[p], j)
			}
		}
	}
	return nil
}

// FromTriplets builds a Matrix from (i, j, v) entries of the full or lower
// matrix. Entries with i < j are mirrored to (j, i), so a full symmetric
// triplet list must hold only one of each off-diagonal pair, or the values
// are counted twice; pass either the lower triangle, the upper triangle, or
// halve the off-diagonal values. Duplicates are summed. Every diagonal entry
// is created (zero if absent).
func FromTriplets(n int, rows, cols []int, vals []float64) (*Matrix, error) {
	if n < 0 {
		return nil, fmt.Errorf("ldlt: negative dimension %d", n)
	}
	if len(rows) != len(cols) || len(rows) != len(vals) {
		return nil, fmt.Errorf("ldlt: triplet slices differ in length (%d, %d, %d)", len(rows), len(cols), len(vals))
	}
	cnt := make([]int, n+1)
	for k := range rows {
		i, j := rows[k], cols[k]
		if i < 0 || i >= n || j < 0 || j >= n {
			return nil, fmt.Errorf("ldlt: triplet %d: index (%d, %d) out of range [0,%d)", k, i, j, n)
		}
		if i < j {
			j = i
		}
		cnt[j+1]++
	}
	for j := 0; j < n; j++ {
		cnt[j+1]++ // diagonal
	}
	for j := 0; j < n; j++ {
		cnt[j+1] += cnt[j]
	}
	tot := cnt[n]
	ri := make([]int, tot)
	rv := make([]float64, tot)
	next := make([]int, n)
	copy(next, cnt[:n])
	for j := 0; j < n; j++ {
		ri[next[j]] = j
		next[j]++
	}
	for k := range rows {
		i, j := rows[k], cols[k]
		if i < j {
			i, j = j, i
		}
		ri[next[j]] = i
		rv[next[j]] = vals[k]
		next[j]++
	}
	// Sort each column by row and sum duplicates, compacting in place.
	colPtr := make([]int, n+1)
	out := 0
	type ent struct {
		i int
		v float64
	}
	var buf []ent
	for j := 0; j < n; j++ {
		lo, hi := cnt[j], cnt[j+1]
		buf = buf[:0]
		for p := lo; p < hi; p++ {
			buf = append(buf, ent{ri[p], rv[p]})
		}
		// Stable: duplicates are summed in the order they were given.
		slices.SortStableFunc(buf, func(a, b ent) int { return cmp.Compare(a.i, b.i) })
		colPtr[j] = out
		for q := 0; q < len(buf); q++ {
			if q > 0 && buf[q].i == buf[q-1].i {
				rv[out-1] += buf[q].v
				continue
			}
			ri[out] = buf[q].i
			rv[out] = buf[q].v
			out++
		}
	}
	colPtr[n] = out
	return &Matrix{N: n, ColPtr: colPtr, RowIdx: ri[:out:out], Val: rv[:out:out]}, nil
}

// MulSym sets y = A x for the symmetric matrix whose lower triangle a
// holds (each off-diagonal entry applied to both its row and its column),
// serially, in a fixed order.
func (a *Matrix) MulSym(x, y []float64) {
	clear(y[:a.N])
	for j := 0; j < a.N; j++ {
		lo, hi := a.ColPtr[j], a.ColPtr[j+1]
		xj, yj := x[j], a.Val[lo]*x[j]
		for p := lo + 1; p < hi; p++ {
			i, v := a.RowIdx[p], a.Val[p]
			y[i] += v * xj
			yj += v * x[i]
		}
		y[j] += yj
	}
}
