package remesh

import (
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// square4 is the flat 1 m square cut into 4 triangles around its centre.
func square4() *Mesh {
	m := &Mesh{
		U: []dense.Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5, 0.5}},
		F: [][3]int32{{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}},
	}
	for i, u := range m.U {
		m.Node = append(m.Node, int32(i))
		m.X = append(m.X, dense.Vec3{u[0], u[1], 0})
		m.V = append(m.V, dense.Vec3{})
	}
	return m
}

func TestSquareRefineCoarsen(t *testing.T) {
	m := square4()
	fine, res, err := Remesh(m, isoM(len(m.U), 0.05), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, fine)
	checkBoundary(t, m, fine)
	t.Logf("4 faces -> 50 mm: %d faces, %d nodes; splits %d flips %d collapses %d; size min %.3f median %.3f max %.3f",
		len(fine.F), len(fine.X), res.Splits, res.Flips, res.Collapses, res.MinSize, res.MedianSize, res.MaxSize)
	for _, s := range meshSizes(t, fine, res.M) {
		if s > 1+1e-12 {
			t.Fatalf("edge size %v > 1 after refinement", s)
		}
	}
	back, res2, err := Remesh(fine, isoM(len(fine.U), 1), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, back)
	checkBoundary(t, m, back)
	t.Logf("50 mm -> 1 m target: %d faces, %d nodes; collapses %d flips %d; size max %.3f",
		len(back.F), len(back.X), res2.Collapses, res2.Flips, res2.MaxSize)
}
