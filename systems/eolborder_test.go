package systems

import (
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
)

// TestAtBorder places an EOL vertex at material points of a 10 cm x 5 cm
// strip of four faces (corners at its ends, min_edge 1 cm) and checks when
// it lifts off for running out of cloth: an interior vertex within 5 mm of
// the border, a border vertex within 5 mm of a cloth corner, not before.
func TestAtBorder(t *testing.T) {
	w := ecs.NewWorld(1)
	defer w.Pool.Close()
	// Bottom row 0 (corner) - 1 - 2 (corner), top row 3 (corner) - 4 - 5
	// (corner); vertex 6 is interior, in the middle of the left square.
	u := []dense.Vec2{{0, 0}, {0.05, 0}, {0.1, 0}, {0, 0.05}, {0.05, 0.05}, {0.1, 0.05}, {0.025, 0.025}}
	tris := [][3]int32{{0, 1, 6}, {1, 4, 6}, {4, 3, 6}, {3, 0, 6}, {1, 2, 5}, {1, 5, 4}}
	mat := generic.NewMap1[components.Material](w.ECS)
	faceMap := generic.NewMap1[components.Face](w.ECS)
	st := &ClothState{ClothStep: ClothStep{X: make([]float64, 3*len(u))}}
	for i := range u {
		m := components.Material(u[i])
		st.Verts = append(st.Verts, mat.NewWith(&m))
	}
	for _, tri := range tris {
		f := components.Face{}
		for a, v := range tri {
			f.V[a], f.U[a] = st.Verts[v], u[v]
			st.Faces = append(st.Faces, v)
		}
		st.FaceEnts = append(st.FaceEnts, faceMap.NewWith(&f))
	}
	c := NewEOLCloth(w, st, nil, model.Solver{Thickness: 0.002, EOL: &model.EOLSettings{MinEdge: 0.01, QPDomains: 2}}, dense.Vec3{}, nil)
	c.refreshTopology(w)
	for v, want := range map[int]bool{0: true, 2: true, 3: true, 5: true, 1: false, 4: false, 6: false} {
		if c.corner[v] != want {
			t.Fatalf("vertex %d: corner %v, want %v", v, c.corner[v], want)
		}
	}
	for _, tc := range []struct {
		v    int32
		at   dense.Vec2
		want bool
	}{
		{1, dense.Vec2{0.05, 0}, false},      // a border vertex mid-border
		{1, dense.Vec2{0.006, 0}, false},     // 6 mm from corner 0
		{1, dense.Vec2{0.004, 0}, true},      // 4 mm from corner 0
		{1, dense.Vec2{0.0962, 0}, true},     // 3.8 mm from corner 2
		{6, dense.Vec2{0.025, 0.025}, false}, // interior, 2.5 cm from the border
		{6, dense.Vec2{0.025, 0.006}, false}, // 6 mm from the bottom border
		{6, dense.Vec2{0.025, 0.004}, true},  // 4 mm from it
	} {
		*mat.Get(st.Verts[tc.v]) = components.Material(tc.at)
		c.verts = append(c.verts[:0], eolVertex{ent: st.Verts[tc.v], v: tc.v})
		c.gatherMaterial()
		ev := &c.verts[0]
		if got := c.atBorder(ev); got != tc.want {
			t.Errorf("vertex %d at %v: atBorder %v, want %v", tc.v, tc.at, got, tc.want)
		}
		*mat.Get(st.Verts[tc.v]) = components.Material(u[tc.v])
	}
}
