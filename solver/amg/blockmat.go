package amg

import (
	"slices"

	"github.com/loomsim/loom/solver/sparse"
)

// blockMat is a (possibly rectangular) block-sparse matrix of 3x3 blocks in
// block compressed sparse row form: row i's blocks are val[9k:9k+9]
// (row-major) at block column col[k] for k in [rowPtr[i], rowPtr[i+1]),
// columns ascending within a row.
type blockMat struct {
	rows, cols int
	rowPtr     []int32
	col        []int32
	val        []float64
}

// product is the Galerkin building block C = X Y split into a symbolic part,
// built once per pattern (C's pattern and, for every pair of blocks
// multiplied, the C block it adds to), and a numeric part (rows) that
// recomputes C's values from X's and Y's in a fixed order per row: parallel
// over C's rows, each written by one worker, bitwise deterministic.
type product struct {
	x, y *blockMat
	c    blockMat
	ptr  []int32 // per row of C: start of its terms in dest
	dest []int32 // per term (row i, X block k, Y block l): C's block index
	kern func(lo, hi int)
}

// newProduct builds the symbolic product of x and y (x.cols == y.rows).
func newProduct(x, y *blockMat) *product {
	p := &product{x: x, y: y}
	c := &p.c
	c.rows, c.cols = x.rows, y.cols
	c.rowPtr = make([]int32, x.rows+1)
	p.ptr = make([]int32, x.rows+1)
	pos := make([]int32, y.cols) // column -> position in the current row, or -1
	for i := range pos {
		pos[i] = -1
	}
	var row []int32
	nterm := 0
	for i := 0; i < x.rows; i++ {
		row = row[:0]
		for k := x.rowPtr[i]; k < x.rowPtr[i+1]; k++ {
			j := x.col[k]
			nterm += int(y.rowPtr[j+1] - y.rowPtr[j])
			for _, cc := range y.col[y.rowPtr[j]:y.rowPtr[j+1]] {
				if pos[cc] < 0 {
					pos[cc] = 0
					row = append(row, cc)
				}
			}
		}
		slices.Sort(row)
		for _, cc := range row {
			pos[cc] = -1
		}
		c.col = append(c.col, row...)
		c.rowPtr[i+1] = int32(len(c.col))
		p.ptr[i+1] = int32(nterm)
	}
	p.dest = make([]int32, nterm)
	t := 0
	for i := 0; i < x.rows; i++ {
		for k := c.rowPtr[i]; k < c.rowPtr[i+1]; k++ {
			pos[c.col[k]] = k
		}
		for k := x.rowPtr[i]; k < x.rowPtr[i+1]; k++ {
			j := x.col[k]
			for _, cc := range y.col[y.rowPtr[j]:y.rowPtr[j+1]] {
				p.dest[t] = pos[cc]
				t++
			}
		}
		for k := c.rowPtr[i]; k < c.rowPtr[i+1]; k++ {
			pos[c.col[k]] = -1
		}
	}
	c.val = make([]float64, 9*len(c.col))
	p.kern = p.rowsKernel
	return p
}

// rowsKernel computes rows [lo, hi) of C = X Y.
func (p *product) rowsKernel(lo, hi int) {
	x, y, c := p.x, p.y, &p.c
	clear(c.val[9*int(c.rowPtr[lo]) : 9*int(c.rowPtr[hi])])
	t := p.ptr[lo]
	for i := lo; i < hi; i++ {
		for k := x.rowPtr[i]; k < x.rowPtr[i+1]; k++ {
			a := (*[9]float64)(x.val[9*k:])
			j := x.col[k]
			for l := y.rowPtr[j]; l < y.rowPtr[j+1]; l++ {
				mulAdd3(c.val[9*int(p.dest[t]):], a, (*[9]float64)(y.val[9*l:]))
				t++
			}
		}
	}
}

// mulAdd3 adds a b to the 3x3 block at d[0:9].
func mulAdd3(d []float64, a, b *[9]float64) {
	d = d[:9:9]
	for r := 0; r < 3; r++ {
		a0, a1, a2 := a[3*r], a[3*r+1], a[3*r+2]
		d[3*r] += a0*b[0] + a1*b[3] + a2*b[6]
		d[3*r+1] += a0*b[1] + a1*b[4] + a2*b[7]
		d[3*r+2] += a0*b[2] + a1*b[5] + a2*b[8]
	}
}

// transpose is T = X^T: T's pattern, built once per pattern, and perm (T's
// block k is X's block perm[k], transposed) for the numeric copy.
type transpose struct {
	x    *blockMat
	t    blockMat
	perm []int32
	kern func(lo, hi int)
}

func newTranspose(x *blockMat) *transpose {
	tr := &transpose{x: x}
	t := &tr.t
	t.rows, t.cols = x.cols, x.rows
	t.rowPtr = make([]int32, x.cols+1)
	for _, c := range x.col {
		t.rowPtr[c+1]++
	}
	for i := 0; i < x.cols; i++ {
		t.rowPtr[i+1] += t.rowPtr[i]
	}
	next := slices.Clone(t.rowPtr[:x.cols])
	t.col = make([]int32, len(x.col))
	tr.perm = make([]int32, len(x.col))
	for i := 0; i < x.rows; i++ { // ascending i keeps T's rows sorted
		for k := x.rowPtr[i]; k < x.rowPtr[i+1]; k++ {
			c := x.col[k]
			t.col[next[c]] = int32(i)
			tr.perm[next[c]] = k
			next[c]++
		}
	}
	t.val = make([]float64, len(x.val))
	tr.kern = tr.rowsKernel
	return tr
}

func (tr *transpose) rowsKernel(lo, hi int) {
	t, x := &tr.t, tr.x
	for k := t.rowPtr[lo]; k < t.rowPtr[hi]; k++ {
		s := x.val[9*tr.perm[k] : 9*tr.perm[k]+9 : 9*tr.perm[k]+9]
		d := t.val[9*k : 9*k+9 : 9*k+9]
		d[0], d[1], d[2] = s[0], s[3], s[6]
		d[3], d[4], d[5] = s[1], s[4], s[7]
		d[6], d[7], d[8] = s[2], s[5], s[8]
	}
}

// mulRow returns block row i of m times v.
func (m *blockMat) mulRow(i int, v []float64) (y0, y1, y2 float64) {
	return sparse.RowMul(m.rowPtr, m.col, m.val, i, v)
}

// blockMat32 is a square block-sparse matrix like blockMat with its values
// rounded to single precision: half the bytes for the smoother to stream.
type blockMat32 struct {
	rowPtr []int32
	col    []int32
	val    []float32
}

// mulRow returns block row i of m times v, in double precision.
func (m *blockMat32) mulRow(i int, v []float64) (y0, y1, y2 float64) {
	j0, j1 := int(m.rowPtr[i]), int(m.rowPtr[i+1])
	cols := m.col[j0:j1]
	vals := m.val[9*j0 : 9*j1]
	for k, c := range cols {
		xs := v[3*int(c) : 3*int(c)+3 : 3*int(c)+3]
		b := vals[9*k : 9*k+9 : 9*k+9]
		x0, x1, x2 := xs[0], xs[1], xs[2]
		y0 += float64(b[0])*x0 + float64(b[1])*x1 + float64(b[2])*x2
		y1 += float64(b[3])*x0 + float64(b[4])*x1 + float64(b[5])*x2
		y2 += float64(b[6])*x0 + float64(b[7])*x1 + float64(b[8])*x2
	}
	return
}
