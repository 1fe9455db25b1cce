package conformal

import (
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// Cloth over a box corner: edge feature 0 runs up x = 0.3175 from the
// bottom border to the corner (point feature 2) at (0.3175, 0.5525), and
// edge feature 1 runs from that corner along y = 0.5525 to the right
// border (material = world coordinates, as over a box's top corner seen
// from above). The chains' hits stop a grid edge short of the corner, so
// that each chain's end node and the corner node are opposite corners of
// two adjacent faces. With Features.Ends naming the corner, connect flips
// the edge between them and both chains end at the corner node by conformal
// edges; without, edge 1's chain stops short of it.
func TestChainsMeetAtCorner(t *testing.T) {
	const cx, cy, reach = 0.3175, 0.5525, 0.005
	m := grid(10)
	var hits []Hit
	for _, h := range lineHits(m, dense.Vec2{cx, 0}, dense.Vec2{0, 1}, 0) {
		if h.T < 0.51 { // not the crossing with the cell's diagonal
			hits = append(hits, h)
		}
	}
	for _, h := range lineHits(m, dense.Vec2{cx, cy}, dense.Vec2{1, 0}, 1) {
		if h.T > 0.05 { // from the next vertical grid line
			hits = append(hits, h)
		}
	}
	corner := dense.Vec2{cx, cy}
	face, bary := -1, [3]float64{}
	for f, tr := range m.F {
		a, b, c := m.U[tr[0]], m.U[tr[1]], m.U[tr[2]]
		A := area2(a, b, c)
		w := [3]float64{area2(corner, b, c) / A, area2(a, corner, c) / A, area2(a, b, corner) / A}
		if w[0] > 0 && w[1] > 0 && w[2] > 0 {
			face, bary = f, w
		}
	}
	hits = append(hits, Hit{Face: int32(face), Bary: bary, X: worldAt(corner), Feature: 2, Point: true})
	ends := map[int32]EdgeEnds{
		0: {Start: -1, End: 2, T0: 0, T1: cy},
		1: {Start: 2, End: -1, T0: 0, T1: 1 - cx},
	}
	for _, withEnds := range []bool{false, true} {
		f := noFeatures(len(m.X))
		f.Point = make([]bool, len(m.X))
		if withEnds {
			f.Ends = ends
		}
		out, res, err := Preprocess(m, f, hits, testParams())
		if err != nil {
			t.Fatal(err)
		}
		checkMesh(t, m, out, res, false)
		if len(res.Gaps) != 0 {
			t.Errorf("ends %v: gaps %v", withEnds, res.Gaps)
		}
		c0, c1 := chainOf(out, res, 0), chainOf(out, res, 1)
		cn := chainOf(out, res, 2)
		if len(cn) != 1 || len(c0) < 2 || len(c1) < 2 {
			t.Fatalf("ends %v: %d nodes on edge 0, %d on edge 1, %d on the corner", withEnds, len(c0), len(c1), len(cn))
		}
		es := meshEdges(out)
		joined0, joined1 := es.has(c0[len(c0)-1], cn[0]), es.has(c1[0], cn[0])
		t.Logf("ends %v: edge 0 ends at U %v, edge 1 starts at U %v, corner at %v; joined %v %v", withEnds, out.U[c0[len(c0)-1]], out.U[c1[0]], out.U[cn[0]], joined0, joined1)
		if !withEnds && joined1 {
			// (Edge 0's end is joined either way: its first cleanup collapse
			// moves it onto the corner face's vertex.)
			t.Fatalf("the configuration does not test joining: edge 1 joined without Ends")
		}
		if withEnds {
			if !joined0 || !joined1 {
				t.Errorf("chains not joined to the corner: edge 0 %v, edge 1 %v", joined0, joined1)
			}
			if !res.Features.Edge(c0[len(c0)-1], cn[0]) || !res.Features.Edge(cn[0], c1[0]) {
				t.Errorf("Features.Edge does not report the corner edges as conformal")
			}
			if res.Features.Edge(c0[len(c0)-1], c1[0]) {
				t.Errorf("Features.Edge reports an edge between two different edge features")
			}
		}
	}
}
