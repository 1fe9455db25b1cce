package scenes

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// TriMesh is a triangle mesh read from a Wavefront OBJ file: vertex
// positions and triangles as 0-based indices into them, counter-clockwise
// as the file lists their corners.
type TriMesh struct {
	Pos   [][3]float64
	Faces [][3]int32
}

// MaxOBJVertices bounds the vertices (and faces) an OBJ file may hold, so
// that a wrong path or a huge file gets an error instead of exhausting
// memory.
const MaxOBJVertices = 1 << 22

// ReadOBJ reads the geometry of an OBJ file: every `v x y z` (an optional
// fourth weight is ignored) and every `f` element, whose corners may be
// written `i`, `i/t`, `i//n` or `i/t/n` with 1-based or negative (relative)
// indices; a polygon of k > 3 corners becomes the fan of k-2 triangles from
// its first corner. All objects and groups of the file form one mesh;
// texture coordinates, normals, lines, materials and smoothing groups are
// ignored. Errors name the file and line.
func ReadOBJ(path string) (*TriMesh, error) {
	return readMeshFile(func(name string) (io.ReadCloser, error) { return os.Open(name) }, path, MaxOBJVertices)
}

// parseOBJ reads an OBJ file of at most limit vertices and faces.
func parseOBJ(r io.Reader, limit int) (*TriMesh, error) {
	m := &TriMesh{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var corners []int32
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch fields[0] {
		case "v":
			if len(fields) != 4 && len(fields) != 5 {
				return nil, fmt.Errorf("%d: a vertex wants 3 coordinates, got %d", line, len(fields)-1)
			}
			var p [3]float64
			for k := range 3 {
				x, err := strconv.ParseFloat(fields[1+k], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("%d: vertex coordinate %q is not a finite number", line, fields[1+k])
				}
				p[k] = x
			}
			if len(m.Pos) == limit {
				return nil, fmt.Errorf("%d: more than %d vertices", line, limit)
			}
			m.Pos = append(m.Pos, p)
		case "f":
			if len(fields) < 4 {
				return nil, fmt.Errorf("%d: a face wants at least 3 corners, got %d", line, len(fields)-1)
			}
			corners = corners[:0]
			for _, c := range fields[1:] {
				idx, _, _ := strings.Cut(c, "/")
				i, err := strconv.Atoi(idx)
				if err != nil || i == 0 {
					return nil, fmt.Errorf("%d: face corner %q is not a vertex index", line, c)
				}
				if i < 0 {
					i += len(m.Pos) + 1 // relative: -1 is the last vertex so far
				}
				if i < 1 || i > len(m.Pos) {
					return nil, fmt.Errorf("%d: face corner %q refers to vertex %d of %d defined so far", line, c, i, len(m.Pos))
				}
				corners = append(corners, int32(i-1))
			}
			for k := 1; k+1 < len(corners); k++ {
				t := [3]int32{corners[0], corners[k], corners[k+1]}
				if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
					return nil, fmt.Errorf("%d: face repeats a vertex (%d %d %d)", line, t[0]+1, t[1]+1, t[2]+1)
				}
				if len(m.Faces) == limit {
					return nil, fmt.Errorf("%d: more than %d faces", line, limit)
				}
				m.Faces = append(m.Faces, t)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf(" %w", err)
	}
	if len(m.Faces) == 0 {
		return nil, fmt.Errorf(" no faces")
	}
	return m, nil
}
