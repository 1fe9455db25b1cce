package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loomsim/loom/scenes"
)

// TestIssue22 is issue 22's list of what a new user hit (lost files,
// documented limits that crashed, a hang, exit status 0 with meaningless
// results, wrong error positions, incomplete outputs, long silences), one
// row per case, each with what loom does now: a clear error naming what and
// where, with exit status 1, or the case working, with exit status 0.
// loom's exit statuses are 0 done (and --help), 1 an error, 130
// interrupted; rows that go through run() check the status main would exit
// with (exitStatus), and the rows "help and version" and "interrupt" run the
// binary itself. The pictures of every built-in scene, the glTF validation
// and the viewer are TestRenderEveryScene, TestGLTFValidates and
// TestViewerPlaysRun. Run one row with go test -run 'TestIssue22/ROW'.
func TestIssue22(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := `"description": "` + strings.Repeat("x", 6000) + `",`
	for _, c := range []struct {
		name   string
		args   []string // loom's arguments (--out is added for run)
		env    string   // LOOM_WORKERS
		status int      // the exit status
		want   []string // in the error (status 1) or the output (status 0)
		check  func(t *testing.T)
	}{
		// Lost files.
		{name: "never deletes a file it did not write", check: checkNeverDeletesForeignFiles},
		{name: "no partial temporaries and normal file modes", check: checkFileModes},
		{name: "default folder is a fresh one", check: checkDefaultOutFolderIsFresh},
		// Documented limits.
		{name: "resolution 4096", args: []string{"run", "drape", "--set", "bodies.0.resolution=4096"}, status: 1,
			want: []string{"bodies[0].resolution: must be in [2, 512], got 4096"}},
		{name: "resolution 1024", args: []string{"run", "drape", "--set", "bodies.0.resolution=1024"}, status: 1,
			want: []string{"bodies[0].resolution: must be in [2, 512], got 1024"}},
		{name: "resolution at the maximum runs or gets the memory estimate",
			check: checkMaximum("drape", "bodies[0].resolution", 1<<30, fmt.Sprintf("bodies.0.resolution=%d", scenes.MaxResolution))},
		{name: "rod nodes over the maximum", args: []string{"run", "rod-hang", "--set", fmt.Sprintf("rods.strands.0.nodes=%d", scenes.MaxRodNodes+1)}, status: 1,
			want: []string{fmt.Sprintf("rods.strands[0].nodes: must be in [2, %d]", scenes.MaxRodNodes)}},
		{name: "rod nodes at the maximum run or get the memory estimate",
			check: checkMaximum("rod-hang", "rods.strands[0].nodes", 64<<20, fmt.Sprintf("rods.strands.0.nodes=%d", scenes.MaxRodNodes))},
		{name: "remesh size_max asking the maximum runs or gets the memory estimate",
			check: checkMaximum("sphere", "bodies[0].remesh.size_max", 64<<20, "bodies.0.remesh.size_min=0.004", "bodies.0.remesh.size_max=0.0042")},
		{name: "remesh size_max asking more than the maximum", args: []string{"run", "sphere", "--set", "bodies.0.remesh.size_min=0.004", "--set", "bodies.0.remesh.size_max=0.004"}, status: 1,
			want: []string{"bodies[0].remesh.size_max: 0.004 m asks for at least 1.44e+05 faces", fmt.Sprintf("at most %d", scenes.MaxRemeshAsk)}},
		{name: "workers", check: checkWorkersValidation},
		{name: "workers 100000000", args: []string{"run", "drape", "--workers", "100000000"}, status: 1,
			want: []string{"--workers=100000000: the worker count must be from 1 to 1024"}},
		{name: "workers -1", args: []string{"run", "drape", "--workers", "-1"}, status: 1,
			want: []string{"--workers=-1: the worker count must be from 1 to 1024"}},
		{name: "LOOM_WORKERS -1", args: []string{"run", "drape"}, env: "-1", status: 1,
			want: []string{"LOOM_WORKERS=-1: the worker count must be from 1 to 1024"}},
		// The hang.
		{name: "remesh size_min 1e-9", args: []string{"run", "sphere", "--set", "bodies.0.remesh.size_min=1e-9", "--set", "bodies.0.remesh.size_max=1e-8"}, status: 1,
			want: []string{"bodies[0].remesh.size_max: 1e-08 m asks for at least"}},
		// Exit status 0 with meaningless results.
		{name: "contact_thickness 10", args: []string{"run", "sphere-drop", "--set", "solver.contact_thickness=10"}, status: 1,
			want: []string{"solver.contact_thickness: 10 m is not less than half the 1 m shorter side"}},
		{name: "sheet inside a sphere", args: []string{"run", "sphere-drop", "--set", "bodies.0.position=[0,0,0.25]"}, status: 1,
			want: []string{"bodies[0].position: vertex", `inside obstacles[0] (sphere "ball")`}},
		{name: "sheet inside a box", args: []string{"run", "edge", "--set", "bodies.0.position=[0.9,0.5,-0.6]"}, status: 1,
			want: []string{"bodies[0].position: vertex", `inside obstacles[0] (box "box")`}},
		{name: "rod edge node off its strand", args: []string{"run", "rod-table", "--set", "rods.edge_nodes.0.a=[-1,5,0]", "--set", "rods.edge_nodes.0.b=[1,5,0]"}, status: 1,
			want: []string{`rods.edge_nodes[0].u: strand "rod"'s point there`, "off the edge line"}},
		{name: "eol reach 10", args: []string{"run", "edge", "--set", "solver.eol.reach=10"}, status: 1,
			want: []string{"solver.eol.reach: 10 m is not less than half the shortest edge", "no EOL vertex can be created"}},
		{name: "density 1e-300", args: []string{"run", "sphere-drop", "--set", "bodies.0.material.density=1e-300"}, status: 1,
			want: []string{"bodies[0].material.density: 1e-300 kg/m^2 gives vertices of", "no inertia"}},
		// Error positions.
		{name: "json value position", args: []string{"run", file("x.json", `{"dt": x}`)}, status: 1,
			want: []string{"invalid JSON at line 1, column 8"}},
		{name: "json NaN on line 38", args: []string{"run", file("nan.json", "{"+long+"\n"+strings.Repeat("\n", 36)+`  "dt":        NaN}`)}, status: 1,
			want: []string{"invalid JSON at line 38, column 16"}},
		{name: "json byte order mark", args: []string{"run", file("bom.json", "\xEF\xBB\xBF{}")}, status: 1,
			want: []string{"byte order mark (EF BB BF); save it as UTF-8 without one"}},
		{name: "json UTF-16", args: []string{"run", file("utf16.json", "\xFF\xFE{\x00}\x00")}, status: 1,
			want: []string{"the file is UTF-16 (or UTF-32) text"}},
		{name: "json type position", args: []string{"run", file("type.json", "{\"name\": \"a\",\n  \"dt\": \"fast\"}")}, status: 1,
			want: []string{`dt: expected a number, got a string ("fast") (at line 2, column 9)`}},
		// Outputs.
		{name: "obstacles in every frame", check: checkObstaclesMoveInFrames},
		{name: "normals", check: checkNormals},
		{name: "stats schema, units, time, rod energy and strain", check: checkStatsSchemaStable},
		// Long silences.
		{name: "progress within one long step", check: checkProgressWithinStep},
		{name: "bench row progress", check: checkBenchRowProgress},
		{name: "bench steps honoured by EOL rows", args: []string{"bench", "--eol-cases", "lo-res-reg", "--steps", "3"}, status: 0,
			want: []string{"\nlo-res-reg         3 "}},
		{name: "help and version", check: checkHelpAndVersion},
		{name: "interrupt", check: checkInterruptExits130},
		{name: "default command", check: checkDefaultCommand},
		{name: "readme", check: checkReadme},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.check != nil {
				c.check(t)
				return
			}
			t.Setenv("LOOM_WORKERS", c.env)
			args := c.args
			if args[0] == "run" {
				args = append(args, "--out", filepath.Join(t.TempDir(), "run"))
			}
			out, err := runLoom(t, args...)
			if got := exitStatus(err); got != c.status {
				t.Fatalf("loom %v: exit status %d (%v), want %d\n%s", c.args, got, err, c.status, out)
			}
			text := out
			if err != nil {
				text = err.Error()
				if strings.Contains(text, "ï") {
					t.Errorf("the message shows a mis-decoded byte: %s", text)
				}
			}
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("loom %v: want %q in\n%s", c.args, w, text)
				}
			}
		})
	}
}

