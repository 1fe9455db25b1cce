package bench

import (
	"flag"
	"fmt"
	"runtime"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/systems"
)

// large adds the big rows (the 200x200 sheets, the 100x100 QP contact step,
// the 100k-node rod set): one of their steps takes seconds and their
// warm-ups minutes, so without it `go test -bench . ./bench/` finishes in a
// few minutes:
// go test -run '^$' -bench . ./bench/ -large
var large = flag.Bool("large", false, "also run the 200x200 sheets, the 100x100 QP contact step and the 100k-node rod set")

// sized returns small, with big appended only when -large is set.
func sized[T any](small, big []T) []T {
	if *large {
		return append(small, big...)
	}
	return small
}

// workerCounts is 1, 2, 4, ... up to GOMAXPROCS, and always includes 2.
func workerCounts() []int {
	out := []int{1, 2}
	for w := 4; w <= runtime.GOMAXPROCS(0); w *= 2 {
		out = append(out, w)
	}
	return out
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

// warmed is the sim warm loaded last. Go calls a benchmark function once
// for each b.N it tries, and the warm-up (up to 60 steps of a 100 x 100
// sheet) ran again each time: with the sim kept, a later round's timed
// steps go on from where the earlier round's stopped.
var warmed struct {
	key string
	sim *systems.Sim
}

// warm loads the case and takes warmup steps, so the timed steps see a scene
// in motion (or, for contact cases, in contact); called again for the same
// case, workers and warmup, it returns the same sim.
func warm(b *testing.B, c Case, workers, warmup int) *systems.Sim {
	key := fmt.Sprintf("%s/%d/%d", c.Name, workers, warmup)
	if warmed.key == key {
		return warmed.sim
	}
	if warmed.sim != nil {
		warmed.sim.Close()
		warmed.key, warmed.sim = "", nil
	}
	sim, err := c.Load(workers)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < warmup; i++ {
		if err := sim.Step(); err != nil {
			sim.Close()
			b.Fatal(err)
		}
	}
	warmed.key, warmed.sim = key, sim
	return sim
}

// timeSteps times b.N calls of step.
func timeSteps(b *testing.B, step func() error) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImplicitStep times one full step (collision, force fill, implicit
// PCG solve, integration) of an N x N vertex drape sheet in motion (N = 50,
// 100; 200 with -large), for 1, 2, 4, ... workers.
func BenchmarkImplicitStep(b *testing.B) {
	for _, name := range sized([]string{"sheet-50", "sheet-100"}, []string{"sheet-200"}) {
		for _, workers := range workerCounts() {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				sim := warm(b, caseNamed(b, name), workers, 20)
				timeSteps(b, sim.Step)
			})
		}
	}
}

// BenchmarkPreconditioner times one step of the 100x100 drape (and the
// 200x200 with -large) with block-Jacobi and with AMG PCG (solver/amg), 1 and
// 2 workers, and reports the PCG iterations of the last timed step.
func BenchmarkPreconditioner(b *testing.B) {
	for _, name := range sized([]string{"sheet-100-bj", "sheet-100-amg"}, []string{"sheet-200-bj", "sheet-200-amg"}) {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", name, workers), func(b *testing.B) {
				sim := warm(b, caseNamed(b, name), workers, 10)
				timeSteps(b, sim.Step)
				b.ReportMetric(float64(sim.State.LastSolve.Iterations), "pcg-iters")
			})
		}
	}
}

// BenchmarkForceFill times the parallel force and Hessian fill (element
// kernels, PSD Hessians, assembly) of the 100x100 sheet alone.
func BenchmarkForceFill(b *testing.B) {
	for _, workers := range workerCounts() {
		b.Run(fmt.Sprintf("sheet-100/workers=%d", workers), func(b *testing.B) {
			sim := warm(b, caseNamed(b, "sheet-100"), workers, 20)
			var fill ecs.System
			for _, s := range sim.Scheduler.Systems() {
				if s.Name() == "force-fill" {
					fill = s
				}
			}
			if fill == nil {
				b.Fatal("the scene has no force-fill system")
			}
			timeSteps(b, func() error { return fill.Step(sim.World) })
		})
	}
}

// BenchmarkLDLTStep times one step of the 50x50 and 100x100 sheets with the
// unconstrained system solved by sparse LDL^T (one numeric refactorization
// and solve per step; the AMD analysis happens once, in the warm-up).
func BenchmarkLDLTStep(b *testing.B) {
	for _, name := range []string{"sheet-50-ldlt", "sheet-100-ldlt"} {
		b.Run(name, func(b *testing.B) {
			sim := warm(b, caseNamed(b, name), 1, 3)
			timeSteps(b, sim.Step)
		})
	}
}

// BenchmarkQPStep times one QP-constrained step (Weidner 2018 eq. 12) of a
// 50x50 sheet lying on the sphere (100x100, the sphere-qp-100 case, with
// -large: one of its steps takes 10-30 s here), and reports its contact rows
// and the factorizations the QP took.
func BenchmarkQPStep(b *testing.B) {
	c := caseNamed(b, "sphere-qp-100")
	if !*large {
		c.Name = "sphere-qp-50"
		c.Sets = append([][2]string{{"bodies.0.resolution", "50"}}, c.Sets[1:]...)
	}
	sim := warm(b, c, 2, c.Warmup)
	timeSteps(b, sim.Step)
	b.ReportMetric(float64(len(sim.State.Contacts)), "contacts")
	b.ReportMetric(float64(sim.State.LastQP.Factorizations), "factorizations")
}
