package remesh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

func mustStart(t *testing.T, m *Mesh, M []dense.Mat2, p Params) *Remesher {
	t.Helper()
	var r Remesher
	if err := r.start(m, M, p, true); err != nil {
		t.Fatal(err)
	}
	return &r
}

// findVert returns the vert of m at material point u, or -1.
func findVert(m *Mesh, u dense.Vec2) int32 {
	for v, w := range m.U {
		if w == u {
			return int32(v)
		}
	}
	return -1
}

func TestSplitInterior(t *testing.T) {
	m := gridMesh(4, 4, 1, 1, 0, nil)
	for i := range m.V {
		m.V[i] = dense.Vec3{m.U[i][0], 2 * m.U[i][1], 3}
	}
	r := mustStart(t, m, isoM(len(m.U), 1), DefaultParams())
	// Interior diagonal (1,1)-(2,2) in cells of 0.25.
	a, b := findVert(m, dense.Vec2{0.25, 0.25}), findVert(m, dense.Vec2{0.5, 0.5})
	var nf []int32
	if !r.split(a, b, &nf) {
		t.Fatal("split failed")
	}
	if len(nf) != 4 {
		t.Fatalf("interior split made %d faces, want 4", len(nf))
	}
	out, res := r.output(false)
	checkValid(t, out)
	checkBoundary(t, m, out)
	if len(out.F) != len(m.F)+2 || len(out.X) != len(m.X)+1 {
		t.Fatalf("counts %d faces %d nodes", len(out.F), len(out.X))
	}
	n := len(out.X) - 1
	w := findVert(out, dense.Vec2{0.375, 0.375})
	if w < 0 || out.Node[w] != int32(n) || res.NodeOld[n] != -1 {
		t.Fatalf("new vert not at the midpoint / on the new node")
	}
	// Flat, unstrained: the quadric minimum is the midpoint.
	if d := out.X[n].Sub(dense.Vec3{0.375, 0.375, 0}).Norm(); d > 1e-12 {
		t.Fatalf("flat split placed off the midpoint by %g", d)
	}
	if want := (dense.Vec3{0.375, 0.75, 3}); out.V[n].Sub(want).Norm() > 1e-15 {
		t.Fatalf("V = %v, want %v", out.V[n], want)
	}
	src := res.Sources(n)
	if len(src) != 2 || src[0].Node != a || src[1].Node != b || src[0].W != 0.5 || src[1].W != 0.5 {
		t.Fatalf("sources %v", src)
	}
	if area := totalArea(out); math.Abs(area-1) > 1e-14 {
		t.Fatalf("area %v", area)
	}
}

func TestSplitBoundary(t *testing.T) {
	m := gridMesh(3, 3, 1, 1, 0, nil)
	r := mustStart(t, m, isoM(len(m.U), 1), DefaultParams())
	a, b := findVert(m, dense.Vec2{1.0 / 3, 0}), findVert(m, dense.Vec2{2.0 / 3, 0})
	var nf []int32
	if !r.split(b, a, &nf) { // reversed: the boundary edge's face holds a->b
		t.Fatal("split failed")
	}
	if len(nf) != 2 {
		t.Fatalf("boundary split made %d faces, want 2", len(nf))
	}
	out, _ := r.output(false)
	checkValid(t, out)
	checkBoundary(t, m, out)
	w := findVert(out, dense.Vec2{0.5, 0})
	if w < 0 {
		t.Fatal("no vert at the boundary midpoint")
	}
	segs := boundarySegs(t, out)
	if len(segs) != len(boundarySegs(t, m))+1 {
		t.Fatalf("boundary has %d edges", len(segs))
	}
}

func TestSplitSeam(t *testing.T) {
	m := seamMesh(3)
	checkSeam(t, m)
	r := mustStart(t, m, isoM(len(m.U), 1), DefaultParams())
	a, b := findVert(m, dense.Vec2{1, 1.0 / 3}), findVert(m, dense.Vec2{1, 2.0 / 3})
	var nf []int32
	if !r.split(a, b, &nf) {
		t.Fatal("split failed")
	}
	if len(nf) != 4 {
		t.Fatalf("seam split made %d faces, want 2 per side", len(nf))
	}
	out, res := r.output(false)
	checkValid(t, out)
	checkBoundary(t, m, out)
	checkSeam(t, out)
	if len(out.X) != len(m.X)+1 || len(out.U) != len(m.U)+2 {
		t.Fatalf("seam split: %d nodes %d verts, want one node and two verts more", len(out.X), len(out.U))
	}
	n := len(out.X) - 1
	// Both panels are flat and unstrained: the new node is at the seam midpoint.
	if d := out.X[n].Sub(dense.Vec3{1, 0.5, 0}).Norm(); d > 1e-12 {
		t.Fatalf("seam split node at %v", out.X[n])
	}
	if res.Splits != 1 {
		t.Fatalf("splits = %d", res.Splits)
	}
}

