package bench

import (
	"fmt"
	"testing"

	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/systems"
)

// rodSet builds rod-hang with n/100 parallel strands of 100 nodes each, pinned
// at one end, so a step is one Newton solve over n nodes.
func rodSet(b *testing.B, n, workers int) *systems.Sim {
	sc, err := scenes.Builtin("rod-hang")
	if err != nil {
		b.Fatal(err)
	}
	proto := sc.Rods.Strands[0]
	sc.Rods.Strands = nil
	for k := 0; k < n/100; k++ {
		s := proto
		s.Name = fmt.Sprintf("rod%d", k)
		s.Nodes = 100
		s.From[1] = 0.01 * float64(k)
		s.To[1] = 0.01 * float64(k)
		sc.Rods.Strands = append(sc.Rods.Strands, s)
	}
	m, err := sc.Model()
	if err != nil {
		b.Fatal(err)
	}
	sim, err := systems.Build(m, workers)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sim.Close)
	return sim
}

// BenchmarkRodStep times one implicit rod step (node assignment, Newton on
// the incremental potential with sparse LDL^T) of 1k and 10k-node rod sets (100k with -large)
// and reports the cost per node, with 1 and 2 workers (the force and
// Hessian fill and the two-pass reduction run on the pool; the LDL^T
// factorization and solve are serial).
func BenchmarkRodStep(b *testing.B) {
	for _, n := range sized([]int{1000, 10000}, []int{100000}) {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("nodes=%d/workers=%d", n, workers), func(b *testing.B) {
				sim := rodSet(b, n, workers)
				for i := 0; i < 3; i++ {
					if err := sim.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := sim.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
			})
		}
	}
}

// BenchmarkFabricStep times the first 40 steps of each fabric scene at its
// built-in size (tablecloth: the stack landing on the table), per step.
func BenchmarkFabricStep(b *testing.B) {
	for _, c := range FabricCases {
		b.Run(c.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sim, err := c.Load(1)
				if err != nil {
					b.Fatal(err)
				}
				for k := 0; k < 40; k++ {
					if err := sim.Step(); err != nil {
						b.Fatal(err)
					}
				}
				sim.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Seconds())/float64(b.N)/40, "s/step")
		})
	}
}

// TestSelectFabric: the paper-size fabric cases are run only when named;
// "all" (nil) is the built-in sizes.
func TestSelectFabric(t *testing.T) {
	all, err := SelectFabric(nil)
	if err != nil || len(all) != len(FabricCases) {
		t.Fatalf("all: %d cases, %v; want the %d built-in sizes", len(all), err, len(FabricCases))
	}
	got, err := SelectFabric([]string{"knit-75k", "tablecloth", "pocket-645k"})
	if err != nil || len(got) != 3 || got[0].Name != "knit-75k" || got[2].Scene != "pocket" {
		t.Fatalf("named: %+v, %v", got, err)
	}
	if _, err := SelectFabric([]string{"knit-1m"}); err == nil {
		t.Fatal("an unknown case was selected")
	}
}
