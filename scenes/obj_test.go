package scenes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loomsim/loom/export"
)

// TestReadOBJRoundTrip reads back what the (independent) frame writer
// writes: the positions to the writer's 9 significant digits, the same
// triangles.
func TestReadOBJRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := export.Mesh{Name: "box",
		Pos:   [][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0.1234567890123}, {0.5, 0.5, -1e-17}},
		UV:    [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5, 0.5}},
		Faces: [][3]int32{{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}}
	path := filepath.Join(dir, "m.obj")
	if err := export.WriteOBJ(path, []export.Mesh{in}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Pos) != len(in.Pos) || len(m.Faces) != len(in.Faces) {
		t.Fatalf("read %d vertices, %d faces; wrote %d, %d", len(m.Pos), len(m.Faces), len(in.Pos), len(in.Faces))
	}
	for i := range in.Pos {
		if d := dist(m.Pos[i], in.Pos[i]); d > 1e-9 {
			t.Errorf("vertex %d: %v, wrote %v", i, m.Pos[i], in.Pos[i])
		}
	}
	for i := range in.Faces {
		if m.Faces[i] != in.Faces[i] {
			t.Errorf("face %d: %v, wrote %v", i, m.Faces[i], in.Faces[i])
		}
	}
}

func TestParseOBJ(t *testing.T) {
	m, err := parseOBJ(strings.NewReader("# quad and a relative triangle\no a\nv 0 0 0\nv 1 0 0 1\nv 1 1 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1/1/1 2/1/1 3//1 4\nv 2 2 2\nf -1 -3 -2\nl 1 2\n"), MaxOBJVertices)
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]int32{{0, 1, 2}, {0, 2, 3}, {4, 2, 3}}
	if len(m.Faces) != len(want) {
		t.Fatalf("faces %v, want %v", m.Faces, want)
	}
	for i := range want {
		if m.Faces[i] != want[i] {
			t.Errorf("face %d: %v, want %v", i, m.Faces[i], want[i])
		}
	}
	for _, c := range []struct{ src, want string }{
		{"v 0 0\n", "1: a vertex wants 3 coordinates, got 2"},
		{"v 0 0 nan\n", "1: vertex coordinate \"nan\" is not a finite number"},
		{"v 0 0 0\nv 1 0 0\nf 1 2\n", "3: a face wants at least 3 corners"},
		{"v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 4\n", "4: face corner \"4\" refers to vertex 4 of 3"},
		{"v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 x\n", "4: face corner \"x\" is not a vertex index"},
		{"v 0 0 0\nv 1 0 0\nf 1 2 1\n", "3: face repeats a vertex"},
		{"v 0 0 0\n", "no faces"},
	} {
		if _, err := parseOBJ(strings.NewReader(c.src), MaxOBJVertices); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one containing %q", c.src, err, c.want)
		}
	}
	if _, err := ReadOBJ(filepath.Join(t.TempDir(), "missing.obj")); err == nil || !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}

func dist(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}
