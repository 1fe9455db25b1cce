// Package bench holds loom's benchmarks: the `go test -bench` benchmarks of
// one implicit step of sheets of several sizes, and the harness behind
// `loom bench`, which runs the standard scenes and prints a table of
// milliseconds per step (median), allocations per step, per-system shares,
// entity counts, workers and the CPU description from cpuid.
package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/systems"
)

// KernelPath says which path the sparse LDL^T's dense kernels run on:
// AVX2 when loom was built with GOEXPERIMENT=simd on a CPU that has it,
// scalar otherwise (bitwise the same results, ldlt.SIMD).
func KernelPath() string {
	if ldlt.SIMD() {
		return "LDL^T kernels: AVX2 (GOEXPERIMENT=simd)"
	}
	return "LDL^T kernels: scalar (build with GOEXPERIMENT=simd for the AVX2 path)"
}

// Case is one benchmark scene: a built-in scene with --set style overrides.
// Warmup, when set, is the number of untimed steps that bring the scene to
// the state worth timing (e.g. a sheet lying on an obstacle).
type Case struct {
	Name   string
	Scene  string
	Sets   [][2]string
	Warmup int
}

// Cases are the standard benchmark scenes.
var Cases = []Case{
	{Name: "sheet-50", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "50"}}},
	{Name: "sheet-100", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "100"}}},
	{Name: "sheet-200", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "200"}}},
	{Name: "sheet-50-ldlt", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "50"}, {"solver.linear", "ldlt"}}},
	{Name: "sheet-100-ldlt", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "100"}, {"solver.linear", "ldlt"}}},
	{Name: "sphere-drop", Scene: "sphere-drop"},
	{Name: "sphere-qp-100", Scene: "sphere-drop", Sets: [][2]string{{"bodies.0.resolution", "100"}, {"solver.contact_solver", "qp"}}, Warmup: 60},
	// Self-contact (solver/selfcontact): crumple's folds in contact (at
	// 9522 faces, about the 10k the collision budget of issue 16 is set at,
	// the pin moved to the middle), the three layers on the sphere.
	{Name: "crumple-70", Scene: "crumple", Sets: [][2]string{{"bodies.0.resolution", "70"}, {"bodies.0.pins.0.at", "[35,35]"}}, Warmup: 200},
	{Name: "layers", Scene: "layers", Warmup: 120},
	{Name: "sphere-flt-100", Scene: "sphere-drop", Sets: [][2]string{{"bodies.0.resolution", "100"}}, Warmup: 60},
	{Name: "box-edge", Scene: "box-edge"},
	// Developable cloth (English & Bridson 2008): the paper landing on the
	// sphere, 5k and 20k faces.
	{Name: "developable-5k", Scene: "paper-drape", Sets: [][2]string{{"bodies.0.resolution", "51"}}, Warmup: 50},
	{Name: "developable-20k", Scene: "paper-drape", Sets: [][2]string{{"bodies.0.resolution", "101"}}, Warmup: 50},
	// PCG's preconditioners side by side (solver/amg against block-Jacobi).
	{Name: "sheet-100-bj", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "100"}, {"solver.preconditioner", "block-jacobi"}}},
	{Name: "sheet-100-amg", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "100"}, {"solver.preconditioner", "amg"}}},
	{Name: "sheet-200-bj", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "200"}, {"solver.preconditioner", "block-jacobi"}}},
	{Name: "sheet-200-amg", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "200"}, {"solver.preconditioner", "amg"}}},
}

