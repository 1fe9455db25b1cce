package scenes

import (
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// MaxSequenceFrames bounds a mesh sequence's frame count, and
// MaxSequenceVertices the vertices of all its frames together, so that a
// wrong count gets an error instead of exhausting memory.
const (
	MaxSequenceFrames   = 10000
	MaxSequenceVertices = 1 << 24
)

// assets opens the files a scene refers to, by their paths as the scene
// gives them. Its implementations are comparable values, so that scenes
// compare with reflect.DeepEqual.
type assets interface {
	open(name string) (io.ReadCloser, error)
}

// dirAssets resolves relative paths against a scene file's directory.
type dirAssets struct{ dir string }

func (a dirAssets) open(name string) (io.ReadCloser, error) {
	if !filepath.IsAbs(name) {
		name = filepath.Join(a.dir, filepath.FromSlash(name))
	}
	return os.Open(name)
}

// embeddedAssets opens the files that the built-in scenes embed.
type embeddedAssets struct{}

func (embeddedAssets) open(name string) (io.ReadCloser, error) {
	return builtinFS.Open(path.Clean(name))
}

func validateMeshObstacle(v *validator, o *Obstacle, p string) {
	switch {
	case o.OBJ == "" && o.Sequence == nil:
		v.fail(p+".obj", "a mesh obstacle needs obj (one file) or sequence (a deforming mesh)")
	case o.OBJ != "" && o.Sequence != nil:
		v.fail(p+".sequence", "give obj or sequence, not both")
	}
	v.nonNegative(p+".scale", o.Scale)
	if o.FeatureAngle < 0 || o.FeatureAngle >= 180 {
		v.fail(p+".feature_angle", "must be in (0, 180) degrees (0 or absent: 30), got %v", o.FeatureAngle)
	}
	if o.FeatureAngle != 0 && o.Sequence != nil {
		v.fail(p+".feature_angle", "a deforming mesh (sequence) has no sharp features; remove it (got %v)", o.FeatureAngle)
	}
	if o.Radius != 0 {
		v.fail(p+".radius", "not used by a mesh obstacle; remove it (got %v)", o.Radius)
	}
	v.zero3(p+".normal", o.Type, o.Normal)
	v.zero3(p+".half_extents", o.Type, o.HalfExtents)
	v.zero3(p+".a", o.Type, o.A)
	v.zero3(p+".b", o.Type, o.B)
	sq := o.Sequence
	if sq == nil {
		return
	}
	if sq.Count < 2 || sq.Count > MaxSequenceFrames {
		v.fail(p+".sequence.count", "must be in [2, %d], got %d", MaxSequenceFrames, sq.Count)
	}
	v.positive(p+".sequence.fps", sq.FPS)
	if f0, f1 := fmt.Sprintf(sq.Files, 0), fmt.Sprintf(sq.Files, 1); sq.Files == "" || strings.Contains(f0, "%!") || f0 == f1 {
		v.fail(p+".sequence.files", "must be a path pattern with one integer verb such as %%03d (frames 0 to count-1), got %q", sq.Files)
	}
}

// meshModel reads a mesh obstacle's OBJ file or sequence from src and
// places its vertices at center + scale p. Errors name the field and file.
func meshModel(o *Obstacle, p string, src assets) (*model.MeshObstacle, error) {
	return readMeshObstacle(o, p, src, MaxSequenceVertices)
}

// readMeshObstacle is meshModel with at most limit vertices in all frames
// together (and in each file).
func readMeshObstacle(o *Obstacle, p string, src assets, limit int) (*model.MeshObstacle, error) {
	scale := o.Scale
	if scale == 0 {
		scale = 1
	}
	files := []string{o.OBJ}
	mo := &model.MeshObstacle{FeatureAngle: o.FeatureAngle * math.Pi / 180}
	field := p + ".obj"
	if sq := o.Sequence; sq != nil {
		field = p + ".sequence.files"
		files = files[:0]
		for k := range sq.Count {
			files = append(files, fmt.Sprintf(sq.Files, k))
		}
		mo.FPS, mo.Loop = sq.FPS, sq.Loop
	}
	total := 0
	for k, name := range files {
		m, err := readMeshFile(src.open, name, min(limit, MaxOBJVertices))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", field, err)
		}
		if k == 0 {
			mo.Faces = m.Faces
		} else if err := sameTopology(mo.Faces, len(mo.Frames[0]), m); err != nil {
			return nil, fmt.Errorf("%s: %s: %w (frame 0 is %s)", field, name, err, files[0])
		}
		if total += len(m.Pos); total > limit {
			return nil, fmt.Errorf("%s: %s: more than %d vertices in all frames together", field, name, limit)
		}
		for i, x := range m.Pos {
			m.Pos[i] = dense.Vec3(o.Center).Add(dense.Vec3(x).Scale(scale))
		}
		mo.Frames = append(mo.Frames, m.Pos)
	}
	// The checks of the surface itself (indices, a closed mesh's
	// orientation) on the first frame.
	if _, err := geom.NewMeshSurface(nil, mo.FramePositions(0), mo.FlatFaces()); err != nil {
		return nil, fmt.Errorf("%s: %s: %w", field, files[0], err)
	}
	return mo, nil
}

// readMeshFile reads OBJ file name, of at most limit vertices and faces,
// through open.
func readMeshFile(open func(string) (io.ReadCloser, error), name string, limit int) (*TriMesh, error) {
	f, err := open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := parseOBJ(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", name, err)
	}
	return m, nil
}

// sameTopology reports how mesh m differs from the first frame's nv
// vertices and faces.
func sameTopology(faces [][3]int32, nv int, m *TriMesh) error {
	if len(m.Pos) != nv {
		return fmt.Errorf("%d vertices, frame 0 has %d: a sequence keeps one topology", len(m.Pos), nv)
	}
	if len(m.Faces) != len(faces) {
		return fmt.Errorf("%d triangles, frame 0 has %d: a sequence keeps one topology", len(m.Faces), len(faces))
	}
	for t := range faces {
		if m.Faces[t] != faces[t] {
			return fmt.Errorf("triangle %d is %v, in frame 0 %v: a sequence keeps one topology", t, m.Faces[t], faces[t])
		}
	}
	return nil
}

// builtinRoot is AssetRoot's answer for a built-in scene's embedded files.
const builtinRoot = "builtin:"

// AssetRoot says where s opens the files it refers to (mesh obstacles' OBJ
// files): "builtin:" for a built-in scene's embedded files, else the
// directory, absolute where it can be made so. A copy of a scene made
// through its JSON (a checkpoint) gets it back with SetAssetRoot.
func (s *Scene) AssetRoot() string {
	switch a := s.assets().(type) {
	case embeddedAssets:
		return builtinRoot
	case dirAssets:
		if abs, err := filepath.Abs(a.dir); err == nil {
			return abs
		}
		return a.dir
	}
	return ""
}

// SetAssetRoot makes s open the files it refers to from root, as AssetRoot
// gives it.
func (s *Scene) SetAssetRoot(root string) {
	if root == builtinRoot {
		s.files = embeddedAssets{}
		return
	}
	s.files = dirAssets{dir: root}
}