// TestExitStatus: the statuses main exits with.
func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{fmt.Errorf("run: %w", flag.ErrHelp), 0},
		{fmt.Errorf("drape: %w at step 3", errInterrupted), 130},
		{fmt.Errorf("drape.json: bodies[0].resolution: must be in [2, 512]"), 1},
	} {
		if got := exitStatus(c.err); got != c.want {
			t.Errorf("exitStatus(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// checkMaximum returns the check that the largest size the scene format
// allows (the --set values) either runs (LOOM_LONG_TESTS: two steps; the
// figures of scenes/README.md) or, with the memory limit set below loom's
// estimate (limit bytes), is an error naming field with the estimate
// before any mesh is built.
func checkMaximum(scene, field string, limit int64, sets ...string) func(t *testing.T) {
	return func(t *testing.T) {
		args := []string{"run", scene, "--out", filepath.Join(t.TempDir(), "run")}
		for _, s := range sets {
			args = append(args, "--set", s)
		}
		if os.Getenv("LOOM_LONG_TESTS") != "" {
			if out, err := runLoom(t, append(args, "--steps", "2", "--workers", "1")...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			return
		}
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
		_, err := runLoom(t, args...)
		if exitStatus(err) != 1 || !strings.Contains(err.Error(), field+": the scene needs about") {
			t.Fatalf("%s %v under a %d MB memory limit: got %v, want an error with the estimate", scene, sets, limit>>20, err)
		}
	}
}

// checkNormals: every cloth vertex of a frame has a normal of unit length,
// and every face corner refers to its vertex's normal.
func checkNormals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := runLoom(t, "run", "sphere-drop", "--steps", "4", "--set", "bodies.0.resolution=5", "--set", "fps=100", "--out", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "frame_00002.obj"))
	if err != nil {
		t.Fatal(err)
	}
	_, cloth, _ := strings.Cut(string(data), "\no cloth\ng cloth\n")
	cloth, _, _ = strings.Cut(cloth, "\no ")
	nv, nn, nf := 0, 0, 0
	for _, l := range strings.Split(cloth, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 4 && f[0] == "v":
			nv++
		case len(f) == 4 && f[0] == "vn":
			nn++
			var x, y, z float64
			fmt.Sscan(strings.Join(f[1:], " "), &x, &y, &z)
			if n := x*x + y*y + z*z; n < 0.999999 || n > 1.000001 {
				t.Fatalf("normal %q is not of unit length", l)
			}
		case len(f) == 4 && f[0] == "f":
			nf++
			for _, corner := range f[1:] {
				ids := strings.Split(corner, "/")
				if len(ids) != 3 || ids[0] != ids[2] {
					t.Fatalf("face corner %q does not use its vertex's normal", corner)
				}
			}
		}
	}
	if nv != 25 || nn != 25 || nf != 32 {
		t.Fatalf("cloth: %d vertices, %d normals, %d faces; want 25, 25, 32", nv, nn, nf)
	}
}

// checkProgressWithinStep: a phase whose first item takes more than a
// second (a one-step run: strain-limit with Jacobi took 12 s without a
// word) shows its bar with the elapsed time before the item is done, and
// a phase of unknown length (loading) its name and seconds.
func checkProgressWithinStep(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(1, "strain-limit", "steps", &syncWriter{w: &buf})
	time.Sleep(1600 * time.Millisecond)
	p.abort()
	if s := buf.String(); !strings.Contains(s, "strain-limit") || !strings.Contains(s, "0/1") || !strings.Contains(s, "[1s") {
		t.Errorf("after 1.6 s of one step: %q, want the bar at 0/1 with its elapsed time", s)
	}
	buf.Reset()
	p = newProgress(-1, "loading drape", "", &syncWriter{w: &buf})
	time.Sleep(1600 * time.Millisecond)
	p.finish()
	if s := buf.String(); !strings.Contains(s, "loading drape... 1 s") || !strings.HasSuffix(s, "\r") {
		t.Errorf("after 1.6 s of loading: %q, want its name and seconds, cleared at the end", s)
	}
}

// syncWriter serializes writes: the bar is drawn from its ticker goroutine.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// checkDefaultCommand: loom without arguments runs the drape scene to its
// end into out/drape and ends by saying what to do next.
func checkDefaultCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	out, err := runLoom(t)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, w := range []string{"drape: 1000 steps (5 s simulated)", "wrote 126 OBJ frames and stats.jsonl to out/drape\n", "next: loom view out/drape", "loom render out/drape", "loom scenes"} {
		if !strings.Contains(out, w) {
			t.Errorf("want %q in\n%s", w, out)
		}
	}
}

