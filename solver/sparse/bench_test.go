package sparse

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/internal/testrun"
)

func benchRunners() []namedRunner {
	return []namedRunner{
		{"serial", Serial{}},
		{fmt.Sprintf("pool%d", runtime.GOMAXPROCS(0)), testrun.Chunked{Workers: runtime.GOMAXPROCS(0), Grain: 64}},
	}
}

// BenchmarkAssembleHessian assembles a 100x100-vertex grid (19602 triangles,
// ~29k hinges), with Dense element Hessians and with the forms the cloth's
// force fill uses (Packed triangles, Factor hinges).
func BenchmarkAssembleHessian(b *testing.B) {
	for _, f := range []struct {
		name         string
		tris, hinges HessForm
	}{{"dense", Dense, Dense}, {"packed-factor", Packed, Factor}} {
		rng := rand.New(rand.NewPCG(1, 7))
		tris, hinges := gridMesh(100, 100, rng)
		groups := []ElementGroup{{Stride: 3, Verts: tris, Form: f.tris}, {Stride: 4, Verts: hinges, Form: f.hinges}}
		p, err := NewPattern(100*100, groups)
		if err != nil {
			b.Fatal(err)
		}
		h := randomElemHess(p, groups, rng, false)
		for _, nr := range benchRunners() {
			b.Run(f.name+"/"+nr.name, func(b *testing.B) {
				A := p.NewMatrix()
				b.ReportAllocs()
				b.SetBytes(int64(8 * p.HessLen()))
				for b.Loop() {
					p.AssembleHessian(nr.r, h, A)
				}
			})
		}
	}
}

// BenchmarkPattern builds the pattern of the 100x100-vertex grid from scratch
// (NewPattern), and, in a PatternBuilder's reused storage, serially and on an
// ecs pool, the patterns of two remeshed 38x38 grids by turns (the size of the
// edge scene's cloth, whose topology changes nearly every step).
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
	rng := rand.New(rand.NewPCG(3, 3))
	var n [2]int
	var groups [2][]ElementGroup
	for i := range n {
		n[i], groups[i] = remeshedMesh(38, 38, 0, 0, rng)
	}
	pool := ecs.NewPool(runtime.GOMAXPROCS(0))
	defer pool.Close()
	for _, nr := range []namedRunner{{"builder-serial", Serial{}}, {fmt.Sprintf("builder-pool%d", pool.Workers()), pool}} {
		b.Run(nr.name, func(b *testing.B) {
			var pb PatternBuilder
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, _, err := pb.Build(nr.r, n[i], groups[i]); err != nil {
					b.Fatal(err)
				}
				i ^= 1
			}
		})
	}
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
