package export

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// readOBJ is a small independent OBJ reader: it returns object names, vertex
// positions, faces and polylines (1-based, as written).
func readOBJ(t *testing.T, path string) (objects []string, verts [][3]float64, faces [][3]int, lines [][]int) {
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
		case "l":
			var l []int
			for _, f := range fs[1:] {
				i, err := strconv.Atoi(strings.Split(f, "/")[0])
				if err != nil {
					t.Fatal(err)
				}
				l = append(l, i)
			}
			lines = append(lines, l)
		}
	}
	return objects, verts, faces, lines
}

func TestWriteOBJRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "frame_00000.obj")
	a := Mesh{Name: "a", Pos: [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0.125}}, UV: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Faces: [][3]int32{{0, 1, 2}}}
	b := Mesh{Name: "b", Pos: [][3]float64{{2, 0, 0}, {3, 0, 0}, {2, 1, -1e-9}}, Faces: [][3]int32{{0, 2, 1}}}
	if err := WriteOBJ(path, []Mesh{a, b}); err != nil {
		t.Fatal(err)
	}
	objs, verts, faces, lines := readOBJ(t, path)
	if strings.Join(objs, ",") != "a,b" || len(verts) != 6 || len(faces) != 2 || len(lines) != 0 {
		t.Fatalf("objects %v, %d vertices, %d faces", objs, len(verts), len(faces))
	}
	if verts[2][2] != 0.125 || verts[5][2] != -1e-9 {
		t.Fatalf("coordinates not preserved: %v", verts)
	}
	if faces[1] != [3]int{4, 6, 5} {
		t.Fatalf("second object's face not offset: %v", faces[1])
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) != 0 {
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

func TestWriteOBJLines(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "rods.obj")
	cloth := Mesh{Name: "cloth", Pos: [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, UV: [][2]float64{{0, 0}, {1, 0}, {0, 1}}, Faces: [][3]int32{{0, 1, 2}}}
	rod := Mesh{Name: "rod", Pos: [][3]float64{{0, 0, 1}, {0.25, 0, 1}, {0.5, 0, 1}, {0.75, 0, 0.5}}, Lines: [][]int32{{0, 1, 2, 3}}}
	both := Mesh{Name: "both", Pos: [][3]float64{{0, 0, 2}, {1, 0, 2}, {0, 1, 2}}, Faces: [][3]int32{{0, 1, 2}}, Lines: [][]int32{{2, 0}, {0, 1, 2}}}
	if err := WriteOBJ(path, []Mesh{cloth, rod, both}); err != nil {
		t.Fatal(err)
	}
	objs, verts, faces, lines := readOBJ(t, path)
	if strings.Join(objs, ",") != "cloth,rod,both" || len(verts) != 10 || len(faces) != 2 || len(lines) != 3 {
		t.Fatalf("objects %v, %d vertices, %d faces, %d lines", objs, len(verts), len(faces), len(lines))
	}
	want := [][]int{{4, 5, 6, 7}, {10, 8}, {8, 9, 10}}
	for i, l := range want {
		if !reflect.DeepEqual(lines[i], l) {
			t.Errorf("line %d = %v, want %v", i, lines[i], l)
		}
	}
	if faces[1] != [3]int{8, 9, 10} {
		t.Errorf("face after a lines-only mesh not offset: %v", faces[1])
	}
	if verts[lines[0][3]-1] != [3]float64{0.75, 0, 0.5} {
		t.Errorf("line vertex %v", verts[lines[0][3]-1])
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), "\nl 4 5 6 7\n") {
		t.Errorf("polyline not written as a plain `l` element:\n%s", data)
	}

	before := data
	for _, c := range []struct {
		lines [][]int32
		part  string
	}{
		{[][]int32{{0, 9}}, "vertex 9"},
		{[][]int32{{0, 1}, {-1, 0}}, "vertex -1"},
		{[][]int32{{0}}, "at least 2"},
		{[][]int32{{}}, "at least 2"},
	} {
		bad := rod
		bad.Lines = c.lines
		if err := WriteOBJ(path, []Mesh{cloth, bad}); err == nil || !strings.Contains(err.Error(), c.part) || !strings.Contains(err.Error(), "rod") {
			t.Errorf("lines %v: want an error naming %q, got %v", c.lines, c.part, err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatal("a failed write changed the existing file")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(m) != 0 {
		t.Fatalf("temporary files left behind: %v", m)
	}
}

// TestWriteOBJSeamUV writes a mesh whose vertex 1 lies on a seam (texture
// coordinate (0, 0) in one face, (1, 0) in the other) after a mesh without
// texture coordinates, and checks the `vt` list and the `f v/vt` pairs.
func TestWriteOBJSeamUV(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seam.obj")
	plain := Mesh{Name: "plain", Pos: [][3]float64{{0, 0, 5}, {1, 0, 5}, {0, 1, 5}}, Faces: [][3]int32{{0, 1, 2}}}
	seam := Mesh{Name: "seam", Pos: [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}},
		UV:      [][2]float64{{0.5, 0}, {0, 0}, {0.5, 1}, {1, 0}, {1, 1}},
		UVFaces: [][3]int32{{0, 1, 2}, {3, 0, 4}},
		Faces:   [][3]int32{{0, 1, 2}, {1, 0, 3}}}
	if err := WriteOBJ(path, []Mesh{plain, seam}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vt []string
	var f []string
	for _, l := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "vt "):
			vt = append(vt, l[3:])
		case strings.HasPrefix(l, "f "):
			f = append(f, l[2:])
		}
	}
	if want := []string{"0.5 0", "0 0", "0.5 1", "1 0", "1 1"}; !reflect.DeepEqual(vt, want) {
		t.Errorf("vt = %q, want %q", vt, want)
	}
	if want := []string{"1//1 2//2 3//3", "4/1/4 5/2/5 6/3/6", "5/4/5 4/1/4 7/5/7"}; !reflect.DeepEqual(f, want) {
		t.Errorf("f = %q, want %q", f, want)
	}

	for _, c := range []struct {
		uvf  [][3]int32
		part string
	}{
		{[][3]int32{{0, 1, 2}}, "1 texture-coordinate faces for 2 faces"},
		{[][3]int32{{0, 1, 2}, {3, 0, 5}}, "texture coordinate 5 of 5"},
	} {
		bad := seam
		bad.UVFaces = c.uvf
		if err := WriteOBJ(path, []Mesh{bad}); err == nil || !strings.Contains(err.Error(), c.part) {
			t.Errorf("UVFaces %v: want an error naming %q, got %v", c.uvf, c.part, err)
		}
	}
}