// checkReadme: the README a clone has links nothing outside the clone, says
// how long the first command takes, documents the maximum resolution and
// rod nodes the scene format allows (scenes/README.md too), and says which
// exit statuses loom has.
func checkReadme(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	sceneDoc, err := os.ReadFile(filepath.Join(root, "scenes", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"../shared", "/work/"} {
		if bytes.Contains(readme, []byte(w)) || bytes.Contains(sceneDoc, []byte(w)) {
			t.Errorf("a README refers to %s, which a clone does not have", w)
		}
	}
	for _, w := range []string{"The first time, `go run` also downloads loom's modules and compiles it", "exits 0", "exits 1", "exits 130"} {
		if !bytes.Contains(readme, []byte(w)) {
			t.Errorf("README.md does not say %q", w)
		}
	}
	for _, w := range []string{
		fmt.Sprintf("vertices along the longer side, 2..%d", scenes.MaxResolution),
		fmt.Sprintf("2..%d Lagrangian nodes", scenes.MaxRodNodes),
		fmt.Sprintf("must be at most %d (`scenes.MaxRemeshAsk`", scenes.MaxRemeshAsk),
	} {
		if !bytes.Contains(sceneDoc, []byte(w)) {
			t.Errorf("scenes/README.md does not document the limit: want %q", w)
		}
	}
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// loomBinary builds the loom binary once for the tests that run it as a
// process (exit statuses, signals).
func loomBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "loom-bin"); binErr != nil {
			return
		}
		var out []byte
		if out, binErr = exec.Command("go", "build", "-o", filepath.Join(binDir, "loom"), ".").CombinedOutput(); binErr != nil {
			binErr = fmt.Errorf("go build: %v\n%s", binErr, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return filepath.Join(binDir, "loom")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}
