package scenes

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loomsim/loom/model"
)

func mustBuiltin(t *testing.T, name string) *Scene {
	t.Helper()
	s, err := Builtin(name)
	if err != nil {
		t.Fatalf("Builtin(%q): %v", name, err)
	}
	return s
}

func TestBuiltinsRoundTrip(t *testing.T) {
	infos := Builtins()
	want := []string{"box-edge", "crumple", "drape", "drape-corner", "dress", "edge", "edge-layers", "edge-turned", "edge-wedge", "flag", "friction", "incline", "jaws", "knit-sphere", "layers", "layers-developable", "lo-res", "nails", "paper-drape", "paper-fold", "pinned-square", "pocket", "push", "rod-box-edge", "rod-crossing", "rod-drop", "rod-hang", "rod-incline", "rod-table", "skirt", "sphere", "sphere-arcsim", "sphere-drop", "strain-limit", "tablecloth", "tag", "throw", "twist", "twist-pins", "wire"}
	var got []string
	for _, in := range infos {
		got = append(got, in.Name)
		if in.Description == "" || strings.HasPrefix(in.Description, "(invalid") {
			t.Errorf("%s: bad description %q", in.Name, in.Description)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Builtins() = %v, want %v", got, want)
	}
	for _, name := range want {
		s := mustBuiltin(t, name)
		if s.Name != name {
			t.Errorf("%s.json has name %q", name, s.Name)
		}
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := Parse(data, "roundtrip")
		if err != nil {
			t.Fatalf("%s: re-parse: %v", name, err)
		}
		s2.source, s2.files = s.source, s.files
		if !reflect.DeepEqual(s, s2) {
			t.Errorf("%s: round trip differs:\n%+v\n%+v", name, s, s2)
		}
		// The shipped file itself parses via Load.
		path := filepath.Join(".", name+".json")
		if _, err := Load(path); err != nil {
			t.Errorf("Load(%s): %v", path, err)
		}
		r, err := Resolve(name)
		if err != nil || r.Name != name {
			t.Errorf("Resolve(%q) = %v, %v", name, r, err)
		}
		for _, b := range s.Bodies {
			if _, err := BuildSheet(&b); err != nil {
				t.Errorf("%s: BuildSheet: %v", name, err)
			}
		}
	}
	_, err := Builtin("nope")
	if err == nil || !strings.Contains(err.Error(), "drape") || !strings.Contains(err.Error(), "sphere-drop") {
		t.Errorf("Builtin(nope) error should list valid names, got %v", err)
	}
}

func TestResolveFileAndMissing(t *testing.T) {
	s := mustBuiltin(t, "drape")
	data, _ := json.Marshal(s)
	p := filepath.Join(t.TempDir(), "my.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Resolve(p)
	if err != nil || r.Source() != p {
		t.Fatalf("Resolve(file) = %v, %v", r, err)
	}
	_, err = Resolve(filepath.Join(t.TempDir(), "missing.json"))
	if err == nil || !strings.Contains(err.Error(), "missing.json") || !strings.Contains(err.Error(), "drape") {
		t.Errorf("Resolve(missing): %v", err)
	}
	_, err = Load("/nonexistent/x.json")
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/x.json") {
		t.Errorf("Load error should name path: %v", err)
	}
}

// modify builds a JSON document from the drape scene after applying f to
// its generic form.
func modify(t *testing.T, f func(m map[string]any)) []byte {
	t.Helper()
	data, err := json.Marshal(mustBuiltin(t, "drape"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func body0(m map[string]any) map[string]any { return m["bodies"].([]any)[0].(map[string]any) }

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected error containing %q, got nil", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestParseUnknownFields(t *testing.T) {
	data := modify(t, func(m map[string]any) {
		mat := body0(m)["material"].(map[string]any)
		mat["densty"] = 1.0
	})
	_, err := Parse(data, "x.json")
	wantErr(t, err, "x.json", "bodies[0].material.densty", "unknown field")
	var fe *FieldError
	if !errors.As(err, &fe) || fe.Field != "bodies[0].material.densty" {
		t.Errorf("want *FieldError with field path, got %#v", err)
	}

	_, err = Parse([]byte(`{"name":"a","Gravity":[0,0,0]}`), "y.json")
	wantErr(t, err, "y.json", "Gravity", "did you mean \"gravity\"")

	_, err = Parse([]byte(`{"obstacles":[{"name":"a","type":"sphere","radius":1,"colour":"red"}]}`), "z.json")
	wantErr(t, err, "obstacles[0].colour", "unknown field")
}

func TestParseStructuralErrors(t *testing.T) {
	good, _ := json.Marshal(mustBuiltin(t, "drape"))
	cases := []struct {
		name  string
		data  string
		parts []string
	}{
		{"trailing", string(good) + ` {}`, []string{"trailing data"}},
		{"trailing garbage", string(good) + ` x`, []string{"s.json"}},
		{"syntax", `{"name": "a",, }`, []string{"invalid JSON", "line 1"}},
		{"truncated", `{"name": "a"`, []string{"unexpected end"}},
		{"empty", ``, []string{"empty document"}},
		{"not object", `[1,2]`, []string{"expected an object"}},
		{"duplicate", `{"dt": 1, "dt": 2}`, []string{"dt", "duplicate"}},
		{"wrong type", `{"dt": "fast"}`, []string{"dt", "expected a number", "fast"}},
		{"short array", `{"gravity": [0, -9.81]}`, []string{"gravity", "3 elements, got 2"}},
		{"long array", `{"gravity": [0, 0, -9.81, 1]}`, []string{"gravity", "3 elements, got more"}},
		{"float int", `{"bodies":[{"resolution": 2.5}]}`, []string{"bodies[0].resolution", "integer"}},
		{"null scalar", `{"dt": null}`, []string{"dt", "null"}},
		{"huge", `{"dt": 1e999}`, []string{"dt", "out of range"}},
		{"nested type", `{"bodies":[{"pins":[{"at":[0,"x"]}]}]}`, []string{"bodies[0].pins[0].at[1]", "integer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.data), "s.json")
			wantErr(t, err, append([]string{"s.json"}, c.parts...)...)
		})
	}
}

// remeshFields returns a valid remesh object with the given fields replaced.
func remeshFields(over map[string]any) map[string]any {
	r := map[string]any{"every": 1, "size_min": 0.01, "size_max": 0.2, "aspect_min": 0.2,
		"refine_angle": 0.3, "refine_compression": 0.005, "refine_velocity": 0.5}
	for k, v := range over {
		r[k] = v
	}
	return r
}

func TestParseValidationErrors(t *testing.T) {
	cases := []struct {
		name  string
		f     func(m map[string]any)
		parts []string
	}{
		{"density", func(m map[string]any) { body0(m)["material"].(map[string]any)["density"] = -1 },
			[]string{"bodies[0].material.density", "must be > 0, got -1"}},
		{"shear", func(m map[string]any) { body0(m)["material"].(map[string]any)["shear_stiffness"] = 0 },
			[]string{"bodies[0].material.shear_stiffness", "must be > 0, got 0"}},
		{"bending", func(m map[string]any) { body0(m)["material"].(map[string]any)["bending_stiffness"] = -2 },
			[]string{"bodies[0].material.bending_stiffness", ">= 0"}},
		{"dt", func(m map[string]any) { m["dt"] = 0 }, []string{"dt", "must be > 0, got 0"}},
		{"dt>duration", func(m map[string]any) { m["dt"] = 10 }, []string{"dt", "<= duration"}},
		{"fps", func(m map[string]any) { m["fps"] = -25 }, []string{"fps", "must be > 0"}},
		{"tolerance", func(m map[string]any) { m["solver"].(map[string]any)["tolerance"] = 1 },
			[]string{"solver.tolerance", "(0, 1)"}},
		{"max_iterations", func(m map[string]any) { m["solver"].(map[string]any)["max_iterations"] = 0 },
			[]string{"solver.max_iterations", ">= 1"}},
		{"friction", func(m map[string]any) { m["solver"].(map[string]any)["friction"] = -0.1 },
			[]string{"solver.friction", ">= 0"}},
		{"self_contact.thickness", func(m map[string]any) {
			m["solver"].(map[string]any)["self_contact"] = map[string]any{"thickness": 0, "friction": 0.1}
		}, []string{"solver.self_contact.thickness", "must be > 0, got 0"}},
		{"self_contact.friction", func(m map[string]any) {
			m["solver"].(map[string]any)["self_contact"] = map[string]any{"thickness": 0.001, "friction": -1}
		}, []string{"solver.self_contact.friction", ">= 0, got -1"}},
		{"self_contact unknown", func(m map[string]any) {
			m["solver"].(map[string]any)["self_contact"] = map[string]any{"thickness": 0.001, "mu": 1}
		}, []string{"mu"}},
		{"no bodies", func(m map[string]any) { m["bodies"] = []any{} }, []string{"bodies", "at least one"}},
		{"triangulation", func(m map[string]any) { body0(m)["triangulation"] = "quad" },
			[]string{"bodies[0].triangulation", `must be "alternating" or "cross", got "quad"`}},
		{"remesh.every", func(m map[string]any) { body0(m)["remesh"] = remeshFields(map[string]any{"every": 0}) },
			[]string{"bodies[0].remesh.every", ">= 1, got 0"}},
		{"remesh.size_max", func(m map[string]any) { body0(m)["remesh"] = remeshFields(map[string]any{"size_max": 0.001}) },
			[]string{"bodies[0].remesh.size_max", "must be >= size_min (0.01), got 0.001"}},
		{"remesh.aspect_min", func(m map[string]any) { body0(m)["remesh"] = remeshFields(map[string]any{"aspect_min": 1.5}) },
			[]string{"bodies[0].remesh.aspect_min", "(0, 1], got 1.5"}},
		{"remesh.refine_velocity", func(m map[string]any) { body0(m)["remesh"] = remeshFields(map[string]any{"refine_velocity": -1}) },
			[]string{"bodies[0].remesh.refine_velocity", "must be > 0, got -1"}},
		{"strain_limits.min", func(m map[string]any) {
			body0(m)["strain_limits"] = map[string]any{"min": 0.1, "max": 0.05, "method": "jacobi"}
		}, []string{"bodies[0].strain_limits.min", "(-1, 0], got 0.1"}},
		{"strain_limits.method", func(m map[string]any) {
			body0(m)["strain_limits"] = map[string]any{"min": -0.05, "max": 0.05, "method": "newton"}
		}, []string{"bodies[0].strain_limits.method", `"augmented-lagrangian" or "jacobi", got "newton"`}},
		{"wind.density", func(m map[string]any) { m["wind"] = map[string]any{"velocity": []any{10, 0, 0}, "density": -1} },
			[]string{"wind.density", ">= 0, got -1"}},
		{"panels without tube", func(m map[string]any) { body0(m)["panels"] = 2 },
			[]string{"bodies[0].panels", "must be 0 or 1, or >= 2 on a tube, got 2"}},
		{"panels not dividing", func(m map[string]any) { body0(m)["tube"] = true; body0(m)["pins"] = []any{}; body0(m)["panels"] = 5 },
			[]string{"bodies[0].panels", "24 grid cells around the tube are not a multiple of 5 panels"}},
		{"pin release", func(m map[string]any) { body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "release": -1}} },
			[]string{"bodies[0].pins[0].release", ">= 0, got -1"}},
		{"resolution", func(m map[string]any) { body0(m)["resolution"] = 1 },
			[]string{"bodies[0].resolution", "got 1"}},
		{"size", func(m map[string]any) { body0(m)["size"] = []any{1, 0} },
			[]string{"bodies[0].size[1]", "must be > 0"}},
		{"name space", func(m map[string]any) { body0(m)["name"] = "my cloth" },
			[]string{"bodies[0].name", "whitespace"}},
		{"name empty", func(m map[string]any) { body0(m)["name"] = "" }, []string{"bodies[0].name", "non-empty"}},
		{"dup body", func(m map[string]any) { m["bodies"] = append(m["bodies"].([]any), body0(m)) },
			[]string{"bodies[1].name", "duplicate", "bodies[0]"}},
		{"pin range", func(m map[string]any) { body0(m)["pins"] = []any{map[string]any{"at": []any{25, 0}}} },
			[]string{"bodies[0].pins[0].at[0]", "out of range", "-25..24"}},
		{"pin neg range", func(m map[string]any) { body0(m)["pins"] = []any{map[string]any{"at": []any{0, -51}}} },
			[]string{"bodies[0].pins[0].at[1]", "out of range"}},
		{"pin dup", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{24, 0}}, map[string]any{"at": []any{-1, 0}}}
		}, []string{"bodies[0].pins[1].at", "already pinned", "pins[0]"}},
		{"tube too narrow", func(m map[string]any) { body0(m)["tube"] = true; body0(m)["resolution"] = 3 },
			[]string{"bodies[0].tube", "at least 4 grid vertices around", "got 3"}},
		{"tube stretch", func(m map[string]any) {
			body0(m)["tube"] = true
			body0(m)["initial_stretch"] = map[string]any{"bottom": 1, "top": 1, "wrinkle": 0}
		}, []string{"bodies[0].initial_stretch", "not supported on a tube"}},
		{"tube pin on seam twice", func(m map[string]any) {
			body0(m)["tube"] = true
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 3}}, map[string]any{"at": []any{-1, 3}}}
		}, []string{"bodies[0].pins[1].at", "already pinned", "pins[0]"}},
		{"tube type", func(m map[string]any) { body0(m)["tube"] = "yes" }, []string{"bodies[0].tube"}},
		{"motion both", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "motion": map[string]any{
				"velocity": []any{1, 0, 0}, "keyframes": []any{map[string]any{"t": 0}, map[string]any{"t": 1}}}}}
		}, []string{"bodies[0].pins[0].motion", "exactly one", "both"}},
		{"motion neither", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "motion": map[string]any{}}}
		}, []string{"bodies[0].pins[0].motion", "neither"}},
		{"motion stop", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "motion": map[string]any{"velocity": []any{1, 0, 0}, "start": 2, "stop": 1}}}
		}, []string{"bodies[0].pins[0].motion.stop", "> start"}},
		{"keyframes order", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "motion": map[string]any{
				"keyframes": []any{map[string]any{"t": 1}, map[string]any{"t": 1}}}}}
		}, []string{"bodies[0].pins[0].motion.keyframes[1].t", "strictly increasing"}},
		{"keyframes one", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "s", "type": "sphere", "radius": 1, "motion": map[string]any{
				"keyframes": []any{map[string]any{"t": 1}}}}}
		}, []string{"obstacles[0].motion.keyframes", "at least 2"}},
		{"keyframes start", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "s", "type": "sphere", "radius": 1, "motion": map[string]any{
				"start": 1, "keyframes": []any{map[string]any{"t": 1}, map[string]any{"t": 2}}}}}
		}, []string{"obstacles[0].motion.start", "only used with velocity"}},
		{"obstacle type", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "s", "type": "cone"}}
		}, []string{"obstacles[0].type", "plane, sphere, box, capsule", "cone"}},
		{"sphere radius", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "s", "type": "sphere", "radius": -1}}
		}, []string{"obstacles[0].radius", "must be > 0, got -1"}},
		{"sphere normal", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "s", "type": "sphere", "radius": 1, "normal": []any{0, 0, 1}}}
		}, []string{"obstacles[0].normal", "not used by a sphere"}},
		{"plane normal", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "p", "type": "plane"}}
		}, []string{"obstacles[0].normal", "non-zero"}},
		{"plane radius", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "p", "type": "plane", "normal": []any{0, 0, 1}, "radius": 2}}
		}, []string{"obstacles[0].radius", "not used by a plane"}},
		{"box extents", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 0, 1}}}
		}, []string{"obstacles[0].half_extents[1]", "must be > 0"}},
		{"capsule", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "c", "type": "capsule", "radius": 0.1, "a": []any{1, 1, 1}, "b": []any{1, 1, 1}}}
		}, []string{"obstacles[0].b", "distinct"}},
		{"capsule center", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "c", "type": "capsule", "radius": 0.1, "b": []any{1, 1, 1}, "center": []any{0, 0, 1}}}
		}, []string{"obstacles[0].center", "not used by a capsule"}},
		{"obstacle dup name", func(m map[string]any) {
			m["obstacles"] = []any{map[string]any{"name": "cloth", "type": "sphere", "radius": 1}}
		}, []string{"obstacles[0].name", "duplicate", "bodies[0]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(modify(t, c.f), "bad.json")
			wantErr(t, err, append([]string{"bad.json"}, c.parts...)...)
		})
	}
}

