package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func runLoom(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(args, &out, &errOut)
	return out.String() + errOut.String(), err
}

func TestRunWritesFramesAndStats(t *testing.T) {
	dir := t.TempDir()
	out, err := runLoom(t, "run", "sphere-drop", "--steps", "20", "--out", dir, "--workers", "2",
		"--set", "bodies.0.resolution=10", "--set", "fps=100")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, dir) {
		t.Errorf("output does not say where it wrote: %q", out)
	}
	frames, _ := filepath.Glob(filepath.Join(dir, "frame_*.obj"))
	if len(frames) != 11 { // frame 0, then every 2 steps
		t.Fatalf("%d frames, want 11: %v", len(frames), frames)
	}
	obj, err := os.ReadFile(frames[len(frames)-1])
	if err != nil {
		t.Fatal(err)
	}
	_, cloth, _ := strings.Cut(string(obj), "\no cloth\ng cloth\n")
	cloth, obstacles, _ := strings.Cut(cloth, "\no ")
	if strings.Count(cloth, "\nv ") != 99 || strings.Count(cloth, "\nvn ") != 100 || strings.Count(cloth, "\nf ") != 162 {
		t.Errorf("last frame is not a 10x10 sheet named cloth")
	}
	// then the obstacles: the sphere and the ground plane
	if !strings.HasPrefix(obstacles, "ball\ng obstacle\n") || !strings.Contains(obstacles, "\no ground\ng obstacle\n") {
		t.Errorf("last frame lacks the obstacles: %.200s", obstacles)
	}
	f, err := os.Open(filepath.Join(dir, "stats.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	lines := 0
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("stats line %d: %v", lines, err)
		}
		for _, k := range []string{"step", "time", "vertices", "faces", "kinetic_energy", "potential_energy", "max_strain", "max_penetration", "ms"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("stats line %d lacks %q: %s", lines, k, sc.Text())
			}
		}
		if lines > 0 {
			ms := rec["ms"].(map[string]any)
			if _, ok := ms["implicit-solve"]; !ok {
				t.Fatalf("ms lacks implicit-solve: %v", ms)
			}
		}
		lines++
	}
	if lines != 11 {
		t.Fatalf("%d stats lines, want 11", lines)
	}
}

func TestRunErrorsNameTheProblem(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"name": "x", "bodys": []}`), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "no-such-scene"}, "no-such-scene"},
		{[]string{"run", bad}, "bodys"},
		{[]string{"run", "drape", "--set", "bodies.0.resolution=-3"}, "bodies[0].resolution"},
		{[]string{"run", "drape", "--set", "bodies.0.colour=red"}, "colour"},
		{[]string{"run", "drape", "--steps", "3", "--duration", "1"}, "not both"},
		{[]string{"frobnicate"}, "unknown command"},
	}
	for _, c := range cases {
		out, err := runLoom(t, append(c.args, "--out", filepath.Join(dir, "o"))...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("loom %v: want an error mentioning %q, got %v\n%s", c.args, c.want, err, out)
		}
	}
}

// TestFailedRunKeepsFrames makes the solver fail at the first step (one
// block-Jacobi PCG iteration allowed; on this 64-vertex sheet the AMG
// preconditioner is a direct solve) and checks that the error names the system and step and
// that the frame written before the failure is complete.
func TestFailedRunKeepsFrames(t *testing.T) {
	dir := t.TempDir()
	_, err := runLoom(t, "run", "drape", "--steps", "5", "--out", dir, "--set", "bodies.0.resolution=8", "--set", "solver.max_iterations=1", "--set", "solver.preconditioner=block-jacobi")
	if err == nil || !strings.Contains(err.Error(), "implicit-solve") || !strings.Contains(err.Error(), "step 0") {
		t.Fatalf("want an implicit-solve error at step 0, got %v", err)
	}
	obj, err := os.ReadFile(filepath.Join(dir, "frame_00000.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(obj), "\nv ") != 64 || strings.Count(string(obj), "\nf ") != 98 {
		t.Fatal("frame 0 is incomplete")
	}
}

func TestScenesLists(t *testing.T) {
	out, err := runLoom(t, "scenes")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"drape", "sphere-drop", "box-edge"} {
		if !strings.Contains(out, name) {
			t.Errorf("loom scenes does not list %s:\n%s", name, out)
		}
	}
}

// TestBenchFabricWorkers: --fabric-workers gives the fabric table's rows,
// one per worker count, and a list that is not of worker counts is an error.
func TestBenchFabricWorkers(t *testing.T) {
	out, err := runLoom(t, "bench", "--fabric-cases", "incline", "--fabric-steps", "1", "--fabric-workers", "3,1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "incline" {
			rows = append(rows, f[1])
		}
	}
	if !slices.Equal(rows, []string{"3", "1"}) {
		t.Errorf("rows' workers %v, want [3 1]:\n%s", rows, out)
	}
	for _, bad := range []string{"1,x", "0", "2,,4"} {
		if _, err := runLoom(t, "bench", "--fabric-cases", "incline", "--fabric-workers", bad); err == nil || !strings.Contains(err.Error(), "--fabric-workers") {
			t.Errorf("--fabric-workers %q: %v", bad, err)
		}
	}
}

// TestBenchEOLCases: --eol-cases runs only the named EOL cases, --repeat
// times each, and prints their table with the range of the runs; an unknown
// case or a repeat below 1 is an error.
func TestBenchEOLCases(t *testing.T) {
	out, err := runLoom(t, "bench", "--eol-cases", "lo-res-reg", "--repeat", "2", "--steps", "10")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "min-max of 2") || !strings.Contains(out, "\nlo-res-reg ") || strings.Contains(out, "edge-eol") || strings.Contains(out, "scene ") {
		t.Errorf("unexpected table:\n%s", out)
	}
	if out, err := runLoom(t, "bench", "--eol-cases", "edge-nope"); err == nil || !strings.Contains(out+err.Error(), `no EOL case "edge-nope"`) {
		t.Errorf("unknown case: %v\n%s", err, out)
	}
	if _, err := runLoom(t, "bench", "--eol-cases", "lo-res-reg", "--repeat", "0"); err == nil || !strings.Contains(err.Error(), "--repeat") {
		t.Errorf("repeat 0: %v", err)
	}
}
