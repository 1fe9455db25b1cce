// Package export writes and reads simulation output in formats other tools
// open: Wavefront OBJ frames (with vertex normals and the obstacles'
// surfaces), one glTF 2.0 binary with the whole animation, and pictures (PNG
// frames and an animated GIF from a software rasterizer); and it owns the run
// folder those files go to (RunDir: a run never deletes or replaces a file it
// did not write).
package export

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
)

// Roles of a mesh: what it is in the scene. The OBJ writer records the role
// as the group (`g ROLE`) of the mesh's object.
const (
	RoleCloth    = "cloth"
	RoleRod      = "rod"
	RoleObstacle = "obstacle"
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
	Role    string // RoleCloth, RoleRod or RoleObstacle; "" is written as no group
	Pos     [][3]float64
	UV      [][2]float64
	UVFaces [][3]int32
	Faces   [][3]int32
	Lines   [][]int32 // polylines (e.g. rods), each of at least 2 vertices, written as `l i j k ...`
}

// check reports the first index out of range in m.
func (m *Mesh) check() error {
	if m.UVFaces != nil {
		if len(m.UVFaces) != len(m.Faces) {
			return fmt.Errorf("mesh %q: %d texture-coordinate faces for %d faces", m.Name, len(m.UVFaces), len(m.Faces))
		}
		for fi, f := range m.UVFaces {
			for _, t := range f {
				if t < 0 || int(t) >= len(m.UV) {
					return fmt.Errorf("mesh %q: face %d refers to texture coordinate %d of %d", m.Name, fi, t, len(m.UV))
				}
			}
		}
	} else if len(m.UV) != 0 && len(m.UV) != len(m.Pos) {
		return fmt.Errorf("mesh %q: %d texture coordinates for %d vertices", m.Name, len(m.UV), len(m.Pos))
	}
	for fi, f := range m.Faces {
		for _, v := range f {
			if v < 0 || int(v) >= len(m.Pos) {
				return fmt.Errorf("mesh %q: face %d refers to vertex %d of %d", m.Name, fi, v, len(m.Pos))
			}
		}
	}
	for li, l := range m.Lines {
		if len(l) < 2 {
			return fmt.Errorf("mesh %q: line %d has %d vertices, need at least 2", m.Name, li, len(l))
		}
		for _, v := range l {
			if v < 0 || int(v) >= len(m.Pos) {
				return fmt.Errorf("mesh %q: line %d refers to vertex %d of %d", m.Name, li, v, len(m.Pos))
			}
		}
	}
	return nil
}

// WriteOBJ writes the meshes as one OBJ file (EncodeOBJ) through a temporary
// file in the same folder (`.NAME.tmp`) and a rename, so a reader (or a
// crash) never sees a half-written frame and a failed write leaves an
// existing file as it was.
func WriteOBJ(path string, meshes []Mesh) error {
	return writeAtomic(path, filepath.Join(filepath.Dir(path), tempName(filepath.Base(path))), func(w io.Writer) error {
		return EncodeOBJ(w, meshes)
	})
}

// EncodeOBJ writes the meshes as OBJ, one `o NAME` (and `g ROLE`) per mesh,
// with its `v`, `vt`, `vn`, `f` and `l` elements (indices 1-based and
// global). Faces are `f v/vt/vn` (`f v//vn` without texture coordinates);
// the normal of a vertex is the area-weighted mean of its faces' normals
// (VertexNormals). It checks every mesh before writing anything.
func EncodeOBJ(w io.Writer, meshes []Mesh) error {
	for i := range meshes {
		if err := meshes[i].check(); err != nil {
			return err
		}
	}
	buf := make([]byte, 0, 64)
	write := func() error {
		_, err := w.Write(append(buf, '\n'))
		return err
	}
	floats := func(tag string, xs ...float64) error {
		buf = append(buf[:0], tag...)
		for _, c := range xs {
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, c, 'g', 9, 64)
		}
		return write()
	}
	if _, err := io.WriteString(w, "# loom frame\n"); err != nil {
		return err
	}
	base, vtBase, vnBase := 1, 1, 1
	for _, m := range meshes {
		if _, err := fmt.Fprintf(w, "o %s\n", m.Name); err != nil {
			return err
		}
		if m.Role != "" {
			if _, err := fmt.Fprintf(w, "g %s\n", m.Role); err != nil {
				return err
			}
		}
		for _, p := range m.Pos {
			if err := floats("v", p[:]...); err != nil {
				return err
			}
		}
		for _, t := range m.UV {
			if err := floats("vt", t[:]...); err != nil {
				return err
			}
		}
		if len(m.Faces) > 0 {
			for _, n := range VertexNormals(m.Pos, m.Faces) {
				if err := floats("vn", n[:]...); err != nil {
					return err
				}
			}
		}
		for fi, f := range m.Faces {
			buf = append(buf[:0], 'f')
			for k, v := range f {
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(base+int(v)), 10)
				buf = append(buf, '/')
				if len(m.UV) != 0 {
					t := v
					if m.UVFaces != nil {
						t = m.UVFaces[fi][k]
					}
					buf = strconv.AppendInt(buf, int64(vtBase+int(t)), 10)
				}
				buf = append(buf, '/')
				buf = strconv.AppendInt(buf, int64(vnBase+int(v)), 10)
			}
			if err := write(); err != nil {
				return err
			}
		}
		for _, l := range m.Lines {
			buf = append(buf[:0], 'l')
			for _, v := range l {
				buf = append(buf, ' ')
				buf = strconv.AppendInt(buf, int64(base+int(v)), 10)
			}
			if err := write(); err != nil {
				return err
			}
		}
		base += len(m.Pos)
		vtBase += len(m.UV)
		if len(m.Faces) > 0 {
			vnBase += len(m.Pos)
		}
	}
	return nil
}
