package systems

import (
	"fmt"

	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/sparse"
)

// directSolve solves the unconstrained implicit step A v = b by sparse LDL^T.
// Pinned coordinates are eliminated symmetrically: their rows and columns
// become identity and their couplings move to the right-hand side. The
// symbolic analysis (AMD ordering, elimination tree) is kept while the
// sparsity pattern is unchanged; each step only refactors numerically.
type directSolve struct {
	pattern *sparse.Pattern
	m       ldlt.Matrix
	src     []int // for each entry of m, its index in A.Val
	sym     *ldlt.Symbolic
	fac     *ldlt.Factor
	rhs     []float64
}

func (d *directSolve) solve(s *ClothState) error {
	if d.pattern != s.Pattern {
		if err := d.analyze(s); err != nil {
			return err
		}
	}
	A := s.A
	for k, j := range d.src {
		d.m.Val[k] = A.Val[j]
	}
	// Eliminate pins: v_p = z_p, b_f -= A_fp z_p.
	copy(d.rhs, s.B)
	for col := 0; col < d.m.N; col++ {
		for k := d.m.ColPtr[col]; k < d.m.ColPtr[col+1]; k++ {
			row := d.m.RowIdx[k]
			pr, pc := s.pinnedMask[row/3], s.pinnedMask[col/3]
			switch {
			case row == col && pr:
				d.m.Val[k] = 1
			case pr && !pc:
				d.rhs[col] -= d.m.Val[k] * s.PinZ[row]
				d.m.Val[k] = 0
			case pc && !pr:
				d.rhs[row] -= d.m.Val[k] * s.PinZ[col]
				d.m.Val[k] = 0
			case pr && pc:
				d.m.Val[k] = 0
			}
		}
	}
	for _, p := range s.Pins {
		for c := 0; c < 3; c++ {
			j := 3*int(p.Vertex) + c
			d.rhs[j] = s.PinZ[j]
		}
	}
	var err error
	if d.fac == nil {
		d.fac, err = d.sym.Factor(&d.m, nil)
	} else {
		err = d.fac.Refactor(&d.m, nil)
	}
	if err != nil {
		return fmt.Errorf("LDL^T: %w", err)
	}
	d.fac.Solve(d.rhs, s.VNew)
	return nil
}

// analyze builds the lower-triangle CSC structure of A (row j's entries with
// column >= j are column j's lower entries, A being symmetric) and its
// symbolic factorization.
func (d *directSolve) analyze(s *ClothState) error {
	A := s.A
	n := 3 * A.N
	d.m = ldlt.Matrix{N: n, ColPtr: make([]int, 1, n+1)}
	d.src = d.src[:0]
	for bi := 0; bi < A.N; bi++ {
		for r := 0; r < 3; r++ {
			j := 3*bi + r
			for b := A.RowPtr[bi]; b < A.RowPtr[bi+1]; b++ {
				for q := 0; q < 3; q++ {
					if i := 3*int(A.Col[b]) + q; i >= j {
						d.m.RowIdx = append(d.m.RowIdx, i)
						d.src = append(d.src, 9*int(b)+3*r+q)
					}
				}
			}
			d.m.ColPtr = append(d.m.ColPtr, len(d.m.RowIdx))
		}
	}
	d.m.Val = make([]float64, len(d.m.RowIdx))
	sym, err := ldlt.Analyze(&d.m, ldlt.AMD)
	if err != nil {
		return fmt.Errorf("LDL^T analysis: %w", err)
	}
	d.sym, d.fac, d.pattern = sym, nil, s.Pattern
	d.rhs = make([]float64, n)
	return nil
}
