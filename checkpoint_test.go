package loom

import (
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// coordinates returns every cloth vertex and rod node coordinate of s.
func coordinates(s *Sim) []float64 {
	var out []float64
	for i := range s.sim.Bodies {
		for _, x := range s.acc.AppendPositions(i, nil) {
			out = append(out, x[:]...)
		}
	}
	if r := s.sim.Rods; r != nil {
		for _, x := range r.Step.X {
			out = append(out, x[:]...)
		}
	}
	return out
}

// drive is a game loop's input before step i (nil: none).
type drive func(t *testing.T, s *Sim, i int)

// runSteps steps s from its current step to step n, calling in before each.
func runSteps(t *testing.T, s *Sim, n int, in drive) {
	t.Helper()
	for i := s.Stats().Step; i < n; i++ {
		if in != nil {
			in(t, s, i)
		}
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkRestart runs n steps straight and n/2 + Save + Resume + n/2 (the
// resumed Sim on another worker count) and compares every coordinate bit
// for bit.
func checkRestart(t *testing.T, load func(Options) *Sim, n int, in drive) {
	straight := load(Options{Workers: 2})
	defer straight.Close()
	top0 := straight.sim.World.TopologyVersion()
	runSteps(t, straight, n, in)
	want := coordinates(straight)
	t.Logf("%d coordinates, topology version %d -> %d, %d vertices", len(want), top0, straight.sim.World.TopologyVersion(), straight.Stats().Vertices)

	first := load(Options{Workers: 2})
	runSteps(t, first, n/2, in)
	path := filepath.Join(t.TempDir(), "run.loom")
	if err := first.Save(path); err != nil {
		t.Fatal(err)
	}
	first.Close()
	resumed, err := Resume(path, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	if resumed.Stats().Step != n/2 {
		t.Fatalf("resumed at step %d, want %d", resumed.Stats().Step, n/2)
	}
	runSteps(t, resumed, n, in)
	got := coordinates(resumed)
	if len(got) != len(want) {
		t.Fatalf("%d coordinates after restart, %d straight", len(got), len(want))
	}
	for k := range want {
		if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
			t.Fatalf("coordinate %d: %v after restart, %v straight", k, got[k], want[k])
		}
	}
}

func builtin(t *testing.T, name string, sets ...string) func(Options) *Sim {
	return func(opt Options) *Sim {
		sc, err := scenes.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, kv := range sets {
			k, v, _ := strings.Cut(kv, "=")
			if err := sc.Set(k, v); err != nil {
				t.Fatal(err)
			}
		}
		s, err := LoadScene(sc, opt)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

// TestRestartBitwise: 200 steps straight and 100 + save + resume + 100
// agree in every bit on a Lagrangian, an adaptive (remeshing), an EOL and
// a rod scene, and on the driven cape (poses every step, an obstacle added
// and removed, vertices attached and unpinned). The adaptive scene runs 60
// steps on a coarser mesh (7 remeshing passes) unless LOOM_LONG_TESTS is
// set (then 200 at the scene's resolution, about a minute).
func TestRestartBitwise(t *testing.T) {
	adaptive := builtin(t, "sphere", "bodies.0.remesh.size_min=0.06")
	adaptiveSteps := 60
	if os.Getenv("LOOM_LONG_TESTS") != "" {
		adaptive, adaptiveSteps = builtin(t, "sphere"), 200
	}
	cases := []struct {
		name string
		load func(Options) *Sim
		n    int
		in   drive
	}{
		{"lagrangian drape", builtin(t, "drape", "bodies.0.resolution=10"), 200, nil},
		{"adaptive sphere", adaptive, adaptiveSteps, nil},
		{"eol lo-res", builtin(t, "lo-res"), 200, nil},
		{"rod rod-hang", builtin(t, "rod-hang"), 200, nil},
		{"driven cape", func(opt Options) *Sim {
			s, err := LoadScene(CapeScene(8), opt)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, 200, capeInputs},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRestart(t, c.load, c.n, c.in) })
	}
}

// capeInputs drives the cape scene: its collar attached at the start, the
// character walking, a ball thrown in at step 40 and taken out at 150,
// one collar vertex let go at 120.
func capeInputs(t *testing.T, s *Sim, i int) {
	b, _ := s.Body("cape")
	ch, _ := s.Obstacle("character")
	var err error
	switch i {
	case 0:
		for _, v := range topRow(t, s, b) {
			if err = s.Attach(b, v, ch); err != nil {
				break
			}
		}
	case 40:
		_, err = s.AddObstacle(scenes.Obstacle{Name: "ball", Type: scenes.Sphere, Center: [3]float64{0.3, 0.5, 1}, Radius: 0.1})
	case 120:
		err = s.Unpin(b, topRow(t, s, b)[0])
	case 150:
		ball, _ := s.Obstacle("ball")
		err = s.RemoveObstacle(ball)
	}
	if err != nil {
		t.Fatal(err)
	}
	p, q := walk(i+1, s.Dt())
	if err := s.SetObstaclePose(ch, p, q); err != nil {
		t.Fatal(err)
	}
	if i%3 == 0 {
		ball, err := s.Obstacle("ball")
		if err == nil {
			err = s.SetObstacleVelocity(ball, [3]float64{0, 0.5, -0.2}, [3]float64{1, 0, 0})
		}
		if err != nil && !errors.Is(err, ErrInvalidValue) {
			t.Fatal(err)
		}
	}
}

// TestBadCheckpoint: a file that is not a checkpoint, a truncated one, a
// corrupted one and one of another format version are errors saying so;
// so is saving a driven run that was not recorded.
func TestBadCheckpoint(t *testing.T) {
	dir := t.TempDir()
	s := builtin(t, "drape", "bodies.0.resolution=6")(Options{Workers: 1})
	defer s.Close()
	runSteps(t, s, 3, nil)
	good := filepath.Join(dir, "good.loom")
	if err := s.Save(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)/2] ^= 0x04
	old := strings.Replace(string(data), `"version":1`, `"version":0`, 1)
	// The version check comes after the checksum: give the old file a
	// valid one.
	cases := map[string]struct {
		path, want string
	}{
		"not a checkpoint": {write("scene.json", []byte(`{"name": "x"}`)), "not a loom checkpoint"},
		"empty":            {write("empty.loom", nil), "not a loom checkpoint"},
		"truncated":        {write("cut.loom", data[:len(data)*2/3]), "truncated"},
		"corrupted":        {write("flip.loom", flipped), "corrupted"},
		"old version":      {write("old.loom", []byte(resum(old))), "format version 0; this loom reads version 1"},
		"missing":          {filepath.Join(dir, "none.loom"), "no such file"},
	}
	for name, c := range cases {
		_, err := Resume(c.path, Options{Workers: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", name, err, c.want)
		}
	}
	// A driven run without Options.Record cannot be saved.
	ch, _ := s.Obstacle("ground")
	if ch == 0 {
		b, _ := s.Body("cloth")
		if err := s.Pin(b, 0); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Save(filepath.Join(dir, "driven.loom")); !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "Record") {
		t.Errorf("saving an unrecorded driven run: %v", err)
	}
}

// resum recomputes the checksum line of checkpoint text c.
func resum(c string) string {
	body := strings.TrimPrefix(c, checkpointMagic)
	i := strings.LastIndex(body, "\ncrc32 ")
	rec := body[:i]
	return checkpointMagic + rec + "\n" + "crc32 " + crcHex([]byte(rec)) + "\n"
}

func crcHex(b []byte) string { return fmt.Sprintf("%08x", crc32.ChecksumIEEE(b)) }

// TestCheckpointKeepsAssets: a scene whose mesh obstacle reads OBJ files
// (dress: built in, with embedded files, and from its file in scenes/, with
// files beside it) loads through LoadScene, saves and resumes: the copies
// made through the scene's JSON still find the files.
func TestCheckpointKeepsAssets(t *testing.T) {
	builtin, err := scenes.Builtin("dress")
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := scenes.Load(filepath.Join("scenes", "dress.json"))
	if err != nil {
		t.Fatal(err)
	}
	for name, sc := range map[string]*scenes.Scene{"builtin": builtin, "file": fromFile} {
		s, err := LoadScene(sc, Options{Workers: 1})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := s.Step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := filepath.Join(t.TempDir(), "ck.loom")
		if err := s.Save(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s.Close()
		r, err := Resume(path, Options{Workers: 1})
		if err != nil {
			t.Fatalf("%s: resume: %v", name, err)
		}
		r.Close()
	}
}
