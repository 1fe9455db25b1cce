package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
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

// TestAlongBorder checks which border EOL vertices are locked on a box edge
// that runs along the cloth border (they lift off): the cloth lies flat in
// the world's x-y plane (F maps material u to world x, v to y), the border
// angle is 20 degrees. On an edge along y, a border whose normal is -u (the
// border runs along v, the edge) is locked, one whose normal is -v (the
// border crosses the edge) is not; a border turned by 15 degrees from the
// edge is locked, by 25 degrees not. At a box corner the edge is the one
// between the two faces whose rows push the vertex; with one pushing row
// it is not wrapped over any edge. Interior vertices, nails and wires never.
func TestAlongBorder(t *testing.T) {
	F := dense.Mat32{{1, 0}, {0, 1}, {0, 0}}
	nx, ny, nz := dense.Vec3{-1, 0, 0}, dense.Vec3{0, 1, 0}, dense.Vec3{0, 0, 1}
	edgeY := geom.Feature{Kind: components.FeatureEdge, Dir: dense.Vec3{0, 1, 0}, Length: 1, N: [3]dense.Vec3{nx, nz}}
	wire := edgeY
	wire.Wire = true
	corner := geom.Feature{Kind: components.FeatureCorner, N: [3]dense.Vec3{nx, ny, nz}}
	nail := geom.Feature{Kind: components.FeaturePoint, N: [3]dense.Vec3{nz}}
	rad := math.Pi / 180
	turned := func(deg float64) dense.Vec2 { return dense.Vec2{-math.Cos(deg * rad), math.Sin(deg * rad)} }
	push := func(y1, y2, y3 float64) []eolRow {
		return []eolRow{{L: nx, Y: y1}, {L: ny, Y: y2}, {L: nz, Y: y3}, {E: dense.Vec2{-1, 0}, Eq: true, Y: 5}}
	}
	for _, tc := range []struct {
		name    string
		feature geom.Feature
		border  dense.Vec2
		rows    []eolRow
		want    bool
	}{
		{"edge along the border", edgeY, dense.Vec2{-1, 0}, nil, true},
		{"edge across the border", edgeY, dense.Vec2{0, -1}, nil, false},
		{"edge 15 degrees from the border", edgeY, turned(15), nil, true},
		{"edge 25 degrees from the border", edgeY, turned(25), nil, false},
		{"interior vertex on the edge", edgeY, dense.Vec2{}, nil, false},
		{"wire along the border", wire, dense.Vec2{-1, 0}, nil, false},
		{"nail", nail, dense.Vec2{-1, 0}, push(1, 1, 1), false},
		// Pushed by the -x and +z faces: wrapped over their edge along y.
		{"corner, wrapped along the border", corner, dense.Vec2{-1, 0}, push(0.3, 0, 0.5), true},
		{"corner, wrapped across the border", corner, dense.Vec2{0, -1}, push(0.3, 0, 0.5), false},
		// Pushed by the +y and +z faces: wrapped over their edge along x.
		{"corner, other edge", corner, dense.Vec2{-1, 0}, push(0, 0.4, 0.5), false},
		{"corner, one face pushes", corner, dense.Vec2{-1, 0}, push(0, 0, 0.5), false},
	} {
		c := &EOLCloth{features: []geom.Feature{tc.feature}, borderNormal: []dense.Vec2{tc.border}, rows: tc.rows}
		c.set.BorderAngle = 20
		ev := &eolVertex{F: F, rowHi: len(tc.rows)}
		if got := c.alongBorder(ev); got != tc.want {
			t.Errorf("%s: alongBorder %v, want %v", tc.name, got, tc.want)
		}
	}
}