func TestValidateReportsAll(t *testing.T) {
	s := mustBuiltin(t, "drape")
	s.TimeStep = -1
	s.Bodies[0].Material.Density = 0
	err := s.Validate()
	wantErr(t, err, "dt", "bodies[0].material.density", "drape.json")
}

func TestValidateNonFinite(t *testing.T) {
	s := mustBuiltin(t, "drape")
	s.Gravity[2] = math.NaN()
	s.Bodies[0].Position[0] = math.Inf(1)
	wantErr(t, s.Validate(), "gravity[2]", "bodies[0].position[0]", "finite")
}

func TestPlaneNormalized(t *testing.T) {
	s := mustBuiltin(t, "sphere-drop")
	if err := s.Set("obstacles.1.normal", "[0,0,5]"); err != nil {
		t.Fatal(err)
	}
	if got := s.Obstacles[1].Normal; got != [3]float64{0, 0, 1} {
		t.Errorf("normal = %v", got)
	}
}

func TestSet(t *testing.T) {
	s := mustBuiltin(t, "drape")
	steps := []struct{ path, value string }{
		{"bodies.0.resolution", "20"},
		{"gravity.2", "-9.8"},
		{"gravity", "[0, 1, -3]"},
		{"solver.tolerance", "1e-8"},
		{"bodies.0.material.density", "0.2"},
		{"bodies[0].material.mass_damping", "0.5"},
		{"bodies.0.name", "sheet"},       // bare string
		{"description", `"quoted text"`}, // JSON string
		{"bodies.0.pins.1.at.0", "-2"},
		{"bodies.0.pins.0.motion.velocity", "[0,0,1]"}, // motion was null
		{"bodies.0.pins.0.motion.stop", "2"},
		{"obstacles", `[{"name":"s","type":"sphere","radius":0.1}]`},
		{"obstacles.0.motion.velocity.0", "0.5"},
	}
	for _, st := range steps {
		if err := s.Set(st.path, st.value); err != nil {
			t.Fatalf("Set(%s, %s): %v", st.path, st.value, err)
		}
	}
	b := s.Bodies[0]
	if b.Resolution != 20 || s.Gravity != [3]float64{0, 1, -3} || s.Solver.Tolerance != 1e-8 ||
		b.Material.Density != 0.2 || b.Material.MassDamping != 0.5 || b.Name != "sheet" ||
		s.Description != "quoted text" || b.Pins[1].At != [2]int{-2, -1} {
		t.Errorf("unexpected scene after Set: %+v", s)
	}
	if m := b.Pins[0].Motion; m == nil || *m.Velocity != [3]float64{0, 0, 1} || m.Stop != 2 {
		t.Errorf("pin motion = %+v", m)
	}
	if m := s.Obstacles[0].Motion; m == nil || *m.Velocity != [3]float64{0.5, 0, 0} {
		t.Errorf("obstacle motion = %+v", m)
	}

	before, _ := json.Marshal(s)
	bad := []struct {
		path, value string
		parts       []string
	}{
		{"bodies.0.resolution", "-3", []string{"bodies.0.resolution", "bodies[0].resolution", "got -3"}},
		{"bodies.0.material.densty", "1", []string{"bodies[0].material.densty", "unknown field"}},
		{"nosuch", "1", []string{"nosuch", "unknown field"}},
		{"bodies.5.resolution", "10", []string{"bodies[5]", "out of range"}},
		{"gravity.3", "1", []string{"gravity[3]", "out of range"}},
		{"bodies.x", "1", []string{"bodies", "numeric index"}},
		{"dt.x", "1", []string{"dt", "no field"}},
		{"bodies.0.resolution", "many", []string{"bodies[0].resolution", "expected an integer"}},
		{"gravity", "[1,2]", []string{"gravity", "3 elements"}},
		{"solver.tolerance", "0", []string{"solver.tolerance", "(0, 1)"}},
		{"", "1", []string{"empty path"}},
		{"bodies..name", "1", []string{"empty key"}},
		{"obstacles.0.motion.velocity", "null", []string{"obstacles[0].motion", "neither"}},
	}
	for _, c := range bad {
		err := s.Set(c.path, c.value)
		wantErr(t, err, c.parts...)
	}
	after, _ := json.Marshal(s)
	if string(before) != string(after) {
		t.Errorf("failed Set modified the scene")
	}
}

