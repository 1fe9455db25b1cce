package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loomsim/loom/export"
	"github.com/loomsim/loom/scenes"
)

// snapshot returns every file under dir with its contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		out[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkNeverDeletesForeignFiles: loom run refuses a non-empty folder;
// with --overwrite it removes only what an earlier run listed in its
// manifest (frames of a longer earlier run, a temporary a killed run left),
// refuses to replace a file it did not write, and leaves every other file as
// it was, byte for byte.
func checkNeverDeletesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	foreign := map[string]string{
		"frame_99999.obj":        "# not loom's\n",
		"frame_final_render.obj": "# a user's render\n",
		"notes.txt":              "keep me\n",
		".hidden":                "x",
		"sub/stats.jsonl":        "{}\n",
	}
	for name, body := range foreign {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, dir)
	args := func(steps string, extra ...string) []string {
		return append([]string{"run", "sphere-drop", "--steps", steps, "--out", dir, "--set", "bodies.0.resolution=6", "--set", "fps=100"}, extra...)
	}
	if out, err := runLoom(t, args("4")...); err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("run into a non-empty folder: want a refusal naming --overwrite, got %v\n%s", err, out)
	}
	if after := snapshot(t, dir); !equalMaps(before, after) {
		t.Fatalf("a refused run changed the folder")
	}
	// First run (with --overwrite, since the folder is not empty): 11 frames.
	if out, err := runLoom(t, args("20", "--overwrite")...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// A crash during a frame write leaves its temporary.
	tmp := filepath.Join(dir, ".frame_00003.obj.tmp")
	os.WriteFile(tmp, []byte("partial"), 0o644)
	// Second run: 3 frames; the first run's 11 frames, its stats and the
	// temporary go, the foreign files stay.
	if out, err := runLoom(t, args("4", "--overwrite")...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	after := snapshot(t, dir)
	for p, body := range before {
		if after[p] != body {
			t.Errorf("%s changed or went (was %q, now %q)", p, body, after[p])
		}
	}
	var ours []string
	for p := range after {
		if _, ok := before[p]; !ok {
			ours = append(ours, filepath.Base(p))
		}
	}
	sort.Strings(ours)
	want := []string{"frame_00000.obj", "frame_00001.obj", "frame_00002.obj", export.ManifestName, "stats.jsonl"}
	if strings.Join(ours, " ") != strings.Join(want, " ") {
		t.Errorf("files loom left: %v, want %v", ours, want)
	}
	// A file of a name loom would write, but not loom's, is never replaced.
	os.Remove(filepath.Join(dir, "frame_00002.obj"))                                                            // loom's own
	os.WriteFile(filepath.Join(dir, export.ManifestName), []byte(export.ManifestName+"\nstats.jsonl\n"), 0o644) // frames not listed
	os.WriteFile(filepath.Join(dir, "frame_00000.obj"), []byte("mine"), 0o644)
	if out, err := runLoom(t, args("4", "--overwrite")...); err == nil || !strings.Contains(err.Error(), "frame_00000.obj exists and loom did not write it") {
		t.Fatalf("want a refusal to replace frame_00000.obj, got %v\n%s", err, out)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "frame_00000.obj")); string(data) != "mine" {
		t.Fatal("loom replaced a file it did not write")
	}
	// A manifest naming a path outside the folder is not loom's: nothing is removed.
	os.WriteFile(filepath.Join(dir, export.ManifestName), []byte("../x\nnotes.txt\n"), 0o644)
	if _, err := runLoom(t, args("4", "--overwrite")...); err == nil || !strings.Contains(err.Error(), "not a file name in the folder") {
		t.Fatalf("want a refusal of a bad manifest, got %v", err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(data) != "keep me\n" {
		t.Fatal("a bad manifest made loom delete a file")
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// checkFileModes: loom's files are created with mode 0666 less the umask
// (0644 under umask 022), not 0600.
func checkFileModes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := runLoom(t, "run", "sphere-drop", "--steps", "2", "--out", dir, "--set", "bodies.0.resolution=6", "--format", "obj,gltf", "--render"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) < 6 {
		t.Fatalf("only %d files", len(entries))
	}
	for _, e := range entries {
		info, _ := e.Info()
		if info.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v, want -rw-r--r--", e.Name(), info.Mode().Perm())
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary %s left", e.Name())
		}
	}
}

// checkDefaultOutFolderIsFresh: without --out, runs of a scene go to
// out/SCENE, out/SCENE-2, ... and never into a folder that has files.
func checkDefaultOutFolderIsFresh(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, want := range []string{"out/sphere-drop", "out/sphere-drop-2", "out/sphere-drop-3"} {
		out, err := runLoom(t, "run", "sphere-drop", "--steps", "1", "--set", "bodies.0.resolution=4")
		if err != nil || !strings.Contains(out, "to "+want+"\n") {
			t.Fatalf("want a run into %s, got %v\n%s", want, err, out)
		}
	}
}

// checkWorkersValidation: --workers and LOOM_WORKERS are checked alike.
func checkWorkersValidation(t *testing.T) {
	for _, c := range []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"--workers", "-1"}, "--workers=-1: the worker count must be from 1 to 1024"},
		{"", []string{"--workers", "0"}, "--workers=0: the worker count must be from 1 to 1024"},
		{"", []string{"--workers", "100000000"}, "--workers=100000000: the worker count must be from 1 to 1024"},
		{"-1", nil, "LOOM_WORKERS=-1: the worker count must be from 1 to 1024"},
		{"100000000", nil, "LOOM_WORKERS=100000000: the worker count must be from 1 to 1024"},
		{"two", nil, `LOOM_WORKERS="two"`},
	} {
		t.Setenv("LOOM_WORKERS", c.env)
		for _, cmd := range [][]string{{"run", "drape", "--steps", "1", "--out", t.TempDir()}, {"bench", "--eol-cases", "lo-res-reg"}} {
			_, err := runLoom(t, append(cmd, c.args...)...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("LOOM_WORKERS=%q loom %v %v: want %q, got %v", c.env, cmd[0], c.args, c.want, err)
			}
		}
	}
}