// A sheet wrapped isometrically around a cylinder: the chord midpoint of a
// circumferential edge lies inside the cylinder; eq. 2 moves the new node
// back towards the surface.
func TestSplitQuadricCurved(t *testing.T) {
	const R = 1.0
	m := gridMesh(6, 4, 2, 1, 0, nil)
	for v, u := range m.U {
		th := u[0] / R
		m.X[m.Node[v]] = dense.Vec3{R * math.Sin(th), u[1], R * math.Cos(th)}
	}
	r := mustStart(t, m, isoM(len(m.U), 1), DefaultParams())
	a, b := findVert(m, dense.Vec2{2.0 / 3, 0.5}), findVert(m, dense.Vec2{1, 0.5})
	var nf []int32
	if !r.split(a, b, &nf) {
		t.Fatal("split failed")
	}
	out, _ := r.output(false)
	checkValid(t, out)
	x := out.X[len(out.X)-1]
	mid := mid3(m.X[a], m.X[b])
	rad := func(p dense.Vec3) float64 { return math.Hypot(p[0], p[2]) }
	e0, e1 := R-rad(mid), math.Abs(R-rad(x))
	t.Logf("distance to the cylinder: midpoint %.3g, quadric %.3g", e0, e1)
	dir := x.Sub(mid)
	radial := dense.Vec3{mid[0], 0, mid[2]}
	if c := dir.Dot(radial) / (dir.Norm() * radial.Norm()); !(c > 0.99) {
		t.Fatalf("quadric moved the node off the radial direction (cos %v)", c)
	}
	if !(e1 < 0.75*e0) {
		t.Fatalf("quadric placement %g from the surface, midpoint %g", e1, e0)
	}
	if math.Abs(x[1]-0.5) > 1e-9 {
		t.Fatalf("quadric moved along the cylinder axis: %v", x)
	}
}

// inCircle > 0 when d is strictly inside the circumcircle of the
// counter-clockwise triangle (a, b, c).
func inCircle(a, b, c, d dense.Vec2) float64 {
	ax, ay := a[0]-d[0], a[1]-d[1]
	bx, by := b[0]-d[0], b[1]-d[1]
	cx, cy := c[0]-d[0], c[1]-d[1]
	return (ax*ax+ay*ay)*(bx*cy-cx*by) - (bx*bx+by*by)*(ax*cy-cx*ay) + (cx*cx+cy*cy)*(ax*by-bx*ay)
}

// nonDelaunay maps material space by L (M = L^T L) and counts the interior
// edges of m for which the vert across the edge is strictly inside the
// circumcircle of the face on the other side (relative tolerance tol); n is
// the number of interior edges.
func nonDelaunay(t *testing.T, m *Mesh, L dense.Mat2, tol float64) (bad, n int) {
	t.Helper()
	a, err := NewAdjacency(m)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]dense.Vec2, len(m.U))
	for i, u := range m.U {
		p[i] = L.MulVec(u)
	}
	for _, e := range a.Edges {
		if e.Boundary() {
			continue
		}
		n++
		f, g := m.F[e.F[0]], m.F[e.F[1]]
		d := mesh.Third(g, e.V[0], e.V[1])
		ic := inCircle(p[f[0]], p[f[1]], p[f[2]], p[d])
		s := 0.0
		for _, q := range []dense.Vec2{p[f[0]], p[f[1]], p[f[2]]} {
			s = math.Max(s, dot2(q.Sub(p[d]), q.Sub(p[d])))
		}
		if ic > tol*s*s {
			bad++
		}
	}
	return bad, n
}

func TestFlipDelaunayUniform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := gridMesh(12, 12, 1, 1, 0.4, rng)
	M := isoM(len(m.U), 1)
	r := mustStart(t, m, M, DefaultParams())
	var all, created []int32
	for f := range m.F {
		all = append(all, int32(f))
	}
	r.flipEdges(all, &created)
	out, res := r.output(false)
	checkValid(t, out)
	checkBoundary(t, m, out)
	if res.Flips == 0 {
		t.Fatal("random diagonals on a jittered grid needed no flip")
	}
	if len(out.U) != len(m.U) {
		t.Fatal("flips changed the verts")
	}
	I := dense.Mat2{{1, 0}, {0, 1}}
	if bad, _ := nonDelaunay(t, m, I, 1e-9); bad == 0 {
		t.Fatal("input was already Delaunay; the test proves nothing")
	}
	bad, n := nonDelaunay(t, out, I, 1e-9)
	if bad != 0 {
		t.Fatalf("%d of %d interior edges not Delaunay after flips", bad, n)
	}
	t.Logf("%d flips; %d interior edges all Delaunay", res.Flips, n)
}

