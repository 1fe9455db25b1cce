package sizing

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/internal/testrun"
	"github.com/loomsim/loom/solver/remesh"
	"github.com/loomsim/loom/solver/sparse"
)

func tight() Params {
	return Params{RefineAngle: 0.3, RefineCompression: 0.05, RefineVelocity: 1, SizeMin: 0.02, SizeMax: 0.3, AspectMin: 0.2}
}

// scene returns a crumpled n x n grid (cut into two panels at column cut with
// the second panel rotated by rot, or uncut for cut = 0) with plane obstacles.
func scene(n, cut int, rot float64) (*remesh.Mesh, []float64, Obstacles) {
	m, vr := grid(n, 1, cut, rot)
	crumple(m, rand.New(rand.NewPCG(9, 10)))
	return m, vr, planeObstacles(m, dense.Vec3{0, 0, -0.3}, dense.Vec3{0.1, 0, 1}.Scale(1/math.Sqrt(1.01)), 0.4)
}

func TestSinglePanelPlainAverage(t *testing.T) {
	m, _, obs := scene(9, 0, 0)
	var w Workspace
	out := make([]dense.Mat2, len(m.U))
	if err := w.Compute(m, obs, tight(), nil, out); err != nil {
		t.Fatal(err)
	}
	fm := w.FaceTensors()
	acc := make([]dense.Mat2, len(m.U))
	area := make([]float64, len(m.U))
	for f, tr := range m.F {
		u0 := m.U[tr[0]]
		e1, e2 := m.U[tr[1]].Sub(u0), m.U[tr[2]].Sub(u0)
		a := 0.5 * (e1[0]*e2[1] - e1[1]*e2[0])
		for _, v := range tr {
			for i := range 2 {
				for j := range 2 {
					acc[v][i][j] += a * fm[f][i][j]
				}
			}
			area[v] += a
		}
	}
	for v := range out {
		for i := range 2 {
			for j := range 2 {
				if want := acc[v][i][j] / area[v]; out[v][i][j] != want {
					t.Fatalf("vert %d: %v, want plain average %g at (%d,%d)", v, out[v], want, i, j)
				}
			}
		}
	}
}

func checkBounds(t *testing.T, out []dense.Mat2, p Params, tol float64) {
	t.Helper()
	lo, hi, a2 := p.bounds()
	for v, x := range out {
		if math.Abs(x[0][1]-x[1][0]) > 1e-15*hi {
			t.Fatalf("vert %d not symmetric: %v", v, x)
		}
		l1, l2 := eig2(x)
		if l2 < lo*(1-tol) || l1 > hi*(1+tol) || l2 < a2*l1*(1-tol) {
			t.Fatalf("vert %d: eigenvalues %g %g outside [%g, %g] or ratio < %g", v, l1, l2, lo, hi, a2)
		}
	}
}

func TestClampedVerts(t *testing.T) {
	for _, cut := range []int{0, 5} {
		m, _, obs := scene(12, cut, 0.4)
		for _, p := range []Params{tight(), {RefineAngle: 0.1, RefineCompression: 0.01, RefineVelocity: 0.1, SizeMin: 0.05, SizeMax: 0.06, AspectMin: 0.9}} {
			out := make([]dense.Mat2, len(m.U))
			if err := Compute(m, obs, p, nil, out); err != nil {
				t.Fatal(err)
			}
			checkBounds(t, out, p, 1e-12)
			// The dynamical criteria are active: not everything sits at l_max.
			lo, _, _ := p.bounds()
			big := 0
			for _, x := range out {
				if l1, _ := eig2(x); l1 > lo*(1+1e-6) {
					big++
				}
			}
			if big < len(out)/4 {
				t.Fatalf("only %d of %d verts refined", big, len(out))
			}
			// alpha_min = 1: isotropic (exactly on a single panel).
			p.AspectMin = 1
			if err := Compute(m, obs, p, nil, out); err != nil {
				t.Fatal(err)
			}
			for v, x := range out {
				if cut == 0 && (x[0][1] != 0 || x[0][0] != x[1][1]) {
					t.Fatalf("vert %d not isotropic: %v", v, x)
				}
				if math.Abs(x[0][1])+math.Abs(x[0][0]-x[1][1]) > 1e-14*x[0][0] {
					t.Fatalf("vert %d not isotropic: %v", v, x)
				}
			}
		}
	}
}

