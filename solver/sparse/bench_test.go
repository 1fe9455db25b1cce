package sparse

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

func benchRunners() []namedRunner {
	return []namedRunner{
		{"serial", Serial{}},
		{fmt.Sprintf("pool%d", runtime.GOMAXPROCS(0)), poolRunner{runtime.GOMAXPROCS(0), 64}},
	}
}

// BenchmarkAssembleHessian assembles a 100x100-vertex grid (19602 triangles,
// ~29k hinges).
func BenchmarkAssembleHessian(b *testing.B) {
	s := newSystem(100, 100, 0, 1, 1)
	for _, nr := range benchRunners() {
		b.Run(nr.name, func(b *testing.B) {
			A := s.p.NewMatrix()
			b.ReportAllocs()
			b.SetBytes(int64(8 * s.p.HessLen()))
			for b.Loop() {
				s.p.AssembleHessian(nr.r, s.elemH, A)
			}
		})
	}
}

// BenchmarkPattern builds the pattern of the 100x100-vertex grid, from
// scratch (NewPattern) and in a PatternBuilder's reused storage.
func BenchmarkPattern(b *testing.B) {
	s := newSystem(100, 100, 0, 1, 1)
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewPattern(s.n, s.groups); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("builder", func(b *testing.B) {
		var pb PatternBuilder
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := pb.Build(s.n, s.groups); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkAssembleGradient(b *testing.B) {
	s := newSystem(100, 100, 0, 1, 1)
	g := randVec(s.p.GradLen(), rand.New(rand.NewPCG(1, 1)))
	out := make([]float64, 3*s.n)
	for _, nr := range benchRunners() {
		b.Run(nr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.p.AssembleGradient(nr.r, g, out)
			}
		})
	}
}

func BenchmarkMulVec(b *testing.B) {
	s := newSystem(100, 100, 0, 1, 1)
	x := randVec(3*s.n, rand.New(rand.NewPCG(1, 1)))
	y := make([]float64, 3*s.n)
	for _, nr := range benchRunners() {
		b.Run(nr.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.A.MulVec(nr.r, x, y)
			}
		})
	}
}

// BenchmarkPCG solves (M + h^2 K) x = b on the 100x100 grid from a zero start
// to relative residual 1e-8, with and without a constraint filter.
func BenchmarkPCG(b *testing.B) {
	s := newSystem(100, 100, 0, 1, 1)
	rng := rand.New(rand.NewPCG(1, 1))
	rhs := randVec(3*s.n, rng)
	f, z := randomFilter(s.n, rng)
	for _, filtered := range []bool{false, true} {
		for _, nr := range benchRunners() {
			name := nr.name
			ff, zz := []float64(nil), []float64(nil)
			if filtered {
				name, ff, zz = "filtered/"+name, f, z
			}
			b.Run(name, func(b *testing.B) {
				pcg := NewPCG(s.n)
				x := make([]float64, 3*s.n)
				var res PCGResult
				b.ReportAllocs()
				for b.Loop() {
					clear(x)
					var err error
					res, err = pcg.Solve(nr.r, s.A, rhs, x, ff, zz, 1e-8, 1000)
					if err != nil || !res.Converged {
						b.Fatal(err, res)
					}
				}
				b.ReportMetric(float64(res.Iterations), "iters")
			})
		}
	}
}
