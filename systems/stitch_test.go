package systems

import (
	"math"
	"strings"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
)

// TestTagStitchesHold runs tag (a 5x stiffer label lying 0.19 mm above a
// stretched shirt, stitched to it along its left and right sides; SB2020
// Fig. 6) and checks, after every step: each contact between the layers
// whose two nodes share their position keeps its load-time gap (to 1e-12
// m), and no stitch's anchor has slid; at the end every stitch is still
// there and the label is still square: the largest |cos| between a label
// warp's and weft's end-to-end chords under 0.1. (Before the gaps and
// stitches the contacts joined the layers' centrelines at one point, pulled
// and were let go from step 51, and the label sheared: |cos| 0.55 at step
// 80, 0.81 at 100.) Short form 80 steps, LOOM_LONG_TESTS all 250.
func TestTagStitchesHold(t *testing.T) {
	t.Parallel()
	sc := load(t, "tag")
	n := 80
	if long() {
		n = sc.NumSteps()
	}
	sim := build(t, sc, 1)
	contacts := generic.NewFilter1[components.RodContact]()
	pos := generic.NewMap1[components.Position](sim.World.ECS)
	node := generic.NewMap1[components.RodNode](sim.World.ECS)
	stitches := func() int {
		k := 0
		q := contacts.Query(sim.World.ECS)
		for q.Next() {
			if q.Get().Stitched {
				k++
			}
		}
		return k
	}
	s0 := stitches()
	if s0 == 0 {
		t.Fatal("tag has no stitches")
	}
	gaps := 0
	for i := range n {
		if err := sim.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		q := contacts.Query(sim.World.ECS)
		for q.Next() {
			c := q.Get()
			if c.Gap == 0 {
				continue
			}
			np, nq := node.Get(c.P), node.Get(c.Q)
			if c.Stitched && (np.AnchorSlip != 0 || nq.AnchorSlip != 0) {
				t.Errorf("step %d: a stitch's anchors slide (%d, %d)", i, np.AnchorSlip, nq.AnchorSlip)
			}
			if rod.Kind(np.Kind) == rod.EIL || rod.Kind(nq.Kind) == rod.EIL {
				continue
			}
			gaps++
			d := dense.Vec3(*pos.Get(c.P)).Sub(dense.Vec3(*pos.Get(c.Q))).Norm()
			if math.Abs(d-c.Gap) > 1e-12 {
				t.Errorf("step %d: a contact's nodes %.6g mm apart, its gap %.6g mm", i, 1e3*d, 1e3*c.Gap)
			}
		}
	}
	if gaps == 0 {
		t.Error("no contact with a gap had both nodes sharing their position")
	}
	if s := stitches(); s != s0 {
		t.Errorf("%d of %d stitches left after %d steps", s, s0, n)
	}
	st := &sim.Rods.Step
	strands := generic.NewMap1[components.Strand](sim.World.ECS)
	chord := func(r int) dense.Vec3 {
		nodes := st.Rods[r].Nodes
		return st.X[nodes[len(nodes)-1]].Sub(st.X[nodes[0]])
	}
	worst := 0.0
	for a := range st.Rods {
		for b := range st.Rods {
			na, nb := strands.Get(sim.Rods.Strands[a]).Name, strands.Get(sim.Rods.Strands[b]).Name
			if !strings.HasPrefix(na, "label/warp") || !strings.HasPrefix(nb, "label/weft") {
				continue
			}
			ca, cb := chord(a), chord(b)
			worst = max(worst, math.Abs(ca.Dot(cb))/(ca.Norm()*cb.Norm()))
		}
	}
	t.Logf("%d steps: %d stitches held, %d gap checks, label's largest warp-weft |cos| %.3g", n, s0, gaps, worst)
	if worst > 0.1 {
		t.Errorf("the label sheared: largest |cos| between a warp's and a weft's chords %.3g, want under 0.1", worst)
	}
}