func TestSeamMatchesUncut(t *testing.T) {
	const n, cut = 10, 4
	for _, p := range []Params{tight(), loose()} {
		m0, _, obs := scene(n, 0, 0)
		ref := make([]dense.Mat2, len(m0.U))
		if err := Compute(m0, obs, p, nil, ref); err != nil {
			t.Fatal(err)
		}
		scale := 0.0
		for _, x := range ref {
			scale = math.Max(scale, matNorm(x))
		}
		for _, rot := range []float64{0, math.Pi / 6, -2} {
			m, vr, obs := scene(n, cut, rot)
			if len(m.U) != len(m0.U)+n+1 {
				t.Fatalf("cut mesh has %d verts", len(m.U))
			}
			var w Workspace
			out := make([]dense.Mat2, len(m.U))
			if err := w.Compute(m, obs, p, nil, out); err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for v, x := range out {
				want := rotMat(ref[m.Node[v]], vr[v])
				worst = math.Max(worst, matDiff(x, want))
			}
			if worst > 1e-13*scale {
				t.Errorf("rot %g: max diff from the uncut sheet %g (scale %g)", rot, worst, scale)
			}
			// The test has teeth: averaging each seam vert over its own
			// panel's faces only differs from the uncut sheet.
			w.noSeams = true
			if err := w.Compute(m, obs, p, nil, out); err != nil {
				t.Fatal(err)
			}
			worst = 0
			for v, x := range out {
				worst = math.Max(worst, matDiff(x, rotMat(ref[m.Node[v]], vr[v])))
			}
			if worst < 1e-3*scale {
				t.Errorf("rot %g: per-panel averaging also matches (%g): seam test is vacuous", rot, worst)
			}
		}
	}
}

// cone builds a closed fan of two panels around one apex node: each panel has
// three faces of corner angle pi/4, so the angles sum to 3pi/2 (a non-flat
// input seam vertex); the world positions lie on the cone that this fan
// develops onto.
func cone() *remesh.Mesh {
	// nodes: 0 apex; ring nodes 1..6 at world angles k*60deg.
	m := &remesh.Mesh{}
	rho := 0.75 // slant length 1, circumference 1.5 pi
	hgt := math.Sqrt(1 - rho*rho)
	m.X = append(m.X, dense.Vec3{0, 0, hgt})
	for k := range 6 {
		s, c := math.Sincos(float64(k) * math.Pi / 3)
		m.X = append(m.X, dense.Vec3{rho * c, rho * s, 0})
	}
	m.V = make([]dense.Vec3, len(m.X))
	// panel A: apex vert 0 at origin, ring verts at angles 0..3pi/4 on nodes 1..4
	// panel B: apex vert 5 at (5,0), ring verts at angles 0..3pi/4 on nodes 4,5,6,1
	add := func(o dense.Vec2, nodes [4]int32) {
		apex := int32(len(m.U))
		m.U = append(m.U, o)
		m.Node = append(m.Node, 0)
		for k, nd := range nodes {
			s, c := math.Sincos(float64(k) * math.Pi / 4)
			m.U = append(m.U, dense.Vec2{o[0] + c, o[1] + s})
			m.Node = append(m.Node, nd)
		}
		for k := range int32(3) {
			m.F = append(m.F, [3]int32{apex, apex + 1 + k, apex + 2 + k})
		}
	}
	add(dense.Vec2{}, [4]int32{1, 2, 3, 4})
	add(dense.Vec2{5, 0}, [4]int32{4, 5, 6, 1})
	return m
}

