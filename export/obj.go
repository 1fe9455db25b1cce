// Package export writes simulation output in formats other tools open:
// Wavefront OBJ frames and the stats.jsonl log.
package export

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Mesh is one OBJ object: positions, texture coordinates (the material-space
// coordinates), triangles and polylines as 0-based indices. A mesh may have
// faces, lines or both.
//
// Texture coordinates come in two layouts. Without UVFaces, UV is per vertex
// (len(UV) == len(Pos)) and corner k of face f uses UV[Faces[f][k]]. With
// UVFaces (one triple per face), UV is its own list and corner k of face f
// uses UV[UVFaces[f][k]]: a vertex on a seam between panels then has a
// different texture coordinate in the faces of either side.
type Mesh struct {
	Name    string
	Pos     [][3]float64
	UV      [][2]float64
	UVFaces [][3]int32
	Faces   [][3]int32
	Lines   [][]int32 // polylines (e.g. rods), each of at least 2 vertices, written as `l i j k ...`
}

// WriteOBJ writes the meshes as one OBJ file, one `o NAME` per mesh, with its
// `v`, `vt`, `f` (`f v/vt ...` when the mesh has texture coordinates) and `l`
// elements (indices 1-based and global). It writes
// to a temporary file in the same directory and renames it into place, so a
// reader (or a crash) never sees a half-written frame.
func WriteOBJ(path string, meshes []Mesh) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".frame-*.obj")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	bw := bufio.NewWriterSize(tmp, 1<<16)
	buf := make([]byte, 0, 64)
	fmt.Fprintln(bw, "# loom frame")
	base, vtBase := 1, 1
	for _, m := range meshes {
		if m.UVFaces != nil {
			if len(m.UVFaces) != len(m.Faces) {
				tmp.Close()
				return fmt.Errorf("mesh %q: %d texture-coordinate faces for %d faces", m.Name, len(m.UVFaces), len(m.Faces))
			}
			for fi, f := range m.UVFaces {
				for _, t := range f {
					if t < 0 || int(t) >= len(m.UV) {
						tmp.Close()
						return fmt.Errorf("mesh %q: face %d refers to texture coordinate %d of %d", m.Name, fi, t, len(m.UV))
					}
				}
			}
		} else if len(m.UV) != 0 && len(m.UV) != len(m.Pos) {
			tmp.Close()
			return fmt.Errorf("mesh %q: %d texture coordinates for %d vertices", m.Name, len(m.UV), len(m.Pos))
		}
		fmt.Fprintf(bw, "o %s\n", m.Name)
		for _, p := range m.Pos {
			buf = append(buf[:0], 'v')
			for _, c := range p {
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, c, 'g', 9, 64)
			}
			bw.Write(append(buf, '\n'))
		}
		for _, t := range m.UV {
			buf = append(buf[:0], "vt"...)
			for _, c := range t {
				buf = append(buf, ' ')
				buf = strconv.AppendFloat(buf, c, 'g', 9, 64)
			}
			bw.Write(append(buf, '\n'))
		}
		for fi, f := range m.Faces {
			buf = append(buf[:0], 'f')
			for k, v := range f {
				if v < 0 || int(v) >= len(m.Pos) {
					tmp.Close()
					return fmt.Errorf("mesh %q: face %d refers to vertex %d of %d", m.Name, fi, v, len(m.Pos))
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(base+int(v)), 10)
				if len(m.UV) != 0 {
					t := v
					if m.UVFaces != nil {
						t = m.UVFaces[fi][k]
					}
					buf = append(buf, '/')
					buf = strconv.AppendInt(buf, int64(vtBase+int(t)), 10)
				}
			}
			bw.Write(append(buf, '\n'))
		}
		for li, l := range m.Lines {
			if len(l) < 2 {
				tmp.Close()
				return fmt.Errorf("mesh %q: line %d has %d vertices, need at least 2", m.Name, li, len(l))
			}
			buf = append(buf[:0], 'l')
			for _, v := range l {
				if v < 0 || int(v) >= len(m.Pos) {
					tmp.Close()
					return fmt.Errorf("mesh %q: line %d refers to vertex %d of %d", m.Name, li, v, len(m.Pos))
				}
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(base+int(v)), 10)
			}
			bw.Write(append(buf, '\n'))
		}
		base += len(m.Pos)
		vtBase += len(m.UV)
	}
	if err := bw.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
