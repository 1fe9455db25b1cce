package conformal

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
)

func testParams() Params { return DefaultParams(1) } // MinEdge 0.01, 10 and 20 degrees

// A straight box edge along x = 0.3175 over a 10x10 grid: the hits at its
// crossings with the mesh edges become a chain of conformal edges from the
// bottom border to the top one, on the line in material space.
func TestLineChain(t *testing.T) {
	m := grid(10)
	p := testParams()
	hits := lineHits(m, dense.Vec2{0.3175, 0}, dense.Vec2{0, 1}, 0)
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	c := checkChain(t, out, res, 0, true)
	for _, n := range c {
		if math.Abs(out.U[n][0]-0.3175) > 1e-12 {
			t.Fatalf("conformal node %d at U %v is off the line x = 0.3175", n, out.U[n])
		}
		if out.X[n] != worldAt(out.U[n]) && math.Abs(out.X[n].Sub(worldAt(out.U[n])).Norm()) > 1e-12 {
			t.Fatalf("conformal node %d: X %v, feature point %v", n, out.X[n], worldAt(out.U[n]))
		}
	}
	if out.U[c[0]][1] != 0 || out.U[c[len(c)-1]][1] != 1 {
		t.Fatalf("chain ends at U %v and %v, want on the borders y = 0 and y = 1 exactly", out.U[c[0]], out.U[c[len(c)-1]])
	}
	for k, o := range res.HitOutcome {
		if o != HitInserted && o != HitDuplicate {
			t.Fatalf("hit %d (%+v): %v", k, hits[k], o)
		}
	}
	st := shape(out, res, p.MinAngle, p.MinEdge, nil)
	amin, nIll, nShort, lmin := st.amin, st.nIll, st.nShort, st.lmin
	t.Logf("%d hits -> %d inserted, chain of %d nodes; %d faces; splits %d collapses %d flips %d, %d iterations (converged %v); min angle near the chain %.1f deg, %d faces below %.0f deg, %d short edges (min %.4g)",
		len(hits), res.Inserted, len(c), len(out.F), res.Splits, res.Collapses, res.Flips, res.Iterations, res.Converged, amin, nIll, p.MinAngle*180/math.Pi, nShort, lmin)
	if nShort != 0 || res.Short != 0 {
		t.Fatalf("%d (reported %d) edges touching conformal nodes shorter than MinEdge", nShort, res.Short)
	}
	if nIll != res.IllShaped {
		t.Fatalf("IllShaped = %d, counted %d", res.IllShaped, nIll)
	}
	if nIll != 0 {
		t.Fatalf("%d faces near the chain have an angle below MinAngle", nIll)
	}
	if len(res.Gaps) != 0 || !res.Converged {
		t.Fatalf("gaps %v, converged %v", res.Gaps, res.Converged)
	}
}

// The same line over a 16x16 grid runs 5 mm from a column of nodes: every
// hit lands within MinEdge of a node, and that free node is absorbed by the
// hit's new node (collapsed onto it), so the chain lies on the line in
// material space as well as in world space, and the node count is unchanged.
func TestHitsNearNodesAbsorbed(t *testing.T) {
	m := grid(16)
	p := testParams()
	hits := lineHits(m, dense.Vec2{0.3175, 0}, dense.Vec2{0, 1}, 2)
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	c := checkChain(t, out, res, 2, true)
	if len(c) != 17 || len(out.X) != len(m.X) {
		t.Fatalf("chain of %d nodes, %d -> %d nodes; want 17, each new node absorbing its column node", len(c), len(m.X), len(out.X))
	}
	for _, n := range c {
		if res.NodeOld[n] >= 0 || math.Abs(out.U[n][0]-0.3175) > 1e-12 {
			t.Fatalf("chain node %d (input %d) at U %v, want a new node on the line", n, res.NodeOld[n], out.U[n])
		}
		if want := (dense.Vec3{0.3175, out.U[n][1], 0.03175}); out.X[n].Sub(want).Norm() > 1e-12 {
			t.Fatalf("chain node %d: X %v, want on the feature %v", n, out.X[n], want)
		}
	}
	for i := range m.X {
		if math.Abs(m.U[i][0]-0.3125) < 1e-12 {
			for _, o := range res.NodeOld {
				if o == int32(i) {
					t.Fatalf("column node %d at U %v survived next to the chain", i, m.U[i])
				}
			}
		}
	}
	for k, o := range res.HitOutcome {
		if o != HitInserted && o != HitDuplicate {
			t.Fatalf("hit %d: %v, want inserted or duplicate", k, o)
		}
		if res.HitNode[k] < 0 || res.Feature[res.HitNode[k]] != 2 {
			t.Fatalf("hit %d: HitNode %d", k, res.HitNode[k])
		}
	}
	if len(out.F) != len(m.F) {
		t.Fatalf("%d -> %d faces; absorbing should keep the face count", len(m.F), len(out.F))
	}
}

