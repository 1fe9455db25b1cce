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
	"slices"
	"strings"
	"time"

	"github.com/loomsim/loom"
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
	out := fs.String("out", "", "output folder: new or empty (default: out/SCENE, or out/SCENE-2, -3, ... when that is not empty)")
	overwrite := fs.Bool("overwrite", false, "write into a non-empty --out: first remove what an earlier loom run wrote there (listed in its "+export.ManifestName+"); other files are kept, never replaced")
	format := fs.String("format", "obj", "what to write: obj (a frame_NNNNN.obj per frame), gltf (one animation.glb), or obj,gltf")
	render := fs.Bool("render", false, "also draw the frames to PNG and animation.gif (as loom render)")
	tubes := fs.Bool("tubes", false, "write strands that have a yarn radius (fabrics, strands with radius) as swept tube meshes instead of polylines")
	workers := fs.Int("workers", 0, "worker goroutines, 1 to 1024 (default: LOOM_WORKERS or GOMAXPROCS)")
	every := fs.Int("checkpoint-every", 0, "write "+checkpointFile+" into the run folder every N steps (loom resume DIR continues from it)")
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
	nw, err := workerCount(fs, *workers)
	if err != nil {
		return err
	}
	formats, err := parseFormats(*format)
	if err != nil {
		return err
	}
	loading := newProgress(-1, "loading "+sc.Name, "", stderr)
	ls, err := loom.LoadScene(sc, loom.Options{Workers: nw})
	loading.finish()
	if err != nil {
		return err
	}
	defer ls.Close()
	sim := ls.Engine()
	n := sc.NumSteps()
	if *steps > 0 {
		n = *steps
	}
	dir := *out
	if dir == "" {
		dir = freshFolder(filepath.Join("out", sim.Model.Name))
	}
	rd, err := export.OpenRunDir(dir, *overwrite)
	if err != nil {
		return err
	}
	defer rd.Close()
	o := outputs{obj: formats["obj"], gltf: formats["gltf"], render: *render, tubes: *tubes, after: checkpointer(ls, rd, *every)}
	return simulate(sim, n, rd, o, stdout, stderr)
}

// checkpointFile is the checkpoint a run writes into its folder.
const checkpointFile = "checkpoint.loom"

// checkpointer returns the hook that saves ls as rd's checkpoint.loom every
// `every` steps (nil: never).
func checkpointer(ls *loom.Sim, rd *export.RunDir, every int) func(step int) error {
	if every <= 0 {
		return nil
	}
	return func(step int) error {
		if step%every != 0 {
			return nil
		}
		return rd.WriteFile(checkpointFile, ls.WriteCheckpoint)
	}
}

// resumeRun continues the run whose checkpoint is in DIR up to the scene's
// end (or --steps, counted from the start), writing frames and stats from
// the resumed step on into --out (default DIR/resumed, new or empty).
func resumeRun(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("resume", flag.ContinueOnError)
	fs.SetOutput(stderr)
	steps := fs.Int("steps", 0, "total steps of the run, counted from its start (default: the scene's duration)")
	out := fs.String("out", "", "output folder, new or empty (default DIR/resumed)")
	overwrite := fs.Bool("overwrite", false, "write into a non-empty --out, removing only what an earlier loom run wrote there")
	workers := fs.Int("workers", 0, "worker goroutines, 1 to 1024 (default: LOOM_WORKERS or GOMAXPROCS)")
	every := fs.Int("checkpoint-every", 0, "write OUT/"+checkpointFile+" every N steps")
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
	nw, err := workerCount(fs, *workers)
	if err != nil {
		return err
	}
	ls, err := loom.Resume(filepath.Join(pos[0], checkpointFile), loom.Options{Workers: nw})
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
	rd, err := export.OpenRunDir(*out, *overwrite)
	if err != nil {
		return err
	}
	defer rd.Close()
	fmt.Fprintf(stdout, "%s: resumed at step %d\n", ls.Name(), sim.Clock.Step)
	return simulate(sim, n-sim.Clock.Step, rd, outputs{obj: true, after: checkpointer(ls, rd, *every)}, stdout, stderr)
}

// outputs says what a run writes besides stats.jsonl, and after, when not
// nil, is called with the step count after each step (checkpoints).
type outputs struct {
	obj, gltf, render bool
	tubes             bool // strands with a radius as tube meshes
	after             func(step int) error
}

// parseFormats reads --format: a comma-separated list of obj and gltf.
func parseFormats(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		if f != "obj" && f != "gltf" {
			return nil, fmt.Errorf("--format %q: want obj, gltf or obj,gltf", s)
		}
		out[f] = true
	}
	return out, nil
}

