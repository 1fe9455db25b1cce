package systems

import (
	"math"
	"testing"
)

// TestTubePanels sews a skirt from three separate flat panels (three seams)
// and remeshes it: after build and after every remeshing pass the mesh is
// valid, it still has exactly three pieces in material space, every seam node
// has one vert on the edge line of each of its two panels at the same height,
// every vert on a panel's side edge is a seam vert, and the material area is
// the sheet's.
func TestTubePanels(t *testing.T) {
	t.Parallel()
	sc := load(t, "skirt", [2]string{"bodies.0.panels", "3"}, [2]string{"bodies.0.remesh.size_min", "0.03"},
		[2]string{"bodies.0.remesh.size_max", "0.06"}, [2]string{"bodies.0.remesh.every", "4"})
	sim := build(t, sc, 2)
	b := sc.Bodies[0]
	nx, _ := b.Grid()
	dx := b.Size[0] / float64(nx-1)
	w := b.Size[0] / 3
	var edges []float64 // the panels' side edges in material space
	for p := range 3 {
		edges = append(edges, float64(p)*(w+dx), float64(p)*(w+dx)+w)
	}
	onEdge := func(u0 float64) bool {
		for _, e := range edges {
			if math.Abs(u0-e) < 1e-12 {
				return true
			}
		}
		return false
	}
	check := func(step int) {
		m := sim.Remesh.bodies.gather(&sim.Remesh.bodies.bodies[0])
		if err := m.Validate(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		// Pieces: union the verts of each face.
		parent := make([]int32, len(m.U))
		for i := range parent {
			parent[i] = int32(i)
		}
		var find func(int32) int32
		find = func(i int32) int32 {
			for parent[i] != i {
				parent[i] = parent[parent[i]]
				i = parent[i]
			}
			return i
		}
		area := 0.0
		for _, f := range m.F {
			parent[find(f[1])] = find(f[0])
			parent[find(f[2])] = find(f[0])
			area += cross2v(m.U[f[0]], m.U[f[1]], m.U[f[2]]) / 2
		}
		pieces := 0
		for i := range parent {
			if find(int32(i)) == int32(i) {
				pieces++
			}
		}
		if pieces != 3 {
			t.Fatalf("step %d: %d pieces in material space, want 3 panels", step, pieces)
		}
		if want := b.Size[0] * b.Size[1]; math.Abs(area-want) > 1e-12 {
			t.Fatalf("step %d: material-space area %v, want %v", step, area, want)
		}
		seam := seamVerts(m)
		for nd, vs := range seam {
			if len(vs) != 2 {
				t.Fatalf("step %d: seam node %d has %d verts", step, nd, len(vs))
			}
			u, v := m.U[vs[0]], m.U[vs[1]]
			if !onEdge(u[0]) || !onEdge(v[0]) || u[1] != v[1] || find(vs[0]) == find(vs[1]) {
				t.Fatalf("step %d: seam node %d joins %v and %v", step, nd, u, v)
			}
		}
		for v, u := range m.U {
			if onEdge(u[0]) && seam[m.Node[v]] == nil {
				t.Fatalf("step %d: vert %d at %v on a panel's side is not sewn", step, v, u)
			}
		}
	}
	check(-1)
	steps(t, sim, 32, func(i int) {
		if i%4 == 0 {
			check(i)
		}
	})
}