// A nail (point feature) inside a face: one new node at the barycentric
// point, carrying the hit; the face becomes three.
func TestPointHitInFace(t *testing.T) {
	m := grid(4)
	p := testParams()
	f := int32(9)
	bc := [3]float64{0.2, 0.5, 0.3}
	var u dense.Vec2
	for k := 0; k < 3; k++ {
		u[0] += bc[k] * m.U[m.F[f][k]][0]
		u[1] += bc[k] * m.U[m.F[f][k]][1]
	}
	x := dense.Vec3{u[0], u[1], 0.5}
	hits := []Hit{{A: -1, B: -1, Face: f, Bary: bc, X: x, Feature: 7, Point: true}}
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	n := res.HitNode[0]
	if res.HitOutcome[0] != HitInserted || n < 0 || res.NodeOld[n] != -1 {
		t.Fatalf("outcome %v node %d", res.HitOutcome[0], n)
	}
	if res.Feature[n] != 7 || !res.Point[n] || out.X[n] != x || dist2(out.U[n], u) > 1e-15 {
		t.Fatalf("node %d: feature %d point %v X %v U %v; want 7 true %v %v", n, res.Feature[n], res.Point[n], out.X[n], out.U[n], x, u)
	}
	src := res.Sources(int(n))
	if len(src) != 3 {
		t.Fatalf("sources %v, want the three face nodes", src)
	}
	for k := 0; k < 3; k++ {
		nk := m.Node[m.F[f][k]]
		ok := false
		for _, s := range src {
			if s.Node == nk && math.Abs(s.W-bc[k]) < 1e-15 {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("sources %v lack node %d with weight %v", src, nk, bc[k])
		}
	}
	if len(out.F) != len(m.F)+2 || len(out.X) != len(m.X)+1 {
		t.Fatalf("%d faces %d nodes, want %d and %d", len(out.F), len(out.X), len(m.F)+2, len(m.X)+1)
	}
	// The same nail again, reported on another face: a point feature has one
	// node, so the hit is a duplicate of it.
	c2 := Features{Feature: res.Feature, T: res.T, Point: res.Point}
	out2, res2, err := Preprocess(out, c2, []Hit{{A: -1, B: -1, Face: 0, Bary: [3]float64{0.2, 0.2, 0.6}, X: x, Feature: 7, Point: true}}, p)
	if err != nil {
		t.Fatal(err)
	}
	if res2.HitOutcome[0] != HitDuplicate || res2.HitNode[0] != n || len(out2.X) != len(out.X) {
		t.Fatalf("second hit of the nail: %v on node %d (%d -> %d nodes), want a duplicate of node %d", res2.HitOutcome[0], res2.HitNode[0], len(out.X), len(out2.X), n)
	}
}

// Several hits of different point features in one face, one of them close
// to an edge of the face (split there, not a sliver) and one close to a
// corner of it (its node absorbed by the hit's).
func TestSeveralHitsOneFace(t *testing.T) {
	m := grid(2) // faces 0.5 m
	p := testParams()
	f := int32(0) // (0,0) (0.5,0) (0.5,0.5)
	pt := func(u dense.Vec2, feat int32) Hit {
		t0, t1, t2 := m.U[m.F[f][0]], m.U[m.F[f][1]], m.U[m.F[f][2]]
		a := area2(t0, t1, t2)
		bc := [3]float64{area2(u, t1, t2) / a, area2(t0, u, t2) / a, area2(t0, t1, u) / a}
		return Hit{A: -1, B: -1, Face: f, Bary: bc, X: worldAt(u), Feature: feat, Point: true}
	}
	hits := []Hit{
		pt(dense.Vec2{0.3, 0.1}, 1),
		pt(dense.Vec2{0.4, 0.2}, 2),
		pt(dense.Vec2{0.25, 0.001}, 3),   // 1 mm from the border edge y = 0
		pt(dense.Vec2{0.4985, 0.498}, 4), // 2.5 mm from the corner (0.5, 0.5)
		pt(dense.Vec2{0.45, 0.15}, 5),
	}
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	want := []Outcome{HitInserted, HitInserted, HitInserted, HitInserted, HitInserted}
	for k, o := range res.HitOutcome {
		if o != want[k] {
			t.Fatalf("hit %d: %v, want %v", k, o, want[k])
		}
		if n := res.HitNode[k]; n < 0 || res.Feature[n] != hits[k].Feature {
			t.Fatalf("hit %d: node %d", k, n)
		}
	}
	if n := res.HitNode[2]; out.U[n][1] != 0 || math.Abs(out.U[n][0]-0.25) > 1e-12 {
		t.Fatalf("hit near the border edge: node at U %v, want (0.25, 0) on the border", out.U[n])
	}
	if n := res.HitNode[3]; res.NodeOld[n] != -1 {
		t.Fatalf("hit near the corner: node %d is input node %d, want a new node", n, res.NodeOld[n])
	}
	for _, o := range res.NodeOld {
		if o == m.Node[m.F[f][2]] {
			t.Fatalf("input node %d, 2.5 mm from a hit, was not absorbed by it", o)
		}
	}
}

// A feature line that crosses the bottom border at 10 degrees, with
// BorderAngle 20: the border hit is dropped (no conformal edge meets the
// border at 10 degrees), the exit through the right border (80 degrees) is
// kept.
func TestBorderAngle(t *testing.T) {
	m := grid(10)
	p := testParams()
	th := 10 * math.Pi / 180
	hits := lineHits(m, dense.Vec2{0.23, 0}, dense.Vec2{math.Cos(th), math.Sin(th)}, 0)
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	dropped := 0
	for k, o := range res.HitOutcome {
		if o == HitBorderAngle {
			dropped++
			if hits[k].T != 0 && m.U[m.Node[hits[k].A]][1] != 0 {
				t.Logf("dropped hit %d at T %v", k, hits[k].T)
			}
		}
	}
	if dropped == 0 {
		t.Fatal("no hit dropped for the border angle")
	}
	c := checkChain(t, out, res, 0, false)
	bn := borderNodes(out)
	for i := 0; i+1 < len(c); i++ {
		a, b := c[i], c[i+1]
		if !bn[a] && !bn[b] {
			continue
		}
		d := out.U[b].Sub(out.U[a])
		// The border of the unit square is axis-aligned: the angle with a
		// horizontal border is that with the x axis, with a vertical one
		// that with the y axis.
		ang := math.Pi / 2
		for _, n := range [2]int32{a, b} {
			if !bn[n] {
				continue
			}
			if u := out.U[n]; u[1] == 0 || u[1] == 1 {
				ang = math.Min(ang, math.Atan2(math.Abs(d[1]), math.Abs(d[0])))
			}
			if u := out.U[n]; u[0] == 0 || u[0] == 1 {
				ang = math.Min(ang, math.Atan2(math.Abs(d[0]), math.Abs(d[1])))
			}
		}
		if ang < p.BorderAngle-1e-12 {
			t.Fatalf("conformal edge %d-%d (U %v, %v) meets the border at %.1f deg", a, b, out.U[a], out.U[b], ang*180/math.Pi)
		}
	}
	last := c[len(c)-1]
	if !bn[last] || out.U[last][0] != 1 {
		t.Fatalf("chain does not reach the right border: last node at %v", out.U[last])
	}
	if bn[c[0]] {
		t.Fatalf("chain starts on the border at %v", out.U[c[0]])
	}
	t.Logf("%d hits, %d dropped for the border angle, chain of %d nodes from %v to %v", len(hits), dropped, len(c), out.U[c[0]], out.U[last])
}

// Locked nodes survive, bit for bit, and a hit next to one is blocked.
func TestLockedNodes(t *testing.T) {
	m := grid(10)
	m.Locked = make([]bool, len(m.X))
	locked := []int32{0, 10, 110, 120, 5*11 + 3} // corners and (0.3, 0.5)
	for _, n := range locked {
		m.Locked[n] = true
	}
	p := testParams()
	hits := lineHits(m, dense.Vec2{0.305, 0}, dense.Vec2{0, 1}, 0)
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, true)
	blocked := 0
	for _, o := range res.HitOutcome {
		if o == HitBlocked {
			blocked++
		}
	}
	if blocked == 0 {
		t.Fatal("the hit 5 mm from the locked node (0.3, 0.5) was not blocked")
	}
	found := map[int32]bool{}
	for i, o := range res.NodeOld {
		if o >= 0 && m.Locked[o] {
			found[o] = true
			if !out.Locked[i] || out.X[i] != m.X[o] || out.U[i] != m.U[o] || res.Feature[i] != -1 {
				t.Fatalf("locked node %d changed", o)
			}
		}
	}
	for _, n := range locked {
		if !found[n] {
			t.Fatalf("locked node %d removed", n)
		}
	}
	t.Logf("%d hits: %d inserted, %d blocked; gaps %v", len(hits), res.Inserted, blocked, res.Gaps)
	// The blocked hit leaves its neighbours along the feature apart: a gap.
	if len(res.Gaps) == 0 {
		t.Fatal("no gap reported around the blocked hit")
	}
	es := meshEdges(out)
	for _, g := range res.Gaps {
		if es.has(g[0], g[1]) || res.Feature[g[0]] != 0 || res.Feature[g[1]] != 0 {
			t.Fatalf("gap %v: edge %v, features %d %d", g, es.has(g[0], g[1]), res.Feature[g[0]], res.Feature[g[1]])
		}
	}
}

