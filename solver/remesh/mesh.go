// Package remesh implements the adaptive anisotropic remeshing of Narain,
// Samii and O'Brien 2012 (ARCSim), sec. 4: edge size in a per-vertex sizing
// metric (eq. 1), edge splits with quadric placement (eq. 2), anisotropic
// flips (eq. 3), collapses with hysteresis, and the schedule of Algorithm 1
// over maximal independent sets of edges. It works on a flat Mesh and knows
// nothing of the ECS: a system gathers the cloth into a Mesh, remeshes it, and
// turns the Result back into created and removed entities.
package remesh

import "github.com/loomsim/loom/solver/dense"

// Mesh is a triangle mesh with ARCSim's two levels of vertices. Nodes are
// world-space points (position, velocity, extra per-node state). Verts are
// material-space points; each vert lies on one node. A node with several verts
// sits on a seam between panels (sec. 3); on a single-panel sheet there is one
// vert per node. Faces are triples of verts, counter-clockwise in material
// space; the panels are the connected components of faces in material space.
type Mesh struct {
	// Per node.
	X, V []dense.Vec3
	// Extra holds NExtra further values per node (node i owns
	// Extra[i*NExtra : (i+1)*NExtra]); splits interpolate them linearly like
	// the velocity.
	Extra  []float64
	NExtra int
	// Locked nodes (pinned vertices) are never removed by a collapse.
	Locked []bool
	// LockedClearance (material length, >= 0; 0: off) refuses a split whose
	// new node would lie closer than this to a locked node of the edge or of
	// its faces (to any vert of its faces when both ends are locked). Conformal remeshing (Weidner et al. 2018, sec. 6.1) locks
	// its conformal nodes and collapses any node closer to one than its
	// min_edge; with the same clearance here, the remesher does not make the
	// node that the next preprocessing would collapse again, step after step.
	LockedClearance float64

	// Per vert.
	U    []dense.Vec2 // material-space coordinate (m)
	Node []int32      // the node the vert lies on

	// Faces: vert indices, counter-clockwise in material space.
	F [][3]int32

	// Preserved lists node pairs whose edge the remesher keeps: it never
	// flips or splits a preserved edge and never removes a node of one (a
	// collapse of another node onto it is fine). Conformal remeshing
	// (Weidner et al. 2018, sec. 6) preserves the edges along sharp
	// obstacle features this way. Each pair must be a mesh edge; nil or
	// empty: none. The output mesh lists the same edges with its own node
	// indices, in the input's order.
	Preserved [][2]int32
}

// Clone returns a deep copy of m.
func (m *Mesh) Clone() *Mesh {
	c := &Mesh{NExtra: m.NExtra}
	c.X = append([]dense.Vec3(nil), m.X...)
	c.V = append([]dense.Vec3(nil), m.V...)
	c.Extra = append([]float64(nil), m.Extra...)
	if m.Locked != nil {
		c.Locked = append([]bool(nil), m.Locked...)
	}
	c.U = append([]dense.Vec2(nil), m.U...)
	c.Node = append([]int32(nil), m.Node...)
	c.F = append([][3]int32(nil), m.F...)
	if m.Preserved != nil {
		c.Preserved = append([][2]int32(nil), m.Preserved...)
	}
	return c
}