// checkHelpAndVersion: --help exits 0 (the binary, not only run()), and
// loom version prints a version line.
func checkHelpAndVersion(t *testing.T) {
	bin := loomBinary(t)
	for _, args := range [][]string{{"--help"}, {"help"}, {"run", "--help"}, {"render", "--help"}, {"export", "-h"}, {"bench", "--help"}, {"version"}} {
		var out bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Errorf("loom %v: %v\n%s", args, err, out.String())
		}
		if out.Len() == 0 {
			t.Errorf("loom %v printed nothing", args)
		}
	}
	var stderr bytes.Buffer
	bad := exec.Command(bin, "run", "no-such-scene")
	bad.Stderr = &stderr
	if err := bad.Run(); err == nil || bad.ProcessState.ExitCode() != 1 || !strings.HasPrefix(stderr.String(), "loom: ") {
		t.Errorf("loom run no-such-scene: %v, exit %d, stderr %q; want exit 1 and the error on stderr", err, bad.ProcessState.ExitCode(), stderr.String())
	}
	out, _ := exec.Command(bin, "version").Output()
	if !strings.HasPrefix(string(out), "loom ") || !strings.Contains(string(out), "go1.") {
		t.Errorf("loom version: %q", out)
	}
	help, _ := exec.Command(bin, "--help").Output()
	if !strings.Contains(string(help), "never deletes or replaces a\n") && !strings.Contains(string(help), "never deletes") {
		t.Errorf("--help does not say loom never deletes files it did not write:\n%s", help)
	}
}

