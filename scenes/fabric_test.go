package scenes

import (
	"math"
	"reflect"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/fabric"
)

// TestFabricValidationErrors: bad fabric and curved-strand fields are errors
// naming the field.
func TestFabricValidationErrors(t *testing.T) {
	fab := func(m map[string]any) map[string]any {
		return rodsOf(m)["fabrics"].([]any)[0].(map[string]any)
	}
	cases := []struct {
		name  string
		scene string
		f     func(map[string]any)
		parts []string
	}{
		{"weave", "tablecloth", func(m map[string]any) { fab(m)["weave"] = "twill 3" }, []string{"rods.fabrics[0]", "twill needs N/M"}},
		{"type", "tablecloth", func(m map[string]any) { fab(m)["type"] = "felt" }, []string{"rods.fabrics[0]", "type must be"}},
		{"stitch", "tablecloth", func(m map[string]any) { fab(m)["type"], fab(m)["pattern"] = "knit", []any{"kxk"} }, []string{"rods.fabrics[0]", `'x' is not k, p or s`}},
		{"huge", "tablecloth", func(m map[string]any) { fab(m)["warps"] = 1000000 }, []string{"rods.fabrics[0]", "over the limit"}},
		{"edge", "tag", func(m map[string]any) { fab(m)["pins"] = []any{map[string]any{"edge": "middle"}} }, []string{"rods.fabrics[0].pins[0].edge", "left, right, bottom or top"}},
		{"stitched edge", "tag", func(m map[string]any) { fab(m)["stitches"] = []any{"left", "side"} }, []string{"rods.fabrics[0].stitches[1]", "left, right, bottom or top"}},
		{"name", "tablecloth", func(m map[string]any) { fab(m)["name"] = "table" }, []string{"rods.fabrics[0].name"}},
		{"friction", "tablecloth", func(m map[string]any) { fab(m)["friction"] = -0.1 }, []string{"rods.fabrics[0].friction"}},
		{"cohesion", "tablecloth", func(m map[string]any) { fab(m)["cohesion"] = -1e-3 }, []string{"rods.fabrics[0].cohesion"}},
		{"pair friction", "tablecloth", func(m map[string]any) { rodsOf(m)["pair_friction"] = -0.5 }, []string{"rods.pair_friction", ">= 0"}},
		{"release steps", "tablecloth", func(m map[string]any) { rodsOf(m)["release_steps"] = -1 }, []string{"rods.release_steps", "0..1048576"}},
		{"points and to", "rod-hang", func(m map[string]any) {
			strandOf(m, 0)["points"] = []any{[]any{0, 0, 1}, []any{0.2, 0.1, 1}}
		}, []string{"rods.strands[0].points", "either points or from/to"}},
		{"spline without points", "rod-hang", func(m map[string]any) { strandOf(m, 0)["spline"] = true }, []string{"rods.strands[0].spline", "needs points"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(modifyScene(t, c.scene, c.f), "bad.json")
			wantErr(t, err, append([]string{"bad.json"}, c.parts...)...)
		})
	}
}

