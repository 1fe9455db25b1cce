package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
)

// TestCurvedStrandAtRest: a strand whose rest shape is a curve (a spline
// through points) starts in equilibrium without gravity: after 20 steps its
// nodes have not moved. With a straight rest shape (the energy of SB2020 eq.
// 4 as written) the same strand unbends, which shows the rest curve is used.
func TestCurvedStrandAtRest(t *testing.T) {
	curved := func(rest bool) float64 {
		sc := load(t, "rod-hang")
		sc.Gravity = [3]float64{}
		st := &sc.Rods.Strands[0]
		st.From, st.To = [3]float64{}, [3]float64{}
		st.Points = [][3]float64{{0, 0, 1}, {0.1, 0.05, 1}, {0.2, 0, 1.02}, {0.3, -0.05, 1}}
		st.Spline = true
		st.Material.BendingStiffness = 1e-3
		sim := build(t, sc, 1)
		if !rest {
			sim.Rods.Step.Rods[0].Rest = nil
		}
		x0 := append([][3]float64(nil), sim.Rods.Step.Polyline(0)...)
		steps(t, sim, 20, nil)
		moved := 0.0
		for k, p := range sim.Rods.Step.Polyline(0) {
			for c := range 3 {
				moved = max(moved, math.Abs(p[c]-x0[k][c]))
			}
		}
		return moved
	}
	if d := curved(true); d > 1e-9 {
		t.Errorf("a curved strand at rest moved %v m in 20 steps", d)
	}
	if d := curved(false); d < 1e-4 {
		t.Errorf("with a straight rest shape the curved strand moved only %v m: the rest curve is not what holds it", d)
	}

}

// TestFabricStartsAtRest loads knitted patches, and a crimped weave whose
// crossings are off its nodes, without gravity: built with their rest
// lengths and rest curves relaxed to the loaded geometry (relaxRest), they
// are in equilibrium, so 5 steps move no node by more than a nanometre and
// each step's Newton converges at its first iteration. Before the
// relaxation the 8 x 8 stockinette's contact nodes, inserted off the yarns'
// chords, pulled with 15 N of stretch and its first step took 318 Newton
// iterations and a halving; and with the relaxation but contact nodes
// snapped only within the EIL distance, two of them started EIL and their
// springs pulled with 1.5 kN.
func TestFabricStartsAtRest(t *testing.T) {
	t.Parallel()
	knit := func(sets ...[2]string) [][2]string { return append(sets, [2]string{"rods.fabrics.0.relax", "true"}) }
	for _, c := range []struct {
		name, scene string
		sets        [][2]string
	}{
		{"stockinette 8x8", "knit-sphere", knit([2]string{"rods.fabrics.0.columns", "8"}, [2]string{"rods.fabrics.0.rows", "8"})},
		{"slip stitch 8x4", "knit-sphere", knit([2]string{"rods.fabrics.0.columns", "8"}, [2]string{"rods.fabrics.0.rows", "4"}, [2]string{"rods.fabrics.0.pattern", `["kkkk","kksk"]`})},
		{"garter 5x4", "knit-sphere", knit([2]string{"rods.fabrics.0.columns", "5"}, [2]string{"rods.fabrics.0.rows", "4"}, [2]string{"rods.fabrics.0.pattern", `["k","p"]`})},
		{"crimped plain weave", "incline", [][2]string{{"rods.fabrics.0.fixed", "false"}, {"rods.fabrics.0.crimp", "0.5"}, {"rods.fabrics.0.node_spacing", "0.0017"}, {"rods.fabrics.1.position", "[1,1,1]"}}},
	} {
		sim := build(t, load(t, c.scene, append(c.sets, [2]string{"gravity", "[0,0,0]"})...), 1)
		x0 := append([]dense.Vec3(nil), sim.Rods.Step.X...)
		steps(t, sim, 5, func(i int) {
			if r := sim.Rods.LastResult; r.Iterations != 1 || r.Halvings != 0 {
				t.Errorf("%s, step %d: %d Newton iterations, %d halvings; at rest it takes one", c.name, i, r.Iterations, r.Halvings)
			}
		})
		moved := 0.0
		for i, x := range sim.Rods.Step.X {
			moved = max(moved, x.Sub(x0[i]).Norm())
		}
		if moved > 1e-9 {
			t.Errorf("%s: a node moved %.3g m in 5 steps without gravity", c.name, moved)
		}
		t.Logf("%s: %d nodes, largest displacement %.3g m", c.name, len(x0), moved)
	}
}

