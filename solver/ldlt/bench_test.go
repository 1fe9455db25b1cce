package ldlt

import (
	"fmt"
	"math/rand/v2"
	"testing"
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
