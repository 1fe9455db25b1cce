package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Frame is one output frame: its simulated time (s) and its meshes.
type Frame struct {
	Time   float64
	Meshes []Mesh
}

// PlaneHalfSize returns the half-size of the square a plane obstacle is
// drawn as: 1.5 times the largest extent of the bounding box of the
// meshes given (the cloth and rods of the first frame), and at least 1 m.
func PlaneHalfSize(meshes []Mesh) float64 {
	lo, hi, ok := bounds(meshes, func(*Mesh) bool { return true })
	if !ok {
		return 1
	}
	ext := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	if math.IsNaN(ext) || math.IsInf(ext, 0) {
		return 1
	}
	return max(1, 1.5*ext)
}

// bounds returns the bounding box of the vertices of the meshes that keep
// accepts; ok is false when there are none.
func bounds(meshes []Mesh, keep func(*Mesh) bool) (lo, hi [3]float64, ok bool) {
	lo = [3]float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = [3]float64{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	for i := range meshes {
		if !keep(&meshes[i]) {
			continue
		}
		for _, p := range meshes[i].Pos {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
			ok = true
		}
	}
	return lo, hi, ok
}

// ReadRun reads the frames a run wrote into dir: frame_00000.obj,
// frame_00001.obj, ... (consecutive from 0) with their times from
// stats.jsonl's "time" (record k is frame k).
func ReadRun(dir string) ([]Frame, error) {
	times, err := readTimes(filepath.Join(dir, "stats.jsonl"))
	if err != nil {
		return nil, err
	}
	var frames []Frame
	for k := 0; ; k++ {
		path := filepath.Join(dir, fmt.Sprintf("frame_%05d.obj", k))
		if _, err := os.Stat(path); err != nil {
			break
		}
		if k >= len(times) {
			return nil, fmt.Errorf("%s: no stats.jsonl record for frame %d (%d records)", dir, k, len(times))
		}
		m, err := ReadOBJ(path)
		if err != nil {
			return nil, err
		}
		frames = append(frames, Frame{Time: times[k], Meshes: m})
	}
	if len(frames) == 0 {
		return nil, fmt.Errorf("%s has no frame_00000.obj (loom run writes OBJ frames unless --format gltf)", dir)
	}
	return frames, nil
}

// readTimes returns the "time" of every record of a stats.jsonl file.
func readTimes(path string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var times []float64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Time *float64 `json:"time"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, line, err)
		}
		if rec.Time == nil {
			return nil, fmt.Errorf("%s line %d: no \"time\"", path, line)
		}
		times = append(times, *rec.Time)
	}
	return times, sc.Err()
}

// ReadOBJ reads an OBJ file as EncodeOBJ writes it: objects (`o`), their
// role (`g`), vertices, texture coordinates, triangles and polylines
// (normals are recomputed from the faces, not read). Indices are global
// and 1-based in the file, per mesh and 0-based in the result.
func ReadOBJ(path string) ([]Mesh, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Mesh
	base, vtBase := 0, 0 // vertices and texture coordinates before the current object
	nv, nvt := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		bad := func(format string, a ...any) error {
			return fmt.Errorf("%s line %d: %s", path, line, fmt.Sprintf(format, a...))
		}
		if fields[0] != "o" && len(out) == 0 {
			out = append(out, Mesh{Name: "default"})
		}
		var m *Mesh
		if len(out) > 0 {
			m = &out[len(out)-1]
		}
		switch fields[0] {
		case "o":
			if len(fields) != 2 {
				return nil, bad("want `o NAME`")
			}
			base, vtBase = nv, nvt
			out = append(out, Mesh{Name: fields[1]})
		case "g":
			if len(fields) == 2 {
				m.Role = fields[1]
			}
		case "v", "vt":
			want := 3
			if fields[0] == "vt" {
				want = 2
			}
			if len(fields) != want+1 {
				return nil, bad("want %d coordinates", want)
			}
			var p [3]float64
			for k := range want {
				if p[k], err = strconv.ParseFloat(fields[k+1], 64); err != nil {
					return nil, bad("%v", err)
				}
			}
			if fields[0] == "v" {
				m.Pos = append(m.Pos, p)
				nv++
			} else {
				m.UV = append(m.UV, [2]float64{p[0], p[1]})
				nvt++
			}
		case "f":
			if len(fields) != 4 {
				return nil, bad("want a triangle")
			}
			var v, t [3]int32
			hasT := false
			for k := range 3 {
				parts := strings.Split(fields[k+1], "/")
				i, err := strconv.Atoi(parts[0])
				if err != nil || i-1-base < 0 || i-1-base >= len(m.Pos) {
					return nil, bad("vertex %q is not one of object %s's", parts[0], m.Name)
				}
				v[k] = int32(i - 1 - base)
				if len(parts) > 1 && parts[1] != "" {
					j, err := strconv.Atoi(parts[1])
					if err != nil || j-1-vtBase < 0 || j-1-vtBase >= len(m.UV) {
						return nil, bad("texture coordinate %q is not one of object %s's", parts[1], m.Name)
					}
					t[k] = int32(j - 1 - vtBase)
					hasT = true
				}
			}
			m.Faces = append(m.Faces, v)
			if hasT {
				m.UVFaces = append(m.UVFaces, t)
			}
		case "l":
			var l []int32
			for _, s := range fields[1:] {
				i, err := strconv.Atoi(strings.Split(s, "/")[0])
				if err != nil || i-1-base < 0 || i-1-base >= len(m.Pos) {
					return nil, bad("vertex %q is not one of object %s's", s, m.Name)
				}
				l = append(l, int32(i-1-base))
			}
			m.Lines = append(m.Lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].UVFaces != nil && len(out[i].UVFaces) != len(out[i].Faces) {
			return nil, fmt.Errorf("%s: object %s has texture coordinates on some faces only", path, out[i].Name)
		}
		if err := out[i].check(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return out, nil
}