// The same input gives the same output, bit for bit.
func TestDeterministic(t *testing.T) {
	run := func() (*remesh.Mesh, Result) {
		m := grid(12)
		th := 0.3
		hits := lineHits(m, dense.Vec2{0.41, 0}, dense.Vec2{math.Sin(th), math.Cos(th)}, 1)
		hits = append(hits, Hit{A: -1, B: -1, Face: 100, Bary: [3]float64{0.3, 0.3, 0.4}, X: dense.Vec3{1, 2, 3}, Feature: 5, Point: true})
		out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, testParams())
		if err != nil {
			t.Fatal(err)
		}
		return out, res
	}
	a, ra := run()
	b, rb := run()
	if h1, h2 := hashMesh(a, ra), hashMesh(b, rb); h1 != h2 {
		t.Fatalf("two runs differ: %x vs %x", h1, h2)
	}
}

func hashMesh(m *remesh.Mesh, r Result) uint64 {
	h := uint64(1469598103934665603)
	mix := func(x uint64) { h = (h ^ x) * 1099511628211 }
	for i := range m.X {
		for k := 0; k < 3; k++ {
			mix(math.Float64bits(m.X[i][k]))
			mix(math.Float64bits(m.V[i][k]))
		}
	}
	for _, e := range m.Extra {
		mix(math.Float64bits(e))
	}
	for i := range m.U {
		mix(math.Float64bits(m.U[i][0]))
		mix(math.Float64bits(m.U[i][1]))
		mix(uint64(m.Node[i]))
	}
	for _, f := range m.F {
		mix(uint64(f[0]))
		mix(uint64(f[1]))
		mix(uint64(f[2]))
	}
	for i := range r.Feature {
		mix(uint64(r.Feature[i]))
		mix(math.Float64bits(r.T[i]))
		mix(uint64(r.NodeOld[i]))
	}
	for _, s := range r.Src {
		mix(uint64(s.Node))
		mix(math.Float64bits(s.W))
	}
	for _, o := range r.FaceOld {
		mix(uint64(o))
	}
	return h
}

