package systems

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/internal/kkt"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// pairKKT is the dense brute-force optimum (kkt.Brute) of the step's QP with
// pins and the rows c_k^T v >= d_k, with the rows' multipliers. Dependent
// active sets are skipped: the random pair rows may share vertices.
func pairKKT(t *testing.T, a *mat.SymDense, b []float64, pins map[int]dense.Vec3, c [][]float64, d []float64) ([]float64, []float64) {
	v, lam, _, err := kkt.Brute(a, b, pins, c, d)
	if err != nil {
		t.Fatal(err)
	}
	return v, lam
}

// TestPairRowsMatchDenseKKT: the implicit step's QP with proximity rows on
// up to four vertices (weights of a vertex and a face's point, or two edges'
// points; an obstacle vertex's weight left out as its velocity is in the
// target), next to one-vertex contact rows and a pin, solves to the optimum
// that an enumeration of active sets with dense KKT solves finds, velocities
// and multipliers.
func TestPairRowsMatchDenseKKT(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const n = 5
	for trial := range 20 {
		g := mat.NewDense(3*n, 3*n, nil)
		for i := range 3 * n {
			for j := range 3 * n {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		a := mat.NewSymDense(3*n, nil)
		for i := range 3 * n {
			for j := i; j < 3*n; j++ {
				v := 0.0
				for k := range 3 * n {
					v += g.At(i, k) * g.At(j, k)
				}
				if i == j {
					v += 3 * n
				}
				a.SetSym(i, j, v)
			}
		}
		bsr := &sparse.BSR{N: n, RowPtr: make([]int32, n+1), Diag: make([]int32, n)}
		for i := range n {
			for j := range n {
				if i == j {
					bsr.Diag[i] = int32(len(bsr.Col))
				}
				bsr.Col = append(bsr.Col, int32(j))
				for r := range 3 {
					for c := range 3 {
						bsr.Val = append(bsr.Val, a.At(3*i+r, 3*j+c))
					}
				}
			}
			bsr.RowPtr[i+1] = int32(len(bsr.Col))
		}
		b := make([]float64, 3*n)
		for i := range b {
			b[i] = 3 * n * rng.NormFloat64()
		}
		unit := func() dense.Vec3 {
			v := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			return v.Scale(1 / v.Norm())
		}
		s := &ClothState{ClothTopology: ClothTopology{Verts: make([]ecs.Entity, n)}}
		s.A, s.B = bsr, b
		s.PinZ = make([]float64, 3*n)
		pins := map[int]dense.Vec3{}
		z := dense.Vec3{0.3, -0.2, 0.1}
		s.Pins = []Pin{{Vertex: 4}}
		copy(s.PinZ[12:15], z[:])
		pins[4] = z
		var c [][]float64
		var d []float64
		add := func(v [4]int32, w [4]float64, nrm dense.Vec3, target float64) {
			s.Pairs = append(s.Pairs, PairRow{V: v, W: w, Normal: nrm, Target: target})
			row := make([]float64, 3*n)
			for k, i := range v {
				if i >= 0 {
					for j := range 3 {
						row[3*int(i)+j] += w[k] * nrm[j]
					}
				}
			}
			c, d = append(c, row), append(d, target)
		}
		// A one-vertex contact row first (the QP's first rows).
		nrm := unit()
		s.Contacts = []ContactRow{{Vertex: 0, Normal: nrm, Target: rng.NormFloat64()}}
		row := make([]float64, 3*n)
		for j := range 3 {
			row[j] = nrm[j]
		}
		c, d = append(c, row), append(d, s.Contacts[0].Target)
		// Vertex 1 against face (2, 3, 4): 4 is pinned.
		b1, b2 := rng.Float64()*0.5, rng.Float64()*0.5
		add([4]int32{1, 2, 3, 4}, [4]float64{1, -b1, -b2, -(1 - b1 - b2)}, unit(), rng.NormFloat64())
		// Edges (0, 2) and (1, 3).
		al, u := rng.Float64(), rng.Float64()
		add([4]int32{0, 2, 1, 3}, [4]float64{1 - al, al, -(1 - u), -u}, unit(), rng.NormFloat64())
		// An obstacle vertex (-1) against face (0, 1, 3).
		add([4]int32{-1, 0, 1, 3}, [4]float64{1, -0.2, -0.5, -0.3}, unit(), rng.NormFloat64())
		s.VNew = make([]float64, 3*n)
		var qp contactQP
		if err := qp.solve(s); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want, lam := pairKKT(t, a, b, pins, c, d)
		for i := range want {
			if math.Abs(s.VNew[i]-want[i]) > 1e-6*(1+math.Abs(want[i])) {
				t.Fatalf("trial %d: v[%d] = %.12g, dense KKT %.12g", trial, i, s.VNew[i], want[i])
			}
		}
		got := append(append([]float64(nil), s.Impulse...), s.PairImpulse...)
		for k := range lam {
			if math.Abs(got[k]-lam[k]) > 1e-6*(1+math.Abs(lam[k])) {
				t.Fatalf("trial %d: multiplier %d = %.12g, dense KKT %.12g", trial, k, got[k], lam[k])
			}
		}
	}
}
