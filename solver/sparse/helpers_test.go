package sparse

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/loomsim/loom/solver/internal/testrun"
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
		{"pool3x1", testrun.Chunked{Workers: 3, Grain: 1}},
		{"pool8x5", testrun.Chunked{Workers: 8, Grain: 5}},
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

// randomElemHess fills an element-Hessian array with random matrices in each
// group's form: symmetric PSD (B B^T / 3k) when psd, otherwise arbitrary (to
// check the block layout; symmetric for Packed, which stores only the upper
// blocks). Factor elements get a random u (Hessian u u^T, PSD either way).
func randomElemHess(p *Pattern, groups []ElementGroup, rng *rand.Rand, psd bool) []float64 {
	h := make([]float64, p.HessLen())
	for g, grp := range groups {
		k := grp.Stride
		m := 3 * k
		B := make([]float64, m*m)
		H := make([]float64, m*m)
		for e := 0; e < len(grp.Verts)/k; e++ {
			o := p.HessOffset(g, e)
			if grp.Form == Factor {
				for i := range m {
					h[o+i] = rng.NormFloat64()
				}
				continue
			}
			for i := range B {
				B[i] = rng.NormFloat64()
			}
			for i := 0; i < m; i++ {
				for j := 0; j < m; j++ {
					switch {
					case !psd && grp.Form == Dense:
						H[i*m+j] = B[i*m+j]
					case !psd:
						H[i*m+j] = B[min(i, j)*m+max(i, j)]
					default:
						s := 0.0
						for l := 0; l < m; l++ {
							s += B[i*m+l] * B[j*m+l]
						}
						H[i*m+j] = s / float64(m)
					}
				}
			}
			storeElemHess(grp.Form, k, H, h[o:])
		}
	}
	return h
}

// storeElemHess writes the dense 3k x 3k Hessian H into dst in form f (not
// for Factor). Packed: the upper blocks, row after row of blocks.
func storeElemHess(f HessForm, k int, H, dst []float64) {
	m := 3 * k
	if f == Dense {
		copy(dst, H)
		return
	}
	at := 0
	for a := 0; a < k; a++ {
		for b := a; b < k; b++ {
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					dst[at] = H[(3*a+r)*m+3*b+c]
					at++
				}
			}
		}
	}
}

