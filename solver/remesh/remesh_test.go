package remesh

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// bumpM is an isotropic sizing field whose target length varies smoothly
// between lo and hi over the unit square.
func bumpM(m *Mesh, lo, hi float64) []dense.Mat2 {
	M := make([]dense.Mat2, len(m.U))
	for i, u := range m.U {
		s := 0.5 + 0.5*math.Sin(2*math.Pi*u[0])*math.Cos(math.Pi*u[1])
		l := lo + (hi-lo)*s
		M[i] = dense.Mat2{{1 / (l * l), 0}, {0, 1 / (l * l)}}
	}
	return M
}

func linV(u dense.Vec2) dense.Vec3 {
	return dense.Vec3{1 + 2*u[0] - 3*u[1], -0.5*u[0] + 4*u[1], 0.25 + u[0] + u[1]}
}

func linE(u dense.Vec2) [2]float64 { return [2]float64{3*u[0] - u[1] + 7, -2 * u[1]} }

func TestLinearTransfer(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	m := gridMesh(10, 10, 1, 1, 0.3, rng)
	m.NExtra = 2
	for v, u := range m.U {
		n := m.Node[v]
		m.V[n] = linV(u)
		e := linE(u)
		m.Extra = append(m.Extra, e[0], e[1])
	}
	out, res, err := Remesh(m, bumpM(m, 0.03, 0.4), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	if res.Splits == 0 || res.Collapses == 0 {
		t.Fatalf("want both refinement and coarsening: splits %d collapses %d", res.Splits, res.Collapses)
	}
	created := 0
	for v, u := range out.U {
		n := out.Node[v]
		if o := res.NodeOld[n]; o >= 0 {
			// Survivors: bit for bit.
			if out.V[n] != m.V[o] || out.X[n] != m.X[o] || out.Extra[2*n] != m.Extra[2*o] || out.Extra[2*n+1] != m.Extra[2*o+1] {
				t.Fatalf("surviving node %d (old %d) changed", n, o)
			}
			if res.VertOld[v] < 0 || m.U[res.VertOld[v]] != u {
				t.Fatalf("vert %d: VertOld %d", v, res.VertOld[v])
			}
			continue
		}
		created++
		want := linV(u)
		if d := out.V[n].Sub(want).Norm(); d > 1e-13 {
			t.Fatalf("created node %d at %v: V = %v, want %v (off %g)", n, u, out.V[n], want, d)
		}
		we := linE(u)
		if math.Abs(out.Extra[2*n]-we[0]) > 1e-13 || math.Abs(out.Extra[2*n+1]-we[1]) > 1e-13 {
			t.Fatalf("created node %d: Extra %v, want %v", n, out.Extra[2*n:2*n+2], we)
		}
		// The sources reproduce V and the linearly interpolated position.
		var sv, sx dense.Vec3
		var sw float64
		for _, s := range res.Sources(int(n)) {
			sv = sv.Add(m.V[s.Node].Scale(s.W))
			sx = sx.Add(m.X[s.Node].Scale(s.W))
			sw += s.W
		}
		if math.Abs(sw-1) > 1e-15 || sv.Sub(out.V[n]).Norm() > 1e-13 {
			t.Fatalf("created node %d: sources %v give V %v (sum w %v), node has %v", n, res.Sources(int(n)), sv, sw, out.V[n])
		}
		if d := sx.Sub(dense.Vec3{u[0], u[1], 0}).Norm(); d > 1e-13 {
			t.Fatalf("created node %d: interpolated position %v, material point %v", n, sx, u)
		}
	}
	if created == 0 {
		t.Fatal("no node created")
	}
	t.Logf("%d created nodes checked; splits %d collapses %d flips %d", created, res.Splits, res.Collapses, res.Flips)
}

func TestSizesAfterRemesh(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := 0; trial < 3; trial++ {
		m := gridMesh(12, 12, 1, 1, 0.3, rng)
		M := make([]dense.Mat2, len(m.U))
		th := rng.Float64() * math.Pi
		for i, u := range m.U {
			l := 0.04 + 0.3*u[0]*u[0]
			M[i] = anisoM(l*(1+2*u[1]), l, th+u[1])
		}
		out, res, err := Remesh(m, M, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, out)
		checkBoundary(t, m, out)
		if res.Truncated {
			t.Fatal("truncated")
		}
		sz := meshSizes(t, out, res.M)
		slices.Sort(sz)
		if mx := sz[len(sz)-1]; mx > 1+1e-12 {
			t.Fatalf("edge of size %v > 1 after remesh", mx)
		}
		if rel := func(a, b float64) bool { return math.Abs(a-b) > 1e-14*b }; rel(res.MinSize, sz[0]) || rel(res.MaxSize, sz[len(sz)-1]) || rel(res.MedianSize, sz[len(sz)/2]) {
			t.Fatalf("Result sizes %v %v %v, recomputed %v %v %v", res.MinSize, res.MedianSize, res.MaxSize, sz[0], sz[len(sz)/2], sz[len(sz)-1])
		}
		// FaceOld: a face that keeps an old index has the same verts.
		kept := 0
		for f, o := range res.FaceOld {
			if o < 0 {
				continue
			}
			kept++
			nf, of := out.F[f], m.F[o]
			for k := 0; k < 3; k++ { // same verts in the same order
				if res.VertOld[nf[k]] != of[k] {
					t.Fatalf("face %d kept old index %d but verts %v vs %v", f, o, nf, of)
				}
			}
		}
		t.Logf("trial %d: %d -> %d faces (%d kept), sizes %.3f / %.3f / %.3f", trial, len(m.F), len(out.F), kept, res.MinSize, res.MedianSize, res.MaxSize)
	}
}

func TestCoarsenUniform(t *testing.T) {
	m := gridMesh(40, 40, 1, 1, 0, nil) // 25 mm
	M := isoM(len(m.U), 0.2)
	p := DefaultParams()
	out, res, err := Remesh(m, M, p)
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	checkBoundary(t, m, out)
	if res.Splits != 0 {
		t.Fatalf("coarse target split %d edges", res.Splits)
	}
	sz := meshSizes(t, out, res.M)
	var over int
	for _, s := range sz {
		if s > 1+1e-12 {
			t.Fatalf("edge size %v > 1", s)
		}
		if s > 1-p.Hysteresis+1e-12 {
			over++
		}
	}
	// An equilateral face with edge 0.8*0.2 has area 0.0111: a perfect
	// coarse mesh has ~90 faces.
	t.Logf("40x40 grid (3200 faces) -> %d faces, %d collapses, %d flips; sizes %.3f / %.3f / %.3f; %d edges above 1-h (made by flips)",
		len(out.F), res.Collapses, res.Flips, res.MinSize, res.MedianSize, res.MaxSize, over)
	if len(out.F) > 3200/10 {
		t.Fatalf("coarsened only to %d faces", len(out.F))
	}
	if math.Abs(totalArea(out)-1) > 1e-12 {
		t.Fatalf("area %v", totalArea(out))
	}
}

func TestAnisotropic(t *testing.T) {
	const l2 = 0.02
	const l1 = 5 * l2
	for _, th := range []float64{0, 0.6} {
		m := square4()
		M := make([]dense.Mat2, len(m.U))
		for i := range M {
			M[i] = anisoM(l1, l2, th)
		}
		out, res, err := Remesh(m, M, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, out)
		checkBoundary(t, m, out)
		e1 := dense.Vec2{math.Cos(th), math.Sin(th)}
		e2 := dense.Vec2{-math.Sin(th), math.Cos(th)}
		var x1, x2 float64
		n := 0
		for _, f := range out.F {
			ext := func(e dense.Vec2) float64 {
				a, b, c := dot2(out.U[f[0]], e), dot2(out.U[f[1]], e), dot2(out.U[f[2]], e)
				return math.Max(a, math.Max(b, c)) - math.Min(a, math.Min(b, c))
			}
			x1 += ext(e1)
			x2 += ext(e2)
			n++
		}
		ratio := x1 / x2
		t.Logf("theta %.1f: %d faces, mean extent along long axis %.4f, short axis %.4f, ratio %.2f (sizing 5); sizes %.2f/%.2f/%.2f",
			th, len(out.F), x1/float64(n), x2/float64(n), ratio, res.MinSize, res.MedianSize, res.MaxSize)
		if !(ratio > 3) {
			t.Fatalf("faces not elongated along the long axis: ratio %v", ratio)
		}
	}
}

func TestSeamRemesh(t *testing.T) {
	m := seamMeshW(6, true)
	M := make([]dense.Mat2, len(m.U))
	for i, u := range m.U {
		l := 0.05 + 0.8*u[1]
		M[i] = dense.Mat2{{1 / (l * l), 0}, {0, 1 / (l * l)}}
	}
	out, res, err := Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	checkBoundary(t, m, out)
	checkSeam(t, out)
	if res.Splits == 0 || res.Collapses == 0 {
		t.Fatalf("splits %d collapses %d", res.Splits, res.Collapses)
	}
	for _, s := range meshSizes(t, out, res.M) {
		if s > 1+1e-12 {
			t.Fatalf("edge size %v", s)
		}
	}
	// The two panels lie flat and unstrained side by side in world space, so
	// eq. 2 puts every new node at its material point (B shifted by -1), and
	// seam nodes on the seam line x = 1.
	a, _ := NewAdjacency(out)
	for v, u := range out.U {
		want := dense.Vec3{u[0], u[1], 0}
		if u[0] >= 2 {
			want[0] -= 1
		}
		if d := out.X[out.Node[v]].Sub(want).Norm(); d > 1e-12 {
			t.Fatalf("vert %d at %v: node %d at %v, want %v", v, u, out.Node[v], out.X[out.Node[v]], want)
		}
		if len(a.VertsOf(int(out.Node[v]))) > 1 && math.Abs(out.X[out.Node[v]][0]-1) > 1e-12 {
			t.Fatalf("seam node %d at %v", out.Node[v], out.X[out.Node[v]])
		}
	}
	t.Logf("seam mesh %d -> %d faces; splits %d collapses %d flips %d", len(m.F), len(out.F), res.Splits, res.Collapses, res.Flips)
}

func TestLockedSurvive(t *testing.T) {
	m := gridMesh(20, 20, 1, 1, 0, nil)
	m.Locked = make([]bool, len(m.X))
	var locked []int
	for n := 0; n < len(m.X); n += 7 {
		m.Locked[n] = true
		locked = append(locked, n)
	}
	out, res, err := Remesh(m, isoM(len(m.U), 0.3), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	have := map[int32]bool{}
	for n, o := range res.NodeOld {
		if o >= 0 {
			have[o] = true
			if out.Locked[n] != m.Locked[o] {
				t.Fatalf("Locked flag of node %d changed", o)
			}
		}
	}
	for _, n := range locked {
		if !have[int32(n)] {
			t.Fatalf("locked node %d removed", n)
		}
	}
	if res.Collapses == 0 {
		t.Fatal("nothing collapsed")
	}
}

func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	m := gridMesh(16, 16, 1, 1, 0.3, rng)
	for i := range m.X {
		m.X[i][2] = 0.1 * math.Sin(5*m.X[i][0]) * math.Cos(3*m.X[i][1])
	}
	M := bumpM(m, 0.02, 0.3)
	a, ra, err := Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	var r Remesher
	// Reuse the same Remesher on other work first, then on the same input.
	if _, _, err := r.Remesh(seamMesh(5), isoM(2*36, 0.1), DefaultParams()); err != nil {
		t.Fatal(err)
	}
	b, rb, err := r.Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !meshEqual(a, b) {
		t.Fatal("two remeshes of the same input differ")
	}
	if !slices.Equal(ra.NodeOld, rb.NodeOld) || !slices.Equal(ra.FaceOld, rb.FaceOld) || !slices.Equal(ra.Src, rb.Src) ||
		ra.Splits != rb.Splits || ra.Flips != rb.Flips || ra.Collapses != rb.Collapses {
		t.Fatal("results differ")
	}
	// The input is untouched.
	m2 := gridMesh(16, 16, 1, 1, 0.3, rand.New(rand.NewPCG(31, 32)))
	if !slices.Equal(m.U, m2.U) || !slices.Equal(m.F, m2.F) {
		t.Fatal("input modified")
	}
}

func TestValidateErrors(t *testing.T) {
	base := func() *Mesh { return gridMesh(2, 2, 1, 1, 0, nil) }
	cases := []struct {
		name string
		mod  func(m *Mesh)
		want string
	}{
		{"nan X", func(m *Mesh) { m.X[3][1] = math.NaN() }, "node 3"},
		{"inf U", func(m *Mesh) { m.U[2][0] = math.Inf(1) }, "vert 2"},
		{"V length", func(m *Mesh) { m.V = m.V[:2] }, "len(V)"},
		{"Extra length", func(m *Mesh) { m.NExtra = 1 }, "len(Extra)"},
		{"Locked length", func(m *Mesh) { m.Locked = make([]bool, 2) }, "len(Locked)"},
		{"Node length", func(m *Mesh) { m.Node = m.Node[:3] }, "len(Node)"},
		{"node range", func(m *Mesh) { m.Node[4] = 99 }, "vert 4"},
		{"face range", func(m *Mesh) { m.F[1][2] = 50 }, "face 1"},
		{"repeated vert", func(m *Mesh) { m.F[1][2] = m.F[1][0] }, "face 1"},
		{"clockwise", func(m *Mesh) { m.F[0][1], m.F[0][2] = m.F[0][2], m.F[0][1] }, "edge"},
		{"degenerate", func(m *Mesh) { m.U[4] = dense.Vec2{0, 0.5} }, "area"},
		{"duplicate face", func(m *Mesh) { m.F = append(m.F, [3]int32{m.F[0][1], m.F[0][2], m.F[0][0]}) }, "directed edge"},
		{"unreferenced vert", func(m *Mesh) {
			m.U = append(m.U, dense.Vec2{5, 5})
			m.Node = append(m.Node, 0)
		}, "vert 9 is in no face"},
		{"orphan node", func(m *Mesh) {
			m.X = append(m.X, dense.Vec3{})
			m.V = append(m.V, dense.Vec3{})
		}, "node 9 has no vert"},
		{"bowtie", func(m *Mesh) {
			// Two triangles touching at one vert.
			*m = Mesh{U: []dense.Vec2{{0, 0}, {1, 0}, {0, 1}, {-1, 0}, {0, -1}}, F: [][3]int32{{0, 1, 2}, {0, 3, 4}}}
			for i := range m.U {
				m.Node = append(m.Node, int32(i))
				m.X = append(m.X, dense.Vec3{})
				m.V = append(m.V, dense.Vec3{})
			}
		}, "non-manifold"},
		{"seam node inside", func(m *Mesh) { m.Node[4] = m.Node[0] }, "node 0"},
	}
	if err := base().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		m := base()
		c.mod(m)
		err := m.Validate()
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %q does not name %q", c.name, err, c.want)
		}
		if _, _, err := Remesh(m, isoM(len(m.U), 1), DefaultParams()); err == nil {
			t.Fatalf("%s: Remesh accepted it", c.name)
		}
	}
}