// TestTableclothWorkersDeterministic runs a small tablecloth (three stacked
// 3 x 3-yarn plain weaves: pattern crossings, inter-layer contacts, the
// table) for 4 steps and for 30 (its landing on the table from step 20,
// with the rod Newton's obstacle contact prediction), the built-in one
// (6 x 6 yarns, 708 nodes) for 10
// steps (the rod Newton's LDL^T large enough to factor subtrees in
// parallel), 10 x 10 yarns for 3 (ordered by nested dissection), and the
// built-in one again for 5 steps with the iterative solver (rods.linear
// "iterative": subdomains factored and solved in parallel, parallel
// products) and with the lagged one ("lagged": parallel factorizations,
// serial conjugate gradients), with 1, 2 and 8 workers: bitwise the same
// nodes.
func TestTableclothWorkersDeterministic(t *testing.T) {
	for _, c := range []struct {
		yarns, steps int
		linear       string
	}{{3, 4, ""}, {3, 30, ""}, {6, 10, ""}, {10, 3, ""}, {6, 5, scenes.RodLinearIterative}, {6, 5, scenes.RodLinearLagged}} {
		tableclothDeterministic(t, c.yarns, c.steps, c.linear)
	}
}

// TestIterativeMatchesDirect runs tablecloth for a few steps with the rod
// Newton's systems solved by sparse LDL^T, by conjugate gradients with
// the yarn Schwarz preconditioner, and by conjugate gradients
// preconditioned by the factor of an earlier Newton matrix (lagged): the
// built-in 6 x 6 yarns a layer (1,896 unknowns, AMD ordering) for 10 steps
// and 10 x 10 (5,280 unknowns, above rodstep's bisection threshold: nested
// dissection) for 3. The same Newton iterations, and nodes within a
// micrometre (all solve each step's Newton to updates below 1e-9 m; the
// iterative directions are exact to a relative residual of 1e-6); the
// lagged solves factor fewer matrices.
func TestIterativeMatchesDirect(t *testing.T) {
	for _, c := range []struct{ yarns, steps int }{{6, 10}, {10, 3}} {
		for _, linear := range []string{scenes.RodLinearIterative, scenes.RodLinearLagged} {
			matchesDirect(t, c.yarns, c.steps, linear)
		}
	}
}

// matchesDirect runs tablecloth with yarns x yarns a layer for n steps with
// the rod systems solved directly and by linear, and compares.
func matchesDirect(t *testing.T, yarns, n int, linear string) {
	var sims [2]*Sim
	var newton, factors [2]int
	for k, solver := range []string{scenes.RodLinearDirect, linear} {
		sc := load(t, "tablecloth")
		for f := range sc.Rods.Fabrics {
			sc.Rods.Fabrics[f].Warps, sc.Rods.Fabrics[f].Wefts = yarns, yarns
		}
		sc.Rods.Linear = solver
		sims[k] = build(t, sc, 2)
		for range n {
			if err := sims[k].Step(); err != nil {
				t.Fatalf("%d yarns, %s: %v", yarns, solver, err)
			}
			st := sims[k].Measure()
			newton[k] += st.NewtonIter
			factors[k] += st.RodFactors
		}
	}
	a, b := &sims[0].Rods.Step, &sims[1].Rods.Step
	dx, du := 0.0, 0.0
	for i := range a.X {
		dx = math.Max(dx, a.X[i].Sub(b.X[i]).Norm())
		du = math.Max(du, math.Abs(a.U[i]-b.U[i]))
	}
	t.Logf("%d x %d yarns: Newton iterations direct %d, %s %d; factorizations %d, %d; largest difference x %.3g m, u %.3g m", yarns, yarns, newton[0], linear, newton[1], factors[0], factors[1], dx, du)
	if newton[0] != newton[1] || dx > 1e-6 || du > 1e-6 {
		t.Errorf("%d x %d yarns: direct and %s differ: %d and %d Newton iterations, %.3g m in x, %.3g m in u", yarns, yarns, linear, newton[0], newton[1], dx, du)
	}
	if linear == scenes.RodLinearLagged && !(factors[1] < factors[0]) {
		t.Errorf("%d x %d yarns: lagged solves factored %d matrices, direct ones %d", yarns, yarns, factors[1], factors[0])
	}
}

