// Command loom runs cloth scenes and benchmarks.
//
//	loom                      run the drape scene into out/drape
//	loom run SCENE [flags]    run a built-in scene or a JSON scene file
//	loom resume DIR [flags]   continue a run from DIR/checkpoint.loom
//	loom export DIR           write DIR's OBJ frames as one glTF animation
//	loom render DIR           draw DIR's OBJ frames to PNG and an animated GIF
//	loom view DIR             serve a page that plays DIR's frames back
//	loom scenes               list the built-in scenes
//	loom bench [flags]        run the benchmark scenes and print a table
//	loom version              print the version
//
// Exit status: 0 done (and for --help), 1 an error (printed), 130
// interrupted (SIGINT or SIGTERM: the run stops between steps; the frames
// written so far are complete; a second signal ends loom at once).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/loomsim/loom/ecs"
)

func main() {
	// The first SIGINT or SIGTERM stops a run between steps; a second one
	// (a step can take minutes) ends loom at once, as the signal's default
	// does (a frame being written then leaves its .tmp, which --overwrite
	// removes).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sig
		signal.Reset(os.Interrupt, syscall.SIGTERM)
		interrupt <- s
	}()
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) { // with ErrHelp the flag set printed its usage
		fmt.Fprintln(os.Stderr, "loom:", err)
	}
	os.Exit(exitStatus(err))
}

// exitStatus is loom's exit status for run's result: 0 done (and --help),
// 130 interrupted, 1 any other error.
func exitStatus(err error) int {
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errInterrupted):
		return 130
	}
	return 1
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runScene([]string{"drape"}, stdout, stderr)
	}
	switch args[0] {
	case "run":
		return runScene(args[1:], stdout, stderr)
	case "resume":
		return resumeRun(args[1:], stdout, stderr)
	case "scenes":
		return listScenes(stdout)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "export":
		return runExport(args[1:], stdout, stderr)
	case "render":
		return runRender(args[1:], stdout, stderr)
	case "view":
		return runView(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, version())
		return nil
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}

const usage = `usage:
  loom                      run the drape scene into out/drape (see loom run)
  loom run SCENE [--steps N | --duration S] [--out DIR] [--overwrite] [--workers K]
           [--format obj|gltf|obj,gltf] [--render] [--tubes] [--checkpoint-every N] [--set path=value ...]
                            SCENE is a built-in name (see loom scenes) or a JSON file.
                            Writes frame_NNNNN.obj, stats.jsonl (and animation.glb,
                            frame_NNNNN.png, animation.gif when asked) into --out, which
                            must be new or empty; without --out, into out/SCENE, or
                            out/SCENE-2, -3, ... when that is not empty. --overwrite
                            removes only the files an earlier loom run listed in the
                            folder's loom-manifest.txt: loom never deletes or replaces a
                            file it did not write.
                            --checkpoint-every writes checkpoint.loom into the folder
                            every N steps.
  loom resume DIR [--steps N] [--out OUT] [--workers K] [--checkpoint-every N]
                            continue the run checkpointed in DIR (frames into DIR/resumed)
  loom export DIR           write DIR's frames (from loom run) as DIR/animation.glb
  loom render DIR [--width W] [--height H]
                            draw DIR's frames to DIR/frame_NNNNN.png and DIR/animation.gif
  loom view DIR [--addr 127.0.0.1:8080]
                            serve a page that plays DIR's frames back (orbit, timeline, stats plot)
  loom scenes               list the built-in scenes
  loom version              print loom's version
exit status: 0 done (and --help), 1 error, 130 interrupted (Ctrl-C: the frames written are complete;
             a second Ctrl-C ends loom at once)
  loom bench [--steps N] [--workers K] [--adaptive=false] [--eol=false]
             [--eol-cases edge-eol,...] [--repeat R] [--cases sheet-100-amg,...] [--rounds R]
                            run the benchmark scenes and print tables
`

// version returns the module version and VCS revision the binary was built
// from, as far as the build recorded them.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "loom (no build information)"
	}
	v := "loom " + bi.Main.Version + " " + bi.GoVersion
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.time":
			v += " " + s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v += " (modified)"
			}
		}
	}
	return v
}

// workerCount returns the worker count: the --workers flag of fs when it was
// given (value n), else LOOM_WORKERS or GOMAXPROCS; both are checked by
// ecs.CheckWorkers.
func workerCount(fs *flag.FlagSet, n int) (int, error) {
	if !given(fs, "workers") {
		return ecs.WorkerCount()
	}
	return n, ecs.CheckWorkers("--workers", n)
}

// given reports whether the flag name was set on the command line of fs.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// parseInterspersed parses flags that may come before or after positional
// arguments and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
