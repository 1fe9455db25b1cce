package export

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readOBJ is a small independent OBJ reader: it returns object names, vertex
// positions and faces (1-based, as written).
func readOBJ(t *testing.T, path string) (objects []string, verts [][3]float64, faces [][3]int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		switch fs[0] {
		case "o":
			objects = append(objects, fs[1])
		case "v":
			var p [3]float64
			for k := range p {
				p[k], err = strconv.ParseFloat(fs[k+1], 64)
				if err != nil {
					t.Fatal(err)
				}
			}
			verts = append(verts, p)
		case "f":
			var q [3]int
			for k := range q {
				q[k], err = strconv.Atoi(strings.Split(fs[k+1], "/")[0])
				if err != nil {
					t.Fatal(err)
				}
			}
			faces = append(faces, q)
		}
	}
	return objects, verts, faces
}

func TestWriteOBJRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "frame_00000.obj")
	a := Mesh{Name: "a", Pos: [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0.125}}, UV: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Faces: [][3]int32{{0, 1, 2}}}
	b := Mesh{Name: "b", Pos: [][3]float64{{2, 0, 0}, {3, 0, 0}, {2, 1, -1e-9}}, Faces: [][3]int32{{0, 2, 1}}}
	if err := WriteOBJ(path, []Mesh{a, b}); err != nil {
		t.Fatal(err)
	}
	objs, verts, faces := readOBJ(t, path)
	if strings.Join(objs, ",") != "a,b" || len(verts) != 6 || len(faces) != 2 {
		t.Fatalf("objects %v, %d vertices, %d faces", objs, len(verts), len(faces))
	}
	if verts[2][2] != 0.125 || verts[5][2] != -1e-9 {
		t.Fatalf("coordinates not preserved: %v", verts)
	}
	if faces[1] != [3]int{4, 6, 5} {
		t.Fatalf("second object's face not offset: %v", faces[1])
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".frame-*")); len(m) != 0 {
		t.Fatalf("temporary files left behind: %v", m)
	}
}

func TestWriteOBJBadFaceKeepsOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.obj")
	good := Mesh{Name: "a", Pos: [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Faces: [][3]int32{{0, 1, 2}}}
	if err := WriteOBJ(path, []Mesh{good}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	bad := good
	bad.Faces = [][3]int32{{0, 1, 7}}
	if err := WriteOBJ(path, []Mesh{bad}); err == nil || !strings.Contains(err.Error(), "vertex 7") {
		t.Fatalf("want an error naming vertex 7, got %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("a failed write changed the existing file")
	}
}
