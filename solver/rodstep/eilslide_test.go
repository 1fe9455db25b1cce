package rodstep

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
)

// TestEILSlidesAlongRod puts an EIL node on a pinned L-shaped rod (one leg
// along x to the corner (0.5, 0, 0) at u = 0.5, the other along y) and
// pulls it with an obstacle edge spring towards a vertical line. The node's
// u is massless, so one step takes it to the potential's least point along
// the rod's polyline:
//
//   - the line through (0.6, 0.3, 0): (0.5, 0.3, 0) at u = 0.8, on the
//     second leg (the node slides across four intervals);
//   - the line through (0.6, -0.1, 0): the corner, a kink of the polyline
//     where the potential falls towards it from both legs (the node is held
//     there; its gradient entry is the corner's reaction, not counted as
//     unbalanced).
//
// Interpolated only between the neighbours it started between (u 0.2 and
// 0.3), as before the line search clamped it, its position ran along the
// first leg's line past the corner to (0.6, 0, 0), off the rod, in both.
func TestEILSlidesAlongRod(t *testing.T) {
	for _, c := range []struct {
		line, want dense.Vec3
		u          float64
	}{
		{dense.Vec3{0.6, 0.3, 0}, dense.Vec3{0.5, 0.3, 0}, 0.8},
		{dense.Vec3{0.6, -0.1, 0}, dense.Vec3{0.5, 0, 0}, 0.5},
	} {
		s := &State{EIL: true}
		s.Rods = []Rod{{Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 1}}
		for k := 0; k <= 10; k++ {
			x := dense.Vec3{0.1 * float64(k), 0, 0}
			if k > 5 {
				x = dense.Vec3{0.5, 0.1 * float64(k-5), 0}
			}
			i := addNode(s, 0, x, 0.1*float64(k), true)
			s.Pinned[i], s.Target[i] = true, x
		}
		e := addNode(s, 0, dense.Vec3{0.205, 0, 0}, 0.205, false)
		s.Edges = []Edge{{Node: e, A: c.line, Dir: dense.Vec3{0, 0, 1}, K: 100}}
		res, err := s.Step(0.01, DefaultSettings(), func(i int, dt float64) dense.Vec3 { return s.Target[i] })
		if err != nil {
			t.Fatalf("line through %v: %v", c.line, err)
		}
		if s.Kind[e] != rod.EIL {
			t.Fatalf("node %d is %v, want EIL (within 0.1 x the rest segment of u = 0.2)", e, s.Kind[e])
		}
		t.Logf("line through %v: %d Newton iterations, %d halvings: u %.9f, x %.9f, residual %.2g N", c.line, res.Iterations, res.Halvings, s.U[e], s.X[e], res.Residual)
		if math.Abs(s.U[e]-c.u) > 1e-6 || s.X[e].Sub(c.want).Norm() > 1e-6 {
			t.Errorf("line through %v: EIL node at u %.6f, x %.6f; want u %g, x %v", c.line, s.U[e], s.X[e], c.u, c.want)
		}
		if res.Halvings != 0 || !(res.Residual < 1e-6) {
			t.Errorf("line through %v: %d halvings, %.3g N unbalanced; want a converged step", c.line, res.Halvings, res.Residual)
		}
	}
}
