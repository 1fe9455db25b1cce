package ldlt

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/ecs"
)

var benchSizes = []int{50, 100, 200}

func BenchmarkAnalyze(b *testing.B) {
	for _, nv := range benchSizes {
		A := cachedCloth(nv)
		b.Run(fmt.Sprintf("N=%d", nv), func(b *testing.B) {
			var s *Symbolic
			for b.Loop() {
				var err error
				s, err = Analyze(A, AMD)
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(s.NnzL()), "nnzL")
		})
	}
}

func benchFactor(b *testing.B, nv int, ord Ordering) {
	A := cachedCloth(nv)
	s, err := Analyze(A, ord)
	if err != nil {
		b.Fatal(err)
	}
	f, err := s.Factor(A, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := f.Refactor(A, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(s.NnzL()), "nnzL")
}

func BenchmarkFactor(b *testing.B) {
	for _, nv := range benchSizes {
		b.Run(fmt.Sprintf("N=%d", nv), func(b *testing.B) { benchFactor(b, nv, AMD) })
	}
	b.Run("N=50/Natural", func(b *testing.B) { benchFactor(b, 50, Natural) })
}

func BenchmarkSolve(b *testing.B) {
	for _, nv := range benchSizes {
		A := cachedCloth(nv)
		b.Run(fmt.Sprintf("N=%d", nv), func(b *testing.B) {
			s, err := Analyze(A, AMD)
			if err != nil {
				b.Fatal(err)
			}
			f, err := s.Factor(A, nil)
			if err != nil {
				b.Fatal(err)
			}
			rhs := randVec(rand.New(rand.NewPCG(1, 1)), A.N)
			x := make([]float64, A.N)
			b.ResetTimer()
			for b.Loop() {
				f.Solve(rhs, x)
			}
		})
	}
}

// BenchmarkSolveRunner times Solve on the cloth matrices ordered by nested
// dissection with the factor's schedule run by a pool of 1 and 2 workers
// (SetRunner).
func BenchmarkSolveRunner(b *testing.B) {
	for _, nv := range []int{100, 200} {
		A := cachedCloth(nv)
		perm, err := Bisection(A, clothCoords(nv))
		if err != nil {
			b.Fatal(err)
		}
		s, err := AnalyzePerm(A, perm)
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("N=%d/workers=%d", nv, workers), func(b *testing.B) {
				pool := ecs.NewPool(workers)
				defer pool.Close()
				f, err := s.Factor(A, nil)
				if err != nil {
					b.Fatal(err)
				}
				f.SetRunner(pool)
				rhs := randVec(rand.New(rand.NewPCG(1, 1)), A.N)
				x := make([]float64, A.N)
				for b.Loop() {
					f.Solve(rhs, x)
				}
				b.ReportMetric(float64(s.NnzL()), "nnzL")
			})
		}
	}
}
