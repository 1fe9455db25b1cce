package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/internal/testrun"
)

// randomSoup returns nv random vertices in the unit cube and nt triangles
// with random distinct corners (so many triangles share vertices).
func randomSoup(rng *rand.Rand, nv, nt int) ([]float64, []int32) {
	pos := make([]float64, 3*nv)
	for i := range pos {
		pos[i] = rng.Float64()
	}
	faces := make([]int32, 0, 3*nt)
	for range nt {
		a := rng.IntN(nv)
		b := (a + 1 + rng.IntN(nv-1)) % nv
		c := rng.IntN(nv)
		for c == a || c == b {
			c = rng.IntN(nv)
		}
		faces = append(faces, int32(a), int32(b), int32(c))
	}
	return pos, faces
}

// foldedGrid returns an n x n grid of spacing 1/(n-1) folded along x = 0.5
// by angle fold (pi = flat halves on top of each other), with noise.
func foldedGrid(rng *rand.Rand, n int, fold, noise float64) ([]float64, []int32) {
	pos := make([]float64, 0, 3*n*n)
	for j := range n {
		for i := range n {
			x := float64(i) / float64(n-1)
			y := float64(j) / float64(n-1)
			z := 0.0
			if x > 0.5 {
				d := x - 0.5
				x = 0.5 + d*math.Cos(fold)
				z = d * math.Sin(fold)
			}
			pos = append(pos, x+noise*rng.NormFloat64(), y+noise*rng.NormFloat64(), z+noise*rng.NormFloat64())
		}
	}
	var faces []int32
	for j := range n - 1 {
		for i := range n - 1 {
			a := int32(j*n + i)
			faces = append(faces, a, a+1, a+int32(n)+1, a, a+int32(n)+1, a+int32(n))
		}
	}
	return pos, faces
}

// bruteBox is a triangle's box from x0 and x1 padded by m, written without
// the AABB helpers.
func bruteBox(x0, x1 []float64, f []int32, t int, m float64) (lo, hi [3]float64) {
	for k := range 3 {
		lo[k], hi[k] = math.Inf(1), math.Inf(-1)
		for j := range 3 {
			v := int(f[3*t+j])
			lo[k] = math.Min(lo[k], math.Min(x0[3*v+k], x1[3*v+k]))
			hi[k] = math.Max(hi[k], math.Max(x0[3*v+k], x1[3*v+k]))
		}
		lo[k] -= m
		hi[k] += m
	}
	return
}

func bruteOverlap(alo, ahi, blo, bhi [3]float64) bool {
	for k := range 3 {
		if alo[k] > bhi[k] || blo[k] > ahi[k] {
			return false
		}
	}
	return true
}

func bruteSelf(x0, x1 []float64, f []int32, m float64) []TriPair {
	return bruteSelfShared(x0, x1, f, m, true)
}

func bruteSelfShared(x0, x1 []float64, f []int32, m float64, skipShared bool) []TriPair {
	nt := len(f) / 3
	var out []TriPair
	for s := range nt {
		slo, shi := bruteBox(x0, x1, f, s, m)
		for t := s + 1; t < nt; t++ {
			shared := false
			for a := range 3 {
				for b := range 3 {
					shared = shared || f[3*s+a] == f[3*t+b]
				}
			}
			if shared && skipShared {
				continue
			}
			tlo, thi := bruteBox(x0, x1, f, t, m)
			if bruteOverlap(slo, shi, tlo, thi) {
				out = append(out, TriPair{int32(s), int32(t)})
			}
		}
	}
	return out
}

// overlappingAll collects OverlappingAfter over every triangle.
func overlappingAll(b *BVH) []TriPair {
	var out []TriPair
	var dst, stack []int32
	for a := range int32(b.Len()) {
		dst, stack = b.OverlappingAfter(a, dst, stack)
		for _, t := range dst {
			out = append(out, TriPair{a, t})
		}
	}
	return out
}

func TestBVHSelfPairsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	type mesh struct {
		name string
		pos  []float64
		f    []int32
		m    float64
	}
	var cases []mesh
	for i := range 6 {
		p, f := randomSoup(rng, 20+10*i, 30+25*i)
		cases = append(cases, mesh{"soup", p, f, 0.01 * float64(i)})
	}
	for _, fold := range []float64{0.5, 2.5, math.Pi - 0.02} {
		p, f := foldedGrid(rng, 12, fold, 0.002)
		cases = append(cases, mesh{"grid", p, f, 0.01})
	}
	p, f := randomSoup(rng, 3, 1)
	cases = append(cases, mesh{"one", p, f, 0.1})
	cases = append(cases, mesh{"empty", nil, nil, 0.1})
	total := 0
	for ci, c := range cases {
		var b BVH
		b.Build(nil, c.pos, c.f, c.m)
		got := b.SelfPairs(nil)
		want := bruteSelf(c.pos, c.pos, c.f, c.m)
		if !slices.Equal(got, want) {
			t.Fatalf("case %d (%s): %d pairs, brute force %d", ci, c.name, len(got), len(want))
		}
		total += len(want)
		if got, want := overlappingAll(&b), bruteSelfShared(c.pos, c.pos, c.f, c.m, false); !slices.Equal(got, want) {
			t.Fatalf("case %d (%s): all pairs: %d, brute force %d", ci, c.name, len(got), len(want))
		}
		// Move the vertices and refit: same answer as brute force on the new
		// positions (the tree's shape is now stale, the pairs must not be).
		moved := slices.Clone(c.pos)
		for i := range moved {
			moved[i] += 0.2 * rng.NormFloat64()
		}
		b.Refit(testrun.Chunked{Workers: 3, Grain: 2}, moved)
		if got, want := b.SelfPairs(got), bruteSelf(moved, moved, c.f, c.m); !slices.Equal(got, want) {
			t.Fatalf("case %d (%s) refit: %d pairs, brute force %d", ci, c.name, len(got), len(want))
		}
		b.RefitSwept(nil, c.pos, moved)
		if got, want := b.SelfPairs(got), bruteSelf(c.pos, moved, c.f, c.m); !slices.Equal(got, want) {
			t.Fatalf("case %d (%s) swept: %d pairs, brute force %d", ci, c.name, len(got), len(want))
		}
	}
	if total < 100 {
		t.Fatalf("only %d pairs over all cases: the test checks too little", total)
	}
}

// TestBVHDeterministic: boxes and pairs are bitwise the same for any runner.
func TestBVHDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p, f := foldedGrid(rng, 20, 3.0, 0.003)
	var a, b BVH
	a.Build(nil, p, f, 0.005)
	b.Build(testrun.Chunked{Workers: 4, Grain: 3}, p, f, 0.005)
	if !slices.Equal(a.nodes, b.nodes) {
		t.Fatal("trees differ between serial and parallel build")
	}
	if !slices.Equal(a.SelfPairs(nil), b.SelfPairs(nil)) {
		t.Fatal("pairs differ")
	}
}

func TestBVHRefitQueryNoAlloc(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p, f := foldedGrid(rng, 16, 2.8, 0.003)
	var b BVH
	b.Build(nil, p, f, 0.01)
	pairs := b.SelfPairs(nil)
	if len(pairs) == 0 {
		t.Fatal("no pairs")
	}
	if n := testing.AllocsPerRun(20, func() {
		b.Refit(nil, p)
		pairs = b.SelfPairs(pairs)
	}); n != 0 {
		t.Fatalf("Refit + SelfPairs allocate %v times", n)
	}
}