func TestSetNaN(t *testing.T) {
	s := mustBuiltin(t, "drape")
	// NaN cannot come through JSON; Validate catches it if set directly.
	s.Solver.Friction = math.NaN()
	wantErr(t, s.Validate(), "solver.friction")
}

func TestMotionVelocity(t *testing.T) {
	v := [3]float64{1, -2, 0.5}
	m := &Motion{Velocity: &v, Start: 1, Stop: 3}
	checks := []struct {
		t      float64
		off    [3]float64
		vel    [3]float64
		offTol float64
	}{
		{0, [3]float64{}, [3]float64{}, 0},
		{1, [3]float64{}, v, 0},
		{2, [3]float64{1, -2, 0.5}, v, 1e-12},
		{3, [3]float64{2, -4, 1}, [3]float64{}, 1e-12},
		{10, [3]float64{2, -4, 1}, [3]float64{}, 1e-12},
	}
	for _, c := range checks {
		if got := m.Offset(c.t); !near(got, c.off, 1e-12) {
			t.Errorf("Offset(%v) = %v, want %v", c.t, got, c.off)
		}
		if got := m.VelocityAt(c.t); got != c.vel {
			t.Errorf("VelocityAt(%v) = %v, want %v", c.t, got, c.vel)
		}
	}
	forever := &Motion{Velocity: &v}
	if got := forever.Offset(100); !near(got, [3]float64{100, -200, 50}, 1e-9) {
		t.Errorf("forever Offset = %v", got)
	}
	var nilM *Motion
	if nilM.Offset(1) != ([3]float64{}) || nilM.VelocityAt(1) != ([3]float64{}) {
		t.Error("nil motion moves")
	}
	consistency(t, m, 0, 4)
}