func TestRemeshInputErrors(t *testing.T) {
	m := gridMesh(2, 2, 1, 1, 0, nil)
	M := isoM(len(m.U), 1)
	bad := func(name string, M []dense.Mat2, p Params, want string) {
		t.Helper()
		_, _, err := Remesh(m, M, p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %v, want mention of %q", name, err, want)
		}
	}
	bad("short M", M[:3], DefaultParams(), "len(M)")
	M2 := slices.Clone(M)
	M2[5][0][1] = math.NaN()
	bad("nan M", M2, DefaultParams(), "vert 5")
	M2 = slices.Clone(M)
	M2[6][0][1] = 0.5
	bad("asymmetric M", M2, DefaultParams(), "vert 6")
	M2 = slices.Clone(M)
	M2[7] = dense.Mat2{{1, 2}, {2, 1}}
	bad("indefinite M", M2, DefaultParams(), "vert 7")
	p := DefaultParams()
	p.Hysteresis = 1
	bad("hysteresis", M, p, "Hysteresis")
	p = DefaultParams()
	p.AspectMin = math.NaN()
	bad("aspect", M, p, "AspectMin")
}

func TestMaxFacesTruncates(t *testing.T) {
	m := square4()
	p := DefaultParams()
	p.MaxFaces = 200
	out, res, err := Remesh(m, isoM(len(m.U), 0.01), p)
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	if !res.Truncated || len(out.F) > 2*p.MaxFaces+8 {
		t.Fatalf("truncated %v with %d faces", res.Truncated, len(out.F))
	}
}