// Bad input gives an error that says what is wrong, never a panic.
func TestBadInput(t *testing.T) {
	p := testParams()
	base := func() (*remesh.Mesh, Features) { m := grid(3); return m, noFeatures(len(m.X)) }
	edge := Hit{A: 0, B: 1, S: 0.5, Face: -1, Feature: 0}
	cases := []struct {
		name string
		mod  func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params)
		want string
	}{
		{"feature length", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { c.Feature = c.Feature[:3] }, "len(Features.Feature)"},
		{"T length", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { c.T = nil }, "len(Features.T)"},
		{"point length", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { c.Point = []bool{true} }, "len(Features.Point)"},
		{"feature id", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { c.Feature[2] = -3 }, "Feature = -3"},
		{"T NaN", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { c.Feature[2] = 1; c.T[2] = math.NaN() }, "T = NaN"},
		{"point and edge", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) {
			c.Point = make([]bool, len(c.Feature))
			c.Feature[2], c.Feature[3], c.Point[3] = 1, 1, true
		}, "point feature"},
		{"hit not an edge", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].B = 15 }, "share no mesh edge"},
		{"hit same node", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].B = 0 }, "edge nodes"},
		{"hit node range", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].B = 99 }, "edge nodes"},
		{"hit S", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].S = 1 }, "S = 1"},
		{"hit S NaN", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].S = math.NaN() }, "S = NaN"},
		{"hit X NaN", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].X[1] = math.NaN() }, "X = "},
		{"hit T Inf", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].T = math.Inf(1) }, "T = +Inf"},
		{"hit feature", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].Feature = -1 }, "Feature = -1"},
		{"hit face range", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].Face = 18 }, "out of range"},
		{"hit face -2", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { (*h)[0].Face = -2 }, "Face = -2"},
		{"hit bary sum", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) {
			(*h)[0].Face, (*h)[0].Bary = 1, [3]float64{0.5, 0.5, 0.5}
		}, "sums to"},
		{"hit bary NaN", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) {
			(*h)[0].Face, (*h)[0].Bary = 1, [3]float64{math.NaN(), 0.5, 0.5}
		}, "Bary[0]"},
		{"hit point vs edge", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) {
			*h = append(*h, Hit{A: 1, B: 2, S: 0.5, Face: -1, Feature: 0, Point: true})
		}, "both a point and an edge"},
		{"mesh NaN", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { m.X[3][0] = math.NaN() }, "not finite"},
		{"mesh extra", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { m.Extra = m.Extra[:5] }, "len(Extra)"},
		{"mesh face", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { m.F[0][1] = 99 }, "out of range"},
		{"seam", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) {
			// Two triangles sharing node 2 through two verts: a valid mesh, but
			// not one vert per node.
			*m = remesh.Mesh{
				X:    []dense.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 2, 0}},
				V:    make([]dense.Vec3, 5),
				U:    []dense.Vec2{{0, 0}, {1, 0}, {0, 1}, {2, 0}, {3, 0}, {2, 1}},
				Node: []int32{0, 1, 2, 2, 3, 4},
				F:    [][3]int32{{0, 1, 2}, {3, 4, 5}},
			}
		}, "one vert per node"},
		{"min edge", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { p.MinEdge = 0 }, "MinEdge"},
		{"min angle", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { p.MinAngle = math.NaN() }, "MinAngle"},
		{"border angle", func(m *remesh.Mesh, c *Features, h *[]Hit, p *Params) { p.BorderAngle = 2 }, "BorderAngle"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, c := base()
			hits := []Hit{edge}
			pp := p
			tc.mod(m, &c, &hits, &pp)
			_, _, err := Preprocess(m, c, hits, pp)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
			t.Log(err)
		})
	}
}

