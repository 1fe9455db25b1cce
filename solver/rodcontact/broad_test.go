package rodcontact

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// goRunner runs the chunks of a For on k goroutines, interleaved.
type goRunner int

func (k goRunner) For(n int, body func(lo, hi int)) {
	var wg sync.WaitGroup
	for w := 0; w < int(k); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += int(k) {
				body(i, i+1)
			}
		}(w)
	}
	wg.Wait()
}

// TestBroadPairs compares the broad phase with all pairs tested directly,
// serially and on goroutines (the same pairs in the same order), and checks
// keep: boxes in a unit cube, in a thin sheet (a flat fabric: the grid's
// two axes), with a few long boxes, and with boxes that are not finite.
func TestBroadPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	box := func(flat float64, pad float64) geom.AABB {
		var p dense.Vec3
		for c := range p {
			p[c] = rng.Float64()
		}
		p[2] *= flat
		return geom.EmptyAABB().Grow(p).Pad(pad * rng.Float64())
	}
	cube := make([]geom.AABB, 1500)
	sheet := make([]geom.AABB, 3000)
	for i := range cube {
		cube[i] = box(1, 0.05)
	}
	for i := range sheet {
		sheet[i] = box(0.01, 0.01)
	}
	long := slices.Clone(sheet)
	long[7].Hi[0] += 0.5
	long[2000].Lo[1] -= 0.3
	odd := slices.Clone(sheet)
	odd[11].Lo[2] = math.NaN()
	odd[12].Hi[0] = math.Inf(1)
	odd[2999].Lo = dense.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	odd[2999].Hi = dense.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	keep := func(a, b int32) bool { return (a+b)%3 != 0 }
	var b Broad
	for name, boxes := range map[string][]geom.AABB{"cube": cube, "sheet": sheet, "long": long, "odd": odd} {
		var want []Pair
		for i := range boxes {
			for j := i + 1; j < len(boxes); j++ {
				if boxes[i].Overlaps(&boxes[j]) && (i+j)%3 != 0 {
					want = append(want, Pair{int32(i), int32(j)})
				}
			}
		}
		for _, r := range []geom.Runner{nil, goRunner(3), goRunner(8)} {
			got := b.Pairs(r, boxes, keep, nil)
			if !slices.Equal(got, want) {
				t.Fatalf("%s, runner %v: %d pairs, want %d", name, r, len(got), len(want))
			}
		}
		if len(want) < 100 {
			t.Errorf("%s: only %d overlapping pairs: the test is too sparse", name, len(want))
		}
	}
}

// BenchmarkBroadFabric: the broad phase over a woven-like sheet of 73,000
// segment boxes (two crossing families of yarns, 0.2 mm segments on a
// 0.8 mm spacing, boxes padded by a yarn radius of 0.08 mm), the size of
// the paper's 75k-node knit.
func BenchmarkBroadFabric(b *testing.B) {
	const yarns, segs, spacing, seg, pad = 92, 400, 0.8e-3, 0.2e-3, 0.08e-3
	var boxes []geom.AABB
	for y := 0; y < yarns; y++ {
		for s := 0; s < segs; s++ {
			u0, u1, v := float64(s)*seg, float64(s+1)*seg, float64(y)*spacing
			z := 0.05e-3 * float64((s+y)%2)
			boxes = append(boxes, geom.EmptyAABB().Grow(dense.Vec3{u0, v, z}).Grow(dense.Vec3{u1, v, -z}).Pad(pad))
			boxes = append(boxes, geom.EmptyAABB().Grow(dense.Vec3{v, u0, -z}).Grow(dense.Vec3{v, u1, z}).Pad(pad))
		}
	}
	var br Broad
	var dst []Pair
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dst = br.Pairs(nil, boxes, nil, dst)
	}
	b.ReportMetric(float64(len(dst)), "pairs")
}
