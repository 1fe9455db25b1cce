package systems

import (
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// layerCentres returns the centre (mean node position) of each of
// tablecloth's three fabrics (12 yarns each: bottom, middle, top).
func layerCentres(sim *Sim) [3]dense.Vec3 {
	st := &sim.Rods.Step
	var c [3]dense.Vec3
	var n [3]float64
	for i, x := range st.X {
		l := int(st.Rod[i]) / 12
		c[l] = c[l].Add(x)
		n[l]++
	}
	for l := range c {
		c[l] = c[l].Scale(1 / n[l])
	}
	return c
}

// TestTableclothTopLayerSlidesOff runs the built-in tablecloth (SB2020
// Fig. 7: no friction between the layers; each weave's own crossings hold
// by friction 0.3 and a cohesion of 1 mN) under the independent pass-through
// checker. The layers lie staggered over the table edge at x = 0.3 m (25%,
// 47% and 69% of their width overhanging): the top one, its centre beyond the
// edge, slides off the middle one and falls, while the bottom one, its
// centre on the table, stays there. Short form: the first 200 steps (the
// rod Newton failed at step 111 while a contact between the top and bottom
// layers held the sliding top one by a pull of 0.16 N; rods.release_steps
// now lets such a contact go after 5 steps), the top layer's centre at
// least 1 cm below the bottom one's; long form: all 500 steps (0.5 s), the
// top layer's centre more than 10 cm below the table top.
func TestTableclothTopLayerSlidesOff(t *testing.T) {
	t.Parallel()
	sc := load(t, "tablecloth")
	n, drop := 200, 0.01
	if long() {
		n, drop = sc.NumSteps(), 0.1
	}
	sim := build(t, sc, 1)
	defer sim.Close()
	check := newPassChecker(sim)
	c0 := layerCentres(sim)
	for i := range n {
		if err := sim.Step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if msg := check.check(sim); msg != "" {
			t.Fatalf("step %d: %s", i, msg)
		}
	}
	c := layerCentres(sim)
	for l, name := range []string{"bottom", "middle", "top"} {
		t.Logf("%s layer's centre after %d steps: x %.1f -> %.1f mm, z %.1f -> %.1f mm", name, n, 1e3*c0[l][0], 1e3*c[l][0], 1e3*c0[l][2], 1e3*c[l][2])
	}
	const edge = 0.3
	if b := c[0]; !(b[0] < edge && b[2] > -0.005) {
		t.Errorf("the bottom layer's centre left the table top: x %.1f mm (edge at %.0f), z %.1f mm", 1e3*b[0], 1e3*edge, 1e3*b[2])
	}
	if top := c[2][2]; !(top < c[0][2]-drop) || long() && !(top < -drop) {
		t.Errorf("the top layer's centre is at z %.1f mm, the bottom one's at %.1f mm: it did not slide off (want %.0f mm below)", 1e3*top, 1e3*c[0][2], 1e3*drop)
	}
}
