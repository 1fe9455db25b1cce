package loom

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// size bounds the work a scene asks for: grid vertices (resolution squared
// bounds a sheet's) plus rod nodes.
func size(sc *scenes.Scene) int {
	n := 0
	for _, b := range sc.Bodies {
		n += b.Resolution * b.Resolution
	}
	if sc.Rods != nil {
		for _, st := range sc.Rods.Strands {
			n += st.Nodes
		}
	}
	return n
}

// FuzzLoad feeds the scene loader arbitrary bytes, seeded with the built-in
// scenes: loading must end in a Sim or an error, never a panic or a hang,
// and a small scene that loads must take two steps (or fail with an error)
// and fill its buffers. Run it with
//
//	go test -run '^$' -fuzz FuzzLoad -fuzztime 10m .
//
// Crashers it finds are kept in testdata/fuzz/FuzzLoad and run by go test.
func FuzzLoad(f *testing.F) {
	seeds, _ := filepath.Glob("scenes/*.json")
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"name": "x", "dt": 0.01, "duration": 1, "fps": 10, "bodies": [{"name": "c", "size": [1, 1], "resolution": 2}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenes.Parse(data, "fuzz")
		if err != nil || size(sc) > 400 {
			return // invalid (LoadBytes returns the same error), or too big to step quickly
		}
		s, err := LoadBytes(data, Options{Workers: 1})
		if err != nil {
			return
		}
		defer s.Close()
		for range 2 {
			if s.Step() != nil {
				return
			}
		}
		for _, b := range s.Bodies() {
			n, _ := s.VertexCount(b)
			nt, _ := s.TriangleCount(b)
			if _, err := s.Positions(b, make([]float32, 3*n)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Normals(b, make([]float32, 3*n)); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Triangles(b, make([]uint32, 3*nt)); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestFuzzSlowEOL steps the slowest input FuzzLoad found (its fuzzing run
// stopped on it as a hang after 1.7M executions): a 3x3 EOL sheet with
// dt = 0.5 s, remeshed every step down to 0.02 m (988 vertices after one
// pass), whose QP takes about 12 s per step on 2 cores. Long form only.
func TestFuzzSlowEOL(t *testing.T) {
	if os.Getenv("LOOM_LONG_TESTS") == "" {
		t.Skip("about 30 s; set LOOM_LONG_TESTS=1")
	}
	s, err := Load(filepath.Join("testdata", "fuzz-slow-eol.json"), Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for range 2 {
		if err := s.Step(); err != nil {
			t.Fatal(err)
		}
	}
}