// slidColumn returns a 10 x 10 grid with feature 4 along the column x = 0.3,
// on nodes (0.3, j/10) for j >= from, T = y, whose node (0.3, 0.1) has slid
// to 6 mm from the border.
func slidColumn(from int) (*remesh.Mesh, Features) {
	m := grid(10)
	c := noFeatures(len(m.X))
	for j := from; j <= 10; j++ {
		n := j*11 + 3
		c.Feature[n], c.T[n] = 4, m.U[n][1]
	}
	m.U[14][1] = 0.006
	return m, c
}

// A short conformal edge at the border collapses onto the border node: a
// conformal node on the cloth border is preserved (sec. 6.1), and stays on
// the border in U.
func TestBorderConformalPreserved(t *testing.T) {
	// Feature 4 along the column x = 0.3, from the border node (0.3, 0).
	m, c := slidColumn(0)
	p := testParams()
	out, res, err := Preprocess(m, c, nil, p)
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, false)
	ch := checkChain(t, out, res, 4, true)
	if len(ch) != 10 {
		t.Fatalf("chain of %d nodes, want 10 (the node near the border collapsed)", len(ch))
	}
	if res.NodeOld[ch[0]] != 3 || out.U[ch[0]] != m.U[3] || out.X[ch[0]] != m.X[3] {
		t.Fatalf("chain starts at node %d (input %d) U %v, want the border node 3 unchanged", ch[0], res.NodeOld[ch[0]], out.U[ch[0]])
	}
	for i, o := range res.NodeOld {
		if o == 14 {
			t.Fatalf("node 14 survived as %d", i)
		}
	}
	if res.Collapses == 0 || res.Short != 0 {
		t.Fatalf("collapses %d short %d", res.Collapses, res.Short)
	}
}

