package bench

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/amg"
	"github.com/loomsim/loom/solver/sparse"
)

// KernelCases are the sheets whose step matrices the kernel table measures.
var KernelCases = []string{"sheet-100-amg", "sheet-200-amg"}

// kernelWarmup is the number of steps taken before the step matrix is
// taken (the sheet in motion).
const kernelWarmup = 5

// kernelTime is the least wall time one timing of a kernel repeats it for.
const kernelTime = 30 * time.Millisecond

// RunKernels prints the memory bandwidth of the implicit step's kernels on
// each case's step matrix: a STREAM triad (McCalpin 1995: a = b + s c, 24
// bytes an entry, over arrays as large as the matrix), the matrix-vector
// product, and the AMG V-cycle's finest-level kernels (smoother sweeps,
// residual, restriction, prolongation). Each row's GB/s is the least
// traffic the kernel needs (its matrix, indices and vectors once) over its
// wall time; the rounds interleave all kernels, triad included, and each
// row is the median over the rounds, with its share of the triad's.
func RunKernels(w io.Writer, cases []Case, workers, rounds int) error {
	fmt.Fprintf(w, "cpu: %s\nworkers: %d (GOMAXPROCS %d)\n%d interleaved round(s), medians\n\n", ecs.CPU(), workers, runtime.GOMAXPROCS(0), rounds)
	fmt.Fprintf(w, "%-14s %-30s %9s %8s %9s\n", "matrix", "kernel", "MB", "GB/s", "of triad")
	for _, c := range cases {
		if err := kernelRows(w, c, workers, rounds); err != nil {
			return err
		}
	}
	return nil
}

func kernelRows(w io.Writer, c Case, workers, rounds int) error {
	sim, err := c.Load(workers)
	if err != nil {
		return err
	}
	defer sim.Close()
	for range kernelWarmup {
		if err := sim.Step(); err != nil {
			return fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	A, r := sim.State.A, sim.World.Pool
	p, err := amg.New(amg.DefaultOptions())
	if err != nil {
		return err
	}
	if err := p.Setup(r, A, nil); err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	n := 3 * A.N
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(1+i%7)
	}
	p.Apply(r, x, y) // the levels' vectors hold a V-cycle's values
	spmv := int64(len(A.Col))*76 + 4*int64(A.N+1) + 16*int64(n)
	tr := newTriad(max(int(spmv/24), 1<<20))
	ks := []amg.Kernel{
		{Name: "STREAM triad", Bytes: 24 * int64(len(tr.a)), Run: tr.run},
		{Name: "SpMV (A x)", Bytes: spmv, Run: func(r sparse.Runner) { A.MulVec(r, x, y) }},
	}
	ks = append(ks, p.Kernels()...)
	gbs := make([][]float64, len(ks))
	for range rounds {
		for i, k := range ks {
			gbs[i] = append(gbs[i], bandwidth(k, r))
		}
	}
	triad := median(gbs[0])
	for i, k := range ks {
		g := median(gbs[i])
		fmt.Fprintf(w, "%-14s %-30s %9.1f %8.1f %8.0f%%\n", c.Name, k.Name, float64(k.Bytes)/1e6, g, 100*g/triad)
	}
	return nil
}

// bandwidth times k.Run repeated for at least kernelTime and returns GB/s.
func bandwidth(k amg.Kernel, r sparse.Runner) float64 {
	k.Run(r) // warm
	reps := 0
	t0 := time.Now()
	for time.Since(t0) < kernelTime {
		k.Run(r)
		reps++
	}
	return float64(k.Bytes) * float64(reps) / time.Since(t0).Seconds() / 1e9
}

// triad is the STREAM triad a = b + s c, parallel over fixed chunks.
type triad struct {
	a, b, c []float64
	body    func(lo, hi int)
}

const triadChunk = 4096

func newTriad(n int) *triad {
	t := &triad{a: make([]float64, n), b: make([]float64, n), c: make([]float64, n)}
	for i := range t.b {
		t.b[i], t.c[i] = 1, 2
	}
	t.body = func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			i0, i1 := ch*triadChunk, min((ch+1)*triadChunk, n)
			a, b, c := t.a[i0:i1], t.b[i0:i1], t.c[i0:i1]
			for i := range a {
				a[i] = b[i] + 3*c[i]
			}
		}
	}
	return t
}

func (t *triad) run(r sparse.Runner) {
	r.For((len(t.a)+triadChunk-1)/triadChunk, t.body)
}
