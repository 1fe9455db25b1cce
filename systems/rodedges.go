package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rod"
)

// RodEdges places and removes EoL edge nodes on the sharp edges of box
// obstacles (SB2020 sec. 6: "we also added EoL nodes at the edge of the
// table, to enable smooth sliding on sharp features"). After the step, where
// a segment of a yarn wraps a box edge (one end over each of the edge's two
// faces, the segment within two radii of the edge), it adds a node at the
// segment's closest point, held by a RodEdge spring on the line one radius
// out along the edge's bisector; the yarn then slides through the node in u,
// against Coulomb friction (the obstacles' coefficient) on the spring's force.
// An edge node whose u leaves its rod (the yarn slid off the edge), or, for
// one it placed, whose u comes within a rest segment of an end or whose
// spring held the yarn down rather than up for pullSteps steps in a row
// (the yarn lifted off; model.Rods.ReleaseSteps where the scene sets it), is
// removed with its node.
// Only boxes at rest get edge nodes (a RodEdge's line is fixed; one placed
// on a box that later moves stays where it was: a known limit). It runs last
// in the rod pipeline, on the positions the step just wrote; the rod gather
// picks up the new topology at the next step.
type RodEdges struct {
	state    *RodState
	obsQuery *generic.Filter1[components.Obstacle]
	edges    *generic.Filter1[components.RodEdge]
	node     generic.Map1[components.RodNode]
	pos      generic.Map1[components.Position]
	newNode  generic.Map3[components.Position, components.Velocity, components.RodNode]
	newEdge  generic.Map1[components.RodEdge]
	boxes    []boxEdge
	existing []rodEdgeLine
	doomed   []ecs.Entity
}

// rodEdgeLine is a strand's edge-node line.
type rodEdgeLine struct {
	strand ecs.Entity
	A, Dir dense.Vec3
}

// boxEdge is one edge e0-e1 of a box, its faces' outward normals n1, n2.
type boxEdge struct {
	e0, e1, n1, n2 dense.Vec3
}

// NewRodEdges returns the system.
func NewRodEdges(w *ecs.World, state *RodState) *RodEdges {
	return &RodEdges{
		state:    state,
		obsQuery: generic.NewFilter1[components.Obstacle](),
		edges:    generic.NewFilter1[components.RodEdge](),
		node:     generic.NewMap1[components.RodNode](w.ECS),
		pos:      generic.NewMap1[components.Position](w.ECS),
		newNode:  generic.NewMap3[components.Position, components.Velocity, components.RodNode](w.ECS),
		newEdge:  generic.NewMap1[components.RodEdge](w.ECS),
	}
}

// Name implements ecs.System.
func (r *RodEdges) Name() string { return "rod-edges" }

// Step implements ecs.System.
func (r *RodEdges) Step(w *ecs.World) error {
	s := r.state
	st := &s.Step
	rodOf := make(map[ecs.Entity]int, len(s.Strands))
	for i, e := range s.Strands {
		rodOf[e] = i
	}
	// Removal.
	r.doomed, r.existing = r.doomed[:0], r.existing[:0]
	q := r.edges.Query(w.ECS)
	for q.Next() {
		e := q.Get()
		if !w.ECS.Alive(e.Node) {
			r.doomed = append(r.doomed, q.Entity())
			continue
		}
		n := r.node.Get(e.Node)
		R := &st.Rods[rodOf[n.Strand]]
		off := n.U <= 0 || n.U >= R.Length
		if e.Auto {
			d := dense.Vec3(*r.pos.Get(e.Node)).Sub(e.A)
			d = d.Sub(e.Dir.Scale(d.Dot(e.Dir)))
			if d.Dot(e.Out) > 0 {
				e.Lifting++
			} else {
				e.Lifting = 0
			}
			// Within a segment of an end the yarn is leaving the edge: the
			// end then falls off it freely.
			off = off || e.Lifting >= r.state.releaseSteps() || n.U < R.RestSeg || n.U > R.Length-R.RestSeg
		}
		if off {
			r.doomed = append(r.doomed, q.Entity(), e.Node)
			continue
		}
		r.existing = append(r.existing, rodEdgeLine{n.Strand, e.A, e.Dir})
	}
	// Placement, on the static boxes.
	r.boxes = r.boxes[:0]
	oq := r.obsQuery.Query(w.ECS)
	for oq.Next() {
		o := oq.Get()
		if o.Kind == geom.Box && o.Vel == (dense.Vec3{}) && o.Omega == (dense.Vec3{}) {
			r.boxes = appendBoxEdges(r.boxes, o)
		}
	}
	type placement struct {
		rod  int
		x, v dense.Vec3
		u    float64
		edge components.RodEdge
	}
	var add []placement
	for ri := range st.Rods {
		R := &st.Rods[ri]
		if R.Fixed || !(R.Radius > 0) || len(r.boxes) == 0 {
			continue
		}
		for k := 0; k+1 < len(R.Nodes); k++ {
			ia, ib := R.Nodes[k], R.Nodes[k+1]
			if !w.ECS.Alive(s.Nodes[ia]) || !w.ECS.Alive(s.Nodes[ib]) {
				continue
			}
			a, b := st.X[ia], st.X[ib]
			for _, be := range r.boxes {
				if !wraps(a, b, be) {
					continue
				}
				sp, te, d := geom.SegmentClosest(a, b, be.e0, be.e1)
				if d > 2*R.Radius || te <= 0 || te >= 1 || !pressed(a.Add(b.Sub(a).Scale(sp)).Sub(be.e0.Add(be.e1.Sub(be.e0).Scale(te))), be) {
					continue
				}
				dir := be.e1.Sub(be.e0)
				dir = dir.Scale(1 / dir.Norm())
				out := be.n1.Add(be.n2)
				out = out.Scale(1 / out.Norm())
				A := be.e0.Add(out.Scale(R.Radius))
				if r.hasEdge(s.Strands[ri], A, dir, R.Radius) {
					continue
				}
				// A node already on the edge (the closest point within the
				// safety distance of an end in u) gets no second one: the
				// two would make a degenerate segment.
				u := st.U[ia] + sp*(st.U[ib]-st.U[ia])
				if d := R.SafetyDistance(); math.Abs(u-st.U[ia]) < d || math.Abs(u-st.U[ib]) < d {
					continue
				}
				foot := A.Add(dir.Scale(a.Add(b.Sub(a).Scale(sp)).Sub(A).Dot(dir)))
				add = append(add, placement{rod: ri, x: foot, v: st.V[ia].Add(st.V[ib].Sub(st.V[ia]).Scale(sp)),
					u:    u,
					edge: components.RodEdge{A: A, Dir: dir, K: rod.ContactStiffness(R.Ks, R.RestSeg), Auto: true, Out: out}})
				r.existing = append(r.existing, rodEdgeLine{s.Strands[ri], A, dir})
			}
		}
	}
	for _, e := range r.doomed {
		w.ECS.RemoveEntity(e)
	}
	for _, p := range add {
		pos, vel := components.Position(p.x), components.Velocity(p.v)
		rn := components.RodNode{Strand: s.Strands[p.rod], U: p.u, Kind: uint8(rod.EoL)}
		if st.ObstacleMu > 0 { // friction over the edge (rodstep.Edge)
			R := &st.Rods[p.rod]
			rn.AnchorU, rn.AnchorKf = p.u, anchorFactor*R.Ks/R.RestSeg
		}
		n := r.newNode.NewWith(&pos, &vel, &rn)
		p.edge.Node = n
		r.newEdge.NewWith(&p.edge)
	}
	if len(r.doomed) > 0 || len(add) > 0 {
		w.BumpTopology()
	}
	return nil
}

