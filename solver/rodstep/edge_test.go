package rodstep

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
)

// TestEdgeFriction hangs a 0.5 m yarn over a horizontal edge through an EoL
// edge node, 0.3 m down one side and 0.2 m down the other (a rope over a
// peg, wrapped 180 degrees): the legs pull on the node with T1 = 0.3 rho g
// and T2 = 0.2 rho g, pressing it on the edge with N = T1 + T2, so Coulomb
// friction mu N holds the yarn where mu >= (T1 - T2)/(T1 + T2) = 0.2. With
// mu = 0.4 and 0.25 it stays (the edge node's u moves under 1 mm in 0.2 s: the
// first step, before the edge has measured its force, and the anchor
// spring); with mu = 0.15, 0.1 and 0 it slides, the frictionless one faster
// (about 1/2 (T1 - T2 - mu N)/(0.5 rho) t^2: 2 and 4 cm).
func TestEdgeFriction(t *testing.T) {
	slide := func(mu float64) float64 {
		s := &State{Gravity: dense.Vec3{0, 0, -9.81}, ObstacleMu: mu}
		s.Rods = []Rod{{Ks: 50, Kb: 1e-6, Rho: 0.01, RestSeg: 0.05, Length: 0.5}}
		var edge int32
		for k := 0; k <= 10; k++ {
			u := 0.05 * float64(k)
			x := dense.Vec3{-0.01, 0, u - 0.3}
			if k > 6 {
				x = dense.Vec3{0.01, 0, 0.3 - u}
			}
			if k == 6 {
				x = dense.Vec3{}
			}
			i := addNode(s, 0, x, u, k != 6)
			if k == 6 {
				edge = i
			}
		}
		s.Anchor[edge] = rod.Anchor{U: 0.3, Kf: 100 * 50 / 0.05}
		s.Edges = []Edge{{Node: edge, A: dense.Vec3{}, Dir: dense.Vec3{0, 1, 0}, K: 1e4}}
		for k := 0; k < 200; k++ {
			if _, err := s.Step(1e-3, DefaultSettings(), func(i int, dt float64) dense.Vec3 { return s.Target[i] }); err != nil {
				t.Fatalf("mu %g, step %d: %v", mu, k, err)
			}
		}
		return s.U[edge] - 0.3
	}
	stuck, just, over, slow, free := slide(0.4), slide(0.25), slide(0.15), slide(0.1), slide(0)
	t.Logf("edge node's u moved in 0.2 s: mu 0.4 %.3g m, 0.25 %.3g m, 0.15 %.3g m, 0.1 %.3g m, 0 %.3g m", stuck, just, over, slow, free)
	if math.Abs(stuck) > 1e-3 || math.Abs(just) > 1e-3 {
		t.Errorf("mu 0.4 and 0.25 (above the 0.2 that holds): the yarn slid %.3g and %.3g m over the edge", stuck, just)
	}
	if !(over > 5e-3) {
		t.Errorf("mu 0.15 (under the 0.2 that holds): the yarn slid only %.3g m over the edge", over)
	}
	if !(slow > 0.01) || !(free > slow+0.01) {
		t.Errorf("the longer leg must pull the yarn over the edge (the material at the edge moving up in u), faster without friction: mu 0.1 %.3g m, mu 0 %.3g m", slow, free)
	}
}
