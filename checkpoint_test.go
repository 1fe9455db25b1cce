package loom

import (
	"bytes"
	"encoding/json"
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

// coordinates returns every cloth vertex's and rod node's coordinates and
// velocity components, and every triangle's vertex indices, of s.
func coordinates(s *Sim) []float64 {
	var out []float64
	for i := range s.sim.Bodies {
		for _, x := range s.acc.AppendPositions(i, nil) {
			out = append(out, x[:]...)
		}
		for _, v := range s.acc.AppendVelocities(i, nil) {
			out = append(out, v[:]...)
		}
		for _, f := range s.sim.Bodies[i].Faces {
			out = append(out, float64(f[0]), float64(f[1]), float64(f[2]))
		}
	}
	if r := s.sim.Rods; r != nil {
		for k := range r.Step.X {
			out = append(out, r.Step.X[k][:]...)
			out = append(out, r.Step.V[k][:]...)
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
// resumed Sim on another worker count) and compares every coordinate and
// velocity bit for bit, and the triangles. Resume must run no step: every
// system's time is zero after it.
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
	for _, tm := range resumed.sim.Scheduler.Timings() {
		if tm.Elapsed != 0 {
			t.Fatalf("system %s ran in Resume", tm.System)
		}
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

// TestRestartBitwise: 200 steps straight and 100 + Save + Resume + 100
// agree in every bit through checkpoint files, on a Lagrangian scene and on
// the driven cape (poses set every step, an obstacle added and removed,
// vertices attached, one pinned and one unpinned). The other kinds of scene
// (adaptive, EOL, rods with yarn contacts, self-contact, developable) are
// systems' TestStateImageBitwise, on the same state images without the
// file; LOOM_LONG_TESTS adds them here.
func TestRestartBitwise(t *testing.T) {
	cases := []struct {
		name string
		load func(Options) *Sim
		n    int
		in   drive
	}{
		{"lagrangian drape", builtin(t, "drape", "bodies.0.resolution=10"), 200, nil},
		{"driven cape", func(opt Options) *Sim {
			s, err := LoadScene(CapeScene(8), opt)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}, 200, capeInputs},
	}
	if os.Getenv("LOOM_LONG_TESTS") != "" {
		cases = append(cases, []struct {
			name string
			load func(Options) *Sim
			n    int
			in   drive
		}{
			{"adaptive sphere", builtin(t, "sphere"), 200, nil},
			{"eol edge", builtin(t, "edge"), 200, nil},
			{"rod rod-crossing", builtin(t, "rod-crossing"), 200, nil},
			{"developable paper-drape", builtin(t, "paper-drape"), 200, nil},
		}...)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkRestart(t, c.load, c.n, c.in) })
	}
}

// capeInputs drives the cape scene: its collar attached at the start, the
// character walking, a ball thrown in at step 40 and taken out at 150,
// vertex 0 pinned at 60, one collar vertex let go at 120.
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
	case 60:
		err = s.Pin(b, 0)
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

// TestBadCheckpoint: a file that is not a checkpoint, files cut at any
// point (in the header, in the image, in the checksum line), corrupted ones
// (a flipped bit in the header or the image, bytes appended), an old format
// version (1, the replay records), a newer one, one written on another
// architecture and one whose image another build of loom wrote (checksums
// valid) are errors saying so, and never a panic.
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
	body := data[len(checkpointMagic):]
	nl := bytes.IndexByte(body, '\n')
	head, image := body[:nl], body[nl+1:len(body)-len("\ncrc32 01234567\n")]
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	flip := func(b []byte, i int) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= 0x04
		return c
	}
	var h checkpointHead
	if err := json.Unmarshal(head, &h); err != nil {
		t.Fatal(err)
	}
	withHead := func(change func(*checkpointHead)) []byte {
		c := h
		change(&c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return frame(b, image)
	}
	hashFlipped := flip(image, len(image)-1) // the image's type hash
	v1 := checkpointMagic + `{"version":1,"scene":{},"steps":3,"inputs":[],"state":"0"}`
	v1 += "\ncrc32 " + crcHex([]byte(v1[len(checkpointMagic):])) + "\n"
	cases := []struct {
		name, path, want string
	}{
		{"not a checkpoint", write("scene.json", []byte(`{"name": "x"}`)), "not a loom checkpoint"},
		{"empty", write("empty.loom", nil), "not a loom checkpoint"},
		{"missing", filepath.Join(dir, "none.loom"), "no such file"},
		{"cut after the magic line", write("cut0.loom", data[:len(checkpointMagic)]), "truncated"},
		{"cut in the header", write("cut1.loom", data[:len(checkpointMagic)+nl/2]), "truncated"},
		{"cut in the image", write("cut2.loom", data[:len(checkpointMagic)+nl+1+len(image)/2]), "truncated"},
		{"cut in the checksum", write("cut3.loom", data[:len(data)-3]), "truncated"},
		{"a bit flipped in the image", write("flip1.loom", flip(data, len(checkpointMagic)+nl+1+len(image)/3)), "corrupted"},
		{"a bit flipped in the header", write("flip2.loom", flip(data, len(checkpointMagic)+nl-3)), "corrupted"},
		{"bytes appended", write("long.loom", append(append([]byte(nil), data...), "more\n"...)), "written to after its end"},
		{"version 1", write("v1.loom", []byte(v1)), "format version 1; this loom reads version 2"},
		{"version 3", write("v3.loom", withHead(func(c *checkpointHead) { c.Version = 3 })), "format version 3; this loom reads version 2"},
		{"another architecture", write("arch.loom", withHead(func(c *checkpointHead) { c.Arch = "s390x" })), "written on s390x"},
		{"another build", write("build.loom", frame(head, hashFlipped)), "other state types"},
		{"header and image disagree", write("step.loom", withHead(func(c *checkpointHead) { c.Step = 4 })), "the header says 4"},
	}
	for _, c := range cases {
		_, err := Resume(c.path, Options{Workers: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error saying %q", c.name, err, c.want)
		}
	}
	// A valid checkpoint resumes.
	r, err := Resume(good, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}

// frame makes a checkpoint file of header line head and image.
func frame(head, image []byte) []byte {
	rec := append(append(append([]byte(nil), head...), '\n'), image...)
	return []byte(checkpointMagic + string(rec) + "\ncrc32 " + crcHex(rec) + "\n")
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
