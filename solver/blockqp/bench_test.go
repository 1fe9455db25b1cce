package blockqp

import (
	"fmt"
	"math/rand"
	"runtime"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/qp"
)

// benchProblems returns the cloth-like problem of the given size and a copy
// with F perturbed by 1% (the next time step, for warm starts).
func benchProblems(b *testing.B, nx int) (*Problem, *Problem) { return benchProblemsT(b, nx) }

func benchProblemsT(b testing.TB, nx int) (*Problem, *Problem) {
	rng := rand.New(rand.NewSource(11))
	p := clothProblem(b, rng, nx, nx)
	p2 := *p
	p2.F = append([]float64(nil), p.F...)
	for i := range p2.F {
		p2.F[i] *= 1 + 1e-2*rng.NormFloat64()
	}
	return p, &p2
}

// BenchmarkCloth compares Solve (serial and on a pool of GOMAXPROCS
// workers; cold, and warm from the previous step's X) with solver/qp's
// Solver (reused, so its symbolic analysis is kept; cold, and warm from the
// previous Result) on the 30x30 and 60x60 EOL-cloth-like problems.
func BenchmarkCloth(b *testing.B) {
	for _, nx := range []int{30, 60} {
		p, p2 := benchProblems(b, nx)
		workers := runtime.GOMAXPROCS(0)
		pool := ecs.NewPool(workers)
		for _, r := range []struct {
			name string
			run  Runner
		}{{"serial", nil}, {fmt.Sprintf("pool%d", workers), pool}} {
			for _, warm := range []bool{false, true} {
				name := fmt.Sprintf("%dx%d/blockqp/%s/cold", nx, nx, r.name)
				if warm {
					name = fmt.Sprintf("%dx%d/blockqp/%s/warm", nx, nx, r.name)
				}
				b.Run(name, func(b *testing.B) {
					s := NewSolver()
					res, err := s.Solve(r.run, p, nil, Settings{})
					if err != nil || !res.Converged {
						b.Fatal(err, res.Message)
					}
					var x0 []float64
					if warm {
						x0 = append([]float64(nil), res.X...)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						res, err = s.Solve(r.run, p2, x0, Settings{})
						if err != nil || !res.Converged {
							b.Fatal(err, res.Message)
						}
					}
					b.ReportMetric(float64(res.CGIterations), "cg/op")
					b.ReportMetric(float64(res.Rounds), "rounds/op")
				})
			}
		}
		pool.Close()
		q, _, _ := toQP(b, p)
		q2, _, _ := toQP(b, p2)
		for _, warm := range []bool{false, true} {
			name := fmt.Sprintf("%dx%d/qp/cold", nx, nx)
			if warm {
				name = fmt.Sprintf("%dx%d/qp/warm", nx, nx)
			}
			b.Run(name, func(b *testing.B) {
				s := qp.NewSolver()
				res0, err := s.Solve(q, nil, qp.DefaultSettings())
				if err != nil || res0.Status != qp.Solved {
					b.Fatal(err, res0.Status)
				}
				if !warm {
					res0 = nil
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					res, err := s.Solve(q2, res0, qp.DefaultSettings())
					if err != nil || res.Status != qp.Solved {
						b.Fatal(err, res.Status)
					}
				}
			})
		}
	}
}

// edgeDumpPaths are QPs the engine's edge scene (cloth over a box edge,
// 2927 faces, 4452 variables, 163k nonzeros, about 730 rows) passed to
// Solve at steps 100, 200 and 290, in eolDumpPath's layout. They are not in
// the repository; BenchmarkEdgeDump skips the absent ones.
var edgeDumpPaths = []string{"/tmp/edgeqp_100.json", "/tmp/edgeqp_200.json", "/tmp/edgeqp_290.json"}

// BenchmarkEdgeDump solves the engine's dumped QPs from their warm starts
// with the engine's settings (Tol 1e-6), serially and on a pool.
func BenchmarkEdgeDump(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	pool := ecs.NewPool(workers)
	defer pool.Close()
	for _, path := range edgeDumpPaths {
		p, warm := loadDump(b, path)
		for _, r := range []struct {
			name string
			run  Runner
		}{{"serial", nil}, {fmt.Sprintf("pool%d", workers), pool}} {
			b.Run(fmt.Sprintf("%s/%s", path[len("/tmp/"):len(path)-len(".json")], r.name), func(b *testing.B) {
				s := NewSolver()
				set := Settings{Tol: 1e-6, MaxCG: 2000}
				var res Result
				var err error
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					res, err = s.Solve(r.run, p, warm, set)
					if err != nil || !res.Converged {
						b.Fatal(err, res.Message)
					}
				}
				b.ReportMetric(float64(res.CGIterations), "cg/op")
				b.ReportMetric(float64(res.Rounds), "rounds/op")
			})
		}
	}
}
