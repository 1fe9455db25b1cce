package rodcontact

import (
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

// TestBroadPairs compares the sweep with all pairs tested directly, serially
// and on goroutines (the same pairs in the same order), and checks keep.
func TestBroadPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	boxes := make([]geom.AABB, 1500)
	for i := range boxes {
		var p dense.Vec3
		for c := range p {
			p[c] = rng.Float64()
		}
		boxes[i] = geom.EmptyAABB().Grow(p).Pad(0.05 * rng.Float64())
	}
	var want []Pair
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if boxes[i].Overlaps(&boxes[j]) && (i+j)%3 != 0 {
				want = append(want, Pair{int32(i), int32(j)})
			}
		}
	}
	keep := func(a, b int32) bool { return (a+b)%3 != 0 }
	var b Broad
	for _, r := range []geom.Runner{nil, goRunner(3), goRunner(8)} {
		got := b.Pairs(r, boxes, keep, nil)
		if !slices.Equal(got, want) {
			t.Fatalf("runner %v: %d pairs, want %d", r, len(got), len(want))
		}
	}
	if len(want) < 100 {
		t.Errorf("only %d overlapping pairs: the test is too sparse", len(want))
	}
}
