package conformal

import (
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
)

// trappedMesh is a unit square with a conformal chain 0-1-2 along the
// world line x = 0.5 (feature 0, from the bottom border to the top one),
// kinked in material space: node 1 sits at U (0.5+kink, 0.5). The chain and
// the edge 0-2 that skips node 1 bound a thin triangle holding the free
// node 3 at U (0.5+kink/2, 0.5), joined to all three chain nodes: the state
// the engine's `throw` scene reached when cloth flowed unevenly over a box
// edge. Nodes 4 and 9 are free, left and right of the chain; 5-8 are the
// square's corners.
func trappedMesh(kink float64) (*remesh.Mesh, Features) {
	u := []dense.Vec2{
		{0.5, 0}, {0.5 + kink, 0.5}, {0.5, 1}, {0.5 + kink/2, 0.5},
		{0.2, 0.5}, {0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.8, 0.5},
	}
	m := &remesh.Mesh{NExtra: 2}
	for i, p := range u {
		m.U = append(m.U, p)
		m.Node = append(m.Node, int32(i))
		x := worldAt(p)
		if i <= 2 {
			x = dense.Vec3{0.5, p[1], 0.05} // on the feature line
		}
		m.X = append(m.X, x)
		m.V = append(m.V, velField(p))
		e := extraField(p)
		m.Extra = append(m.Extra, e[0], e[1])
	}
	m.F = [][3]int32{
		{0, 1, 3}, {1, 2, 3}, {2, 0, 3}, // the trapped node's faces
		{0, 2, 4}, {2, 8, 4}, {8, 5, 4}, {5, 0, 4}, // left of the chain
		{0, 6, 9}, {6, 7, 9}, {7, 2, 9}, {2, 1, 9}, {1, 0, 9}, // right
	}
	f := noFeatures(len(u))
	for i, tp := range []float64{0, 0.5, 1} {
		f.Feature[i], f.T[i] = 0, tp
	}
	return m, f
}

// A free node trapped between three nodes of one chain cannot be collapsed
// onto any of them: every such collapse leaves a face of three chain nodes,
// flat in world space. The cleanup removes the node instead and fills the
// hole, taking in the face across the edge that skips the middle chain node
// (dissolve): the node goes, the chain stays, and no face is ill-shaped.
func TestTrappedFreeNodeDissolved(t *testing.T) {
	for _, kink := range []float64{0.01, 0.002} {
		m, f := trappedMesh(kink)
		if err := m.Validate(); err != nil {
			t.Fatal(err)
		}
		out, res, err := Preprocess(m, f, nil, testParams())
		if err != nil {
			t.Fatal(err)
		}
		checkMesh(t, m, out, res, false)
		checkChain(t, out, res, 0, true)
		for i, o := range res.NodeOld {
			if o == 3 {
				t.Fatalf("kink %g: trapped node 3 survived as node %d", kink, i)
			}
		}
		if len(out.X) != len(m.X)-1 {
			t.Fatalf("kink %g: %d nodes out of %d, want one removed", kink, len(out.X), len(m.X))
		}
		if res.IllShaped != 0 {
			t.Errorf("kink %g: %d ill-shaped faces remain", kink, res.IllShaped)
		}
		es := meshEdges(out)
		for i, o := range res.NodeOld {
			for j, p := range res.NodeOld {
				if (o == 0 && p == 2) && es.has(int32(i), int32(j)) {
					t.Errorf("kink %g: the edge skipping chain node 1 remains", kink)
				}
			}
		}
		for _, tr := range out.F {
			a, b, c := out.X[out.Node[tr[0]]], out.X[out.Node[tr[1]]], out.X[out.Node[tr[2]]]
			if b.Sub(a).Cross(c.Sub(a)).Norm() < 1e-9 {
				t.Errorf("kink %g: face %v is flat in world space", kink, tr)
			}
		}
	}
}
