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
	for _, c := range Cases[:3] { // sheet-50, -100, -200 with PCG
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

// caseNamed returns the benchmark case with the given name.
func caseNamed(b *testing.B, name string) Case {
	for _, c := range Cases {
		if c.Name == name {
			return c
		}
	}
	b.Fatalf("no case %q", name)
	return Case{}
}

// BenchmarkLDLTStep times one step of the 50x50 and 100x100 sheets with the
// unconstrained system solved by sparse LDL^T (one numeric refactorization
// and solve per step; the AMD analysis is done once, in the warm-up).
func BenchmarkLDLTStep(b *testing.B) {
	for _, name := range []string{"sheet-50-ldlt", "sheet-100-ldlt"} {
		b.Run(name, func(b *testing.B) {
			sim, err := caseNamed(b, name).Load(1)
			if err != nil {
				b.Fatal(err)
			}
			defer sim.Close()
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
		})
	}
}

// BenchmarkQPStep times one QP-constrained step (Weidner 2018 eq. 12) of a
// 100x100 sheet lying on the sphere, and reports its contact rows.
func BenchmarkQPStep(b *testing.B) {
	c := caseNamed(b, "sphere-qp-100")
	sim, err := c.Load(2)
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	for i := 0; i < c.Warmup; i++ {
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
	b.ReportMetric(float64(len(sim.State.Contacts)), "contacts")
	b.ReportMetric(float64(sim.State.LastQP.Factorizations), "factorizations")
}
