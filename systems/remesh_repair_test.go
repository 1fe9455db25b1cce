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
