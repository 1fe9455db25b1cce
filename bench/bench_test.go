package bench

import (
	"fmt"
	"runtime"
	"testing"
)

// workerCounts is 1, 2, 4, ... up to GOMAXPROCS, and always includes 2.
func workerCounts() []int {
	out := []int{1, 2}
	for w := 4; w <= runtime.GOMAXPROCS(0); w *= 2 {
		out = append(out, w)
	}
	return out
}

// BenchmarkImplicitStep times one full step (collision, force fill, implicit
// PCG solve, integration) of an N x N vertex drape sheet in motion, with 1 and
// 2 workers.
func BenchmarkImplicitStep(b *testing.B) {
	for _, c := range Cases[:3] {
		for _, workers := range workerCounts() {
			b.Run(fmt.Sprintf("%s/workers=%d", c.Name, workers), func(b *testing.B) {
				sim, err := c.Load(workers)
				if err != nil {
					b.Fatal(err)
				}
				defer sim.Close()
				for i := 0; i < 20; i++ { // into the swing, so the solve is not trivial
					if err := sim.Step(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := sim.Step(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkForceFill times the parallel force and Hessian fill (element
// kernels, PSD projection, assembly) alone, with 1 and 2 workers.
func BenchmarkForceFill(b *testing.B) {
	c := Cases[1]
	for _, workers := range workerCounts() {
		b.Run(fmt.Sprintf("%s/workers=%d", c.Name, workers), func(b *testing.B) {
			sim, err := c.Load(workers)
			if err != nil {
				b.Fatal(err)
			}
			defer sim.Close()
			for i := 0; i < 20; i++ {
				if err := sim.Step(); err != nil {
					b.Fatal(err)
				}
			}
			fill := sim.Scheduler.Systems()[3]
			if fill.Name() != "force-fill" {
				b.Fatalf("system 3 is %s", fill.Name())
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := fill.Step(sim.World); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