func TestMotionKeyframes(t *testing.T) {
	m := &Motion{Keyframes: []Keyframe{
		{T: 0.5, Offset: [3]float64{0, 0, 0}},
		{T: 1.5, Offset: [3]float64{1, 0, 0}},
		{T: 2.5, Offset: [3]float64{1, 2, -1}},
		{T: 3, Offset: [3]float64{0, 0, 0}},
	}}
	checks := []struct {
		t   float64
		off [3]float64
		vel [3]float64
	}{
		{0, [3]float64{}, [3]float64{}},
		{0.5, [3]float64{}, [3]float64{1, 0, 0}},
		{1, [3]float64{0.5, 0, 0}, [3]float64{1, 0, 0}},
		{1.5, [3]float64{1, 0, 0}, [3]float64{0, 2, -1}},
		{2, [3]float64{1, 1, -0.5}, [3]float64{0, 2, -1}},
		{2.75, [3]float64{0.5, 1, -0.5}, [3]float64{-2, -4, 2}},
		{3, [3]float64{}, [3]float64{}},
		{9, [3]float64{}, [3]float64{}},
	}
	for _, c := range checks {
		if got := m.Offset(c.t); !near(got, c.off, 1e-12) {
			t.Errorf("Offset(%v) = %v, want %v", c.t, got, c.off)
		}
		if got := m.VelocityAt(c.t); !near(got, c.vel, 1e-12) {
			t.Errorf("VelocityAt(%v) = %v, want %v", c.t, got, c.vel)
		}
	}
	consistency(t, m, -1, 4)
}

func TestMotionCatmullRom(t *testing.T) {
	// The sphere scene's keys (Narain 2012 Fig. 2 as ARCSim ships it).
	m := &Motion{Interpolation: InterpCatmullRom, Keyframes: []Keyframe{
		{T: 0}, {T: 1}, {T: 2},
		{T: 3, Offset: [3]float64{0, -1.5, 0}},
		{T: 4},
		{T: 5, Offset: [3]float64{0, 1.5, 0}},
		{T: 6},
		{T: 7, Offset: [3]float64{0, -0.4, 0}},
	}}
	for _, k := range m.Keyframes {
		if got := m.Offset(k.T); !near(got, k.Offset, 1e-15) {
			t.Errorf("Offset(%v) = %v, want the key %v", k.T, got, k.Offset)
		}
	}
	// Catmull-Rom tangents at interior keys, zero at the ends: at t=4 the
	// slope is (1.5 - (-1.5)) / (5 - 3) = 1.5 m/s; at t=3 it is (0-0)/2 = 0.
	want := map[float64][3]float64{0: {}, 3: {}, 4: {0, 1.5, 0}, 6: {0, -0.95, 0}, 7: {}}
	for tt, v := range want {
		if got := m.VelocityAt(tt); !near(got, v, 1e-12) {
			t.Errorf("VelocityAt(%v) = %v, want %v", tt, got, v)
		}
	}
	// C1: the velocity is continuous across keys.
	for _, k := range m.Keyframes[1 : len(m.Keyframes)-1] {
		a, b := m.VelocityAt(k.T-1e-9), m.VelocityAt(k.T+1e-9)
		if !near(a, b, 1e-7) {
			t.Errorf("velocity jumps at key t=%v: %v -> %v", k.T, a, b)
		}
	}
	consistency(t, m, -1, 8)
	// Linear keys stay linear by default.
	lin := &Motion{Keyframes: m.Keyframes}
	if got := lin.Offset(3.5); !near(got, [3]float64{0, -0.75, 0}, 1e-15) {
		t.Errorf("linear Offset(3.5) = %v", got)
	}
}