func TestFlipDelaunayAnisotropic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := gridMesh(12, 12, 1, 1, 0.4, rng)
	// M = L^T L with L = diag(1, 5) rotated by 0.5 rad: L = diag R^T.
	th := 0.5
	Mc := anisoM(1, 0.2, th)
	M := make([]dense.Mat2, len(m.U))
	for i := range M {
		M[i] = Mc
	}
	c, s := math.Cos(th), math.Sin(th)
	L := dense.Mat2{{c, s}, {-5 * s, 5 * c}} // rows: e1/l1, e2/l2 scaled by 1/l1 = 1
	if LtL := L.T().Mul(L); math.Abs(LtL[0][0]-Mc[0][0]) > 1e-9 || math.Abs(LtL[0][1]-Mc[0][1]) > 1e-9 || math.Abs(LtL[1][1]-Mc[1][1]) > 1e-9 {
		t.Fatalf("L^T L = %v, want %v", LtL, Mc)
	}
	r := mustStart(t, m, M, DefaultParams())
	var all, created []int32
	for f := range m.F {
		all = append(all, int32(f))
	}
	r.flipEdges(all, &created)
	out, res := r.output(false)
	checkValid(t, out)
	if bad, _ := nonDelaunay(t, m, L, 1e-9); bad == 0 {
		t.Fatal("input was already Delaunay in the metric; the test proves nothing")
	}
	bad, n := nonDelaunay(t, out, L, 1e-9)
	if bad != 0 {
		t.Fatalf("%d of %d interior edges not Delaunay in the metric after flips", bad, n)
	}
	// In the metric, not in plain material space.
	if b0, _ := nonDelaunay(t, out, dense.Mat2{{1, 0}, {0, 1}}, 1e-9); b0 == 0 {
		t.Fatal("anisotropic flips gave the isotropic Delaunay triangulation")
	}
	t.Logf("%d flips; %d interior edges Delaunay in the stretched space", res.Flips, n)
}

func TestCollapseRules(t *testing.T) {
	m := gridMesh(4, 4, 1, 1, 0, nil)
	m.Locked = make([]bool, len(m.X))
	at := func(x, y float64) int32 { return findVert(m, dense.Vec2{x, y}) }
	M := isoM(len(m.U), 10) // everything tiny: only topology/geometry rules apply
	p := DefaultParams()
	p.AspectMin = 0

	try := func(i, j int32) (*Mesh, bool) {
		r := mustStart(t, m, M, p)
		var nf []int32
		ok := r.tryCollapse(i, j, &nf)
		out, _ := r.output(true)
		checkValid(t, out)
		checkBoundary(t, m, out)
		return out, ok
	}
	// Interior vert onto a neighbour.
	if out, ok := try(at(0.5, 0.5), at(0.75, 0.5)); !ok || len(out.F) != len(m.F)-2 {
		t.Fatalf("interior collapse: ok %v, %d faces", ok, len(out.F))
	}
	// Boundary vert along the straight boundary.
	if out, ok := try(at(0.5, 0), at(0.75, 0)); !ok || len(out.F) != len(m.F)-1 {
		t.Fatalf("boundary collapse along the side: ok %v, %d faces", ok, len(out.F))
	}
	// Boundary vert onto an interior vert: forbidden.
	if _, ok := try(at(0.5, 0), at(0.5, 0.25)); ok {
		t.Fatal("boundary vert collapsed into the interior")
	}
	// Corner: forbidden.
	if _, ok := try(at(0, 0), at(0.25, 0)); ok {
		t.Fatal("corner collapsed")
	}
	// Interior vert onto a boundary vert: allowed.
	if _, ok := try(at(0.25, 0.25), at(0.25, 0)); !ok {
		t.Fatal("interior vert could not collapse onto the boundary")
	}
	// Locked node: forbidden.
	m.Locked[m.Node[at(0.5, 0.5)]] = true
	if _, ok := try(at(0.5, 0.5), at(0.75, 0.5)); ok {
		t.Fatal("locked node removed")
	}
	m.Locked[m.Node[at(0.5, 0.5)]] = false
	// Size: a new edge above 1-h forbids it.
	M2 := isoM(len(m.U), 0.45) // grid edge 0.25 -> size 0.56; new edges 0.5 -> 1.1
	r := mustStart(t, m, M2, p)
	var nf []int32
	if r.tryCollapse(at(0.5, 0.5), at(0.75, 0.5), &nf) {
		t.Fatal("collapse created an edge above 1-h")
	}
}