// Select returns the cases named in names, in that order; nil names: all.
func Select(cases []Case, names []string) ([]Case, error) {
	if names == nil {
		return cases, nil
	}
	var out []Case
	for _, n := range names {
		i := slices.IndexFunc(cases, func(c Case) bool { return c.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("bench: no case %q", n)
		}
		out = append(out, cases[i])
	}
	return out, nil
}

// Load builds the case's simulation with the given number of workers.
func (c Case) Load(workers int) (*systems.Sim, error) {
	sc, err := scenes.Builtin(c.Scene)
	if err != nil {
		return nil, err
	}
	for _, s := range c.Sets {
		if err := sc.Set(s[0], s[1]); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	m, err := sc.Model()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return systems.Build(m, workers)
}

// Result is one row of the table.
type Result struct {
	Case        string
	Vertices    int
	Faces       int
	Workers     int
	MedianMS    float64
	CPUMS       float64 // process CPU time (user + system) per step, mean over the timed steps
	Iterations  float64 // median PCG iterations per step (the last unconstrained solve); developable cloth: projection steps
	Factors     float64 // developable cloth: mean factorizations of J M^-1 J^T per step
	LDLTShare   float64 // developable cloth: fraction of the step time spent factoring and solving J M^-1 J^T
	AllocsPerSt float64
	Share       map[string]float64 // system -> fraction of step time
	Order       []string
	Contacts    int // contact rows at the end
}

// Progress receives how far a row is: done of its total steps (or
// frames), 0 before the row loads its scene, then after each one. A nil
// Progress reports nothing.
type Progress func(row string, done, total int)

func (p Progress) report(row string, done, total int) {
	if p != nil {
		p(row, done, total)
	}
}

// Measure runs warmup steps, then steps timed steps of the case, reporting
// each to p.
func Measure(c Case, workers, warmup, steps int, p Progress) (Result, error) {
	warmup = max(warmup, c.Warmup)
	p.report(c.Name, 0, warmup+steps)
	sim, err := c.Load(workers)
	if err != nil {
		return Result{}, err
	}
	defer sim.Close()
	for i := 0; i < warmup; i++ {
		if err := sim.Step(); err != nil {
			return Result{}, fmt.Errorf("%s warm-up: %w", c.Name, err)
		}
		p.report(c.Name, i+1, warmup+steps)
	}
	sim.Scheduler.ResetTimings()
	times := make([]float64, steps)
	iters := make([]float64, steps)
	var ldlt time.Duration
	factors := 0
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	for i := range times {
		t0 := time.Now()
		if err := sim.Step(); err != nil {
			return Result{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		times[i] = float64(time.Since(t0).Nanoseconds()) / 1e6
		iters[i] = float64(sim.State.LastSolve.Iterations)
		if d := sim.Developable; d != nil {
			iters[i] = float64(d.Iterations)
			factors += d.Factors
			ldlt += d.LDLT
		}
		p.report(c.Name, warmup+i+1, warmup+steps)
	}
	cpu := cpuTime() - cpu0
	runtime.ReadMemStats(&m1)
	r := Result{Case: c.Name, Vertices: sim.State.NumVerts(), Faces: len(sim.State.FaceRest), Workers: workers,
		MedianMS: median(times), CPUMS: cpu / float64(steps), Iterations: median(iters),
		AllocsPerSt: float64(m1.Mallocs-m0.Mallocs) / float64(steps),
		Contacts:    len(sim.State.Contacts)}
	var total time.Duration
	r.Order, r.Share, total = systemShares(sim.Scheduler)
	if sim.Developable != nil {
		r.Factors = float64(factors) / float64(steps)
		r.LDLTShare = float64(ldlt) / float64(total)
	}
	return r, nil
}

// systemShares returns the systems in pipeline order, each one's fraction
// of the time the scheduler has recorded since its last reset, and that
// time.
func systemShares(s *ecs.Scheduler) ([]string, map[string]float64, time.Duration) {
	var total time.Duration
	ts := s.Timings()
	for _, t := range ts {
		total += t.Elapsed
	}
	order, share := make([]string, 0, len(ts)), make(map[string]float64, len(ts))
	for _, t := range ts {
		order = append(order, t.System)
		share[t.System] = float64(t.Elapsed) / float64(total)
	}
	return order, share, total
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Run measures every case rounds times, the cases interleaved round by
// round (so that a busy spell of a shared machine hits them alike), and
// prints the table: per case the median over the rounds of each run's
// median ms/step and of its CPU ms/step.
func Run(w io.Writer, cases []Case, workers, warmup, steps, rounds int, p Progress) error {
	fmt.Fprintf(w, "cpu: %s\n%s\nworkers: %d (GOMAXPROCS %d)\nsteps: %d timed after %d warm-up, %d interleaved round(s)\n\n", ecs.CPU(), KernelPath(), workers, runtime.GOMAXPROCS(0), steps, warmup, rounds)
	runs := make([][]Result, len(cases))
	for range rounds {
		for i, c := range cases {
			r, err := Measure(c, workers, warmup, steps, p)
			if err != nil {
				return err
			}
			runs[i] = append(runs[i], r)
		}
	}
	fmt.Fprintf(w, "%-14s %8s %8s %8s %7s %10s %10s %7s %11s  %s\n", "scene", "vertices", "faces", "contacts", "workers", "ms/step", "cpu ms", "iters", "allocs/step", "share per system")
	for _, rs := range runs {
		ms, cpu := make([]float64, len(rs)), make([]float64, len(rs))
		for k, r := range rs {
			ms[k], cpu[k] = r.MedianMS, r.CPUMS
		}
		r := rs[0]
		sh := shares(r.Order, r.Share)
		if r.Factors > 0 || r.LDLTShare > 0 {
			sh += fmt.Sprintf("; projection: %.1f factorizations/step, LDL^T %.0f%% of the step", r.Factors, 100*r.LDLTShare)
		}
		fmt.Fprintf(w, "%-14s %8d %8d %8d %7d %10.2f %10.2f %7.0f %11.1f  %s\n", r.Case, r.Vertices, r.Faces, r.Contacts, r.Workers, median(ms), median(cpu), r.Iterations, r.AllocsPerSt, sh)
	}
	return nil
}

// shares formats per-system fractions of the step time in pipeline order.
func shares(order []string, share map[string]float64) string {
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", s, 100*share[s]))
	}
	return strings.Join(parts, ", ")
}
