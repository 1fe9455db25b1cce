package amg

import (
	"fmt"

	"github.com/loomsim/loom/solver/ldlt"
)

// coarseSolve solves the coarsest level exactly by sparse LDL^T (package
// ldlt): the analysis once per pattern, the factorisation per numeric setup.
type coarseSolve struct {
	a    *blockMat
	m    ldlt.Matrix // the lower triangle of a, scalar entries
	src  []int32     // per entry of m: its index in a.val
	sym  *ldlt.Symbolic
	fac  *ldlt.Factor
	b, x []float64
}

// analyze builds the scalar lower-triangular pattern of a (taken from a's
// upper block triangle, transposed, which a's symmetry makes equal) and its
// LDL^T analysis with AMD ordering.
func (c *coarseSolve) analyze(a *blockMat) error {
	c.a, c.fac = a, nil
	n := 3 * a.rows
	c.m = ldlt.Matrix{N: n, ColPtr: make([]int, n+1)}
	c.src = c.src[:0]
	for bi := 0; bi < a.rows; bi++ {
		for cj := 0; cj < 3; cj++ { // scalar column j = 3 bi + cj
			for k := a.rowPtr[bi]; k < a.rowPtr[bi+1]; k++ {
				bc := int(a.col[k])
				if bc < bi {
					continue
				}
				r0 := 0
				if bc == bi {
					r0 = cj
				}
				for ri := r0; ri < 3; ri++ { // A(3 bc + ri, j) = block (bi, bc) entry (cj, ri)
					c.m.RowIdx = append(c.m.RowIdx, 3*bc+ri)
					c.src = append(c.src, 9*k+int32(3*cj+ri))
				}
			}
			c.m.ColPtr[3*bi+cj+1] = len(c.m.RowIdx)
		}
	}
	c.m.Val = make([]float64, len(c.m.RowIdx))
	c.b, c.x = make([]float64, n), make([]float64, n)
	sym, err := ldlt.Analyze(&c.m, ldlt.AMD)
	if err != nil {
		return fmt.Errorf("amg: coarse level: %w", err)
	}
	c.sym = sym
	return nil
}

// factor factors the coarsest operator's current values.
func (c *coarseSolve) factor() error {
	for k, s := range c.src {
		c.m.Val[k] = c.a.val[s]
	}
	var err error
	if c.fac == nil {
		c.fac, err = c.sym.Factor(&c.m, nil)
	} else {
		err = c.fac.Refactor(&c.m, nil)
	}
	if err != nil {
		c.fac = nil
		return fmt.Errorf("amg: coarse level (%d block rows): %w", c.a.rows, err)
	}
	return nil
}
