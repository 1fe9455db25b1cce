package systems

import (
	"math"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// singlePanelVerts agrees with materialVerts on a body without seams and
// declines a seam (a vertex with two coordinates), a NaN coordinate and a
// vertex in no face.
func TestSinglePanelVerts(t *testing.T) {
	// A 3x3-vertex grid, two faces per cell, listed out of vertex order.
	var faces [][3]int32
	var faceU [][3]dense.Vec2
	pos := func(v int32) dense.Vec2 { return dense.Vec2{float64(v % 3), float64(v / 3)} }
	for _, c := range []int32{4, 0, 3, 1} {
		a, b, d, e := c, c+1, c+4, c+3
		for _, f := range [][3]int32{{a, b, d}, {a, d, e}} {
			faces = append(faces, f)
			faceU = append(faceU, [3]dense.Vec2{pos(f[0]), pos(f[1]), pos(f[2])})
		}
	}
	u, ok := singlePanelVerts(faces, faceU, 9)
	if !ok {
		t.Fatal("declined a body without seams")
	}
	wu, wn, wf := materialVerts(faces, faceU)
	if !slices.Equal(u, wu) || !slices.Equal(identityNodes(9), wn) || !slices.Equal(faces, wf) {
		t.Fatalf("got %v, want materialVerts' %v %v %v", u, wu, wn, wf)
	}

	seam := slices.Clone(faceU)
	seam[3][1] = dense.Vec2{5, 5}
	if _, ok := singlePanelVerts(faces, seam, 9); ok {
		t.Fatal("accepted a vertex with two coordinates")
	}
	nan := slices.Clone(faceU)
	nan[0][0][0] = math.NaN()
	if _, ok := singlePanelVerts(faces, nan, 9); ok {
		t.Fatal("accepted a NaN coordinate")
	}
	if _, ok := singlePanelVerts(faces, faceU, 10); ok {
		t.Fatal("accepted a vertex in no face")
	}
}