func TestCollapseSeam(t *testing.T) {
	m := seamMesh(4)
	M := isoM(len(m.U), 10)
	p := DefaultParams()
	p.AspectMin = 0
	r := mustStart(t, m, M, p)
	a, b := findVert(m, dense.Vec2{1, 0.5}), findVert(m, dense.Vec2{1, 0.75})
	var nf []int32
	if !r.tryCollapse(a, b, &nf) {
		t.Fatal("seam collapse refused")
	}
	out, res := r.output(false)
	checkValid(t, out)
	checkBoundary(t, m, out)
	checkSeam(t, out)
	if len(out.X) != len(m.X)-1 || len(out.U) != len(m.U)-2 || res.Collapses != 1 {
		t.Fatalf("seam collapse: %d nodes %d verts", len(out.X), len(out.U))
	}
	// Seam end (corner of both panels) stays.
	r = mustStart(t, m, M, p)
	if r.tryCollapse(findVert(m, dense.Vec2{1, 1}), findVert(m, dense.Vec2{1, 0.75}), &nf) {
		t.Fatal("seam end collapsed")
	}
	// A seam vert cannot collapse into either panel.
	r = mustStart(t, m, M, p)
	if r.tryCollapse(a, findVert(m, dense.Vec2{0.75, 0.5}), &nf) {
		t.Fatal("seam vert collapsed into panel A")
	}
	// A panel-A vert next to the seam can collapse onto it; the seam is intact.
	r = mustStart(t, m, M, p)
	if !r.tryCollapse(findVert(m, dense.Vec2{0.75, 0.5}), a, &nf) {
		t.Fatal("vert next to the seam could not collapse onto it")
	}
	out, _ = r.output(false)
	checkValid(t, out)
	checkSeam(t, out)
}

// Random meshes, random sizing: every collapse that happens keeps a valid
// mesh, creates no inverted face or face below AspectMin, no edge above 1-h,
// and keeps the boundary.
func TestCollapseNeverInverts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p := DefaultParams()
	total := 0
	for trial := 0; trial < 6; trial++ {
		m := gridMesh(8, 8, 1, 1, 0.45, rng)
		M := make([]dense.Mat2, len(m.U))
		for i := range M {
			l1 := 0.15 + 0.5*rng.Float64()
			M[i] = anisoM(l1, l1*(0.3+0.7*rng.Float64()), math.Pi*rng.Float64())
		}
		var r Remesher
		if err := r.start(m, M, p, true); err != nil {
			t.Fatal(err)
		}
		for it := 0; it < 400; it++ {
			f := int32(rng.IntN(len(r.live.F)))
			if !r.live.Alive[f] {
				continue
			}
			e := rng.IntN(3)
			i, j := r.live.F[f][e], r.live.F[f][(e+1)%3]
			before, _ := r.output(false)
			oldEdges := map[[2]dense.Vec2]bool{}
			if a, err := NewAdjacency(before); err == nil {
				for _, ed := range a.Edges {
					oldEdges[[2]dense.Vec2{before.U[ed.V[0]], before.U[ed.V[1]]}] = true
					oldEdges[[2]dense.Vec2{before.U[ed.V[1]], before.U[ed.V[0]]}] = true
				}
			}
			var nf []int32
			if !r.tryCollapse(i, j, &nf) {
				continue
			}
			total++
			out, res := r.output(false)
			checkValid(t, out)
			checkBoundary(t, m, out)
			for _, g := range nf {
				u := r.live.F[g]
				if !shapeOK(r.u[u[0]], r.u[u[1]], r.u[u[2]], p.AspectMin) {
					t.Fatalf("collapse made face %v with bad shape", u)
				}
			}
			a, _ := NewAdjacency(out)
			for _, ed := range a.Edges {
				key := [2]dense.Vec2{out.U[ed.V[0]], out.U[ed.V[1]]}
				if oldEdges[key] {
					continue
				}
				d := out.U[ed.V[0]].Sub(out.U[ed.V[1]])
				Ma := midM(res.M[ed.V[0]], res.M[ed.V[1]])
				if s := math.Sqrt(quad(d, &Ma, d)); s > 1-p.Hysteresis+1e-12 {
					t.Fatalf("collapse created edge %v of size %v > 1-h", key, s)
				}
			}
		}
	}
	if total < 20 {
		t.Fatalf("only %d collapses happened; the test is too weak", total)
	}
	t.Logf("%d random collapses checked", total)
}
