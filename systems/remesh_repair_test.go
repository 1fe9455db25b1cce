package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// TestRemeshRepairsPenetration checks the interpenetration repair (Narain 2012
// sec. 4, "Handling interpenetrations", per vertex): a node created by a split
// and placed inside the contact layer of a sphere is moved back along its
// placement displacement, towards the point interpolated from the old mesh,
// to the first point that is clear; when the interpolated point itself is
// inside (a chord through the sphere), the node goes out along the normal.
func TestRemeshRepairsPenetration(t *testing.T) {
	const thick = 0.005
	r := &BodyRemesher{thickness: thick, obstacles: []components.Obstacle{{Shape: geom.Shape{Kind: components.Sphere, Radius: 0.1}}}}
	old := &remesh.Mesh{X: []dense.Vec3{{-0.1, 0, 0.12}, {0.1, 0, 0.12}, {-0.1, 0, 0.2}, {0.1, 0, 0.2}}}
	res := remesh.Result{
		NodeOld:  []int32{0, 1, 2, 3, -1, -1},
		SrcStart: []int32{0, 1, 2, 3, 4, 6, 8},
		Src: []remesh.Source{{Node: 0, W: 1}, {Node: 1, W: 1}, {Node: 2, W: 1}, {Node: 3, W: 1},
			{Node: 0, W: 0.5}, {Node: 1, W: 0.5}, {Node: 2, W: 0.5}, {Node: 3, W: 0.5}},
	}
	nm := &remesh.Mesh{X: append(append([]dense.Vec3(nil), old.X...),
		dense.Vec3{0, 0, 0.09},  // split of the lower edge, placed inside the sphere; its midpoint (0,0,0.12) is clear
		dense.Vec3{0, 0, 0.19})} // split of the upper edge, clear: must not move
	r.repairPenetrations(nm, old, res)
	o := &r.obstacles[0]
	if d, _ := geom.SignedDistance(&o.Shape, o.Offset, nm.X[4]); d < thick-1e-9 || d > thick+1e-6 {
		t.Errorf("repaired node at distance %v from the sphere, want the contact layer %v", d, thick)
	}
	if nm.X[4][0] != 0 || nm.X[4][1] != 0 || !(nm.X[4][2] > 0.09 && nm.X[4][2] < 0.12) {
		t.Errorf("repaired node %v left the segment from its placement to its interpolated point", nm.X[4])
	}
	if nm.X[5] != (dense.Vec3{0, 0, 0.19}) {
		t.Errorf("a clear node moved: %v", nm.X[5])
	}

	// A chord through the sphere: the interpolated point is inside too.
	old.X[0], old.X[1] = dense.Vec3{-0.2, 0, 0.05}, dense.Vec3{0.2, 0, 0.05}
	nm.X[4] = dense.Vec3{0, 0, 0.04}
	r.repairPenetrations(nm, old, res)
	if d, _ := geom.SignedDistance(&o.Shape, o.Offset, nm.X[4]); math.Abs(d-thick) > 1e-9 {
		t.Errorf("node on a chord: distance %v after repair, want %v", d, thick)
	}
}

// TestSeparateRound checks the face repair after conformal preprocessing
// (BodyRemesher.separateRound): a face from one side of a 3 mm wire to the
// other whose edge passes 0.6 mm deep through it, its corners all outside,
// one of them fixed (an EOL vertex on the wire), is moved out by its two
// free corners to about the clearance, the fixed corner stays, a face beside the
// wire does not move, and a face whose corners are all fixed is left as it
// is.
func TestSeparateRound(t *testing.T) {
	const thick = 0.002
	wire := components.Obstacle{Shape: geom.Shape{Kind: components.Capsule, A: dense.Vec3{0, -1, 0}, B: dense.Vec3{0, 1, 0}, Radius: 0.003}}
	r := &BodyRemesher{thickness: thick, obstacles: []components.Obstacle{wire}}
	m := &remesh.Mesh{
		X: []dense.Vec3{
			{-0.007, 0, 0.0064}, // above the wire on one side: the edge 0-1 passes 2.4 mm from the axis
			{0.0077, 0.003, -0.0027},
			{0.003, -0.02, 0.005},                                      // held on the wire
			{0.05, 0.05, 0.05}, {0.06, 0.05, 0.05}, {0.05, 0.06, 0.05}, // far away
		},
		Node: []int32{0, 1, 2, 3, 4, 5},
		F:    [][3]int32{{0, 1, 2}, {3, 4, 5}},
	}
	o := &r.obstacles[0]
	depth := geom.ShapeTriangleDepth(&o.Shape, o.Offset, m.X[0], m.X[1], m.X[2])
	if depth < 5e-4 {
		t.Fatalf("set-up: the face is only %g deep", depth)
	}
	fixed := func(i int32) bool { return i == 2 }
	x := append([]dense.Vec3(nil), m.X...)
	if n := r.separateRound(m, fixed); n != 1 {
		t.Errorf("%d faces moved, want 1", n)
	}
	gap, _, _, ok := geom.RoundTriangleContact(&o.Shape, o.Offset, m.X[0], m.X[1], m.X[2])
	// The fixed corner turns the face as it moves, so its nearest point
	// ends near, not at, the clearance.
	if !ok || !(gap > 0.9*separateClearance*thick && gap < 1.1*separateClearance*thick) {
		t.Errorf("after the repair the face is %g from the wire, want about %g", gap, separateClearance*thick)
	}
	if d := geom.ShapeTriangleDepth(&o.Shape, o.Offset, m.X[0], m.X[1], m.X[2]); d != 0 {
		t.Errorf("after the repair the face is %g deep", d)
	}
	if m.X[2] != x[2] || m.X[3] != x[3] || m.X[4] != x[4] || m.X[5] != x[5] {
		t.Errorf("a fixed or clear node moved")
	}
	if m.X[0] == x[0] || m.X[1] == x[1] {
		t.Errorf("a free corner of the deep face did not move")
	}
	t.Logf("a face %.3g mm deep: corners moved by %.3g and %.3g mm", 1e3*depth, 1e3*m.X[0].Sub(x[0]).Norm(), 1e3*m.X[1].Sub(x[1]).Norm())

	copy(m.X, x)
	if n := r.separateRound(m, func(int32) bool { return true }); n != 0 || m.X[0] != x[0] {
		t.Errorf("all corners fixed: %d faces moved", n)
	}
}