func TestConeSeamScaling(t *testing.T) {
	m := cone()
	var w Workspace
	out := make([]dense.Mat2, len(m.U))
	p := tight()
	if err := w.Compute(m, Obstacles{}, p, nil, out); err != nil {
		t.Fatal(err)
	}
	checkBounds(t, out, p, 1e-12)
	w.m = m
	// The six corners at the apex are laid out with scaled angles pi/3:
	// their bisectors, rotated by psi, are evenly spaced around 2 pi.
	var bis []float64
	for i := w.nBeg[0]; i < w.nBeg[1]; i++ {
		phi, alpha := w.cornerAngles(w.inc[i])
		if math.Abs(alpha-math.Pi/4) > 1e-14 {
			t.Fatalf("corner angle %g", alpha)
		}
		b := math.Mod(phi+alpha/2+w.psi[i], 2*math.Pi)
		if b < 0 {
			b += 2 * math.Pi
		}
		bis = append(bis, b)
	}
	if len(bis) != 6 {
		t.Fatalf("%d apex corners", len(bis))
	}
	for k := range 6 {
		found := false
		for _, b := range bis {
			d := math.Mod(b-bis[0]-float64(k)*math.Pi/3+4*math.Pi, 2*math.Pi)
			found = found || d < 1e-12 || d > 2*math.Pi-1e-12
		}
		if !found {
			t.Fatalf("bisectors %v are not spaced by pi/3", bis)
		}
	}
	// Panel A's apex vert starts the layout; its fan (3pi/4 -> pi) is rotated
	// by (4/3 - 1) * 3pi/8 = pi/8 at its bisector. Panel B's fan follows at
	// angle pi: pi + pi/2 - 3pi/8 = 9pi/8.
	for i := w.nBeg[0]; i < w.nBeg[1]; i++ {
		v := m.F[w.inc[i]/3][w.inc[i]%3]
		if w.vRuns[v] != 1 {
			t.Fatalf("vert %d: %d runs", v, w.vRuns[v])
		}
	}
	for _, c := range []struct {
		v   int32
		psi float64
	}{{0, math.Pi / 8}, {5, 9 * math.Pi / 8}} {
		psi := w.vTheta0[c.v] + 0.5*(4.0/3)*w.vAlp[c.v] - w.vPhi0[c.v] - 0.5*w.vAlp[c.v]
		if d := math.Remainder(psi-c.psi, 2*math.Pi); math.Abs(d) > 1e-12 {
			t.Fatalf("vert %d: back rotation %g, want %g", c.v, psi, c.psi)
		}
	}
	// Apex tensors of the two panels are the same tangent tensor rotated back
	// by pi/8 and 9pi/8, i.e. related by a rotation by pi (which is the
	// identity on tensors).
	if d := matDiff(out[0], out[5]); d > 1e-12*matNorm(out[0]) {
		t.Fatalf("apex tensors differ: %v %v", out[0], out[5])
	}
}

func TestSeamFallback(t *testing.T) {
	// Panels glued inconsistently (one panel's faces reversed by mirroring its
	// material coordinates) cannot be walked; the node falls back to the
	// per-vert average, which must still be well-defined and clamped.
	m, _, obs := scene(6, 3, 0)
	for v := range m.U {
		if m.U[v][0] > 1.5 { // right panel (shifted by 3L)
			m.U[v][1] = -m.U[v][1]
		}
	}
	for f, tr := range m.F {
		if m.U[tr[0]][0] > 1.5 {
			m.F[f] = [3]int32{tr[0], tr[2], tr[1]}
		}
	}
	var w Workspace
	out := make([]dense.Mat2, len(m.U))
	if err := w.Compute(m, obs, tight(), nil, out); err != nil {
		t.Fatal(err)
	}
	checkBounds(t, out, tight(), 1e-12)
	ref := make([]dense.Mat2, len(m.U))
	w.noSeams = true
	if err := w.Compute(m, obs, tight(), nil, ref); err != nil {
		t.Fatal(err)
	}
	for v := range out {
		if out[v] != ref[v] {
			t.Fatalf("vert %d: %v, want per-vert fallback %v", v, out[v], ref[v])
		}
	}
}

