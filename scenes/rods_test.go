package scenes

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// modifyScene builds a JSON document from the named built-in after applying f
// to its generic form.
func modifyScene(t *testing.T, name string, f func(m map[string]any)) []byte {
	t.Helper()
	data, err := json.Marshal(mustBuiltin(t, name))
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

func rodsOf(m map[string]any) map[string]any { return m["rods"].(map[string]any) }

func strandOf(m map[string]any, i int) map[string]any {
	return rodsOf(m)["strands"].([]any)[i].(map[string]any)
}

func strandByName(t *testing.T, s *Scene, name string) *Strand {
	t.Helper()
	if s.Rods == nil {
		t.Fatalf("%s has no rods", s.Name)
	}
	for i := range s.Rods.Strands {
		if s.Rods.Strands[i].Name == name {
			return &s.Rods.Strands[i]
		}
	}
	t.Fatalf("%s has no strand %q", s.Name, name)
	return nil
}

var yarn = RodMaterial{StretchStiffness: 200, BendingStiffness: 1e-5, LinearDensity: 0.005, Damping: 0.5}

func TestRodBuiltinsCommon(t *testing.T) {
	for _, name := range []string{"rod-hang", "rod-crossing", "rod-incline", "rod-table", "rod-box-edge", "rod-drop"} {
		s := mustBuiltin(t, name)
		if len(s.Bodies) != 0 || s.Rods == nil || len(s.Rods.Strands) == 0 {
			t.Errorf("%s: %d bodies, rods %v", name, len(s.Bodies), s.Rods)
			continue
		}
		if s.Gravity != [3]float64{0, 0, -9.81} || s.FrameRate != 25 || s.TimeStep != 0.002 || s.InclineDeg != 0 {
			t.Errorf("%s: gravity %v fps %v dt %v incline %v", name, s.Gravity, s.FrameRate, s.TimeStep, s.InclineDeg)
		}
		if s.Solver != (Solver{Tolerance: 1e-4, MaxIterations: 2000, Thickness: 0.002, Friction: 0.3, Linear: LinearPCG}) {
			t.Errorf("%s: solver %+v", name, s.Solver)
		}
		for _, st := range s.Rods.Strands {
			want := yarn
			if name == "rod-hang" {
				want.Damping = 0
			}
			if st.Material != want {
				t.Errorf("%s/%s: material %+v", name, st.Name, st.Material)
			}
		}
	}
}

func TestRodHang(t *testing.T) {
	s := mustBuiltin(t, "rod-hang")
	st := strandByName(t, s, "rod")
	if len(s.Rods.Strands) != 1 || st.From != [3]float64{0, 0, 1} || st.To != [3]float64{0.5, 0, 1} || st.Nodes != 21 {
		t.Errorf("strand %+v", st)
	}
	if len(st.Pins) != 1 || st.PinNode(st.Pins[0].Node) != 0 || st.Pins[0].Motion != nil {
		t.Errorf("pins %+v", st.Pins)
	}
	if s.Duration != 2 || s.NumSteps() != 1000 || s.StepsPerFrame() != 20 {
		t.Errorf("duration %v steps %d per frame %d", s.Duration, s.NumSteps(), s.StepsPerFrame())
	}
}

func TestRodCrossing(t *testing.T) {
	s := mustBuiltin(t, "rod-crossing")
	r := s.Rods
	if !r.EIL || r.Friction != 0.2 || r.ContactDistance != 0.002 || len(r.Strands) != 3 || s.Duration != 2.4 {
		t.Fatalf("rods %+v duration %v", r, s.Duration)
	}
	base := strandByName(t, s, "base")
	if base.Nodes != 41 || base.From != [3]float64{-0.5, 0, 0} || base.To != [3]float64{0.5, 0, 0} {
		t.Errorf("base %+v", base)
	}
	if len(base.Pins) != 2 || base.PinNode(base.Pins[0].Node) != 0 || base.PinNode(base.Pins[1].Node) != 40 ||
		base.Pins[0].Motion != nil || base.Pins[1].Motion != nil {
		t.Errorf("base pins %+v", base.Pins)
	}
	// left and right lie across the base (x < 0 and x > 0), are pinned at both
	// ends, and their pins carry them toward each other so that they cross
	// x = 0 within the run.
	for _, c := range []struct {
		name string
		sign float64 // side of x = 0 at the start
	}{{"left", -1}, {"right", 1}} {
		st := strandByName(t, s, c.name)
		if st.Nodes != 25 || st.From[0] != st.To[0] || c.sign*st.From[0] <= 0 || st.From[2] != 0.001 || st.To[2] != 0.001 ||
			!(st.From[1] < 0 && st.To[1] > 0) {
			t.Errorf("%s %+v", c.name, st)
		}
		if len(st.Pins) != 2 || st.PinNode(st.Pins[0].Node) != 0 || st.PinNode(st.Pins[1].Node) != 24 {
			t.Fatalf("%s pins %+v", c.name, st.Pins)
		}
		for _, p := range st.Pins {
			if p.Motion == nil {
				t.Fatalf("%s: pin without motion", c.name)
			}
			crossed := -1.0
			for k := 0; k <= 3000; k++ {
				tt := s.Duration * float64(k) / 3000
				if c.sign*(st.From[0]+p.Motion.Offset(tt)[0]) <= 0 {
					crossed = tt
					break
				}
			}
			if !(crossed > 1 && crossed < s.Duration) {
				t.Errorf("%s: pin reaches x = 0 at t = %v, want within (1, %v)", c.name, crossed, s.Duration)
			}
			if v := p.Motion.VelocityAt(1); !(c.sign*v[0] < 0) {
				t.Errorf("%s: pin velocity %v does not point toward x = 0", c.name, v)
			}
		}
		// Crosses the base within the contact distance at load time.
		if d := segDist(base.From, base.To, st.From, st.To); !(d < r.ContactDistance) {
			t.Errorf("%s-base distance %v", c.name, d)
		}
	}
	if d := segDist(strandByName(t, s, "left").From, strandByName(t, s, "left").To,
		strandByName(t, s, "right").From, strandByName(t, s, "right").To); !(d >= r.ContactDistance) {
		t.Errorf("left-right distance %v", d)
	}
}

func TestRodIncline(t *testing.T) {
	s := mustBuiltin(t, "rod-incline")
	r := s.Rods
	if r.Friction != 1 || r.ContactDistance != 0.002 || s.Duration != 1 || len(r.Strands) != 13 {
		t.Fatalf("rods %+v duration %v", r, s.Duration)
	}
	var grid, topY, topX []*Strand
	for i := range r.Strands {
		st := &r.Strands[i]
		switch {
		case strings.HasPrefix(st.Name, "grid"):
			grid = append(grid, st)
			if !st.Fixed || st.Nodes != 13 || st.From[0] != -0.06 || st.To[0] != 0.06 || st.From[2] != 0 {
				t.Errorf("grid strand %+v", st)
			}
		case strings.HasPrefix(st.Name, "top-y"):
			topY = append(topY, st)
			if st.Fixed || st.Nodes != 21 || st.From[1] != -0.05 || st.To[1] != 0.05 || st.From[2] != 0.0015 {
				t.Errorf("top-y strand %+v", st)
			}
		case strings.HasPrefix(st.Name, "top-x"):
			topX = append(topX, st)
			if st.Fixed || st.Nodes != 17 || st.From[0] != -0.04 || st.To[0] != 0.04 || st.From[2] != 0.003 {
				t.Errorf("top-x strand %+v", st)
			}
		default:
			t.Errorf("unexpected strand %q", st.Name)
		}
	}
	if len(grid) != 5 || len(topY) != 4 || len(topX) != 4 {
		t.Fatalf("%d grid, %d top-y, %d top-x", len(grid), len(topY), len(topX))
	}
	cd := r.ContactDistance
	for _, a := range topY {
		for _, b := range grid {
			if d := segDist(a.From, a.To, b.From, b.To); !(d < cd) {
				t.Errorf("%s-%s: %v, want < %v", a.Name, b.Name, d, cd)
			}
		}
		for _, b := range topX {
			if d := segDist(a.From, a.To, b.From, b.To); !(d < cd) {
				t.Errorf("%s-%s: %v, want < %v", a.Name, b.Name, d, cd)
			}
		}
	}
	for _, a := range topX {
		for _, b := range grid {
			if d := segDist(a.From, a.To, b.From, b.To); !(d >= cd) {
				t.Errorf("%s-%s: %v, want >= %v", a.Name, b.Name, d, cd)
			}
		}
	}
	for _, deg := range []string{"30", "60"} {
		s2 := mustBuiltin(t, "rod-incline")
		if err := s2.Set("incline_deg", deg); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRodTable(t *testing.T) {
	s := mustBuiltin(t, "rod-table")
	if len(s.Obstacles) != 1 || s.Duration != 2 {
		t.Fatalf("obstacles %+v duration %v", s.Obstacles, s.Duration)
	}
	box := s.Obstacles[0]
	if box.Name != "table" || box.Type != Box || box.Center != [3]float64{0, 0, -0.05} || box.HalfExtents != [3]float64{0.3, 0.3, 0.05} {
		t.Errorf("table %+v", box)
	}
	st := strandByName(t, s, "rod")
	if st.Nodes != 31 || st.From != [3]float64{0, 0, 0.002} || st.To != [3]float64{0.6, 0, 0.002} {
		t.Errorf("rod %+v", st)
	}
	if len(st.Pins) != 1 || st.PinNode(st.Pins[0].Node) != 30 || st.Pins[0].Motion == nil ||
		st.Pins[0].Motion.VelocityAt(0) != [3]float64{0, 0.05, -0.1} {
		t.Errorf("pins %+v", st.Pins)
	}
	if len(s.Rods.EdgeNodes) != 1 {
		t.Fatalf("edge nodes %+v", s.Rods.EdgeNodes)
	}
	e := s.Rods.EdgeNodes[0]
	if e.Strand != "rod" || e.U != 0.5 || e.A != [3]float64{0.3, -0.3, 0.002} || e.B != [3]float64{0.3, 0.3, 0.002} {
		t.Errorf("edge node %+v", e)
	}
	// The edge line is the box's top edge at x = +0.3 raised by the contact
	// thickness (2 mm), so the edge node rides on the obstacle's contact
	// layer, and the strand starts on that layer.
	top := box.Center[2] + box.HalfExtents[2]
	edge := box.Center[0] + box.HalfExtents[0]
	if top != 0 || edge != 0.3 || e.A[2] != top+s.Solver.Thickness || e.A[0] != edge || e.B[0] != edge {
		t.Errorf("box top %v edge %v vs %v %v", top, edge, e.A, e.B)
	}
	var p [3]float64
	for k := range 3 {
		p[k] = st.From[k] + e.U*(st.To[k]-st.From[k])
	}
	if d := segDist(p, p, e.A, e.B); d > 0.001 {
		t.Errorf("edge node point %v is %v from the edge", p, d)
	}
}

func TestRodsOptionalInOldScenes(t *testing.T) {
	for _, name := range []string{"drape", "sphere-drop", "box-edge"} {
		s := mustBuiltin(t, name)
		if s.Rods != nil || s.InclineDeg != 0 {
			t.Errorf("%s: rods %v incline %v", name, s.Rods, s.InclineDeg)
		}
	}
	data := modifyScene(t, "drape", func(m map[string]any) { m["rods"] = nil })
	if s, err := Parse(data, "n.json"); err != nil || s.Rods != nil {
		t.Errorf("rods: null: %v, %v", s, err)
	}
}

func TestRodValidationErrors(t *testing.T) {
	cases := []struct {
		name  string
		scene string
		f     func(m map[string]any)
		parts []string
	}{
		{"linear density", "rod-crossing", func(m map[string]any) {
			strandOf(m, 1)["material"].(map[string]any)["linear_density"] = 0
		}, []string{"rods.strands[1].material.linear_density", "must be > 0, got 0"}},
		{"stretch", "rod-crossing", func(m map[string]any) {
			strandOf(m, 0)["material"].(map[string]any)["stretch_stiffness"] = -1
		}, []string{"rods.strands[0].material.stretch_stiffness", "must be > 0"}},
		{"bending", "rod-crossing", func(m map[string]any) {
			strandOf(m, 2)["material"].(map[string]any)["bending_stiffness"] = -1
		}, []string{"rods.strands[2].material.bending_stiffness", ">= 0"}},
		{"damping", "rod-crossing", func(m map[string]any) {
			strandOf(m, 2)["material"].(map[string]any)["damping"] = -0.5
		}, []string{"rods.strands[2].material.damping", ">= 0"}},
		{"nodes", "rod-crossing", func(m map[string]any) { strandOf(m, 0)["nodes"] = 1 },
			[]string{"rods.strands[0].nodes", "got 1"}},
		{"nodes huge", "rod-crossing", func(m map[string]any) { strandOf(m, 0)["nodes"] = MaxRodNodes + 1 },
			[]string{"rods.strands[0].nodes", "must be in [2, "}},
		{"from=to", "rod-crossing", func(m map[string]any) { strandOf(m, 1)["to"] = strandOf(m, 1)["from"] },
			[]string{"rods.strands[1].to", "distinct"}},
		{"strand name empty", "rod-crossing", func(m map[string]any) { strandOf(m, 1)["name"] = "" },
			[]string{"rods.strands[1].name", "non-empty"}},
		{"strand name space", "rod-crossing", func(m map[string]any) { strandOf(m, 1)["name"] = "a b" },
			[]string{"rods.strands[1].name", "whitespace"}},
		{"strand dup", "rod-crossing", func(m map[string]any) { strandOf(m, 2)["name"] = "left" },
			[]string{"rods.strands[2].name", "duplicate", "rods.strands[1]"}},
		{"strand vs obstacle", "rod-table", func(m map[string]any) { strandOf(m, 0)["name"] = "table" },
			[]string{"rods.strands[0].name", "duplicate", "obstacles[0]"}},
		{"pin range", "rod-crossing", func(m map[string]any) { strandOf(m, 0)["pins"] = []any{map[string]any{"node": 41}} },
			[]string{"rods.strands[0].pins[0].node", "out of range", "-41..40"}},
		{"pin neg range", "rod-crossing", func(m map[string]any) { strandOf(m, 0)["pins"] = []any{map[string]any{"node": -42}} },
			[]string{"rods.strands[0].pins[0].node", "out of range"}},
		{"pin dup", "rod-crossing", func(m map[string]any) {
			strandOf(m, 0)["pins"] = []any{map[string]any{"node": 40}, map[string]any{"node": -1}}
		}, []string{"rods.strands[0].pins[1].node", "already pinned", "pins[0]"}},
		{"pin motion", "rod-crossing", func(m map[string]any) {
			strandOf(m, 1)["pins"] = []any{map[string]any{"node": 0, "motion": map[string]any{}}}
		}, []string{"rods.strands[1].pins[0].motion", "neither"}},
		{"friction", "rod-crossing", func(m map[string]any) { rodsOf(m)["friction"] = -1 },
			[]string{"rods.friction", ">= 0"}},
		{"contact distance", "rod-crossing", func(m map[string]any) { rodsOf(m)["contact_distance"] = 0 },
			[]string{"rods.contact_distance", "must be > 0"}},
		{"linear", "rod-crossing", func(m map[string]any) { rodsOf(m)["linear"] = "cg" },
			[]string{"rods.linear", `must be "auto", "direct", "iterative" or "lagged", got "cg"`}},
		{"no strands", "rod-crossing", func(m map[string]any) { rodsOf(m)["strands"] = []any{} },
			[]string{"rods.strands", "at least one strand", "bodies", "at least one body or rod strand"}},
		{"edge unknown strand", "rod-table", func(m map[string]any) {
			rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)["strand"] = "nosuch"
		}, []string{"rods.edge_nodes[0].strand", "no strand named \"nosuch\""}},
		{"edge names an obstacle", "rod-table", func(m map[string]any) {
			rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)["strand"] = "table"
		}, []string{"rods.edge_nodes[0].strand", "no strand named \"table\""}},
		{"edge empty strand", "rod-table", func(m map[string]any) {
			rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)["strand"] = ""
		}, []string{"rods.edge_nodes[0].strand", "empty"}},
		{"edge u 0", "rod-table", func(m map[string]any) { rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)["u"] = 0 },
			[]string{"rods.edge_nodes[0].u", "(0, 1)", "got 0"}},
		{"edge u 1", "rod-table", func(m map[string]any) { rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)["u"] = 1 },
			[]string{"rods.edge_nodes[0].u", "(0, 1)", "got 1"}},
		{"edge a=b", "rod-table", func(m map[string]any) {
			e := rodsOf(m)["edge_nodes"].([]any)[0].(map[string]any)
			e["b"] = e["a"]
		}, []string{"rods.edge_nodes[0].b", "distinct"}},
		{"incline", "rod-incline", func(m map[string]any) { m["incline_deg"] = 91 },
			[]string{"incline_deg", "[-90, 90]", "got 91"}},
		{"incline neg", "drape", func(m map[string]any) { m["incline_deg"] = -90.5 },
			[]string{"incline_deg", "[-90, 90]"}},
		{"no bodies no rods", "drape", func(m map[string]any) { m["bodies"] = []any{} },
			[]string{"bodies", "at least one body or rod strand"}},
		{"eil type", "rod-hang", func(m map[string]any) { rodsOf(m)["eil"] = 1 },
			[]string{"rods.eil", "expected a boolean", "1"}},
		{"fixed type", "rod-hang", func(m map[string]any) { strandOf(m, 0)["fixed"] = "yes" },
			[]string{"rods.strands[0].fixed", "expected a boolean"}},
		{"eil null", "rod-hang", func(m map[string]any) { rodsOf(m)["eil"] = nil },
			[]string{"rods.eil", "expected a boolean", "null"}},
		{"strand unknown key", "rod-hang", func(m map[string]any) { strandOf(m, 0)["node"] = 3 },
			[]string{"rods.strands[0].node", "unknown field", "nodes"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(modifyScene(t, c.scene, c.f), "bad.json")
			wantErr(t, err, append([]string{"bad.json"}, c.parts...)...)
		})
	}
}

