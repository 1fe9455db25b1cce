package scenes

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cubeOBJ is the cube [-1,1]^3 (12 triangles, counter-clockwise from
// outside) moved by d along x: a frame of a sequence.
func cubeOBJ(d float64) string {
	var sb strings.Builder
	for k := range 8 {
		fmt.Fprintf(&sb, "v %g %d %d\n", float64(2*(k&1)-1)+d, 2*((k>>1)&1)-1, 2*((k>>2)&1)-1)
	}
	sb.WriteString("f 1 3 4\nf 1 4 2\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 3 7 8\nf 3 8 4\nf 1 5 7\nf 1 7 3\nf 2 4 8\nf 2 8 6\n")
	return sb.String()
}

// meshScene writes a scene with one mesh obstacle (JSON obstacle) and the
// given files into a new directory and returns the scene's path.
func meshScene(t *testing.T, obstacle string, files map[string]string) string {
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scene := `{"name":"m","gravity":[0,0,-9.8],"dt":0.01,"duration":0.1,"fps":10,
	"solver":{"tolerance":1e-4,"max_iterations":100,"linear":"pcg"},
	"bodies":[{"name":"cloth","size":[1,1],"resolution":3,"position":[0,0,1],
	 "material":{"density":0.1,"stretch_stiffness":100,"shear_stiffness":100}}],
	"obstacles":[` + obstacle + `]}`
	p := filepath.Join(dir, "scene.json")
	if err := os.WriteFile(p, []byte(scene), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMeshObstacleModel(t *testing.T) {
	path := meshScene(t, `{"name":"body","type":"mesh","obj":"meshes/cube.obj","center":[1,2,3],"scale":0.5,"orientation":[0,0,90]}`,
		map[string]string{"meshes/cube.obj": cubeOBJ(0)})
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	o := m.Obstacles[0]
	if o.Mesh == nil || len(o.Mesh.Frames) != 1 || len(o.Mesh.Faces) != 12 || !o.Rotated {
		t.Fatalf("mesh obstacle %+v", o)
	}
	if o.Mesh.FeatureAngle != 0 {
		t.Errorf("feature angle %v, want 0 (the default) when absent", o.Mesh.FeatureAngle)
	}
	if err := s.Set("obstacles.0.feature_angle", "45"); err != nil {
		t.Fatal(err)
	}
	m2, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	if a := m2.Obstacles[0].Mesh.FeatureAngle; math.Abs(a-math.Pi/4) > 1e-15 {
		t.Errorf("feature_angle 45: %v rad, want pi/4", a)
	}
	// File vertex 7 is (1,1,1): at center + 0.5 (1,1,1).
	if got := o.Mesh.Frames[0][7]; got != [3]float64{1.5, 2.5, 3.5} {
		t.Errorf("vertex 7 at %v, want [1.5 2.5 3.5]", got)
	}
	// --set keeps resolving paths against the scene's directory.
	if err := s.Set("obstacles.0.scale", "2"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Model(); err != nil {
		t.Errorf("after --set: %v", err)
	}

	seq := meshScene(t, `{"name":"body","type":"mesh","sequence":{"files":"walk/f%02d.obj","count":3,"fps":24,"loop":true}}`,
		map[string]string{"walk/f00.obj": cubeOBJ(0), "walk/f01.obj": cubeOBJ(0.1), "walk/f02.obj": cubeOBJ(0.2)})
	s, err = Load(seq)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = s.Model(); err != nil {
		t.Fatal(err)
	}
	if mo := m.Obstacles[0].Mesh; len(mo.Frames) != 3 || mo.FPS != 24 || !mo.Loop || mo.Frames[2][0][0] != -0.8 {
		t.Errorf("sequence %d frames, fps %v, loop %v, frame 2 vertex 0 %v", len(mo.Frames), mo.FPS, mo.Loop, mo.Frames[2][0])
	}
}

func TestMeshObstacleErrors(t *testing.T) {
	inverted := strings.NewReplacer("f 1 3 4", "f 1 4 3", "f 1 4 2", "f 1 2 4", "f 5 6 8", "f 5 8 6", "f 5 8 7", "f 5 7 8",
		"f 1 2 6", "f 1 6 2", "f 1 6 5", "f 1 5 6", "f 3 7 8", "f 3 8 7", "f 3 8 4", "f 3 4 8",
		"f 1 5 7", "f 1 7 5", "f 1 7 3", "f 1 3 7", "f 2 4 8", "f 2 8 4", "f 2 8 6", "f 2 6 8").Replace(cubeOBJ(0))
	seq := func(n int) string {
		return fmt.Sprintf(`{"name":"body","type":"mesh","sequence":{"files":"f%%d.obj","count":%d,"fps":10}}`, n)
	}
	for _, c := range []struct {
		name, obstacle string
		files          map[string]string
		want           string // in the error of Load or Model
	}{
		{"missing file", `{"name":"body","type":"mesh","obj":"nope.obj"}`, nil, "obstacles[0].obj: open"},
		{"missing frame", seq(3), map[string]string{"f0.obj": cubeOBJ(0), "f1.obj": cubeOBJ(0)}, "obstacles[0].sequence.files: open"},
		{"vertex count", seq(2), map[string]string{"f0.obj": cubeOBJ(0), "f1.obj": cubeOBJ(0) + "v 0 0 0\n"},
			"f1.obj: 9 vertices, frame 0 has 8: a sequence keeps one topology (frame 0 is f0.obj)"},
		{"faces", seq(2), map[string]string{"f0.obj": cubeOBJ(0), "f1.obj": strings.Replace(cubeOBJ(0), "f 2 8 6", "f 2 8 7", 1)},
			"f1.obj: triangle 11 is [1 7 6], in frame 0 [1 7 5]: a sequence keeps one topology"},
		{"NaN", seq(2), map[string]string{"f0.obj": cubeOBJ(0), "f1.obj": strings.Replace(cubeOBJ(0), "v -1 -1 -1", "v -1 NaN -1", 1)},
			"f1.obj:1: vertex coordinate \"NaN\" is not a finite number"},
		{"empty", `{"name":"body","type":"mesh","obj":"e.obj"}`, map[string]string{"e.obj": "# nothing\n"}, "obstacles[0].obj: e.obj: no faces"},
		{"inside out", `{"name":"body","type":"mesh","obj":"c.obj"}`, map[string]string{"c.obj": inverted}, "obstacles[0].obj: c.obj: closed mesh has volume -8 <= 0"},
		{"no source", `{"name":"body","type":"mesh"}`, nil, "obstacles[0].obj: a mesh obstacle needs obj"},
		{"both", `{"name":"body","type":"mesh","obj":"c.obj","sequence":{"files":"f%d.obj","count":2,"fps":1}}`, nil, "obstacles[0].sequence: give obj or sequence, not both"},
		{"pattern", `{"name":"body","type":"mesh","sequence":{"files":"f.obj","count":2,"fps":1}}`, nil, "obstacles[0].sequence.files: must be a path pattern"},
		{"count", `{"name":"body","type":"mesh","sequence":{"files":"f%d.obj","count":1,"fps":1}}`, nil, "obstacles[0].sequence.count: must be in [2, 10000], got 1"},
		{"fps", `{"name":"body","type":"mesh","sequence":{"files":"f%d.obj","count":2,"fps":0}}`, nil, "obstacles[0].sequence.fps: must be > 0"},
		{"radius", `{"name":"body","type":"mesh","obj":"c.obj","radius":1}`, nil, "obstacles[0].radius: not used by a mesh obstacle"},
		{"obj on a sphere", `{"name":"s","type":"sphere","radius":1,"obj":"c.obj"}`, nil, "obstacles[0].obj: not used by a sphere obstacle"},
		{"scale", `{"name":"body","type":"mesh","obj":"c.obj","scale":-1}`, nil, "obstacles[0].scale: must be >= 0"},
		{"feature angle", `{"name":"body","type":"mesh","obj":"c.obj","feature_angle":180}`, nil, "obstacles[0].feature_angle: must be in (0, 180) degrees"},
		{"negative feature angle", `{"name":"body","type":"mesh","obj":"c.obj","feature_angle":-5}`, nil, "obstacles[0].feature_angle: must be in (0, 180) degrees"},
		{"feature angle on a sequence", `{"name":"body","type":"mesh","sequence":{"files":"f%d.obj","count":2,"fps":1},"feature_angle":40}`, nil, "obstacles[0].feature_angle: a deforming mesh (sequence) has no sharp features"},
		{"feature angle on a box", `{"name":"b","type":"box","half_extents":[1,1,1],"feature_angle":40}`, nil, "obstacles[0].feature_angle: not used by a box obstacle"},
	} {
		s, err := Load(meshScene(t, c.obstacle, c.files))
		if err == nil {
			_, err = s.Model()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func TestMeshObstacleTooManyVertices(t *testing.T) {
	if _, err := parseOBJ(strings.NewReader(cubeOBJ(0)), 7); err == nil || !strings.Contains(err.Error(), "8: more than 7 vertices") {
		t.Errorf("one file: error %v", err)
	}
	path := meshScene(t, `{"name":"body","type":"mesh","sequence":{"files":"f%d.obj","count":3,"fps":1}}`,
		map[string]string{"f0.obj": cubeOBJ(0), "f1.obj": cubeOBJ(0), "f2.obj": cubeOBJ(0)})
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readMeshObstacle(&s.Obstacles[0], "obstacles[0]", s.files, 20)
	if want := "obstacles[0].sequence.files: f2.obj: more than 20 vertices in all frames together"; err == nil || err.Error() != want {
		t.Errorf("sequence: error %v, want %q", err, want)
	}
}

// TestDressBuiltinMatchesFile: the built-in dress reads its embedded body
// sequence, and scenes/dress.json loaded as a file reads the same frames
// from the directory beside it.
func TestDressBuiltinMatchesFile(t *testing.T) {
	b, err := mustBuiltin(t, "dress").Model()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(filepath.Join(".", "dress.json"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	mb, mf := b.Obstacles[0].Mesh, f.Obstacles[0].Mesh
	if len(mb.Frames) != 24 || !mb.Loop || mb.FPS != 24 || len(mf.Frames) != 24 {
		t.Fatalf("dress body: %d frames, loop %v, fps %v (file: %d frames)", len(mb.Frames), mb.Loop, mb.FPS, len(mf.Frames))
	}
	for k := range mb.Frames {
		for i := range mb.Frames[k] {
			if mb.Frames[k][i] != mf.Frames[k][i] {
				t.Fatalf("frame %d vertex %d: embedded %v, file %v", k, i, mb.Frames[k][i], mf.Frames[k][i])
			}
		}
	}
}