// checkStatsSchemaStable: every record of every kind of scene has the same
// keys (eil_nodes, step_halvings, newton_iterations among them), time is
// step x dt exactly, a swinging rod has elastic energy and strain, and
// README.md documents every key.
func checkStatsSchemaStable(t *testing.T) {
	var keys string
	for _, c := range [][]string{
		{"sphere-drop", "--set", "bodies.0.resolution=6"},
		{"sphere"},
		{"rod-hang"},
		{"lo-res"},
		{"flag"},
	} {
		dir := t.TempDir()
		if out, err := runLoom(t, append([]string{"run", c[0], "--steps", "6", "--out", dir, "--format", "obj"}, c[1:]...)...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		sc, err := scenes.Resolve(c[0])
		if err != nil {
			t.Fatal(err)
		}
		m, err := sc.Model()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(filepath.Join(dir, "stats.jsonl"))
		for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var rec map[string]json.RawMessage
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
			var ks []string
			for k := range rec {
				if k != "ms" {
					ks = append(ks, k)
				}
			}
			sort.Strings(ks)
			for _, k := range []string{"eil_nodes", "step_halvings", "newton_iterations", "edge_size_min", "elastic_energy", "max_strain", "time"} {
				if _, ok := rec[k]; !ok {
					t.Fatalf("%s record %d lacks %s", c[0], i, k)
				}
			}
			if keys == "" {
				keys = strings.Join(ks, ",")
			} else if strings.Join(ks, ",") != keys {
				t.Fatalf("%s record %d has keys %v, want %s", c[0], i, ks, keys)
			}
			var r struct {
				Step    int     `json:"step"`
				Time    float64 `json:"time"`
				Elastic float64 `json:"elastic_energy"`
				Strain  float64 `json:"max_strain"`
			}
			json.Unmarshal([]byte(line), &r)
			if c[0] == "rod-hang" && i > 0 && !(r.Elastic > 0 && r.Strain > 0) {
				t.Errorf("rod-hang record %d: elastic_energy %v, max_strain %v: a swinging yarn stretches and bends", i, r.Elastic, r.Strain)
			}
			if r.Time != float64(r.Step)*m.Dt {
				t.Errorf("%s record %d: time %v, want step %d x dt %v = %v", c[0], i, r.Time, r.Step, m.Dt, float64(r.Step)*m.Dt)
			}
		}
	}
	// README's Outputs documents every field.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := strings.Cut(string(readme), "- `stats.jsonl`:")
	doc, _, _ = strings.Cut(doc, "\n- `")
	for _, k := range append(strings.Split(keys, ","), "ms") {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("README's stats.jsonl entry does not document %s", k)
		}
	}
}

// checkObstaclesMoveInFrames: a sphere moved by a linear motion is written
// in every frame at its scripted place: its vertices' mean (the
// tessellation is symmetric about the centre) is the centre plus the
// offset at the frame's time, and each vertex is at the radius from it.
func checkObstaclesMoveInFrames(t *testing.T) {
	dir := t.TempDir()
	if out, err := runLoom(t, "run", "sphere-drop", "--steps", "10", "--set", "fps=100", "--set", "bodies.0.resolution=6", "--out", dir,
		"--set", `obstacles.0.motion={"interpolation":"linear","keyframes":[{"t":0,"offset":[0,0,0]},{"t":1,"offset":[1,2,0]}]}`); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	frames, err := export.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 6 {
		t.Fatalf("%d frames", len(frames))
	}
	for k, f := range frames {
		var ball *export.Mesh
		for i := range f.Meshes {
			if f.Meshes[i].Name == "ball" && f.Meshes[i].Role == export.RoleObstacle {
				ball = &f.Meshes[i]
			}
		}
		if ball == nil {
			t.Fatalf("frame %d has no ball", k)
		}
		want := [3]float64{f.Time, 2 * f.Time, 0.25}
		var mean [3]float64
		for _, p := range ball.Pos {
			for c := range 3 {
				mean[c] += p[c] / float64(len(ball.Pos))
			}
			if r := math.Hypot(math.Hypot(p[0]-want[0], p[1]-want[1]), p[2]-want[2]); math.Abs(r-0.25) > 1e-8 {
				t.Fatalf("frame %d: ball vertex %v at %g from the centre, want 0.25", k, p, r)
			}
		}
		for c := range 3 {
			if math.Abs(mean[c]-want[c]) > 1e-8 {
				t.Fatalf("frame %d (t = %g): ball centre %v, want %v", k, f.Time, mean, want)
			}
		}
	}
}

// checkInterruptExits130: SIGINT stops a run between steps with exit status
// 130, a message saying which frames are complete, no temporaries left, and
// every frame in the folder complete (it reads back).
func checkInterruptExits130(t *testing.T) {
	bin := loomBinary(t)
	dir := filepath.Join(t.TempDir(), "run")
	cmd := exec.Command(bin, "run", "drape", "--out", dir, "--set", "bodies.0.resolution=30")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ { // wait for a few frames
		if _, err := os.Stat(filepath.Join(dir, "frame_00003.obj")); err == nil {
			break
		}
		if i > 600 {
			cmd.Process.Kill()
			t.Fatalf("no frame 3 after 60 s:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("exit %v, want status 130\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "interrupted at step") || !strings.Contains(out.String(), "are complete") {
		t.Errorf("message: %s", out.String())
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) != 0 {
		t.Errorf("temporaries left: %v", tmp)
	}
	if _, err := export.ReadRun(dir); err != nil {
		t.Errorf("frames after the interrupt: %v", err)
	}
}
