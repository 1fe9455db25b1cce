package systems

import (
	"testing"

	"github.com/loomsim/loom/solver/sparse"
)

// TestContactQPHessianFollowsPattern: the scalar copy of A follows a change
// of its block columns that keeps every size (as an edge flip does), entry
// for entry.
func TestContactQPHessianFollowsPattern(t *testing.T) {
	check := func(c *contactQP, A *sparse.BSR) {
		t.Helper()
		c.hessian(&ClothState{ClothStep: ClothStep{A: A}})
		dense := func(i, j int) float64 { // A's entry (i, j), 0 if not stored
			bi, bj := i/3, j/3
			for b := A.RowPtr[bi]; b < A.RowPtr[bi+1]; b++ {
				if int(A.Col[b]) == bj {
					return A.Val[9*int(b)+3*(i%3)+j%3]
				}
			}
			return 0
		}
		n := 3 * A.N
		got := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for k := c.h.RowPtr[i]; k < c.h.RowPtr[i+1]; k++ {
				got[i*n+c.h.Col[k]] += c.h.Val[k]
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if got[i*n+j] != dense(i, j) {
					t.Fatalf("entry (%d, %d): %g in the copy, %g in A", i, j, got[i*n+j], dense(i, j))
				}
			}
		}
	}
	val := make([]float64, 9*5)
	for i := range val {
		val[i] = float64(i + 1)
	}
	// Three vertices: 0-1 coupled, then 1-2 instead (same block count).
	a := &sparse.BSR{N: 3, RowPtr: []int32{0, 2, 4, 5}, Col: []int32{0, 1, 0, 1, 2}, Val: val}
	b := &sparse.BSR{N: 3, RowPtr: []int32{0, 1, 3, 5}, Col: []int32{0, 1, 2, 1, 2}, Val: val}
	var c contactQP
	check(&c, a)
	check(&c, b)
}
