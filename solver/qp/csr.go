package qp

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// CSR is a sparse matrix in compressed sparse row form: the entries of row i
// are Col[RowPtr[i]:RowPtr[i+1]] and Val[RowPtr[i]:RowPtr[i+1]]. Column indices
// within a row need not be sorted and may repeat (repeats are summed); explicit
// zeros are allowed.
type CSR struct {
	Rows, Cols int
	RowPtr     []int
	Col        []int
	Val        []float64
}

// NewCSR builds a CSR matrix from triplets (rows[k], cols[k], vals[k]).
// Duplicates are summed; rows are sorted by column.
func NewCSR(r, c int, rows, cols []int, vals []float64) (*CSR, error) {
	if r < 0 || c < 0 {
		return nil, fmt.Errorf("qp: NewCSR: negative dimension %dx%d", r, c)
	}
	if len(rows) != len(cols) || len(rows) != len(vals) {
		return nil, fmt.Errorf("qp: NewCSR: triplet slices have lengths %d, %d, %d", len(rows), len(cols), len(vals))
	}
	for k := range rows {
		if rows[k] < 0 || rows[k] >= r || cols[k] < 0 || cols[k] >= c {
			return nil, fmt.Errorf("qp: NewCSR: triplet %d at (%d,%d) outside %dx%d", k, rows[k], cols[k], r, c)
		}
	}
	m := &CSR{Rows: r, Cols: c, RowPtr: make([]int, r+1)}
	for _, i := range rows {
		m.RowPtr[i+1]++
	}
	for i := 0; i < r; i++ {
		m.RowPtr[i+1] += m.RowPtr[i]
	}
	m.Col = make([]int, len(rows))
	m.Val = make([]float64, len(rows))
	next := append([]int(nil), m.RowPtr[:r]...)
	for k, i := range rows {
		m.Col[next[i]] = cols[k]
		m.Val[next[i]] = vals[k]
		next[i]++
	}
	return m.canonical(), nil
}

// validate checks the structure of m and the finiteness of its values.
func (m *CSR) validate(name string, rows, cols int) error {
	if m.Rows != rows || m.Cols != cols {
		return fmt.Errorf("qp: %s is %dx%d, want %dx%d", name, m.Rows, m.Cols, rows, cols)
	}
	if len(m.RowPtr) != rows+1 {
		return fmt.Errorf("qp: %s: len(RowPtr) = %d, want %d", name, len(m.RowPtr), rows+1)
	}
	if m.RowPtr[0] != 0 {
		return fmt.Errorf("qp: %s: RowPtr[0] = %d, want 0", name, m.RowPtr[0])
	}
	for i := 0; i < rows; i++ {
		if m.RowPtr[i+1] < m.RowPtr[i] {
			return fmt.Errorf("qp: %s: RowPtr decreases at row %d", name, i)
		}
	}
	nnz := m.RowPtr[rows]
	if len(m.Col) < nnz || len(m.Val) < nnz {
		return fmt.Errorf("qp: %s: RowPtr[%d] = %d but len(Col) = %d, len(Val) = %d", name, rows, nnz, len(m.Col), len(m.Val))
	}
	for i := 0; i < rows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			if j := m.Col[k]; j < 0 || j >= cols {
				return fmt.Errorf("qp: %s: entry (%d,%d) outside %d columns", name, i, j, cols)
			}
			if v := m.Val[k]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("qp: %s: entry (%d,%d) is %v", name, i, m.Col[k], v)
			}
		}
	}
	return nil
}

// canonical returns a copy of m with sorted columns, duplicates summed and
// unused capacity dropped. Explicit zeros are kept (they may be structural).
func (m *CSR) canonical() *CSR {
	out := &CSR{}
	m.canonicalInto(out, nil)
	return out
}

// csrEntry is one entry of a row being sorted by canonicalInto.
type csrEntry struct {
	j int
	v float64
}