// A chain whose end node has slid to 6 mm from the border (in throw, the
// trailing border slipping over the box's edge) and a hit on the border edge
// beside it: the hit is not a duplicate of that interior node (a border edge
// would be left crossing the feature without a node, and the cloth's face
// there cut the box's edge) but goes in as the chain's border end, and the
// cleanup collapses the interior node onto it.
func TestBorderHitNearInteriorEnd(t *testing.T) {
	// Feature 4 along the column x = 0.3 from (0.3, 0.1) up; the border
	// node (0.3, 0) is not on it.
	m, c := slidColumn(1)
	u := dense.Vec2{0.305, 0}
	hits := []Hit{{A: 3, B: 4, S: 0.05, Face: -1, X: worldAt(u), Feature: 4, T: 0}}
	out, res, err := Preprocess(m, c, hits, testParams())
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, false)
	if res.HitOutcome[0] != HitInserted {
		t.Fatalf("border hit: %v, want inserted", res.HitOutcome[0])
	}
	ch := checkChain(t, out, res, 4, true)
	if first := ch[0]; res.NodeOld[first] >= 0 || out.U[first] != u {
		t.Fatalf("chain starts at node %d (input %d) U %v, want the new border node at %v", first, res.NodeOld[first], out.U[first], u)
	}
	for i, o := range res.NodeOld {
		if o == 14 {
			t.Fatalf("the interior end node 14 survived as %d beside the new border node", i)
		}
	}
}