func TestDeterministicRunners(t *testing.T) {
	m, _, obs := scene(20, 9, 0.5)
	var ref []dense.Mat2
	for _, r := range testRunners {
		var w Workspace
		out := make([]dense.Mat2, len(m.U))
		for range 2 {
			if err := w.Compute(m, obs, tight(), r.r, out); err != nil {
				t.Fatal(err)
			}
		}
		if ref == nil {
			ref = out
			continue
		}
		for v := range out {
			if out[v] != ref[v] {
				t.Fatalf("%s: vert %d differs: %v vs %v", r.name, v, out[v], ref[v])
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	big, _, bigObs := scene(16, 7, 0.3)
	m, _, obs := scene(12, 5, 0.3)
	var w Workspace
	out := make([]dense.Mat2, len(big.U))
	if err := w.Compute(big, bigObs, tight(), nil, out); err != nil {
		t.Fatal(err)
	}
	out = out[:len(m.U)]
	for _, r := range []sparse.Runner{sparse.Serial{}, chunkRunner{13}} {
		a := testing.AllocsPerRun(20, func() {
			if err := w.Compute(m, obs, tight(), r, out); err != nil {
				t.Fatal(err)
			}
		})
		if a != 0 {
			t.Errorf("%T: %g allocations per call", r, a)
		}
	}
}

func TestErrors(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		want string
		mod  func(m *remesh.Mesh, obs *Obstacles, out *[]dense.Mat2)
	}{
		{"node 3: non-finite position", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.X[3][1] = nan }},
		{"node 4: non-finite velocity", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.V[4][2] = math.Inf(-1) }},
		{"vert 5: non-finite material", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.U[5][0] = nan }},
		{"vert 2: node 99 out of range", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.Node[2] = 99 }},
		{"len(V)", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.V = m.V[:3] }},
		{"len(Node)", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.Node = m.Node[1:] }},
		{"len(out)", func(_ *remesh.Mesh, _ *Obstacles, out *[]dense.Mat2) { *out = (*out)[1:] }},
		{"face 6: vert -1 out of range", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.F[6][1] = -1 }},
		{"face 7 (verts", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) {
			m.F[7][1], m.F[7][2] = m.F[7][2], m.F[7][1] // clockwise
		}},
		{"face 8 (verts", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) {
			m.U[m.F[8][2]] = m.U[m.F[8][0]].Sub(dense.Vec2{}).Sub(dense.Vec2{-1e-14, 0}) // degenerate
		}},
		{"face 0 (verts 0 1 0) has two corners", func(m *remesh.Mesh, _ *Obstacles, _ *[]dense.Mat2) { m.F[0][2] = 0 }},
		{"Obstacles: node 2: non-finite point", func(_ *remesh.Mesh, o *Obstacles, _ *[]dense.Mat2) { o.Point[2][0] = nan }},
		{"Obstacles: node 1: invalid normal", func(_ *remesh.Mesh, o *Obstacles, _ *[]dense.Mat2) { o.Normal[1] = dense.Vec3{} }},
		{"Obstacles.Range", func(_ *remesh.Mesh, o *Obstacles, _ *[]dense.Mat2) { o.Range = 0 }},
		{"len(Has)", func(_ *remesh.Mesh, o *Obstacles, _ *[]dense.Mat2) { o.Has = make([]bool, 2) }},
		{"len(Point)", func(_ *remesh.Mesh, o *Obstacles, _ *[]dense.Mat2) { o.Normal = nil }},
	} {
		m, _, obs := scene(4, 2, 0)
		out := make([]dense.Mat2, len(m.U))
		c.mod(m, &obs, &out)
		err := Compute(m, obs, tight(), nil, out)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error containing %q, got %v", c.want, err)
		}
	}
	// A node without an obstacle point may carry garbage.
	m, _, obs := scene(4, 2, 0)
	obs.Has = make([]bool, len(m.X))
	obs.Point[1][0] = nan
	if err := Compute(m, obs, tight(), nil, make([]dense.Mat2, len(m.U))); err != nil {
		t.Fatal(err)
	}
}

func TestIsolatedVert(t *testing.T) {
	m, _, obs := scene(3, 0, 0)
	m.U = append(m.U, dense.Vec2{7, 7})
	m.Node = append(m.Node, 0)
	out := make([]dense.Mat2, len(m.U))
	p := tight()
	if err := Compute(m, obs, p, nil, out); err != nil {
		t.Fatal(err)
	}
	lo, _, _ := p.bounds()
	if out[len(out)-1] != (dense.Mat2{{lo, 0}, {0, lo}}) {
		t.Fatalf("isolated vert: %v", out[len(out)-1])
	}
}

func BenchmarkCompute(b *testing.B) {
	m, _, obs := scene(71, 35, 0.5) // 10082 faces, one seam
	for _, r := range []struct {
		name string
		r    sparse.Runner
	}{{"serial", sparse.Serial{}}, {"pool2", testrun.Chunked{Workers: 2, Grain: 256}}} {
		b.Run(r.name, func(b *testing.B) {
			var w Workspace
			out := make([]dense.Mat2, len(m.U))
			if err := w.Compute(m, obs, tight(), r.r, out); err != nil { // warm the workspace
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := w.Compute(m, obs, tight(), r.r, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.F)), "ns/face")
		})
	}
}