// elemDense returns the dense 3k x 3k Hessian of element e of group g.
func elemDense(p *Pattern, g int, grp ElementGroup, e int, h []float64) []float64 {
	k := grp.Stride
	m := 3 * k
	o := p.HessOffset(g, e)
	H := make([]float64, m*m)
	switch grp.Form {
	case Dense:
		copy(H, h[o:o+m*m])
	case Factor:
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				H[i*m+j] = h[o+i] * h[o+j]
			}
		}
	case Packed:
		at := o
		for a := 0; a < k; a++ {
			for b := a; b < k; b++ {
				for r := 0; r < 3; r++ {
					for c := 0; c < 3; c++ {
						H[(3*a+r)*m+3*b+c] = h[at]
						H[(3*b+c)*m+3*a+r] = h[at]
						at++
					}
				}
			}
		}
	}
	return H
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
			H := elemDense(p, g, grp, e, h)
			for a := 0; a < k; a++ {
				for b := 0; b < k; b++ {
					va, vb := int(grp.Verts[e*k+a]), int(grp.Verts[e*k+b])
					for r := 0; r < 3; r++ {
						for c := 0; c < 3; c++ {
							A[3*va+r][3*vb+c] += H[(3*a+r)*m+3*b+c]
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

// remeshedMesh returns the triangles and hinges of a triangulated nx x ny
// grid (random diagonals) with its vertices numbered at random and its
// elements in random order, as after remeshing, and a third group of extra
// random 2-vertex elements, half of them on one of three hub vertices, so that
// the rows differ widely in length. n counts isolated vertices after the
// grid's.
func remeshedMesh(nx, ny, isolated, extra int, rng *rand.Rand) (n int, groups []ElementGroup) {
	tris, hinges := gridMesh(nx, ny, rng)
	n = nx*ny + isolated
	perm := rng.Perm(n)
	groups = []ElementGroup{{Stride: 3, Verts: tris, Form: Packed}, {Stride: 4, Verts: hinges, Form: Factor}, {Stride: 2}}
	for _, grp := range groups[:2] {
		for i, v := range grp.Verts {
			grp.Verts[i] = int32(perm[v])
		}
		k := grp.Stride
		rng.Shuffle(len(grp.Verts)/k, func(a, b int) {
			for c := 0; c < k; c++ {
				grp.Verts[a*k+c], grp.Verts[b*k+c] = grp.Verts[b*k+c], grp.Verts[a*k+c]
			}
		})
	}
	for e := 0; e < extra && n >= 2; e++ {
		u := rng.IntN(n)
		if e%2 == 0 {
			u = rng.IntN(min(n, 3))
		}
		v := (u + 1 + rng.IntN(n-1)) % n
		groups[2].Verts = append(groups[2].Verts, int32(u), int32(v))
	}
	return n, groups
}

// refContrib returns where block (a, b) of a k-vertex element of form f whose
// Hessian starts at elem is: Packed blocks counted out one by one.
func refContrib(f HessForm, k, elem, a, b int) contrib {
	switch f {
	case Factor:
		return contrib{off: int32(elem + 3*a), stride: int32(-(elem + 3*b) - 1)}
	case Packed:
		blk := 0
		for r := 0; r < k; r++ {
			for c := r; c < k; c++ {
				if r == min(a, b) && c == max(a, b) {
					if a <= b {
						return contrib{off: int32(elem + 9*blk), stride: 3}
					}
					return contrib{off: int32(elem + 9*blk)}
				}
				blk++
			}
		}
	}
	return contrib{off: int32(elem + 9*k*a + 3*b), stride: int32(3 * k)}
}

// refPattern builds the pattern NewPattern should, the obvious way: element
// after element, in (group, element) order, each pair (a, b) of its local
// vertices adds a contribution to block (Verts[a], Verts[b]); each row then
// lists its blocks, and the diagonal, by column.
func refPattern(n int, groups []ElementGroup) *Pattern {
	type block struct{ row, col int32 }
	cons := map[block][]contrib{}
	grads := make([][]int32, n)
	rows := make([][]int32, n)
	for i := range rows {
		rows[i] = []int32{int32(i)}
	}
	p := &Pattern{n: n}
	for _, grp := range groups {
		k := grp.Stride
		size := map[HessForm]int{Dense: 9 * k * k, Packed: 9 * k * (k + 1) / 2, Factor: 3 * k}[grp.Form]
		gi := groupInfo{stride: k, count: len(grp.Verts) / k, form: grp.Form, size: size, hessBase: p.hessLen, gradBase: p.gradLen}
		p.groups = append(p.groups, gi)
		for e := 0; e < gi.count; e++ {
			el := grp.Verts[e*k : e*k+k]
			for a, va := range el {
				grads[va] = append(grads[va], int32(gi.gradBase+3*(e*k+a)))
				for b, vb := range el {
					blk := block{va, vb}
					if cons[blk] == nil && va != vb {
						rows[va] = append(rows[va], vb)
					}
					cons[blk] = append(cons[blk], refContrib(grp.Form, k, gi.hessBase+e*size, a, b))
				}
			}
		}
		p.hessLen += gi.count * size
		p.gradLen += gi.count * 3 * k
	}
	p.rowPtr, p.hPtr, p.gPtr = []int32{0}, []int32{0}, []int32{0}
	for i, row := range rows {
		slices.Sort(row)
		for _, c := range row {
			if c == int32(i) {
				p.diag = append(p.diag, int32(len(p.col)))
			}
			p.col = append(p.col, c)
			p.hCon = append(p.hCon, cons[block{int32(i), c}]...)
			p.hPtr = append(p.hPtr, int32(len(p.hCon)))
		}
		p.rowPtr = append(p.rowPtr, int32(len(p.col)))
		p.gOff = append(p.gOff, grads[i]...)
		p.gPtr = append(p.gPtr, int32(len(p.gOff)))
	}
	return p
}

// patternDiff returns an error naming the first part in which got and want
// differ, or nil when they are identical.
func patternDiff(got, want *Pattern) error {
	if got.n != want.n || got.hessLen != want.hessLen || got.gradLen != want.gradLen {
		return fmt.Errorf("n, HessLen, GradLen = %d, %d, %d, want %d, %d, %d", got.n, got.hessLen, got.gradLen, want.n, want.hessLen, want.gradLen)
	}
	if !slices.Equal(got.groups, want.groups) {
		return fmt.Errorf("groups %v, want %v", got.groups, want.groups)
	}
	if !slices.Equal(got.hCon, want.hCon) {
		return errors.New("hCon differs")
	}
	for _, f := range []struct {
		name      string
		got, want []int32
	}{
		{"rowPtr", got.rowPtr, want.rowPtr}, {"col", got.col, want.col}, {"diag", got.diag, want.diag},
		{"hPtr", got.hPtr, want.hPtr}, {"gPtr", got.gPtr, want.gPtr}, {"gOff", got.gOff, want.gOff},
	} {
		if !slices.Equal(f.got, f.want) {
			return fmt.Errorf("%s differs", f.name)
		}
	}
	return nil
}