// tableclothDeterministic runs tablecloth with yarns x yarns per layer for n
// steps with the rod solver linear on 1, 2 and 8 workers and compares the
// states bitwise.
func tableclothDeterministic(t *testing.T, yarns, n int, linear string) {
	var ref *Sim
	for _, workers := range workerCounts(t) {
		sc := load(t, "tablecloth")
		for k := range sc.Rods.Fabrics {
			sc.Rods.Fabrics[k].Warps, sc.Rods.Fabrics[k].Wefts = yarns, yarns
		}
		sc.Rods.Linear = linear
		sim := build(t, sc, workers)
		steps(t, sim, n, nil)
		if ref == nil {
			ref = sim
			continue
		}
		a, b := &ref.Rods.Step, &sim.Rods.Step
		for i := range a.X {
			if a.X[i] != b.X[i] || a.U[i] != b.U[i] {
				t.Fatalf("%d x %d yarns, linear %q, %d workers: node %d at x=%v u=%v, with 1 worker x=%v u=%v", yarns, yarns, linear, workers, i, b.X[i], b.U[i], a.X[i], a.U[i])
			}
		}
	}
}

// TestCrossingShearHoldsWeave hangs one plain weave (tablecloth's bottom
// layer, 6 x 6 yarns) in a vertical plane by its left edge (the weft ends
// pinned): its own weight turns the wefts about their pinned ends, which
// shears the weave (its crossing angles change). Without a shear term the
// crossings turn freely and the patch sags, its lowest node 20 mm and more
// below where it started after 0.2 s; with shear_stiffness 1e-3 J at its
// crossings (rod.CrossingShear) it keeps its shape, within 2 mm.
func TestCrossingShearHoldsWeave(t *testing.T) {
	drop := map[float64]float64{}
	for _, k := range []float64{0, 1e-3} {
		sc := load(t, "tablecloth")
		sc.Obstacles = nil
		sc.Rods.Fabrics = sc.Rods.Fabrics[:1]
		f := &sc.Rods.Fabrics[0]
		f.Position, f.Orientation = [3]float64{}, [3]float64{90, 0, 0}
		f.ShearStiffness = k
		f.Pins = []scenes.FabricPin{{Edge: "left"}}
		sim := build(t, sc, 2)
		lowest := func() float64 {
			z := math.Inf(1)
			for _, x := range sim.Rods.Step.X {
				z = math.Min(z, x[2])
			}
			return z
		}
		z0 := lowest()
		steps(t, sim, 200, nil)
		drop[k] = z0 - lowest()
	}
	t.Logf("lowest node's drop in 0.2 s: %.2f mm without shear, %.2f mm with shear_stiffness 1e-3 J", 1e3*drop[0], 1e3*drop[1e-3])
	if drop[0] < 0.020 || drop[1e-3] > 0.002 {
		t.Errorf("drop %.4f m without shear (want >= 0.020), %.4f m with (want <= 0.002)", drop[0], drop[1e-3])
	}
}
