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
	out := &CSR{Rows: m.Rows, Cols: m.Cols, RowPtr: make([]int, m.Rows+1)}
	out.Col = make([]int, 0, m.RowPtr[m.Rows])
	out.Val = make([]float64, 0, m.RowPtr[m.Rows])
	type ent struct {
		j int
		v float64
	}
	var buf []ent
	for i := 0; i < m.Rows; i++ {
		buf = buf[:0]
		sorted := true
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			if len(buf) > 0 && m.Col[k] <= buf[len(buf)-1].j {
				sorted = false
			}
			buf = append(buf, ent{m.Col[k], m.Val[k]})
		}
		if !sorted {
			slices.SortStableFunc(buf, func(a, b ent) int { return cmp.Compare(a.j, b.j) })
		}
		for k, e := range buf {
			if k > 0 && e.j == buf[k-1].j {
				out.Val[len(out.Val)-1] += e.v
				continue
			}
			out.Col = append(out.Col, e.j)
			out.Val = append(out.Val, e.v)
		}
		out.RowPtr[i+1] = len(out.Col)
	}
	return out
}

// transpose returns m^T in canonical CSR form.
func (m *CSR) transpose() *CSR {
	t := &CSR{Rows: m.Cols, Cols: m.Rows, RowPtr: make([]int, m.Cols+1)}
	nnz := m.RowPtr[m.Rows]
	t.Col = make([]int, nnz)
	t.Val = make([]float64, nnz)
	for k := 0; k < nnz; k++ {
		t.RowPtr[m.Col[k]+1]++
	}
	for j := 0; j < m.Cols; j++ {
		t.RowPtr[j+1] += t.RowPtr[j]
	}
	next := append([]int(nil), t.RowPtr[:m.Cols]...)
	for i := 0; i < m.Rows; i++ {
		for k := m.RowPtr[i]; k < m.RowPtr[i+1]; k++ {
			j := m.Col[k]
			t.Col[next[j]] = i
			t.Val[next[j]] = m.Val[k]
			next[j]++
		}
	}
	return t
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

// norm1 returns the induced 1-norm (largest absolute column sum) of m.
func (m *CSR) norm1() float64 {
	if m == nil {
		return 0
	}
	col := make([]float64, m.Cols)
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
