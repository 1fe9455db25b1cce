package systems

import (
	"math"
	"testing"
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

// TestTableclothWorkersDeterministic runs a small tablecloth (three stacked
// 3 x 3-yarn plain weaves: pattern crossings, inter-layer contacts, the
// table) for 4 steps, and the built-in one (6 x 6 yarns, 856 nodes) for 10
// steps (the rod Newton's LDL^T large enough to factor subtrees in
// parallel), with 1, 2 and 8 workers: bitwise the same nodes.
func TestTableclothWorkersDeterministic(t *testing.T) {
	for _, c := range []struct{ yarns, steps int }{{3, 4}, {6, 10}} {
		tableclothDeterministic(t, c.yarns, c.steps)
	}
}

func tableclothDeterministic(t *testing.T, yarns, n int) {
	var ref *Sim
	for _, workers := range []int{1, 2, 8} {
		sc := load(t, "tablecloth")
		for k := range sc.Rods.Fabrics {
			sc.Rods.Fabrics[k].Warps, sc.Rods.Fabrics[k].Wefts = yarns, yarns
		}
		sim := build(t, sc, workers)
		steps(t, sim, n, nil)
		if ref == nil {
			ref = sim
			continue
		}
		a, b := &ref.Rods.Step, &sim.Rods.Step
		for i := range a.X {
			if a.X[i] != b.X[i] || a.U[i] != b.U[i] {
				t.Fatalf("%d x %d yarns, %d workers: node %d at x=%v u=%v, with 1 worker x=%v u=%v", yarns, yarns, workers, i, b.X[i], b.U[i], a.X[i], a.U[i])
			}
		}
	}
}
