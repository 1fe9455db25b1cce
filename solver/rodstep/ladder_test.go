package rodstep

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/ldlt"
)

// TestLadderSkipsCertainFailures factors a 2D grid Laplacian shifted
// by -sigma I (indefinite by amounts from 1e-9 to 1e-2 of its largest
// diagonal entry) through factorRegularized and checks it against the
// plain ladder (each rung 0, 1e-10, 1e-9, ... relative factored in turn,
// a fresh ldlt factorization each): the same mu, never more
// factorizations, and fewer where the plain ladder climbs more than two
// rungs; the same matrix factored again takes one factorization, its
// failing rungs certified by the kept direction. The pivot directions'
// bounds (curvatureBound) are what skip them.
func TestLadderSkipsCertainFailures(t *testing.T) {
	const k = 20 // k x k grid
	n := k * k
	lap := func(sigma float64) ldlt.Matrix {
		A := ldlt.Matrix{N: n, ColPtr: []int{0}}
		for j := range n {
			A.RowIdx = append(A.RowIdx, j)
			A.Val = append(A.Val, 4e4-sigma)
			if j%k+1 < k {
				A.RowIdx = append(A.RowIdx, j+1)
				A.Val = append(A.Val, -1e4)
			}
			if j+k < n {
				A.RowIdx = append(A.RowIdx, j+k)
				A.Val = append(A.Val, -1e4)
			}
			A.ColPtr = append(A.ColPtr, len(A.RowIdx))
		}
		return A
	}
	// The grid Laplacian's smallest eigenvalue.
	lmin := 4e4 - 2e4*2*math.Cos(math.Pi/float64(k+1))
	saved := 0
	for _, rel := range []float64{1e-9, 3e-8, 1e-6, 2e-5, 4e-4, 1e-2} {
		sigma := lmin + rel*4e4
		A := lap(sigma)
		scale := math.Abs(A.Val[0])
		// The plain ladder.
		sym, err := ldlt.Analyze(&A, ldlt.AMD)
		if err != nil {
			t.Fatal(err)
		}
		want, plain := -1.0, 0
		for try, mu := 0, 0.0; try < 12; try++ {
			B := lap(sigma - mu)
			plain++
			if _, err := sym.Factor(&B, nil); err == nil {
				want = mu
				break
			}
			if mu == 0 {
				mu = 1e-10 * scale
			} else {
				mu *= 10
			}
		}
		if want < 0 {
			t.Fatalf("rel %g: the plain ladder found no shift", rel)
		}
		var s State
		s.ws.asm.A = A
		s.ws.asm.sym = sym
		s.ws.asm.diagOrig = make([]float64, n)
		got, err := s.factorRegularized()
		if err != nil {
			t.Fatalf("rel %g: %v", rel, err)
		}
		if got != want {
			t.Errorf("rel %g: mu %g, the plain ladder's %g", rel, got, want)
		}
		if f := s.ws.factorizations; f > plain || (plain > 3 && f >= plain) {
			t.Errorf("rel %g: %d factorizations, the plain ladder %d", rel, f, plain)
		}
		first := s.ws.factorizations
		// The same matrix again: the kept direction certifies the failing
		// rungs before any factorization, so only the right one is factored.
		s.ws.asm.A = lap(sigma)
		s.ws.factorizations = 0
		again, err := s.factorRegularized()
		if err != nil || again != want {
			t.Errorf("rel %g, again: mu %g (%v), want %g", rel, again, err, want)
		}
		if f := s.ws.factorizations; f != 1 {
			t.Errorf("rel %g, again: %d factorizations, want 1", rel, f)
		}
		t.Logf("rel %g: mu %g, %d factorizations against %d; again %d", rel, got, first, plain, s.ws.factorizations)
		saved += plain - first
	}
	if saved == 0 {
		t.Error("no factorization saved")
	}
}