func TestRodValidateNonFinite(t *testing.T) {
	s := mustBuiltin(t, "rod-table")
	s.Rods.Strands[0].From[1] = math.NaN()
	s.Rods.EdgeNodes[0].B[2] = math.Inf(-1)
	s.InclineDeg = math.NaN()
	wantErr(t, s.Validate(), "rods.strands[0].from[1]", "rods.edge_nodes[0].b[2]", "incline_deg", "finite")
}

func TestRodsAndBodiesTogether(t *testing.T) {
	// A cloth scene may carry rods too; names are shared.
	s := mustBuiltin(t, "drape")
	err := s.Set("rods", `{"contact_distance":0.001,"strands":[{"name":"y","from":[0,0,0],"to":[1,0,0],"nodes":3,
		"material":{"stretch_stiffness":1,"linear_density":1}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rods == nil || s.Rods.EIL || len(s.Rods.Strands) != 1 || s.Rods.Strands[0].Pins != nil || s.Rods.EdgeNodes != nil {
		t.Errorf("rods %+v", s.Rods)
	}
	wantErr(t, s.Set("rods.strands.0.name", "cloth"), "rods.strands[0].name", "duplicate", "bodies[0]")
}

func TestSetRods(t *testing.T) {
	s := mustBuiltin(t, "rod-crossing")
	steps := []struct{ path, value string }{
		{"rods.eil", "false"},
		{"incline_deg", "30"},
		{"rods.strands.0.nodes", "7"},
		{"rods.friction", "0.5"},
		{"rods.strands.1.material.linear_density", "0.01"},
		{"rods.strands[2].pins.1.node", "-2"},
		{"rods.strands.0.pins.0.motion.velocity", "[0,0,0.1]"}, // motion was null
		{"rods.strands.0.fixed", "true"},
		{"rods.edge_nodes", `[{"strand":"base","u":0.25,"a":[0,-1,0],"b":[0,1,0]}]`},
		{"rods.edge_nodes.0.u", "0.75"},
	}
	for _, st := range steps {
		if err := s.Set(st.path, st.value); err != nil {
			t.Fatalf("Set(%s, %s): %v", st.path, st.value, err)
		}
	}
	r := s.Rods
	if r.EIL || s.InclineDeg != 30 || r.Strands[0].Nodes != 7 || r.Friction != 0.5 ||
		r.Strands[1].Material.LinearDensity != 0.01 || r.Strands[2].Pins[1].Node != -2 || !r.Strands[0].Fixed ||
		len(r.EdgeNodes) != 1 || r.EdgeNodes[0].U != 0.75 || r.EdgeNodes[0].Strand != "base" {
		t.Errorf("unexpected scene after Set: %+v", r)
	}
	if m := r.Strands[0].Pins[0].Motion; m == nil || *m.Velocity != [3]float64{0, 0, 0.1} {
		t.Errorf("pin motion %+v", m)
	}
	if r.Strands[0].PinNode(r.Strands[0].Pins[1].Node) != 6 {
		t.Errorf("base's last pin resolves to %d", r.Strands[0].PinNode(r.Strands[0].Pins[1].Node))
	}
	if err := s.Set("rods.eil", "true"); err != nil || !s.Rods.EIL {
		t.Errorf("Set(rods.eil, true): %v", err)
	}

	before, _ := json.Marshal(s)
	bad := []struct {
		path, value string
		parts       []string
	}{
		{"rods.eil", "maybe", []string{"rods.eil", "expected a boolean"}},
		{"rods.eil", "1", []string{"rods.eil", "expected a boolean"}},
		{"incline_deg", "120", []string{"incline_deg", "[-90, 90]"}},
		{"rods.strands.0.nodes", "1", []string{"rods.strands[0].nodes", "got 1"}},
		{"rods.strands.0.nodes", "2.5", []string{"rods.strands[0].nodes", "expected an integer"}},
		{"rods.strands.0.pins.1.node", "7", []string{"rods.strands[0].pins[1].node", "out of range"}},
		{"rods.strands.3.nodes", "5", []string{"rods.strands[3]", "out of range"}},
		{"rods.strands.0.colour", "red", []string{"rods.strands[0].colour", "unknown field"}},
		{"rods.edge_nodes.0.strand", "nosuch", []string{"rods.edge_nodes[0].strand", "nosuch"}},
		{"rods.eil.x", "1", []string{"rods.eil", "no field"}},
	}
	for _, c := range bad {
		wantErr(t, s.Set(c.path, c.value), c.parts...)
	}
	after, _ := json.Marshal(s)
	if string(before) != string(after) {
		t.Errorf("failed Set modified the scene")
	}

	// On a scene without rods, setting one rods field creates the rods object,
	// which then fails validation for lack of strands.
	d := mustBuiltin(t, "drape")
	wantErr(t, d.Set("rods.eil", "false"), "rods.strands", "at least one strand")
	if d.Rods != nil {
		t.Error("failed Set created rods")
	}
	if err := d.Set("incline_deg", "30"); err != nil || d.InclineDeg != 30 {
		t.Errorf("Set(incline_deg) on drape: %v", err)
	}
}

func TestGravityVector(t *testing.T) {
	s := &Scene{Gravity: [3]float64{0, 0, -9.81}}
	if g := s.GravityVector(); g != s.Gravity {
		t.Errorf("0 deg: %v", g)
	}
	s.InclineDeg = 30
	want := [3]float64{0, 9.81 * 0.5, -9.81 * math.Sqrt(3) / 2}
	if g := s.GravityVector(); !near(g, want, 1e-12) {
		t.Errorf("30 deg: %v, want %v", g, want)
	}
	s.InclineDeg = 90
	if g := s.GravityVector(); g != [3]float64{0, 9.81, 0} {
		t.Errorf("90 deg: %v", g)
	}
	s.InclineDeg = -30
	if g := s.GravityVector(); !near(g, [3]float64{0, -want[1], want[2]}, 1e-12) {
		t.Errorf("-30 deg: %v", g)
	}
	// Right-handed rotation about +x: +y goes to +z; x untouched.
	s = &Scene{Gravity: [3]float64{1, 2, 0}, InclineDeg: 30}
	if g := s.GravityVector(); !near(g, [3]float64{1, 2 * math.Sqrt(3) / 2, 1}, 1e-12) {
		t.Errorf("[1,2,0] at 30 deg: %v", g)
	}
	// Magnitude is preserved.
	s = &Scene{Gravity: [3]float64{0.3, -1, -9.81}, InclineDeg: 47}
	g := s.GravityVector()
	if math.Abs(math.Hypot(math.Hypot(g[0], g[1]), g[2])-math.Hypot(math.Hypot(0.3, -1), -9.81)) > 1e-12 {
		t.Errorf("magnitude changed: %v", g)
	}
	// The built-in with --set.
	sc := mustBuiltin(t, "rod-incline")
	if err := sc.Set("incline_deg", "30"); err != nil {
		t.Fatal(err)
	}
	if g := sc.GravityVector(); !near(g, want, 1e-12) || sc.Gravity != [3]float64{0, 0, -9.81} {
		t.Errorf("rod-incline at 30: %v (gravity %v)", g, sc.Gravity)
	}
}

func TestStrandGeometry(t *testing.T) {
	st := Strand{From: [3]float64{1, 2, 3}, To: [3]float64{1.3, 2.4, 3}, Nodes: 6}
	if l := st.Length(); math.Abs(l-0.5) > 1e-15 {
		t.Errorf("length %v", l)
	}
	p := st.NodePositions()
	if len(p) != 6 || p[0] != st.From || p[5] != st.To {
		t.Fatalf("positions %v", p)
	}
	for i := 1; i < len(p); i++ {
		if d := dist3(p[i-1], p[i]); math.Abs(d-0.1) > 1e-12 {
			t.Errorf("spacing %d: %v", i, d)
		}
	}
	if !near(p[2], [3]float64{1.12, 2.16, 3}, 1e-12) {
		t.Errorf("p[2] = %v", p[2])
	}
	s := mustBuiltin(t, "rod-hang")
	rp := s.Rods.Strands[0].NodePositions()
	if len(rp) != 21 || rp[20] != [3]float64{0.5, 0, 1} || !near(rp[10], [3]float64{0.25, 0, 1}, 1e-15) {
		t.Errorf("rod-hang nodes %v", rp)
	}
	if (&Strand{Nodes: 1}).NodePositions() != nil {
		t.Error("Nodes < 2 should give nil")
	}
}

func TestPinNode(t *testing.T) {
	st := Strand{Nodes: 5}
	cases := map[int]int{0: 0, 4: 4, -1: 4, -2: 3, -5: 0, 5: -1, -6: -1}
	for k, want := range cases {
		if got := st.PinNode(k); got != want {
			t.Errorf("PinNode(%d) = %d, want %d", k, got, want)
		}
	}
}

func TestRodRoundTripDeepEqual(t *testing.T) {
	// Also through Set (which re-marshals): a no-op Set keeps the scene.
	for _, name := range []string{"rod-hang", "rod-crossing", "rod-incline", "rod-table"} {
		s := mustBuiltin(t, name)
		s2 := mustBuiltin(t, name)
		if err := s2.Set("rods.eil", "true"); err != nil {
			t.Fatal(err)
		}
		s.Rods.EIL = true
		if !reflect.DeepEqual(s, s2) {
			t.Errorf("%s: Set round trip differs", name)
		}
	}
}

// segDist is the distance between segments [p0,p1] and [q0,q1] (Ericson,
// Real-Time Collision Detection 5.1.9).
func segDist(p0, p1, q0, q1 [3]float64) float64 {
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	clamp := func(x float64) float64 { return math.Min(1, math.Max(0, x)) }
	d1, d2, r := sub(p1, p0), sub(q1, q0), sub(p0, q0)
	a, e, f := dot(d1, d1), dot(d2, d2), dot(d2, r)
	var s, t float64
	switch {
	case a == 0 && e == 0:
	case a == 0:
		t = clamp(f / e)
	default:
		c := dot(d1, r)
		if e == 0 {
			s = clamp(-c / a)
		} else {
			b := dot(d1, d2)
			if den := a*e - b*b; den != 0 {
				s = clamp((b*f - c*e) / den)
			}
			t = (b*s + f) / e
			if t < 0 {
				t, s = 0, clamp(-c/a)
			} else if t > 1 {
				t, s = 1, clamp((b-c)/a)
			}
		}
	}
	var cp, cq [3]float64
	for k := range 3 {
		cp[k] = p0[k] + d1[k]*s
		cq[k] = q0[k] + d2[k]*t
	}
	return dist3(cp, cq)
}