// TestFabricModel checks what a woven fabric resolves to: one strand per yarn
// with its radius and fabric index, one crossing per warp-weft pair whose two
// points coincide (the yarns meet there), normals up for warps over wefts in
// a plain weave's checkerboard, and placement (the patch centred on its
// position).
func TestFabricModel(t *testing.T) {
	sc, err := Builtin("incline")
	if err != nil {
		t.Fatal(err)
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	r := m.Rods
	if len(r.Strands) != 20+12 || len(r.Crossings) != 100+36 {
		t.Fatalf("%d strands, %d crossings; want 32, 136", len(r.Strands), len(r.Crossings))
	}
	at := func(si int, u float64) dense.Vec3 {
		s := r.Strands[si]
		du := s.Length / float64(len(s.Pos)-1)
		i := min(int(u/du), len(s.Pos)-2)
		f := u/du - float64(i)
		a, b := dense.Vec3(s.Pos[i]), dense.Vec3(s.Pos[i+1])
		return a.Add(b.Sub(a).Scale(f))
	}
	ups := 0
	for _, c := range r.Crossings {
		if d := at(c.A, c.UA).Sub(at(c.B, c.UB)).Norm(); d > 1e-9 {
			t.Fatalf("crossing %+v: its points are %v apart", c, d)
		}
		if r.Strands[c.A].Fabric != r.Strands[c.B].Fabric || r.Strands[c.A].Fabric == 0 {
			t.Fatalf("crossing %+v joins fabrics %d and %d", c, r.Strands[c.A].Fabric, r.Strands[c.B].Fabric)
		}
		if c.Normal[2] > 0 {
			ups++
		}
	}
	if ups != 50+18 {
		t.Fatalf("%d crossings with the warp on top, want half of each plain weave (68)", ups)
	}
	var c dense.Vec3
	n := 0
	for _, s := range r.Strands[20:] {
		if s.Radius != 0.0005 || !s.RestCurved || s.Fabric != 2 {
			t.Fatalf("patch strand %s: radius %v, curved %v, fabric %d", s.Name, s.Radius, s.RestCurved, s.Fabric)
		}
		for _, p := range s.Pos {
			c = c.Add(dense.Vec3(p))
			n++
		}
	}
	c = c.Scale(1 / float64(n))
	want := dense.Vec3(sc.Rods.Fabrics[1].Position)
	if math.Abs(c[0]-want[0]) > 1e-9 || math.Abs(c[1]-want[1]) > 1e-9 {
		t.Fatalf("patch centred at %v, want %v", c, want)
	}
}

// TestCurvedStrand: a strand given by points is resampled to its nodes with
// equal chords along the polyline, from the first point to the last.
func TestCurvedStrand(t *testing.T) {
	st := Strand{Name: "c", Points: [][3]float64{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, Nodes: 9}
	pos := st.NodePositions()
	if len(pos) != 9 || pos[0] != st.Points[0] || pos[8] != st.Points[2] {
		t.Fatalf("nodes %v", pos)
	}
	d0 := dense.Vec3(pos[1]).Sub(dense.Vec3(pos[0])).Norm()
	for k := 1; k < 8; k++ {
		if d := dense.Vec3(pos[k+1]).Sub(dense.Vec3(pos[k])).Norm(); math.Abs(d-d0) > 1e-9 {
			t.Fatalf("chord %d is %v, chord 0 %v", k, d, d0)
		}
	}
	if l := st.Length(); math.Abs(l-8*d0) > 1e-9 {
		t.Fatalf("length %v, want 8 chords %v", l, 8*d0)
	}
}

// TestFabricFriction: a fabric's own crossings take its friction, and
// without one rods.friction, which is also every proximity contact's.
func TestFabricFriction(t *testing.T) {
	sc, err := Builtin("tablecloth")
	if err != nil {
		t.Fatal(err)
	}
	for k := range sc.Rods.Fabrics {
		sc.Rods.Fabrics[k].Friction = nil // the built-in gives each its own
	}
	for _, kv := range [][2]string{{"rods.friction", "0.2"}, {"rods.fabrics.1.friction", "0.7"}} {
		if err := sc.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	r := m.Rods
	if r.Friction != 0.2 {
		t.Errorf("rods friction %v, want 0.2", r.Friction)
	}
	count := map[float64]int{}
	for _, c := range r.Crossings {
		fa, fb := r.Strands[c.A].Fabric, r.Strands[c.B].Fabric
		want := 0.2
		if fa == 2 {
			want = 0.7
		}
		if fa != fb || c.Mu != want {
			t.Fatalf("crossing of fabrics %d and %d: mu %v, want %v", fa, fb, c.Mu, want)
		}
		count[c.Mu]++
	}
	if count[0.7] != 36 || count[0.2] != 72 {
		t.Errorf("crossings by friction %v, want 36 at 0.7 and 72 at 0.2", count)
	}
}

// TestFabricCohesion: a fabric's cohesion goes to its own crossings only.
func TestFabricCohesion(t *testing.T) {
	sc, err := Builtin("tablecloth")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"rods.fabrics.0.cohesion", "0"}, {"rods.fabrics.1.cohesion", "0.004"}, {"rods.fabrics.2.cohesion", "0"}} {
		if err := sc.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	count := map[float64]int{}
	for _, c := range m.Rods.Crossings {
		want := 0.0
		if m.Rods.Strands[c.A].Fabric == 2 {
			want = 0.004
		}
		if c.Cohesion != want {
			t.Fatalf("crossing of fabric %d: cohesion %v, want %v", m.Rods.Strands[c.A].Fabric, c.Cohesion, want)
		}
		count[c.Cohesion]++
	}
	if count[0.004] != 36 || count[0] != 72 {
		t.Errorf("crossings by cohesion %v, want 36 at 0.004 and 72 at 0", count)
	}
}

// TestSetReusesFabricGeometry: each --set validates the whole scene, but a
// fabric whose geometry (geometryKey) did not change keeps the yarns built
// before, and a changed one is built anew; the model is the one a fresh
// parse of the same settings gives.
func TestSetReusesFabricGeometry(t *testing.T) {
	sc, err := Builtin("tablecloth")
	if err != nil {
		t.Fatal(err)
	}
	before := []*fabric.Fabric{sc.Rods.Fabrics[0].built, sc.Rods.Fabrics[1].built, sc.Rods.Fabrics[2].built}
	if err := sc.Set("rods.fabrics.1.warps", "8"); err != nil {
		t.Fatal(err)
	}
	if sc.Rods.Fabrics[0].built != before[0] || sc.Rods.Fabrics[2].built != before[2] {
		t.Error("an unchanged fabric was built again")
	}
	if sc.Rods.Fabrics[1].built == before[1] || len(sc.Rods.Fabrics[1].built.Yarns) != 8+6 {
		t.Errorf("the changed fabric kept its old geometry (%d yarns, want 14)", len(sc.Rods.Fabrics[1].built.Yarns))
	}
	if err := sc.Set("rods.friction", "0.7"); err != nil { // not geometry
		t.Fatal(err)
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Builtin("tablecloth")
	if err != nil {
		t.Fatal(err)
	}
	fresh.Rods.Fabrics[1].Warps, fresh.Rods.Friction = 8, 0.7
	fresh.geometries = nil
	for k := range fresh.Rods.Fabrics {
		fresh.Rods.Fabrics[k].built = nil
	}
	mf, err := fresh.Model()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Rods, mf.Rods) {
		t.Error("the model after --set differs from a fresh build of the same settings")
	}
}

// TestStitchedIntervals checks the stitched arc lengths of tag's label
// (stitched on its left and right sides, 2 mm yarn spacing, turned here by
// 90 degrees about z to check the patch's own frame): the edge warps are
// stitched along their whole length, the inner warps not at all, and each
// weft over its first and last spacing (its ends run from the patch's edge,
// half a spacing outside the edge warp).
func TestStitchedIntervals(t *testing.T) {
	sc, err := Builtin("tag")
	if err != nil {
		t.Fatal(err)
	}
	if err := sc.Set("rods.fabrics.1.orientation", "[0, 0, 90]"); err != nil {
		t.Fatal(err)
	}
	m, err := sc.Model()
	if err != nil {
		t.Fatal(err)
	}
	const s, tol = 0.002, 1e-12
	seen := 0
	for _, st := range m.Rods.Strands {
		var want [][2]float64
		switch st.Name {
		case "label/warp0", "label/warp3":
			want = [][2]float64{{0, st.Length}}
		case "label/warp1", "label/warp2":
		case "label/weft0", "label/weft1", "label/weft2":
			want = [][2]float64{{0, s}, {st.Length - s, st.Length}}
		default:
			if len(st.Stitched) != 0 {
				t.Errorf("%s (not stitched): intervals %v", st.Name, st.Stitched)
			}
			continue
		}
		seen++
		ok := len(st.Stitched) == len(want)
		for k := 0; ok && k < len(want); k++ {
			ok = math.Abs(st.Stitched[k][0]-want[k][0]) < tol && math.Abs(st.Stitched[k][1]-want[k][1]) < tol
		}
		if !ok {
			t.Errorf("%s: stitched %v, want %v", st.Name, st.Stitched, want)
		}
	}
	if seen != 7 {
		t.Errorf("checked %d label yarns, want 7", seen)
	}
}

// TestPaperSizePocket: the pocket at Sanchez-Banderas 2020's size (Table 1,
// 645k nodes; 240 x 240 and 222 x 222 denim yarns build 625,596) is within
// the format's limits (the "huge" case of TestFabricValidationErrors is
// past them).
func TestPaperSizePocket(t *testing.T) {
	if !long() {
		t.Skip("builds two fabrics of 300k nodes (about 30 s); LOOM_LONG_TESTS=1 runs it")
	}
	fabs := func(m map[string]any) []any { return rodsOf(m)["fabrics"].([]any) }
	data := modifyScene(t, "pocket", func(m map[string]any) {
		for k, n := range []int{240, 222} {
			f := fabs(m)[k].(map[string]any)
			f["warps"], f["wefts"] = n, n
		}
	})
	if _, err := Parse(data, "pocket-645k.json"); err != nil {
		t.Fatal(err)
	}
}

// TestKnitNodeEstimate: a knit's node estimate (checked against
// MaxFabricNodes before building) bounds what its builder makes, the
// courses' nodes and two contact nodes a crossing, for every kind of
// stitch pattern, and stays within twice of it, so that the paper's knit
// sizes load: the estimate once counted each stitch's loop stretched by
// the whole patch height and refused a 60 x 60 slip-stitch knit at 0.8 mm
// stitches (1,457,280 estimated nodes against about 90,000).
func TestKnitNodeEstimate(t *testing.T) {
	for _, pat := range [][]string{{"k"}, {"k", "p"}, {"kp"}, {"kkpp"}, {"kp", "pk"}, {"kkkk", "kksk"}, {"k", "s"}, {"k", "s", "s", "s"}} {
		for _, size := range []struct{ cols, rows int }{{3, 3}, {12, 10}} {
			sc := mustBuiltin(t, "knit-sphere")
			f := &sc.Rods.Fabrics[0]
			f.Pattern, f.Columns, f.Rows = pat, size.cols, size.rows
			m, err := sc.Model()
			if err != nil {
				t.Fatal(err)
			}
			built := 2 * len(m.Rods.Crossings)
			for _, s := range m.Rods.Strands {
				built += len(s.Pos)
			}
			est := f.nodeEstimate()
			if ratio := est / float64(built); ratio < 1 || ratio > 2 {
				t.Errorf("pattern %q, %d x %d stitches: estimate %.0f for %d nodes and contact nodes (ratio %.2f, want 1 to 2)", pat, size.cols, size.rows, est, built, ratio)
			}
		}
	}
	// The paper's Knit 1 (Table 1, 75k nodes): a slip-stitch patch of
	// 0.8 mm stitches, 60 x 60 (about 93,000 nodes and contact nodes).
	f := Fabric{Type: FabricKnit, Pattern: []string{"kkkk", "kksk"}, Columns: 60, Rows: 60,
		StitchWidth: 0.0008, StitchHeight: 0.00064, NodeSpacing: 0.0002}
	if est := f.nodeEstimate(); est > MaxFabricNodes {
		t.Errorf("the paper's knit size: estimate %.0f nodes, over the limit %d", est, MaxFabricNodes)
	}
}
