package systems

import (
	"fmt"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// layerCentres returns the centre (mean node position) of each of
// tablecloth's three fabrics (bottom, middle, top).
func layerCentres(sim *Sim) [3]dense.Vec3 {
	st := &sim.Rods.Step
	var c [3]dense.Vec3
	var n [3]float64
	for i, x := range st.X {
		l := sim.Model.Rods.Strands[st.Rod[i]].Fabric - 1
		c[l] = c[l].Add(x)
		n[l]++
	}
	for l := range c {
		c[l] = c[l].Scale(1 / n[l])
	}
	return c
}

// TestTableclothLayers runs the built-in tablecloth (SB2020 Figs. 7 and 1;
// each weave's own crossings hold by friction 0.3 and a cohesion of 2 mN)
// under the independent pass-through checker, without friction between the
// layers and with rods.friction 1 and rods.pair_friction 1 (the persistent
// contacts' anchors and the yarn pairs pressed together during the run).
// The layers lie staggered over the table edge at x = 0.3 m (25%, 47% and
// 69% of their width overhanging). Without friction (Fig. 7) the top and
// middle ones slide off the layers under them and fall, while the bottom
// one, its centre on the table, stays there; with friction the layers stay
// together on the table: the top layer's centre less than 5 mm below the
// bottom one's. The layers lie 0.475 mm apart, each contact between them
// keeping that gap, and yarns sliding over the table edge feel its friction
// (rodstep.Edge). No accepted step leaves more than 1 N unbalanced (the
// rod Newton's false convergence). Short form, the first 200 steps:
// without friction the top centre is 50.2 mm below the bottom one's, with
// it 1.0 mm above. Long form,
// all 500 steps (0.5 s): without friction the top and middle centres fall
// 773 and 708 mm while the bottom one stays (x 292.6 -> 292.2 mm); with
// friction the layers stay together (top centre 0.7 mm above the bottom's),
// the stack rocking on the edge less and less: the bottom layer's on-table
// part lifts up to 8.55 mm in steps 50-199 and 1.00 mm in steps 400-499
// (then still moving: its inner edge at 1.3 cm/s at 0.5 s).
func TestTableclothLayers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		friction float64
		together bool
	}{{0, false}, {1, true}} {
		t.Run(fmt.Sprintf("friction %g", c.friction), func(t *testing.T) {
			t.Parallel()
			const edge = 0.3 // the table's edge, x
			sc := load(t, "tablecloth")
			sc.Rods.Friction, sc.Rods.PairFriction = c.friction, c.friction
			n := 200
			if long() {
				n = sc.NumSteps()
			}
			sim := build(t, sc, 1)
			defer sim.Close()
			check := newPassChecker(sim)
			c0 := layerCentres(sim)
			lift := make([]float64, n) // per step: bottom-layer nodes over the table (x < edge - 5 mm), highest z
			for i := range n {
				if err := sim.Step(); err != nil {
					t.Fatalf("step %d: %v", i, err)
				}
				if msg := check.check(sim); msg != "" {
					t.Fatalf("step %d: %s", i, msg)
				}
				st := &sim.Rods.Step
				for k, x := range st.X {
					if sim.Model.Rods.Strands[st.Rod[k]].Fabric == 1 && x[0] < edge-0.005 {
						lift[i] = max(lift[i], x[2])
					}
				}
			}
			// No accepted step left a false convergence (rods.degenerate_restart;
			// and the rod Newton's obstacle contact prediction, which once
			// accepted steps with 18-52 N unbalanced here).
			res := sim.Measure().RodResidual // the largest over the run
			t.Logf("largest unbalanced force an accepted step left: %.3g N", res)
			if res > 1 {
				t.Errorf("an accepted rod step left %.3g N unbalanced", res)
			}
			cn := layerCentres(sim)
			for l, name := range []string{"bottom", "middle", "top"} {
				t.Logf("%s layer's centre after %d steps: x %.1f -> %.1f mm, z %.1f -> %.1f mm", name, n, 1e3*c0[l][0], 1e3*cn[l][0], 1e3*c0[l][2], 1e3*cn[l][2])
			}
			if b := cn[0]; !(b[0] < edge && b[2] > -0.005) {
				t.Errorf("the bottom layer's centre left the table top: x %.1f mm (edge at %.0f), z %.1f mm", 1e3*b[0], 1e3*edge, 1e3*b[2])
			}
			top, bottom := cn[2][2], cn[0][2]
			if together := top > bottom-0.005; together != c.together {
				t.Errorf("the top layer's centre is %.1f mm below the bottom one's: together %v, want %v", 1e3*(bottom-top), together, c.together)
			}
			if !long() {
				return
			}
			if slid := top < -0.1; slid == c.together {
				t.Errorf("the top layer's centre is at z %.1f mm: slid off %v, want %v", 1e3*top, slid, !c.together)
			}
			if c.together {
				// The stack, its weight about balanced over the edge (47%
				// of it overhanging on average), rocks on the edge: the
				// bottom layer's inner part lifts off the table and lands
				// again, less each time. Its highest lift in the last 100
				// steps against steps 50-199's (it lands from its 2 mm drop
				// by step 20).
				early, late := slices.Max(lift[50:200]), slices.Max(lift[n-100:])
				t.Logf("the bottom layer's on-table part lifts up to %.2f mm in steps 50-199, %.2f mm in steps %d-%d", 1e3*early, 1e3*late, n-100, n-1)
				if !(late < early/4) {
					t.Errorf("the stack does not settle: the bottom layer lifts %.2f mm in the last 100 steps against %.2f mm in steps 50-199", 1e3*late, 1e3*early)
				}
			}
		})
	}
}