// canonicalInto writes canonical m into out, reusing out's storage and buf
// (a row's sort buffer, may be nil) when they are large enough.
func (m *CSR) canonicalInto(out *CSR, buf *[]csrEntry) {
	if buf == nil {
		buf = new([]csrEntry)
	}
	nnz := m.RowPtr[m.Rows]
	out.Rows, out.Cols = m.Rows, m.Cols
	out.RowPtr = resize(out.RowPtr, m.Rows+1)
	out.RowPtr[0] = 0
	out.Col = slices.Grow(out.Col[:0], nnz)
	out.Val = slices.Grow(out.Val[:0], nnz)
	for i := 0; i < m.Rows; i++ {
		b := (*buf)[:0]
		sorted := true
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			if len(b) > 0 && m.Col[k] <= b[len(b)-1].j {
				sorted = false
			}
			b = append(b, csrEntry{m.Col[k], m.Val[k]})
		}
		if !sorted {
			slices.SortStableFunc(b, func(a, b csrEntry) int { return cmp.Compare(a.j, b.j) })
		}
		for k, e := range b {
			if k > 0 && e.j == b[k-1].j {
				out.Val[len(out.Val)-1] += e.v
				continue
			}
			out.Col = append(out.Col, e.j)
			out.Val = append(out.Val, e.v)
		}
		out.RowPtr[i+1] = len(out.Col)
		*buf = b
	}
}

// transposeInto writes m^T, in canonical CSR form, into t, reusing t's
// storage and next (a column cursor buffer) when they are large enough.
func (m *CSR) transposeInto(t *CSR, next *[]int) {
	nnz := m.RowPtr[m.Rows]
	t.Rows, t.Cols = m.Cols, m.Rows
	t.RowPtr = resize(t.RowPtr, m.Cols+1)
	clear(t.RowPtr)
	t.Col = resize(t.Col, nnz)
	t.Val = resize(t.Val, nnz)
	for k := 0; k < nnz; k++ {
		t.RowPtr[m.Col[k]+1]++
	}
	for j := 0; j < m.Cols; j++ {
		t.RowPtr[j+1] += t.RowPtr[j]
	}
	*next = append((*next)[:0], t.RowPtr[:m.Cols]...)
	nx := *next
	for i := 0; i < m.Rows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := m.Col[k]
			t.Col[nx[j]] = i
			t.Val[nx[j]] = m.Val[k]
			nx[j]++
		}
	}
}

// resize returns s with length n, reusing its storage when it is large
// enough (the contents are then stale).
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// mulVec sets y = m x. A nil m acts as an empty matrix.
func (m *CSR) mulVec(x, y []float64) {
	if m == nil {
		return
	}
	for i := 0; i < m.Rows; i++ {
		s := 0.0
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			s += m.Val[k] * x[m.Col[k]]
		}
		y[i] = s
	}
}

// mulTransAdd sets y += m^T x.
func (m *CSR) mulTransAdd(x, y []float64) {
	if m == nil {
		return
	}
	for i := 0; i < m.Rows; i++ {
		xi := x[i]
		if xi == 0 {
			continue
		}
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			y[m.Col[k]] += m.Val[k] * xi
		}
	}
}

// normInf returns the induced infinity norm (largest absolute row sum) of m.
func (m *CSR) normInf() float64 {
	if m == nil {
		return 0
	}
	r := 0.0
	for i := 0; i < m.Rows; i++ {
		s := 0.0
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			s += math.Abs(m.Val[k])
		}
		r = math.Max(r, s)
	}
	return r
}

// norm1 returns the induced 1-norm (largest absolute column sum) of m; work
// holds the column sums (resized to m.Cols).
func (m *CSR) norm1(work *[]float64) float64 {
	if m == nil {
		return 0
	}
	*work = resize(*work, m.Cols)
	col := *work
	clear(col)
	for k := 0; k < m.RowPtr[m.Rows]; k++ {
		col[m.Col[k]] += math.Abs(m.Val[k])
	}
	return vecNormInf(col)
}

func vecNormInf(x []float64) float64 {
	r := 0.0
	for _, v := range x {
		if a := math.Abs(v); a > r {
			r = a
		}
	}
	return r
}

func checkVec(name string, x []float64, n int) error {
	if len(x) != n {
		return fmt.Errorf("qp: len(%s) = %d, want %d", name, len(x), n)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("qp: %s[%d] is %v", name, i, v)
		}
	}
	return nil
}