// The same with panel B folded up 90 degrees along the seam: the seam stays
// matched and the panels keep their boundaries.
func TestSeamRemeshFolded(t *testing.T) {
	m := seamMeshW(6, false)
	M := make([]dense.Mat2, len(m.U))
	for i, u := range m.U {
		l := 0.05 + 0.8*u[1]
		M[i] = dense.Mat2{{1 / (l * l), 0}, {0, 1 / (l * l)}}
	}
	out, res, err := Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, out)
	checkBoundary(t, m, out)
	checkSeam(t, out)
	if res.Splits == 0 || res.Collapses == 0 {
		t.Fatalf("splits %d collapses %d", res.Splits, res.Collapses)
	}
}

// LockedClearance: refining a 10x10 grid (0.1 m cells) to 30 mm around a
// locked node makes new nodes next to it (the control); with a clearance of
// 40 mm no new node lies within 40 mm of it, and the rest of the mesh is
// still refined.
func TestLockedClearance(t *testing.T) {
	base := gridMesh(10, 10, 1, 1, 0, nil)
	base.Locked = make([]bool, len(base.X))
	lockedNode := int32(5*11 + 5) // (0.5, 0.5)
	base.Locked[lockedNode] = true
	const clear = 0.04
	near := func(out *Mesh, res Result) (newNear, created int) {
		for v, n := range out.Node {
			if res.NodeOld[n] >= 0 {
				continue
			}
			created++
			d := out.U[v].Sub(base.U[lockedNode])
			if math.Hypot(d[0], d[1]) < clear {
				newNear++
			}
		}
		return
	}
	for _, c := range []float64{0, clear} {
		m := base.Clone()
		m.LockedClearance = c
		out, res, err := Remesh(m, isoM(len(m.U), 0.03), DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, out)
		n, created := near(out, res)
		t.Logf("clearance %g: %d new nodes, %d within %g m of the locked node", c, created, n, clear)
		switch {
		case c == 0 && n == 0:
			t.Fatalf("control: no new node near the locked node; the test shows nothing")
		case c > 0 && n != 0:
			t.Errorf("clearance %g: %d new nodes within it", c, n)
		case created < 100:
			t.Errorf("clearance %g: only %d new nodes, the mesh was not refined", c, created)
		}
	}
	m := base.Clone()
	m.LockedClearance = math.NaN()
	if _, _, err := Remesh(m, isoM(len(m.U), 0.03), DefaultParams()); err == nil {
		t.Error("LockedClearance NaN accepted")
	}
}

