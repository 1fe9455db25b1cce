package ldlt

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// clothCoords returns clothMatrix(nv)'s unknowns' coordinates: vertex (x,
// y) of the grid at (x, y, 0), its three unknowns there.
func clothCoords(nv int) []float64 {
	c := make([]float64, 0, 9*nv*nv)
	for y := 0; y < nv; y++ {
		for x := 0; x < nv; x++ {
			for range 3 {
				c = append(c, float64(x), float64(y), 0)
			}
		}
	}
	return c
}

// TestBisection: the coordinate-bisection ordering is a permutation whose
// factor solves the system (against gonum's dense solve), and on a large
// cloth grid it fills less than AMD (nested dissection's n log n against
// minimum degree's faster growth on 2D meshes).
func TestBisection(t *testing.T) {
	for _, nv := range []int{3, 12} {
		A := clothMatrix(nv, 1)
		perm, err := Bisection(A, clothCoords(nv))
		if err != nil {
			t.Fatal(err)
		}
		checkPerm(t, perm, A.N)
		s, err := AnalyzePerm(A, perm)
		if err != nil {
			t.Fatal(err)
		}
		f, err := s.Factor(A, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := randVec(rand.New(rand.NewPCG(2, 3)), A.N)
		x := make([]float64, A.N)
		f.Solve(b, x)
		if e := relErr(x, denseSolve(t, A, b)); e > 1e-10 {
			t.Errorf("%d x %d cloth: relative error %.3g against the dense solve", nv, nv, e)
		}
	}
	nv := 100
	A := cachedCloth(nv)
	perm, err := Bisection(A, clothCoords(nv))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := AnalyzePerm(A, perm)
	if err != nil {
		t.Fatal(err)
	}
	sa, _ := Analyze(A, AMD)
	t.Logf("cloth %dx%d: nnz(L) bisection %d, AMD %d", nv, nv, sb.NnzL(), sa.NnzL())
	if sb.NnzL() >= sa.NnzL() {
		t.Errorf("cloth %d x %d: bisection fills %d, not less than AMD's %d", nv, nv, sb.NnzL(), sa.NnzL())
	}
}

func TestBisectionErrors(t *testing.T) {
	A := clothMatrix(3, 1)
	c := clothCoords(3)
	if _, err := Bisection(A, c[:len(c)-1]); err == nil || !strings.Contains(err.Error(), "coordinates") {
		t.Errorf("short coordinates: %v", err)
	}
	c[7] = math.NaN()
	if _, err := Bisection(A, c); err == nil || !strings.Contains(err.Error(), "coordinate 1 of unknown 2 is NaN") {
		t.Errorf("NaN coordinate: %v", err)
	}
	bad := *A
	bad.ColPtr = bad.ColPtr[:2]
	if _, err := Bisection(&bad, clothCoords(3)); err == nil {
		t.Error("malformed matrix accepted")
	}
}
