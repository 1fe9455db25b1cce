package sparse

import (
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// splitRunner splits [0,n) into k contiguous chunks of uneven size and runs them
// on k goroutines.
type splitRunner struct{ k int }

func (g splitRunner) For(n int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	k := min(g.k, n)
	var wg sync.WaitGroup
	lo := 0
	for c := 0; c < k; c++ {
		// uneven boundaries: chunk c gets a share proportional to c+1
		hi := int(int64(n) * int64((c+1)*(c+2)) / int64(k*(k+1)))
		if c == k-1 {
			hi = n
		}
		if hi <= lo {
			continue
		}
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(lo, hi)
		lo = hi
	}
	wg.Wait()
}

// poolRunner mimics a worker pool: k goroutines pull chunks of size grain.
type poolRunner struct{ k, grain int }

func (g poolRunner) For(n int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < g.k; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(g.grain))) - g.grain
				if lo >= n {
					return
				}
				body(lo, min(lo+g.grain, n))
			}
		}()
	}
	wg.Wait()
}

type namedRunner struct {
	name string
	r    Runner
}

func testRunners() []namedRunner {
	return []namedRunner{
		{"serial", Serial{}},
		{"split1", splitRunner{1}},
		{"split2", splitRunner{2}},
		{"split3", splitRunner{3}},
		{"split8", splitRunner{8}},
		{"pool3x1", poolRunner{3, 1}},
		{"pool8x5", poolRunner{8, 5}},
	}
}

// gridMesh returns a triangulated nx x ny vertex grid (random diagonals) and its
// hinges (one per interior edge: edge vertices, then the two opposite vertices).
func gridMesh(nx, ny int, rng *rand.Rand) (tris, hinges []int32) {
	id := func(i, j int) int32 { return int32(j*nx + i) }
	for j := 0; j+1 < ny; j++ {
		for i := 0; i+1 < nx; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			if rng.IntN(2) == 0 {
				tris = append(tris, a, b, c, a, c, d)
			} else {
				tris = append(tris, a, b, d, b, c, d)
			}
		}
	}
	type edge struct{ u, v int32 }
	opp := map[edge][]int32{}
	var order []edge
	for t := 0; t < len(tris); t += 3 {
		for k := 0; k < 3; k++ {
			u, v, w := tris[t+k], tris[t+(k+1)%3], tris[t+(k+2)%3]
			if u > v {
				u, v = v, u
			}
			e := edge{u, v}
			if _, ok := opp[e]; !ok {
				order = append(order, e)
			}
			opp[e] = append(opp[e], w)
		}
	}
	for _, e := range order {
		if o := opp[e]; len(o) == 2 {
			hinges = append(hinges, e.u, e.v, o[0], o[1])
		}
	}
	return tris, hinges
}

// randomElemHess fills an element-Hessian array with random matrices: symmetric
// PSD (B B^T / 3k) when psd, otherwise arbitrary (to check the block layout).
func randomElemHess(p *Pattern, groups []ElementGroup, rng *rand.Rand, psd bool) []float64 {
	h := make([]float64, p.HessLen())
	for g, grp := range groups {
		k := grp.Stride
		m := 3 * k
		B := make([]float64, m*m)
		for e := 0; e < len(grp.Verts)/k; e++ {
			o := p.HessOffset(g, e)
			H := h[o : o+m*m]
			if !psd {
				for i := range H {
					H[i] = rng.NormFloat64()
				}
				continue
			}
			for i := range B {
				B[i] = rng.NormFloat64()
			}
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					s := 0.0
					for l := 0; l < m; l++ {
						s += B[i*m+l] * B[j*m+l]
					}
					H[i*m+j] = s / float64(m)
				}
			}
		}
	}
	return h
}

// denseHess scatters the element Hessians into a dense 3n x 3n matrix.
func denseHess(n int, groups []ElementGroup, p *Pattern, h []float64) [][]float64 {
	A := make([][]float64, 3*n)
	for i := range A {
		A[i] = make([]float64, 3*n)
	}
	for g, grp := range groups {
		k := grp.Stride
		m := 3 * k
		for e := 0; e < len(grp.Verts)/k; e++ {
			o := p.HessOffset(g, e)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					va, vb := int(grp.Verts[e*k+a]), int(grp.Verts[e*k+b])
					for r := 0; r < 3; r++ {
						for c := 0; c < 3; c++ {
							A[3*va+r][3*vb+c] += h[o+(3*a+r)*m+3*b+c]
						}
					}
				}
			}
		}
	}
	return A
}

// toDense expands a BSR matrix.
func toDense(m *BSR) [][]float64 {
	A := make([][]float64, 3*m.N)
	for i := range A {
		A[i] = make([]float64, 3*m.N)
	}
	for i := 0; i < m.N; i++ {
		for j := m.RowPtr[i]; j < m.RowPtr[i+1]; j++ {
			c := int(m.Col[j])
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					A[3*i+r][3*c+q] = m.Val[9*int(j)+3*r+q]
				}
			}
		}
	}
	return A
}

func maxAbs(A [][]float64) float64 {
	m := 0.0
	for _, row := range A {
		for _, v := range row {
			m = math.Max(m, math.Abs(v))
		}
	}
	return m
}

func randVec(n int, rng *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = rng.NormFloat64()
	}
	return v
}

func bitsEqual(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// system is a random SPD test problem: A = diag(mass) + h2 * sum(PSD elements).
type system struct {
	n      int
	groups []ElementGroup
	p      *Pattern
	elemH  []float64
	mass   []float64
	A      *BSR
}

func newSystem(nx, ny, isolated int, h2 float64, seed uint64) *system {
	rng := rand.New(rand.NewPCG(seed, 7))
	tris, hinges := gridMesh(nx, ny, rng)
	n := nx*ny + isolated
	groups := []ElementGroup{{Stride: 3, Verts: tris}, {Stride: 4, Verts: hinges}}
	p, err := NewPattern(n, groups)
	if err != nil {
		panic(err)
	}
	s := &system{n: n, groups: groups, p: p}
	s.elemH = randomElemHess(p, groups, rng, true)
	s.mass = make([]float64, 3*n)
	for i := 0; i < n; i++ {
		m := 0.5 + rng.Float64()
		s.mass[3*i], s.mass[3*i+1], s.mass[3*i+2] = m, m, m
	}
	s.A = p.NewMatrix()
	p.AssembleHessian(Serial{}, s.elemH, s.A)
	s.A.ScaleAddDiagonal(Serial{}, h2, 1, s.mass)
	return s
}
