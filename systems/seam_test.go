package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/remesh"
)

// TestFlatHingeRestUnfolds checks the seam unfolding: a hinge whose second
// face is given in another panel's frame (rotated and shifted) gets the same
// rest state as the same hinge given in one frame, with rest angle 0.
func TestFlatHingeRestUnfolds(t *testing.T) {
	a0, a1, a2, a3 := dense.Vec2{0, 0}, dense.Vec2{0, 1}, dense.Vec2{-0.5, 0.3}, dense.Vec2{0.7, 0.6}
	want, err := flatHingeRest(a0, a1, a2, a0, a1, a3)
	if err != nil {
		t.Fatal(err)
	}
	s, c := math.Sincos(2.1)
	move := func(u dense.Vec2) dense.Vec2 { return dense.Vec2{3 + c*u[0] - s*u[1], -1 + s*u[0] + c*u[1]} }
	got, err := flatHingeRest(a0, a1, a2, move(a0), move(a1), move(a3))
	if err != nil {
		t.Fatal(err)
	}
	if got.Theta0 != 0 || want.Theta0 != 0 || math.Abs(got.Weight-want.Weight) > 1e-12*want.Weight {
		t.Errorf("unfolded hinge rest %+v, want %+v (rest angle 0)", got, want)
	}
}

// seamVerts returns, for a gathered mesh, the seam nodes' verts.
func seamVerts(m *remesh.Mesh) map[int32][]int32 {
	byNode := map[int32][]int32{}
	for v, n := range m.Node {
		byNode[n] = append(byNode[n], int32(v))
	}
	for n, vs := range byNode {
		if len(vs) < 2 {
			delete(byNode, n)
		}
	}
	return byNode
}

// TestTubeBuildNoSeamCrease builds the skirt, a sheet sewn into a tube, and
// checks its seam right after build. The seam nodes each have two verts, at
// u0 = 0 and u0 = size[0]; the hinges across the seam have rest angle 0 and
// the weight of the other columns' hinges. A flat rest state on a prism is
// bent at every column edge by 2 pi/nc, so the tube's bending energy is that
// of nc identical columns: the energy in excess of it, which a crease at the
// seam would add, is zero. The membrane energy is zero too (the prism is
// unstretched).
func TestTubeBuildNoSeamCrease(t *testing.T) {
	sc := load(t, "skirt")
	sim := build(t, sc, 1)
	b := sc.Bodies[0]
	nx, ny := b.Grid()
	nc := nx - 1
	m := sim.Remesh.bodies.gather(&sim.Remesh.bodies.bodies[0])
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	seam := seamVerts(m)
	if len(seam) != ny || len(m.X) != nc*ny || len(m.U) != nx*ny {
		t.Fatalf("%d seam nodes, %d nodes, %d verts; want %d, %d, %d", len(seam), len(m.X), len(m.U), ny, nc*ny, nx*ny)
	}
	for n, vs := range seam {
		if len(vs) != 2 || m.U[vs[0]][0] != 0 || m.U[vs[1]][0] != b.Size[0] || m.U[vs[0]][1] != m.U[vs[1]][1] {
			t.Fatalf("seam node %d has verts at %v", n, [][2]float64{m.U[vs[0]], m.U[vs[len(vs)-1]]})
		}
	}

	st := sim.State
	dx, dy := b.Size[0]/float64(nx-1), b.Size[1]/float64(ny-1)
	kb := b.Material.BendingStiffness
	seamEnt := map[ecs.Entity]bool{}
	for n := range seam {
		seamEnt[sim.Bodies[0].Verts[n]] = true
	}
	isSeam := map[int32]bool{}
	for i, e := range st.Verts {
		isSeam[int32(i)] = seamEnt[e]
	}
	seamHinges, bend := 0, 0.0
	for k, r := range st.HingeRest {
		h := st.Hinges[4*k : 4*k+4]
		if r.Theta0 != 0 {
			t.Fatalf("hinge %d has rest angle %v, want 0 (flat)", k, r.Theta0)
		}
		if isSeam[h[0]] && isSeam[h[1]] {
			seamHinges++
			if w := 3 * dy / dx; math.Abs(r.Weight-w) > 1e-9*w {
				t.Errorf("seam hinge %d: weight %v, want %v as on the other columns", k, r.Weight, w)
			}
		}
		bend += elastic.HingeEnergy(&st.HingeRest[k], st.HingeKb[k], vec(st.X, h[0]), vec(st.X, h[1]), vec(st.X, h[2]), vec(st.X, h[3]))
	}
	if seamHinges != ny-1 {
		t.Fatalf("%d hinges across the seam, want %d", seamHinges, ny-1)
	}
	th := 2 * math.Pi / float64(nc)
	want := float64(nc*(ny-1)) * kb * (3 * dy / dx) * th * th
	if excess := bend - want; math.Abs(excess) > 1e-9*want {
		t.Errorf("bending energy after build %.12g J, a uniform prism has %.12g J: the seam adds %.3g J", bend, want, excess)
	}
	membrane := 0.0
	for e := range st.FaceRest {
		f := st.Faces[3*e : 3*e+3]
		membrane += elastic.MembraneEnergy(&st.FaceRest[e], st.FaceLame[e], vec(st.X, f[0]), vec(st.X, f[1]), vec(st.X, f[2]))
	}
	if membrane > 1e-20 {
		t.Errorf("membrane energy after build %g J, want 0", membrane)
	}
}