// PreprocessValid, on a mesh of valid connectivity (here Preprocess's own
// output, given new hits), gives exactly Preprocess's result, and still
// rejects a shape or state that a caller may have set wrongly.
func TestPreprocessValid(t *testing.T) {
	m := grid(12)
	hits := lineHits(m, dense.Vec2{0.41, 0}, dense.Vec2{math.Sin(0.3), math.Cos(0.3)}, 1)
	m, res, err := Preprocess(m, noFeatures(len(m.X)), hits, testParams())
	if err != nil {
		t.Fatal(err)
	}
	hits = lineHits(m, dense.Vec2{0, 0.63}, dense.Vec2{1, 0.1}, 2)
	a, ra, err := Preprocess(m, res.Features, hits, testParams())
	if err != nil {
		t.Fatal(err)
	}
	b, rb, err := PreprocessValid(m, res.Features, hits, testParams())
	if err != nil {
		t.Fatal(err)
	}
	if ra.Inserted == 0 || hashMesh(a, ra) != hashMesh(b, rb) {
		t.Fatalf("%d hits inserted; PreprocessValid and Preprocess differ", ra.Inserted)
	}
	for name, mod := range map[string]func(m *remesh.Mesh){
		"nan X":    func(m *remesh.Mesh) { m.X[3][1] = math.NaN() },
		"V length": func(m *remesh.Mesh) { m.V = m.V[1:] },
		"face":     func(m *remesh.Mesh) { m.F[2][1] = int32(len(m.U)) },
	} {
		m2 := *m
		m2.X, m2.V, m2.F = slices.Clone(m.X), slices.Clone(m.V), slices.Clone(m.F)
		mod(&m2)
		if _, _, err := PreprocessValid(&m2, res.Features, hits, testParams()); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestInteriorHitAtBorderNode: a hit on an interior edge 0.027 mm from the
// edge's end on the cloth's border (its border hit dropped, as where a
// feature meets the border at a shallow angle). A node inserted there
// cannot absorb the border node, and the face of the two and the border
// node's neighbour along the border was a sliver (jaws: max_strain 494).
// The border node becomes the hit's node, on the feature; no face is
// thinner than the mesh's own.
func TestInteriorHitAtBorderNode(t *testing.T) {
	m := grid(16)
	b, d := int32(5), int32(17+6) // border node (0.3125, 0) and (0.375, 0.0625): a diagonal
	if m.U[b] != (dense.Vec2{0.3125, 0}) || m.U[d] != (dense.Vec2{0.375, 0.0625}) {
		t.Fatalf("set-up: nodes at %v and %v", m.U[b], m.U[d])
	}
	const s = 0.0003
	u := lerp2(m.U[b], m.U[d], s)
	hits := []Hit{{A: b, B: d, S: s, Face: -1, X: worldAt(u), Feature: 3, T: 0.5}}
	out, res, err := Preprocess(m, noFeatures(len(m.X)), hits, testParams())
	if err != nil {
		t.Fatal(err)
	}
	checkMesh(t, m, out, res, false)
	smallest := math.Inf(1)
	for _, f := range out.F {
		smallest = math.Min(smallest, minAngle(out.U[f[0]], out.U[f[1]], out.U[f[2]]))
	}
	// The grid's faces have 45-degree angles.
	if smallest < math.Pi/4-1e-9 {
		t.Errorf("smallest material angle %.3g degrees: a sliver", smallest*180/math.Pi)
	}
	n := res.HitNode[0]
	if res.HitOutcome[0] != HitInserted || n < 0 || res.NodeOld[n] != b {
		t.Fatalf("hit: %v on node %d (input %d), want inserted on the border node %d", res.HitOutcome[0], n, res.NodeOld[n], b)
	}
	if res.Feature[n] != 3 || out.X[n] != hits[0].X {
		t.Errorf("border node: feature %d X %v, want 3 and %v", res.Feature[n], out.X[n], hits[0].X)
	}
}