// freshFolder returns base when it does not exist or is empty, else the first
// of base-2, base-3, ... that is.
func freshFolder(base string) string {
	for i := 1; ; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			return dir
		}
	}
}

// simulate runs n steps, writing a stats record (and a frame, with
// o.obj) every output frame into the run folder, and at the end the glTF
// animation and the pictures that o asks for. Files already written stay
// valid when a step fails.
func simulate(sim *systems.Sim, n int, rd *export.RunDir, o outputs, stdout, stderr io.Writer) error {
	dir := rd.Dir
	statsFile, err := rd.Create("stats.jsonl")
	if err != nil {
		return err
	}
	defer statsFile.Close()
	stats := bufio.NewWriter(statsFile)
	every := sim.Model.StepsPerFrame
	planeHalf := export.PlaneHalfSize(meshes(sim, 0, false))
	var kept []export.Frame // for glTF and pictures

	frame := 0
	record := func() error {
		rec := sim.Measure()
		ms := meshes(sim, planeHalf, o.tubes)
		if o.obj {
			if err := rd.WriteFile(fmt.Sprintf("frame_%05d.obj", frame), func(w io.Writer) error { return export.EncodeOBJ(w, ms) }); err != nil {
				return err
			}
		}
		if o.gltf || o.render {
			kept = append(kept, export.Frame{Time: rec.Time, Meshes: ms})
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
	bar := newProgress(n, sim.Model.Name, "steps", stderr)
	defer bar.abort() // a failed frame write; nothing after finish
	for i := 1; i <= n; i++ {
		if interrupted() {
			bar.abort()
			return fmt.Errorf("%s: %w at step %d (frames 0-%d in %s are complete)", sim.Model.Name, errInterrupted, i-1, frame-1, dir)
		}
		if err := sim.Step(); err != nil {
			bar.abort()
			return fmt.Errorf("%s: %w (frames 0-%d in %s are complete)", sim.Model.Name, err, frame-1, dir)
		}
		if i%every == 0 || i == n {
			if err := record(); err != nil {
				return err
			}
		}
		if o.after != nil {
			if err := o.after(sim.Clock.Step); err != nil {
				bar.abort()
				return err
			}
		}
		bar.set(i)
	}
	bar.finish()
	what := "stats.jsonl"
	if o.obj {
		what = fmt.Sprintf("%d OBJ frames and %s", frame, what)
	}
	fmt.Fprintf(stdout, "%s: %d steps (%.3g s simulated) in %.2f s; wrote %s to %s\n",
		sim.Model.Name, n, float64(n)*sim.Clock.Dt, time.Since(start).Seconds(), what, dir)
	if o.gltf {
		if err := writeGLTF(rd, kept, stdout); err != nil {
			return err
		}
	}
	if o.obj && !o.render {
		fmt.Fprintf(stdout, "next: loom view %s (play it in a browser), loom render %s (pictures), loom export %s (glTF), loom scenes (other scenes)\n", dir, dir, dir)
	}
	if o.render {
		if err := renderFrames(rd, kept, renderOptions{}, stdout, stderr); err != nil {
			return err
		}
	}
	return nil
}

// meshes returns each body's current surface, each strand's polyline (with
// tubes, a strand with a yarn radius as its swept tube) and, with planeHalf >
// 0, each obstacle's surface (planes as squares of that half-size). The
// slices are the frame's own (a remesh does not change them).
func meshes(sim *systems.Sim, planeHalf float64, tubes bool) []export.Mesh {
	out := make([]export.Mesh, len(sim.Bodies))
	for i, b := range sim.Bodies {
		out[i] = export.Mesh{Name: b.Name, Role: export.RoleCloth, Pos: sim.Positions(i),
			UV: slices.Clone(b.U), UVFaces: slices.Clone(b.UFaces), Faces: slices.Clone(b.Faces)}
	}
	for r, name := range sim.StrandNames() {
		pts := sim.Rods.Step.Polyline(r)
		if rad := sim.Model.Rods.Strands[r].Radius; tubes && rad > 0 {
			out = append(out, export.Tube(name, pts, rad))
			continue
		}
		line := make([]int32, len(pts))
		for k := range line {
			line[k] = int32(k)
		}
		out = append(out, export.Mesh{Name: name, Role: export.RoleRod, Pos: pts, Lines: [][]int32{line}})
	}
	if planeHalf > 0 {
		for _, ob := range sim.Obstacles() {
			out = append(out, export.ObstacleMesh(ob.Name, &ob.Shape, ob.Offset, planeHalf))
		}
	}
	return out
}