// TestTubeSeamRemesh runs the skirt, remeshing every 4 steps: after each
// pass the mesh gathered from the entities is valid, every seam node has
// exactly two verts, one on each seam line (u0 = 0 and u0 = size[0]) at the
// same u1, every vert on either line is on a seam node (the seam stays
// matched), the material-space area is the sheet's, all hinges are flat at
// rest, and the state stays finite.
func TestTubeSeamRemesh(t *testing.T) {
	sc := load(t, "skirt", [2]string{"bodies.0.remesh.size_min", "0.03"}, [2]string{"bodies.0.remesh.size_max", "0.06"}, [2]string{"bodies.0.remesh.every", "4"})
	sim := build(t, sc, 2)
	b := sc.Bodies[0]
	n := 64
	passes, splitSeam := 0, false
	_, ny := b.Grid()
	steps(t, sim, n, func(i int) {
		for _, x := range append(append([]float64(nil), sim.State.X...), sim.State.V...) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("step %d: non-finite state", i)
			}
		}
		if i%4 != 0 {
			return
		}
		passes++
		m := sim.Remesh.bodies.gather(&sim.Remesh.bodies.bodies[0])
		if err := m.Validate(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		seam := seamVerts(m)
		if len(seam) > ny {
			splitSeam = true
		}
		for nd, vs := range seam {
			if len(vs) != 2 {
				t.Fatalf("step %d: seam node %d has %d verts", i, nd, len(vs))
			}
			u, w := m.U[vs[0]], m.U[vs[1]]
			if u[0] > w[0] {
				u, w = w, u
			}
			if u[0] != 0 || w[0] != b.Size[0] || u[1] != w[1] {
				t.Fatalf("step %d: seam node %d has verts at %v and %v", i, nd, u, w)
			}
		}
		for v, u := range m.U {
			if (u[0] == 0 || u[0] == b.Size[0]) && seam[m.Node[v]] == nil {
				t.Fatalf("step %d: vert %d at %v on a seam line is not on a seam node", i, v, u)
			}
		}
		area := 0.0
		for _, f := range m.F {
			area += cross2v(m.U[f[0]], m.U[f[1]], m.U[f[2]]) / 2
		}
		if want := b.Size[0] * b.Size[1]; math.Abs(area-want) > 1e-12 {
			t.Fatalf("step %d: material-space area %v, want %v", i, area, want)
		}
		for k, r := range sim.State.HingeRest {
			if r.Theta0 != 0 {
				t.Fatalf("step %d: hinge %d has rest angle %v", i, k, r.Theta0)
			}
		}
	})
	if !splitSeam {
		t.Error("remeshing never split the seam; the test did not exercise it")
	}
	t.Logf("%d passes; %d nodes, %d faces at the end", passes, len(sim.Bodies[0].Verts), len(sim.Bodies[0].Faces))
}

// TestSkirtDeterministic runs the start of the skirt (seam, remeshing,
// moving pins and obstacle) with 1 and 2 workers and compares the state bit
// for bit.
func TestSkirtDeterministic(t *testing.T) {
	var ref []float64
	for _, workers := range []int{1, 2} {
		sim := build(t, load(t, "skirt", [2]string{"bodies.0.remesh.size_min", "0.04"}), workers)
		steps(t, sim, 24, nil)
		got := append(append([]float64(nil), sim.State.X...), sim.State.V...)
		if ref == nil {
			ref = got
			continue
		}
		if len(got) != len(ref) {
			t.Fatalf("workers=%d: %d values, 1 worker: %d", workers, len(got), len(ref))
		}
		for i := range ref {
			if math.Float64bits(ref[i]) != math.Float64bits(got[i]) {
				t.Fatalf("workers=%d: entry %d differs: %v vs %v (1 worker)", workers, i, got[i], ref[i])
			}
		}
	}
}
