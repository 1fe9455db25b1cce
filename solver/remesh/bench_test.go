package remesh

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// benchInput is a 71x71 grid (10082 faces) of a 1 m sheet, gently waved in
// world space, with a sizing field whose target length varies smoothly
// between 0.8 and 4 grid spacings: some regions refine, others coarsen.
func benchInput() (*Mesh, []dense.Mat2) {
	const n = 71
	m := gridMesh(n, n, 1, 1, 0, nil)
	for i := range m.X {
		m.X[i][2] = 0.02 * math.Sin(4*m.X[i][0]) * math.Cos(3*m.X[i][1])
	}
	h := 1.0 / n
	M := make([]dense.Mat2, len(m.U))
	for i, u := range m.U {
		s := 0.5 + 0.5*math.Sin(2*math.Pi*u[0])*math.Cos(2*math.Pi*u[1])
		l := h * (0.8 + 3.2*s)
		M[i] = anisoM(l, l, 0)
	}
	return m, M
}

func BenchmarkRemesh10k(b *testing.B) {
	m, M := benchInput()
	var r Remesher
	_, res, err := r.Remesh(m, M, DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := r.Remesh(m, M, DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(m.F)), "faces_in")
	b.ReportMetric(float64(res.Splits), "splits")
	b.ReportMetric(float64(res.Collapses), "collapses")
}

// BenchmarkRemesh10kSteady remeshes an already adapted mesh against the same
// (interpolated) sizing: the cost of a remesh step that changes little.
func BenchmarkRemesh10kSteady(b *testing.B) {
	m, M := benchInput()
	var r Remesher
	a, res, err := r.Remesh(m, M, DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	Ma := res.M
	_, res2, err := r.Remesh(a, Ma, DefaultParams())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := r.Remesh(a, Ma, DefaultParams()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(a.F)), "faces_in")
	b.ReportMetric(float64(res2.Splits+res2.Collapses+res2.Flips), "ops")
}
