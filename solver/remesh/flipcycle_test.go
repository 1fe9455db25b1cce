package remesh

import (
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// crossGrid is an n x n cell grid over the unit square, flat in world space,
// each cell split into four faces around a vert at its centre: the cells'
// centres and the ends of their shared sides make cocircular quads, whose
// diagonal flipTest may, by rounding, flip both ways.
func crossGrid(n int) *Mesh {
	m := &Mesh{}
	add := func(u dense.Vec2) int32 {
		m.U = append(m.U, u)
		m.Node = append(m.Node, int32(len(m.X)))
		m.X = append(m.X, dense.Vec3{u[0], u[1], 0})
		m.V = append(m.V, dense.Vec3{})
		return int32(len(m.X) - 1)
	}
	h := 1 / float64(n)
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			add(dense.Vec2{float64(i) * h, float64(j) * h})
		}
	}
	id := func(i, j int) int32 { return int32(j*(n+1) + i) }
	for j := range n {
		for i := range n {
			c := add(dense.Vec2{(float64(i) + 0.5) * h, (float64(j) + 0.5) * h})
			a, b, cc, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.F = append(m.F, [3]int32{a, b, c}, [3]int32{b, cc, c}, [3]int32{cc, d, c}, [3]int32{d, a, c})
		}
	}
	return m
}

// Flip passes that cycle (forced here by a negative flipSlack, under which
// the cocircular quads' diagonals flip both ways on rounding noise, in the
// first flip pass over all faces, after splits and after collapses) end as
// they do when every pass's selection is made anew. Under flipTest's own
// margin the same meshes do not cycle.
func TestFlipCycleReplay(t *testing.T) {
	for _, c := range []struct {
		n    int
		size float64 // target edge length, in cells
	}{{12, 1.5}, {12, 0.9}, {16, 2}} {
		m := crossGrid(c.n)
		M := isoM(len(m.U), c.size/float64(c.n))
		var off, on, plain Remesher
		off.flipCycle.off = true
		off.flipSlack, on.flipSlack = -1.001*flipTol, -1.001*flipTol
		a, ra, err := off.Remesh(m, M, DefaultParams())
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second reuses the buffers
			b, rb, err := on.Remesh(m, M, DefaultParams())
			if err != nil {
				t.Fatal(err)
			}
			if !meshEqual(a, b) || !slices.Equal(ra.NodeOld, rb.NodeOld) || !slices.Equal(ra.FaceOld, rb.FaceOld) ||
				!slices.Equal(ra.Src, rb.Src) || ra.Splits != rb.Splits || ra.Flips != rb.Flips || ra.Collapses != rb.Collapses ||
				ra.MinSize != rb.MinSize || ra.MedianSize != rb.MedianSize || ra.MaxSize != rb.MaxSize {
				t.Fatalf("%d cells: the result differs from that without replays", c.n)
			}
		}
		if off.flipCycle.replayed != 0 || on.flipCycle.replayed < 100 {
			t.Fatalf("%d cells: %d passes replayed (%d with replays off), want 100 or more", c.n, on.flipCycle.replayed, off.flipCycle.replayed)
		}
		if _, _, err := plain.Remesh(m, M, DefaultParams()); err != nil {
			t.Fatal(err)
		}
		if plain.flipCycle.replayed != 0 {
			t.Fatalf("%d cells: %d passes replayed under flipTest's margin", c.n, plain.flipCycle.replayed)
		}
		t.Logf("%d cells: %d flips, %d splits; %d passes replayed", c.n, ra.Flips, ra.Splits, on.flipCycle.replayed)
	}
}
