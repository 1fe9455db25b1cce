package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/loomsim/loom/bench"
	"github.com/loomsim/loom/ecs"
)

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	steps := fs.Int("steps", 20, "timed steps per scene; when given, also the steps each EOL row runs from the start (default 300)")
	warmup := fs.Int("warmup", 5, "untimed steps before timing")
	workers := fs.Int("workers", 0, "worker goroutines, 1 to 1024 (default: LOOM_WORKERS or GOMAXPROCS)")
	eolRows := fs.Bool("eol", true, "also run the EOL cloth scenes (Weidner 2018 Table 1: edge, wire, nails, jaws, push, throw, lo-res, friction, and edge/lo-res as Lagrangian cloth) from the start")
	adaptive := fs.Bool("adaptive", true, "also run the remeshing scenes from the start (sphere anisotropic/isotropic/fixed, flag) and print mean faces and seconds per frame")
	eolCases := fs.String("eol-cases", "", "comma-separated EOL cases to run (such as edge-eol), and only their table; default: every case, after the other tables")
	repeat := fs.Int("repeat", 1, "runs of each EOL case: its row is the run of median ms/step, with the range of all runs")
	stepCases := fs.String("cases", "", "comma-separated step cases to run (such as sheet-100-amg,sheet-100-bj), and only their table; default: every case")
	rounds := fs.Int("rounds", 1, "interleaved runs of the step cases (and of the kernels): each row gives the median over the rounds")
	kernels := fs.Bool("kernels", false, "print only the kernel table: GB/s of the SpMV and the AMG V-cycle's kernels (smoother, residual, restriction, prolongation) on the sheet-100 and sheet-200 step matrices, against a STREAM triad in the same run")
	fabricCases := fs.String("fabric-cases", "", "comma-separated yarn-level fabric cases (tablecloth, tablecloth-18, knit-sphere, tag, incline, pocket; the paper sizes knit-75k, tablecloth-230k, pocket-645k) or all (the built-in sizes), and only their table, at each of --fabric-workers")
	fabricSteps := fs.Int("fabric-steps", 5, "timed steps per fabric case")
	fabricWorkers := fs.String("fabric-workers", "1,2", "comma-separated worker counts of the fabric table's rows")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fmt.Errorf("bench: unexpected arguments %v", fs.Args())
	}
	if *steps < 1 || *warmup < 0 {
		return fmt.Errorf("bench: --steps must be >= 1 and --warmup >= 0")
	}
	nw, err := workerCount(fs, *workers)
	if err != nil {
		return err
	}
	*workers = nw
	if *fabricCases != "" {
		var fn []string
		if *fabricCases != "all" {
			fn = strings.Split(*fabricCases, ",")
		}
		sel, err := bench.SelectFabric(fn)
		if err != nil {
			return err
		}
		if *fabricSteps < 1 {
			return fmt.Errorf("bench: --fabric-steps must be >= 1")
		}
		ws, err := ecs.WorkerList("--fabric-workers", *fabricWorkers)
		if err != nil {
			return err
		}
		return bench.RunFabric(stdout, sel, ws, *fabricSteps)
	}
	rows := &rowProgress{w: stderr}
	defer rows.stop()
	var names []string
	if *eolCases != "" {
		names = strings.Split(*eolCases, ",")
	}
	cases, err := bench.SelectEOL(bench.EOLCases, names)
	if err != nil {
		return err
	}
	if given(fs, "steps") {
		cases = slices.Clone(cases)
		for i := range cases {
			cases[i].Steps = *steps
		}
	}
	if *repeat < 1 || *rounds < 1 {
		return fmt.Errorf("bench: --repeat and --rounds must be >= 1")
	}
	kcases, err := bench.Select(bench.Cases, bench.KernelCases)
	if err != nil {
		return err
	}
	if *kernels {
		return bench.RunKernels(stdout, kcases, *workers, *rounds)
	}
	if *stepCases != "" {
		sel, err := bench.Select(bench.Cases, strings.Split(*stepCases, ","))
		if err != nil {
			return err
		}
		return bench.Run(stdout, sel, *workers, *warmup, *steps, *rounds, rows.report)
	}
	if names == nil {
		if err := bench.Run(stdout, bench.Cases, *workers, *warmup, *steps, *rounds, rows.report); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		if err := bench.RunKernels(stdout, kcases, *workers, *rounds); err != nil {
			return err
		}
		if err := bench.RunGame(stdout, *workers, max(*steps, 200), rows.report); err != nil {
			return err
		}
		if *adaptive {
			if err := bench.RunFrames(stdout, bench.FrameCases, *workers, rows.report); err != nil {
				return err
			}
		}
		if !*eolRows {
			return nil
		}
	} else {
		fmt.Fprintf(stdout, "cpu: %s\nworkers: %d (GOMAXPROCS %d)\n", ecs.CPU(), *workers, runtime.GOMAXPROCS(0))
	}
	return bench.RunEOL(stdout, cases, *workers, *repeat, rows.report)
}

// rowProgress draws a progress bar on its writer for each bench row that
// takes more than a second (progress), cleared when the row is done.
type rowProgress struct {
	w   io.Writer
	row string
	bar *progress
}

// report implements bench.Progress.
func (r *rowProgress) report(row string, done, total int) {
	if r.bar == nil || row != r.row {
		r.stop()
		r.row, r.bar = row, newProgress(total, row, "steps", r.w)
	}
	r.bar.set(done)
	if done >= total {
		r.bar.finish()
		r.bar = nil
	}
}

// stop ends a bar left drawn by a row that failed.
func (r *rowProgress) stop() {
	if r.bar != nil {
		r.bar.abort()
		r.bar = nil
	}
}
