package ldlt

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randSPD returns a random sparse SPD matrix: a random symmetric pattern
// with about deg off-diagonal entries per row, made diagonally dominant
// plus a random positive shift.
func randSPD(rng *rand.Rand, n, deg int) *Matrix {
	var r, c []int
	var v []float64
	rowsum := make([]float64, n)
	for i := 0; i < n; i++ {
		for k := 0; k < deg/2+1; k++ {
			j := rng.IntN(n)
			if j == i {
				continue
			}
			x := rng.NormFloat64()
			r = append(r, i)
			c = append(c, j)
			v = append(v, x)
			rowsum[i] += math.Abs(x)
			rowsum[j] += math.Abs(x)
		}
	}
	for i := 0; i < n; i++ {
		r = append(r, i)
		c = append(c, i)
		v = append(v, rowsum[i]+0.1+rng.Float64())
	}
	A, err := FromTriplets(n, r, c, v)
	if err != nil {
		panic(err)
	}
	return A
}

// randQuasiDef returns [[H + sigma I, B^T], [B, -D]] with H sparse PSD
// (sum of random rank-one terms), B m x n sparse, D positive diagonal, and
// the matching signs.
func randQuasiDef(rng *rand.Rand, n, m int, sigma float64) (*Matrix, []int8) {
	var r, c []int
	var v []float64
	add := func(i, j int, x float64) {
		r = append(r, i)
		c = append(c, j)
		v = append(v, x)
	}
	// H: sum of rank-one terms on random index triples (lower triangle).
	for t := 0; t < n; t++ {
		idx := []int{rng.IntN(n), rng.IntN(n), rng.IntN(n)}
		g := []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		for a := 0; a < 3; a++ {
			for b := 0; b < 3; b++ {
				if idx[a] >= idx[b] {
					add(idx[a], idx[b], g[a]*g[b])
				}
			}
		}
	}
	for i := 0; i < n; i++ {
		add(i, i, sigma)
	}
	for i := 0; i < m; i++ {
		for k := 0; k < 3; k++ {
			add(n+i, rng.IntN(n), rng.NormFloat64())
		}
		add(n+i, n+i, -(0.01 + rng.Float64()))
	}
	A, err := FromTriplets(n+m, r, c, v)
	if err != nil {
		panic(err)
	}
	signs := make([]int8, n+m)
	for i := range signs {
		if i < n {
			signs[i] = 1
		} else {
			signs[i] = -1
		}
	}
	return A, signs
}

// clothMatrix builds the scalar-expanded 3x3-block matrix of an nv x nv
// triangulated grid: M + h^2 * (sum of random PSD triangle (9x9) and hinge
// (12x12) element matrices). Each vertex couples to its 1-ring and to the
// vertices across each interior edge.
func clothMatrix(nv int, seed uint64) *Matrix {
	rng := rand.New(rand.NewPCG(seed, 7))
	vid := func(x, y int) int { return y*nv + x }
	type tri [3]int
	var tris []tri
	for y := 0; y+1 < nv; y++ {
		for x := 0; x+1 < nv; x++ {
			a, b, c, d := vid(x, y), vid(x+1, y), vid(x, y+1), vid(x+1, y+1)
			tris = append(tris, tri{a, b, d}, tri{a, d, c})
		}
	}
	// Hinges: pairs of triangles sharing an edge.
	type edge struct{ a, b int }
	owner := map[edge]int{}
	var hinges [][4]int
	for t, tr := range tris {
		for e := 0; e < 3; e++ {
			a, b := tr[e], tr[(e+1)%3]
			if a > b {
				a, b = b, a
			}
			k := edge{a, b}
			if o, ok := owner[k]; ok {
				ot := tris[o]
				var pa, pb int
				for _, w := range ot {
					if w != a && w != b {
						pa = w
					}
				}
				for _, w := range tr {
					if w != a && w != b {
						pb = w
					}
				}
				hinges = append(hinges, [4]int{a, b, pa, pb})
			} else {
				owner[k] = t
			}
		}
	}
	n := 3 * nv * nv
	est := len(tris)*45 + len(hinges)*78 + n
	r := make([]int, 0, est)
	c := make([]int, 0, est)
	v := make([]float64, 0, est)
	h2 := 1e-2
	addElem := func(verts []int) {
		d := 3 * len(verts)
		// PSD element: G G^T with G d x 3 (low rank, cheap, like a
		// projected elastic Hessian).
		g := make([]float64, d*3)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		for a := 0; a < d; a++ {
			ia := 3*verts[a/3] + a%3
			for b := 0; b < d; b++ {
				ib := 3*verts[b/3] + b%3
				if ia < ib {
					continue
				}
				s := g[3*a]*g[3*b] + g[3*a+1]*g[3*b+1] + g[3*a+2]*g[3*b+2]
				r = append(r, ia)
				c = append(c, ib)
				v = append(v, h2*s)
			}
		}
	}
	for _, t := range tris {
		addElem(t[:])
	}
	for _, hg := range hinges {
		addElem(hg[:])
	}
	for i := 0; i < n; i++ {
		r = append(r, i)
		c = append(c, i)
		v = append(v, 1.0/float64(nv*nv)*(1+rng.Float64()))
	}
	A, err := FromTriplets(n, r, c, v)
	if err != nil {
		panic(err)
	}
	return A
}

var clothCache sync.Map

func cachedCloth(nv int) *Matrix {
	if m, ok := clothCache.Load(nv); ok {
		return m.(*Matrix)
	}
	m := clothMatrix(nv, uint64(nv))
	clothCache.Store(nv, m)
	return m
}

func toDense(A *Matrix) *mat.Dense {
	n := A.N
	D := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			D.Set(i, j, A.Val[p])
			D.Set(j, i, A.Val[p])
		}
	}
	return D
}

func denseSolve(t *testing.T, A *Matrix, b []float64) []float64 {
	t.Helper()
	D := toDense(A)
	var x mat.VecDense
	if err := x.SolveVec(D, mat.NewVecDense(len(b), append([]float64(nil), b...))); err != nil {
		t.Fatalf("dense solve: %v", err)
	}
	return x.RawVector().Data
}

func relErr(x, y []float64) float64 {
	var num, den float64
	for i := range x {
		num += (x[i] - y[i]) * (x[i] - y[i])
		den += y[i] * y[i]
	}
	return math.Sqrt(num / den)
}

func randVec(rng *rand.Rand, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	return b
}

// reconstruct returns L D L^T (dense, pivot order).
func reconstruct(f *Factor) *mat.Dense {
	s := f.sym
	n := s.n
	L := mat.NewDense(n, n, nil)
	for j := 0; j < n; j++ {
		L.Set(j, j, 1)
		f.forEachL(j, func(i int, v float64) { L.Set(i, j, v) })
	}
	var LD, R mat.Dense
	Dm := mat.NewDiagDense(n, append([]float64(nil), f.d...))
	LD.Mul(L, Dm)
	R.Mul(&LD, L.T())
	return &R
}

func permuted(A *Matrix, perm []int) *mat.Dense {
	D := toDense(A)
	n := A.N
	P := mat.NewDense(n, n, nil)
	for k := 0; k < n; k++ {
		for l := 0; l < n; l++ {
			P.Set(k, l, D.At(perm[k], perm[l]))
		}
	}
	return P
}
