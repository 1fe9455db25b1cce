package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/loomsim/loom"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/export"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/systems"
)

// setFlags collects repeated --set path=value flags.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, " ") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

func runScene(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	steps := fs.Int("steps", 0, "number of steps (default: the scene's duration)")
	duration := fs.Float64("duration", 0, "simulated seconds (default: the scene's duration)")
	out := fs.String("out", "out", "output directory")
	workers := fs.Int("workers", 0, "worker goroutines (default: LOOM_WORKERS or GOMAXPROCS)")
	every := fs.Int("checkpoint-every", 0, "write DIR/checkpoint.loom every N steps (loom resume DIR continues from it)")
	var sets setFlags
	fs.Var(&sets, "set", "override a scene field, path=value (repeatable)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("run: want one SCENE, got %d arguments\n%s", len(pos), usage)
	}
	if *steps != 0 && *duration != 0 {
		return fmt.Errorf("run: give --steps or --duration, not both")
	}
	if *steps < 0 || *duration < 0 || math.IsNaN(*duration) || *every < 0 {
		return fmt.Errorf("run: --steps, --duration and --checkpoint-every must be positive")
	}
	sc, err := scenes.Resolve(pos[0])
	if err != nil {
		return err
	}
	for _, s := range sets {
		path, value, ok := strings.Cut(s, "=")
		if !ok {
			return fmt.Errorf("--set %q: want path=value", s)
		}
		if err := sc.Set(path, value); err != nil {
			return fmt.Errorf("--set %s: %w", path, err)
		}
	}
	if *duration > 0 {
		sc.Duration = *duration
	}
	if *workers == 0 {
		if *workers, err = ecs.WorkerCount(); err != nil {
			return err
		}
	}
	ls, err := loom.LoadScene(sc, loom.Options{Workers: *workers})
	if err != nil {
		return err
	}
	defer ls.Close()
	n := sc.NumSteps()
	if *steps > 0 {
		n = *steps
	}
	return simulate(ls.Engine(), n, *out, stdout, stderr, checkpointer(ls, *out, *every))
}

// checkpointer returns simulate's hook that saves ls to dir/checkpoint.loom
// every `every` steps (nil: never).
func checkpointer(ls *loom.Sim, dir string, every int) func(step int) error {
	if every <= 0 {
		return nil
	}
	return func(step int) error {
		if step%every != 0 {
			return nil
		}
		return ls.Save(filepath.Join(dir, checkpointFile))
	}
}

const checkpointFile = "checkpoint.loom"

// resumeRun continues the run whose checkpoint is in DIR up to the
// scene's end (or --steps, counted from the start), writing frames and
// stats from the resumed step on into --out (default DIR/resumed).
func resumeRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("resume", flag.ContinueOnError)
	fs.SetOutput(stderr)
	steps := fs.Int("steps", 0, "total steps of the run, counted from its start (default: the scene's duration)")
	out := fs.String("out", "", "output directory (default DIR/resumed)")
	workers := fs.Int("workers", 0, "worker goroutines (default: LOOM_WORKERS or GOMAXPROCS)")
	every := fs.Int("checkpoint-every", 0, "write OUT/checkpoint.loom every N steps")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("resume: want one DIR, got %d arguments\n%s", len(pos), usage)
	}
	if *steps < 0 || *every < 0 {
		return fmt.Errorf("resume: --steps and --checkpoint-every must be positive")
	}
	if *out == "" {
		*out = filepath.Join(pos[0], "resumed")
	}
	if *workers == 0 {
		if *workers, err = ecs.WorkerCount(); err != nil {
			return err
		}
	}
	ls, err := loom.Resume(filepath.Join(pos[0], checkpointFile), loom.Options{Workers: *workers})
	if err != nil {
		return err
	}
	defer ls.Close()
	sim := ls.Engine()
	n := sim.Model.Steps
	if *steps > 0 {
		n = *steps
	}
	if n <= sim.Clock.Step {
		return fmt.Errorf("resume: the checkpoint is at step %d, at or past the run's end (%d steps)", sim.Clock.Step, n)
	}
	fmt.Fprintf(stdout, "%s: resumed at step %d\n", ls.Name(), sim.Clock.Step)
	return simulate(sim, n-sim.Clock.Step, *out, stdout, stderr, checkpointer(ls, *out, *every))
}

// simulate runs n steps, writing a frame and a stats record every output
// frame, and calling after (when not nil) with the step count after each
// step. Files already written stay valid when a step fails.
func simulate(sim *systems.Sim, n int, dir string, stdout, stderr io.Writer, after func(step int) error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	stale, _ := filepath.Glob(filepath.Join(dir, "frame_*.obj"))
	for _, f := range stale {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	statsFile, err := os.Create(filepath.Join(dir, "stats.jsonl"))
	if err != nil {
		return err
	}
	defer statsFile.Close()
	stats := bufio.NewWriter(statsFile)
	every := sim.Model.StepsPerFrame

	frame := 0
	record := func() error {
		rec := sim.Measure()
		if err := export.WriteOBJ(filepath.Join(dir, fmt.Sprintf("frame_%05d.obj", frame)), meshes(sim)); err != nil {
			return err
		}
		line, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("stats at step %d: %w", rec.Step, err)
		}
		stats.Write(append(line, '\n'))
		frame++
		return stats.Flush()
	}
	if err := record(); err != nil {
		return err
	}
	start := time.Now()
	// The bar measures its rate from its creation; it is drawn only once the
	// run has taken more than a second.
	bar := progressbar.NewOptions(n, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription(sim.Model.Name),
		progressbar.OptionShowCount(), progressbar.OptionSetItsString("steps"), progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	bar.StartWithoutRender()
	shown := false
	for i := 1; i <= n; i++ {
		if err := sim.Step(); err != nil {
			if shown {
				bar.Exit()
				fmt.Fprintln(stderr)
			}
			return fmt.Errorf("%s: %w (frames 0-%d in %s are complete)", sim.Model.Name, err, frame-1, dir)
		}
		if i%every == 0 || i == n {
			if err := record(); err != nil {
				return err
			}
		}
		if after != nil {
			if err := after(sim.Clock.Step); err != nil {
				return err
			}
		}
		shown = shown || time.Since(start) > time.Second
		if shown {
			bar.Set(i)
		}
	}
	if shown {
		bar.Finish()
	}
	fmt.Fprintf(stdout, "%s: %d steps (%.3g s simulated) in %.2f s; wrote %d frames and stats.jsonl to %s\n",
		sim.Model.Name, n, sim.Clock.Time, time.Since(start).Seconds(), frame, dir)
	return nil
}

// meshes returns each body's current surface.
func meshes(sim *systems.Sim) []export.Mesh {
	out := make([]export.Mesh, len(sim.Bodies))
	for i, b := range sim.Bodies {
		out[i] = export.Mesh{Name: b.Name, Pos: sim.Positions(i), UV: b.U, UVFaces: b.UFaces, Faces: b.Faces}
	}
	for r, name := range sim.StrandNames() {
		pts := sim.Rods.Step.Polyline(r)
		line := make([]int32, len(pts))
		for k := range line {
			line[k] = int32(k)
		}
		out = append(out, export.Mesh{Name: name, Pos: pts, Lines: [][]int32{line}})
	}
	return out
}