// consistency checks that a central finite difference of Offset matches
// VelocityAt away from the breakpoints.
func consistency(t *testing.T, m *Motion, t0, t1 float64) {
	t.Helper()
	const h = 1e-6
	for k := 0; k <= 1000; k++ {
		tt := t0 + (t1-t0)*float64(k)/1000 + 1.234e-4 // avoid hitting keys exactly
		a, b := m.Offset(tt-h), m.Offset(tt+h)
		var fd [3]float64
		for i := range 3 {
			fd[i] = (b[i] - a[i]) / (2 * h)
		}
		if v := m.VelocityAt(tt); !near(fd, v, 1e-5) {
			t.Errorf("t=%v: finite difference %v != VelocityAt %v", tt, fd, v)
		}
	}
}

func near(a, b [3]float64, tol float64) bool {
	for i := range 3 {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func TestGrid(t *testing.T) {
	cases := []struct {
		size   [2]float64
		res    int
		nx, ny int
	}{
		{[2]float64{1, 1}, 50, 50, 50},
		{[2]float64{2, 1}, 11, 11, 6},
		{[2]float64{1, 2}, 11, 6, 11},
		{[2]float64{10, 0.01}, 20, 20, 2},
		{[2]float64{1, 0.5}, 2, 2, 2},
	}
	for _, c := range cases {
		b := Body{Size: c.size, Resolution: c.res}
		if nx, ny := b.Grid(); nx != c.nx || ny != c.ny {
			t.Errorf("Grid(%v, %d) = %d,%d want %d,%d", c.size, c.res, nx, ny, c.nx, c.ny)
		}
	}
}

func TestBuildSheetCountsAndRest(t *testing.T) {
	b := Body{Name: "b", Size: [2]float64{2, 1}, Resolution: 9, Position: [3]float64{1, 2, 3}}
	sh, err := BuildSheet(&b)
	if err != nil {
		t.Fatal(err)
	}
	nx, ny := 9, 5
	if sh.NX != nx || sh.NY != ny || len(sh.Rest) != nx*ny || len(sh.Pos) != nx*ny {
		t.Fatalf("counts: %d %d %d %d", sh.NX, sh.NY, len(sh.Rest), len(sh.Pos))
	}
	if len(sh.Faces) != 2*(nx-1)*(ny-1) {
		t.Fatalf("faces = %d", len(sh.Faces))
	}
	for j := range ny {
		for i := range nx {
			v := j*nx + i
			want := [2]float64{float64(i) * 0.25, float64(j) * 0.25}
			if math.Abs(sh.Rest[v][0]-want[0]) > 1e-12 || math.Abs(sh.Rest[v][1]-want[1]) > 1e-12 {
				t.Errorf("rest[%d] = %v, want %v", v, sh.Rest[v], want)
			}
			// identity orientation: pos = rest - size/2 + position
			wp := [3]float64{want[0] - 1 + 1, want[1] - 0.5 + 2, 3}
			if !near(sh.Pos[v], wp, 1e-12) {
				t.Errorf("pos[%d] = %v, want %v", v, sh.Pos[v], wp)
			}
		}
	}
	// Faces CCW in material space, total area = sheet area, both diagonals used.
	area := 0.0
	diag := map[bool]int{}
	for _, f := range sh.Faces {
		a := cross2(sh.Rest[f[0]], sh.Rest[f[1]], sh.Rest[f[2]]) / 2
		if a <= 0 {
			t.Fatalf("face %v not CCW (area %v)", f, a)
		}
		area += a
	}
	for j := range ny - 1 {
		for i := range nx - 1 {
			v00 := int32(j*nx + i)
			f := sh.Faces[2*(j*(nx-1)+i)]
			diag[hasVert(f, v00) && hasVert(f, v00+int32(nx)+1)]++
		}
	}
	if math.Abs(area-2) > 1e-12 {
		t.Errorf("area = %v", area)
	}
	if diag[true] == 0 || diag[false] == 0 {
		t.Errorf("diagonals not alternating: %v", diag)
	}
}

func TestBuildSheetCross(t *testing.T) {
	b := Body{Name: "b", Size: [2]float64{1, 1}, Resolution: 2, Triangulation: Cross, Position: [3]float64{0, 0, 0.5}}
	sh, err := BuildSheet(&b)
	if err != nil {
		t.Fatal(err)
	}
	// The sphere scene's square: 4 corners, a centre vertex, 4 triangles.
	if len(sh.Rest) != 5 || len(sh.Faces) != 4 || len(sh.Hinges) != 4 {
		t.Fatalf("vertices %d, faces %d, hinges %d; want 5, 4, 4", len(sh.Rest), len(sh.Faces), len(sh.Hinges))
	}
	if sh.Rest[4] != [2]float64{0.5, 0.5} || !near(sh.Pos[4], [3]float64{0, 0, 0.5}, 0) {
		t.Errorf("centre vertex at %v / %v", sh.Rest[4], sh.Pos[4])
	}
	b.Resolution = 7
	sh, err = BuildSheet(&b)
	if err != nil {
		t.Fatal(err)
	}
	area := 0.0
	for _, f := range sh.Faces {
		a := cross2(sh.Rest[f[0]], sh.Rest[f[1]], sh.Rest[f[2]]) / 2
		if a <= 0 {
			t.Fatalf("face %v not CCW (area %v)", f, a)
		}
		area += a
	}
	if len(sh.Faces) != 4*36 || len(sh.Rest) != 49+36 || math.Abs(area-1) > 1e-12 {
		t.Errorf("faces %d, vertices %d, area %v", len(sh.Faces), len(sh.Rest), area)
	}
}

func hasVert(f [3]int32, v int32) bool { return f[0] == v || f[1] == v || f[2] == v }

func cross2(a, b, c [2]float64) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

func TestHingeInvariants(t *testing.T) {
	for _, size := range [][2]float64{{1, 1}, {2, 1}, {0.3, 1}} {
		for _, res := range []int{2, 3, 7, 40} {
			b := Body{Name: "b", Size: size, Resolution: res, Orientation: [3]float64{10, 20, 30}}
			sh, err := BuildSheet(&b)
			if err != nil {
				t.Fatal(err)
			}
			// Count undirected edges and how many faces use each.
			type edge [2]int32
			use := map[edge]int{}
			for _, f := range sh.Faces {
				for e := range 3 {
					a, c := f[e], f[(e+1)%3]
					use[edge{min(a, c), max(a, c)}]++
				}
			}
			interior, boundary := 0, 0
			for _, n := range use {
				switch n {
				case 1:
					boundary++
				case 2:
					interior++
				default:
					t.Fatalf("edge used %d times", n)
				}
			}
			if want := 2*(sh.NX-1) + 2*(sh.NY-1); boundary != want {
				t.Errorf("boundary edges = %d, want %d", boundary, want)
			}
			if len(sh.Hinges) != interior || 2*len(sh.Hinges) != 3*len(sh.Faces)-boundary {
				t.Errorf("%v res %d: hinges = %d, interior = %d, F = %d, B = %d", size, res, len(sh.Hinges), interior, len(sh.Faces), boundary)
			}
			seen := map[edge]bool{}
			for _, h := range sh.Hinges {
				e := edge{min(h[0], h[1]), max(h[0], h[1])}
				if use[e] != 2 {
					t.Errorf("hinge %v on a non-interior edge", h)
				}
				if seen[e] {
					t.Errorf("hinge edge %v twice", e)
				}
				seen[e] = true
				// x2 left of x0->x1 (CCW face), x3 right.
				if s := cross2(sh.Rest[h[0]], sh.Rest[h[1]], sh.Rest[h[2]]); s <= 0 {
					t.Errorf("hinge %v: x2 not on the left (%v)", h, s)
				}
				if s := cross2(sh.Rest[h[0]], sh.Rest[h[1]], sh.Rest[h[3]]); s >= 0 {
					t.Errorf("hinge %v: x3 not on the right (%v)", h, s)
				}
				// Both triangles exist as CCW faces.
				if !hasFace(sh.Faces, h[0], h[1], h[2]) || !hasFace(sh.Faces, h[1], h[0], h[3]) {
					t.Errorf("hinge %v does not match faces", h)
				}
			}
		}
	}
}

// hasFace reports whether a face contains the directed edge a->b with opposite c.
func hasFace(faces [][3]int32, a, b, c int32) bool {
	for _, f := range faces {
		for e := range 3 {
			if f[e] == a && f[(e+1)%3] == b && f[(e+2)%3] == c {
				return true
			}
		}
	}
	return false
}

func dist3(a, b [3]float64) float64 {
	return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
}

func TestDrapeOrientation(t *testing.T) {
	s := mustBuiltin(t, "drape")
	b := &s.Bodies[0]
	sh, err := BuildSheet(b)
	if err != nil {
		t.Fatal(err)
	}
	if sh.NX != 25 || sh.NY != 25 {
		t.Fatalf("grid %dx%d", sh.NX, sh.NY)
	}
	for _, p := range sh.Pos {
		if math.Abs(p[2]-1) > 1e-12 {
			t.Fatalf("drape sheet not horizontal at z=1: %v", p)
		}
	}
	if len(sh.Pinned) != 2 || sh.Pinned[0] != int32(24*25) || sh.Pinned[1] != int32(25*25-1) {
		t.Errorf("pinned = %v", sh.Pinned)
	}
	// The pinned corners are the two ends of the far (+y) edge.
	for k, v := range sh.Pinned {
		want := [3]float64{-0.5 + float64(k), 0.5, 1}
		if dist3(sh.Pos[v], want) > 1e-12 {
			t.Errorf("pinned vertex %d at %v, want %v", v, sh.Pos[v], want)
		}
	}
	checkIsometry(t, sh)
}

// checkIsometry checks that rest lengths equal world lengths on every edge.
func checkIsometry(t *testing.T, sh *Sheet) {
	t.Helper()
	for _, f := range sh.Faces {
		for e := range 3 {
			a, c := f[e], f[(e+1)%3]
			ra, rc := sh.Rest[a], sh.Rest[c]
			rest := math.Hypot(ra[0]-rc[0], ra[1]-rc[1])
			if w := dist3(sh.Pos[a], sh.Pos[c]); math.Abs(w-rest) > 1e-12 {
				t.Fatalf("edge %d-%d: rest %v world %v", a, c, rest, w)
			}
		}
	}
}

func TestOrientationGeneral(t *testing.T) {
	b := Body{Name: "b", Size: [2]float64{1.5, 0.7}, Resolution: 12, Position: [3]float64{1, -2, 0.5}, Orientation: [3]float64{30, -45, 170}}
	sh, err := BuildSheet(&b)
	if err != nil {
		t.Fatal(err)
	}
	checkIsometry(t, sh)
	// Centre maps to position: mean of the four corners.
	var c [3]float64
	for _, v := range []int{0, sh.NX - 1, (sh.NY - 1) * sh.NX, sh.NX*sh.NY - 1} {
		for k := range 3 {
			c[k] += sh.Pos[v][k] / 4
		}
	}
	if !near(c, b.Position, 1e-12) {
		t.Errorf("centre = %v", c)
	}
	// R = Rz*Ry*Rx: check against a hand-computed local x axis for a single-axis rotation.
	r := rotationXYZ([3]float64{0, 0, 90})
	if r[0][0] != 0 || r[1][0] != 1 {
		t.Errorf("Rz(90) x axis = %v", [2]float64{r[0][0], r[1][0]})
	}
	// Order: Rx first then Rz: x-rot 90 sends local y to +z; then z-rot leaves it.
	r = rotationXYZ([3]float64{90, 0, 90})
	if !near([3]float64{r[0][1], r[1][1], r[2][1]}, [3]float64{0, 0, 1}, 1e-15) {
		t.Errorf("R(90,0,90) local y = %v", [3]float64{r[0][1], r[1][1], r[2][1]})
	}
	if !near([3]float64{r[0][0], r[1][0], r[2][0]}, [3]float64{0, 1, 0}, 1e-15) {
		t.Errorf("R(90,0,90) local x = %v", [3]float64{r[0][0], r[1][0], r[2][0]})
	}
}

func TestNegativePins(t *testing.T) {
	b := Body{Name: "b", Size: [2]float64{1, 1}, Resolution: 5, Pins: []Pin{
		{At: [2]int{-1, 0}}, {At: [2]int{0, -1}}, {At: [2]int{-2, -3}}, {At: [2]int{4, 4}},
	}}
	sh, err := BuildSheet(&b)
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{4, 20, 2*5 + 3, 24}
	if !reflect.DeepEqual(sh.Pinned, want) {
		t.Errorf("pinned = %v, want %v", sh.Pinned, want)
	}
	b.Pins = append(b.Pins, Pin{At: [2]int{-1, -1}})
	if _, err := BuildSheet(&b); err == nil {
		t.Error("duplicate pin accepted")
	}
	b.Pins = []Pin{{At: [2]int{5, 0}}}
	if _, err := BuildSheet(&b); err == nil {
		t.Error("out-of-range pin accepted")
	}
}

func TestBuiltinGeometry(t *testing.T) {
	// sphere-drop: sheet above sphere above ground.
	s := mustBuiltin(t, "sphere-drop")
	sh, _ := BuildSheet(&s.Bodies[0])
	for _, p := range sh.Pos {
		if p[2] != 0.6 {
			t.Fatalf("sphere-drop sheet not flat at z=0.6: %v", p)
		}
	}
	// box-edge: sheet on top of the box, overhanging by 0.3 m; pinned corners overhang.
	s = mustBuiltin(t, "box-edge")
	box := s.Obstacles[0]
	top := box.Center[2] + box.HalfExtents[2]
	edge := box.Center[0] + box.HalfExtents[0]
	if math.Abs(top) > 1e-12 || math.Abs(edge-0.2) > 1e-12 {
		t.Errorf("box top %v edge %v", top, edge)
	}
	sh, _ = BuildSheet(&s.Bodies[0])
	maxX := math.Inf(-1)
	for _, p := range sh.Pos {
		maxX = math.Max(maxX, p[0])
		if p[2]-top <= s.Solver.Thickness {
			t.Errorf("sheet within contact thickness of the box top: z=%v", p[2])
		}
	}
	if math.Abs(maxX-edge-0.3) > 1e-12 {
		t.Errorf("overhang = %v", maxX-edge)
	}
	for _, v := range sh.Pinned {
		if sh.Pos[v][0] != maxX {
			t.Errorf("pinned vertex %d not on the overhanging edge", v)
		}
	}
	if s.NumSteps() != 800 || s.StepsPerFrame() != 8 {
		t.Errorf("steps %d per frame %d", s.NumSteps(), s.StepsPerFrame())
	}
}

// TestBuildSheetTube checks a sheet sewn into a tube: the right column of
// vertices is the left one (seam), faces keep their own material coordinates
// (u0 = size[0] on the seam's right side) covering the sheet's area, the
// world shape is a prism of perimeter size[0] whose ring edges have their
// rest length and whose face normals point outwards, the seam edges are
// interior (hinges with the two faces), and pins on column -1 land on the
// seam vertices of column 0.
func TestBuildSheetTube(t *testing.T) {
	for _, tri := range []string{Alternating, Cross} {
		b := Body{Name: "b", Size: [2]float64{1.2, 0.6}, Resolution: 9, Tube: true, Triangulation: tri,
			Position: [3]float64{0, 0, 1}, Orientation: [3]float64{90, 0, 0}, Pins: []Pin{{At: [2]int{-1, -1}}, {At: [2]int{3, 0}}}}
		sh, err := BuildSheet(&b)
		if err != nil {
			t.Fatal(err)
		}
		nx, ny := b.Grid()
		nc := nx - 1
		nv := nc * ny
		if tri == Cross {
			nv += (nx - 1) * (ny - 1)
		}
		if sh.NX != nx || len(sh.Rest) != nv || len(sh.Pos) != nv || len(sh.FaceU) != len(sh.Faces) {
			t.Fatalf("%s: %d vertices, %d positions, %d face coordinate triples for %d faces; want %d vertices",
				tri, len(sh.Rest), len(sh.Pos), len(sh.FaceU), len(sh.Faces), nv)
		}
		if v, _ := b.Vertex(-1, 2); v != 2*nc {
			t.Errorf("Vertex(-1, 2) = %d, want the seam vertex %d", v, 2*nc)
		}
		if sh.Pinned[0] != int32((ny-1)*nc) || sh.Pinned[1] != 3 {
			t.Errorf("pinned %v", sh.Pinned)
		}
		area := 0.0
		seamRight := 0
		for fi, f := range sh.Faces {
			u := sh.FaceU[fi]
			a := cross2(u[0], u[1], u[2]) / 2
			if a <= 0 {
				t.Fatalf("face %d not CCW in material space", fi)
			}
			area += a
			for k, v := range f {
				if u[k] == sh.Rest[v] {
					continue
				}
				if int(v) >= nc*ny || int(v)%nc != 0 || u[k] != [2]float64{b.Size[0], sh.Rest[v][1]} {
					t.Fatalf("face %d corner %d: vertex %d at %v, face sees %v", fi, k, v, sh.Rest[v], u[k])
				}
				seamRight++
			}
			// Outward normal: (x1-x0) x (x2-x0) points away from the axis
			// (world z here).
			x0, x1, x2 := sh.Pos[f[0]], sh.Pos[f[1]], sh.Pos[f[2]]
			e1 := [3]float64{x1[0] - x0[0], x1[1] - x0[1], x1[2] - x0[2]}
			e2 := [3]float64{x2[0] - x0[0], x2[1] - x0[1], x2[2] - x0[2]}
			n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
			c := [3]float64{(x0[0] + x1[0] + x2[0]) / 3, (x0[1] + x1[1] + x2[1]) / 3}
			if n[0]*c[0]+n[1]*c[1] <= 0 {
				t.Fatalf("face %d normal %v points inwards", fi, n)
			}
		}
		if math.Abs(area-1.2*0.6) > 1e-12 || seamRight == 0 {
			t.Errorf("%s: material area %v (want 0.72), %d seam corners on the right side", tri, area, seamRight)
		}
		dx := b.Size[0] / float64(nx-1)
		for j := range ny {
			for i := range nc {
				a, c := sh.Pos[j*nc+i], sh.Pos[j*nc+(i+1)%nc]
				if l := dist3(a, c); math.Abs(l-dx) > 1e-12 {
					t.Fatalf("%s: ring edge (%d,%d) has length %v, want %v", tri, i, j, l, dx)
				}
				if want := 1 + sh.Rest[j*nc][1] - 0.3; math.Abs(a[2]-want) > 1e-12 {
					t.Fatalf("%s: ring %d at z = %v, want %v", tri, j, a[2], want)
				}
			}
		}
		// Closed around: only the two rings are boundary; every other edge
		// is a hinge whose faces hold x0->x1 and x1->x0.
		use := map[[2]int32]int{}
		for _, f := range sh.Faces {
			for e := range 3 {
				a, c := f[e], f[(e+1)%3]
				use[[2]int32{min(a, c), max(a, c)}]++
			}
		}
		boundary := 0
		for _, n := range use {
			if n == 1 {
				boundary++
			}
		}
		if boundary != 2*nc || 2*len(sh.Hinges) != 3*len(sh.Faces)-boundary || len(sh.HingeFaces) != len(sh.Hinges) {
			t.Errorf("%s: %d boundary edges (want %d), %d hinges for %d faces", tri, boundary, 2*nc, len(sh.Hinges), len(sh.Faces))
		}
		for k, h := range sh.Hinges {
			fa, fb := sh.Faces[sh.HingeFaces[k][0]], sh.Faces[sh.HingeFaces[k][1]]
			if !hasFace([][3]int32{fa}, h[0], h[1], h[2]) || !hasFace([][3]int32{fb}, h[1], h[0], h[3]) {
				t.Fatalf("hinge %v: faces %v %v", h, fa, fb)
			}
		}
	}
}

// TestEOLQPDomains: solver.eol.qp_domains takes 0 (the default) to
// MaxQPDomains; values outside are rejected with the key named, and a
// rejected Set leaves the scene as it was.
func TestEOLQPDomains(t *testing.T) {
	s := mustBuiltin(t, "edge")
	for _, v := range []string{"0", "1", "4", fmt.Sprint(MaxQPDomains)} {
		if err := s.Set("solver.eol.qp_domains", v); err != nil {
			t.Errorf("qp_domains %s: %v", v, err)
		}
	}
	for _, v := range []string{"-1", fmt.Sprint(MaxQPDomains + 1)} {
		wantErr(t, s.Set("solver.eol.qp_domains", v), "solver.eol.qp_domains", "must be in [0, 64], got "+v)
	}
	if s.Solver.EOL.QPDomains != MaxQPDomains {
		t.Errorf("qp_domains = %d after the rejected Sets, want %d", s.Solver.EOL.QPDomains, MaxQPDomains)
	}
}

// TestValidatePipelineCombinations checks that settings the chosen pipeline
// has no stage for are rejected, naming the field, instead of ignored.
func TestValidatePipelineCombinations(t *testing.T) {
	s := mustBuiltin(t, "edge")
	wantErr(t, s.Set("solver.linear", "ldlt"), "solver.linear", `solver.mode "eol"`)
	if err := s.Set("solver.mode", "lag-conformal"); err != nil {
		t.Fatal(err)
	}
	wantErr(t, s.Set("bodies.0.strain_limits", `{"min": -0.05, "max": 0.05, "method": "jacobi"}`), "bodies[0].strain_limits", `solver.mode "lag-conformal"`)
	if err := s.Set("solver.linear", "ldlt"); err != nil {
		t.Errorf("lag-conformal solves Lagrangian steps, ldlt is a valid choice: %v", err)
	}
	for _, mode := range []string{"", "eol", "lag-nonconformal", "lag-regular"} {
		s := mustBuiltin(t, "edge")
		if err := s.Set("solver.mode", mode); err != nil {
			t.Fatal(err)
		}
		if err := s.Set("bodies.0.strain_limits", `{"min": -0.05, "max": 0.05, "method": "jacobi"}`); err != nil {
			t.Errorf("mode %q: strain limits are supported: %v", mode, err)
		}
	}
}

// TestPreconditioner: solver.preconditioner resolves to the model's typed
// choice (absent: AMG) and an unknown name is an error naming the field.
func TestPreconditioner(t *testing.T) {
	for _, c := range []struct {
		set  string
		want model.Preconditioner
	}{{"", model.AMG}, {"amg", model.AMG}, {"block-jacobi", model.BlockJacobi}} {
		s := mustBuiltin(t, "drape")
		if c.set != "" {
			if err := s.Set("solver.preconditioner", c.set); err != nil {
				t.Fatal(err)
			}
		}
		m, err := s.Model()
		if err != nil {
			t.Fatal(err)
		}
		if m.Solver.Precond != c.want {
			t.Errorf("preconditioner %q: model has %d, want %d", c.set, m.Solver.Precond, c.want)
		}
	}
	wantErr(t, mustBuiltin(t, "drape").Set("solver.preconditioner", "ilu"), "solver.preconditioner", `"ilu"`)
}

// TestRemeshSizeBoundsFaces: a size_max that would ask for more than
// MaxRemeshAsk faces is an error naming the field (it made the remesher
// split for ever at step 0); the built-in sizes pass.
func TestRemeshSizeBoundsFaces(t *testing.T) {
	sc := mustBuiltin(t, "sphere")
	if _, err := sc.Model(); err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("bodies.0.remesh.size_min", "1e-9"); err != nil {
		t.Fatal(err)
	}
	err := sc.Set("bodies.0.remesh.size_max", "1e-8")
	if err == nil {
		_, err = sc.Model()
	}
	if err == nil || !strings.Contains(err.Error(), "bodies[0].remesh.size_max") || !strings.Contains(err.Error(), "faces") {
		t.Fatalf("size_max 1e-8 m on a 1 m^2 sheet: error %v, want one naming bodies[0].remesh.size_max and the face count", err)
	}
}

// TestSetEvery: the index * sets every element of an array in one set,
// validated once: layers-developable's three bodies switch to Lagrangian
// together (one body at a time is refused: the bodies must share a model),
// and a bad value or field under * fails as an indexed one does, leaving
// the scene unchanged.
func TestSetEvery(t *testing.T) {
	s := mustBuiltin(t, "layers-developable")
	if err := s.Set("bodies.0.model", "lagrangian"); err == nil || !strings.Contains(err.Error(), "same model") {
		t.Fatalf("one body switched: error %v, want the mixed-model error", err)
	}
	if err := s.Set("bodies.*.model", "lagrangian"); err != nil {
		t.Fatal(err)
	}
	for i, b := range s.Bodies {
		if b.Model != "lagrangian" {
			t.Errorf("bodies[%d].model = %q, want lagrangian", i, b.Model)
		}
	}
	if err := s.Set("bodies[*].resolution", "12"); err != nil {
		t.Fatal(err)
	}
	for i, b := range s.Bodies {
		if b.Resolution != 12 {
			t.Errorf("bodies[%d].resolution = %d, want 12", i, b.Resolution)
		}
	}
	before, _ := json.Marshal(s)
	wantErr(t, s.Set("bodies.*.resolution", "-1"), "bodies[0].resolution", "got -1")
	wantErr(t, s.Set("bodies.*.nosuch", "1"), "bodies[0].nosuch", "unknown field")
	wantErr(t, s.Set("dt.*", "1"), "dt", "no field")
	if after, _ := json.Marshal(s); string(before) != string(after) {
		t.Errorf("failed Set modified the scene")
	}
}