// LockedClearance between two locked nodes: the border edge a-b (100 mm,
// border so that no flip takes it away) joins two locked nodes (not a
// preserved edge), and its midpoint lies 50 mm from them and 35 mm from the
// free third vert c. With a 40 mm clearance the split is refused, as the
// conformal preprocessing would collapse the new node (a non-conformal edge
// shorter than min_edge at conformal nodes) and the next remesh would split
// again; without a clearance (the control) a-b is split.
func TestLockedClearanceBetweenLocked(t *testing.T) {
	base := &Mesh{
		U:      []dense.Vec2{{0, 0}, {0.1, 0}, {0.05, 0.035}},
		F:      [][3]int32{{0, 1, 2}},
		Locked: []bool{true, true, false},
	}
	for i, u := range base.U {
		base.Node = append(base.Node, int32(i))
		base.X = append(base.X, dense.Vec3{u[0], u[1], 0})
		base.V = append(base.V, dense.Vec3{})
	}
	onAB := func(out *Mesh) int {
		n := 0
		for _, u := range out.U {
			if math.Abs(u[1]) < 1e-12 && u[0] > 1e-12 && u[0] < 0.1-1e-12 {
				n++
			}
		}
		return n
	}
	for _, c := range []float64{0, 0.04} {
		m := base.Clone()
		m.LockedClearance = c
		out, res, err := Remesh(m, isoM(len(m.U), 0.05), DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		checkValid(t, out)
		n := onAB(out)
		t.Logf("clearance %g: %d splits, %d new nodes on a-b", c, res.Splits, n)
		switch {
		case c == 0 && n == 0:
			t.Fatal("control: a-b not split; the test shows nothing")
		case c > 0 && n != 0:
			t.Errorf("clearance %g: a-b split %d times, 35 mm from c", c, n)
		}
	}
}

// RemeshValid, on a mesh of valid connectivity, gives exactly Remesh's
// result, and still rejects what a caller may have set wrongly on such a
// mesh: shapes, non-finite state and Preserved pairs that are no edge.
func TestRemeshValid(t *testing.T) {
	m := gridMesh(10, 10, 1, 1, 0, nil)
	for i := range m.X {
		m.X[i][2] = 0.1 * math.Sin(5*m.X[i][0]) * math.Cos(3*m.X[i][1])
	}
	m.Preserved = preservedChains(10, 3)
	M := bumpM(m, 0.02, 0.3)
	a, ra, err := Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if ra.Splits == 0 || ra.Collapses == 0 {
		t.Fatalf("%d splits, %d collapses: want both", ra.Splits, ra.Collapses)
	}
	var r Remesher
	b, rb, err := r.RemeshValid(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !meshEqual(a, b) || !slices.Equal(a.Preserved, b.Preserved) {
		t.Fatal("RemeshValid and Remesh give different meshes")
	}
	if !slices.Equal(ra.NodeOld, rb.NodeOld) || !slices.Equal(ra.FaceOld, rb.FaceOld) || !slices.Equal(ra.Src, rb.Src) ||
		ra.Splits != rb.Splits || ra.Flips != rb.Flips || ra.Collapses != rb.Collapses {
		t.Fatal("RemeshValid and Remesh give different results")
	}

	cases := []struct {
		name string
		mod  func(m *Mesh)
		want string
	}{
		{"Locked length", func(m *Mesh) { m.Locked = make([]bool, 2) }, "len(Locked)"},
		{"nan X", func(m *Mesh) { m.X[3][1] = math.NaN() }, "node 3"},
		{"preserved range", func(m *Mesh) { m.Preserved = [][2]int32{{0, 999}} }, "Preserved[0]"},
		{"preserved non-edge", func(m *Mesh) { m.Preserved = append(slices.Clone(m.Preserved), [2]int32{0, 100}) }, "share no edge"},
	}
	for _, c := range cases {
		m2 := m.Clone()
		c.mod(m2)
		_, _, err := r.RemeshValid(m2, M, DefaultParams())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want mention of %q", c.name, err, c.want)
		}
	}
}

// NoSizes changes nothing but the size statistics, which it leaves zero.
func TestRemeshNoSizes(t *testing.T) {
	m := gridMesh(12, 12, 1, 1, 0, nil)
	M := bumpM(m, 0.03, 0.3)
	a, ra, err := Remesh(m, M, DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.NoSizes = true
	b, rb, err := Remesh(m, M, p)
	if err != nil {
		t.Fatal(err)
	}
	if !(ra.MinSize > 0 && ra.MedianSize >= ra.MinSize && ra.MaxSize >= ra.MedianSize) {
		t.Fatalf("sizes %v %v %v", ra.MinSize, ra.MedianSize, ra.MaxSize)
	}
	if rb.MinSize != 0 || rb.MedianSize != 0 || rb.MaxSize != 0 {
		t.Fatalf("NoSizes: sizes %v %v %v, want 0", rb.MinSize, rb.MedianSize, rb.MaxSize)
	}
	ra.MinSize, ra.MedianSize, ra.MaxSize = 0, 0, 0
	if !meshEqual(a, b) || !reflect.DeepEqual(ra, rb) {
		t.Fatal("NoSizes changed the result")
	}
}