// hasEdge says whether strand already has an edge node on the line A + s dir
// (within a tenth of the radius).
func (r *RodEdges) hasEdge(strand ecs.Entity, A, dir dense.Vec3, radius float64) bool {
	for _, e := range r.existing {
		if e.strand != strand || math.Abs(e.Dir.Dot(dir)) < 1-1e-9 {
			continue
		}
		d := A.Sub(e.A)
		if d.Sub(dir.Scale(d.Dot(dir))).Norm() < 0.1*radius {
			return true
		}
	}
	return false
}

// pressed says whether the offset p from the edge to the yarn's closest
// point lies well inside the edge's outer wedge (both components along the
// face normals above 0.3 |p|): the yarn bears on the edge itself, not on a
// face next to it (a yarn hanging down a side face past the bottom edge).
func pressed(p dense.Vec3, be boxEdge) bool {
	l := p.Norm()
	return p.Dot(be.n1) > 0.3*l && p.Dot(be.n2) > 0.3*l
}

// wraps says whether segment a-b goes round the edge: each end in front of
// a different face's plane (a point in front of both, off the edge's
// corner, counts for either), not both in front of both.
func wraps(a, b dense.Vec3, be boxEdge) bool {
	da, db := a.Sub(be.e0), b.Sub(be.e0)
	a1, a2, b1, b2 := da.Dot(be.n1) > 0, da.Dot(be.n2) > 0, db.Dot(be.n1) > 0, db.Dot(be.n2) > 0
	return (a1 && b2 || a2 && b1) && !(a1 && a2 && b1 && b2)
}

// appendBoxEdges appends the 12 edges of box obstacle o at its current pose.
func appendBoxEdges(dst []boxEdge, o *components.Obstacle) []boxEdge {
	c := o.Shape.Center
	world := func(local dense.Vec3) dense.Vec3 {
		if o.Shape.Rotated {
			rc := o.Shape.RotationCenter()
			return rc.Add(o.Offset).Add(o.Shape.R.MulVec(local.Sub(rc)))
		}
		return local.Add(o.Offset)
	}
	axis := func(k int) dense.Vec3 {
		var e dense.Vec3
		e[k] = 1
		if o.Shape.Rotated {
			return o.Shape.R.MulVec(e)
		}
		return e
	}
	h := o.Shape.HalfExtents
	for k := 0; k < 3; k++ {
		i, j := (k+1)%3, (k+2)%3
		for _, si := range [2]float64{-1, 1} {
			for _, sj := range [2]float64{-1, 1} {
				var p0, p1 dense.Vec3
				p0[i], p0[j], p0[k] = si*h[i], sj*h[j], -h[k]
				p1 = p0
				p1[k] = h[k]
				dst = append(dst, boxEdge{e0: world(c.Add(p0)), e1: world(c.Add(p1)), n1: axis(i).Scale(si), n2: axis(j).Scale(sj)})
			}
		}
	}
	return dst
}
