package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/rodstep"
)

// anchorFactor sets the Eulerian friction spring: Kf = anchorFactor k_s /
// du_rest. Stiff enough that sticking contacts creep by micrometres.
const anchorFactor = 100

// snapReach is how close (in rest segments, along the strand) a contact
// node must come to an interior Lagrangian node to take its place: the EIL
// safety distance (rodstep.Rod.SafetyDistance), so that no new node starts
// degenerate. On a strand that relaxRest relaxes it is twice that: the
// strand's arc lengths, measured on the built polyline, can bring a contact
// node nearer its neighbour than its u did (0.127 -> 0.098 segments on a
// knit of 8 x 8 stitches, whose first Assign then made it EIL and its
// contact's spring pulled with 1.5 kN). A fixed strand is not relaxed and
// its node does not move onto the contact point: the farther reach on
// rod-incline's fixed grid, woven with crimp 0.5 and its crossings off its
// nodes, bound the free patch's contact nodes to grid nodes up to 0.2 of a
// segment away and put 25 N on the patch at load.
const (
	snapReach        = 0.1
	snapReachRelaxed = 0.2
)

// buildRods creates strands, their Lagrangian nodes, the sliding contacts
// found where strands of different rods pass within contact_distance of each
// other at load time (SB2020 sec. 5: intra- and inter-fabric contacts from the
// initial arrangement), and edge nodes.
func buildRods(w *ecs.World, m *model.Model, st *RodState, addScript func(model.Motion) int32) error {
	rs := m.Rods
	strandMap := generic.NewMap1[components.Strand](w.ECS)
	nodeMap := generic.NewMap3[components.Position, components.Velocity, components.RodNode](w.ECS)
	pinMap := generic.NewMap1[components.Pinned](w.ECS)
	isPinned := generic.NewMap[components.Pinned](w.ECS)
	contactMap := generic.NewMap1[components.RodContact](w.ECS)
	edgeMap := generic.NewMap1[components.RodEdge](w.ECS)

	type strandGeom struct {
		entity ecs.Entity
		pos    [][3]float64
		du     float64
		fixed  bool
		ks     float64
		nodes  []ecs.Entity // Lagrangian nodes, in order
		snap   float64      // freeNode's reach, in du
	}
	geo := make([]strandGeom, len(rs.Strands))
	st.Step = rodstep.State{Gravity: m.Gravity, EIL: rs.EIL, ObstacleMu: m.Solver.Friction, PairMu: rs.PairFriction}
	newNode := func(se ecs.Entity, x dense.Vec3, u float64, fixedU bool) ecs.Entity {
		p, v := components.Position(x), components.Velocity{}
		kind := uint8(rod.EoL)
		if fixedU {
			kind = uint8(rod.Lagrangian)
		}
		return nodeMap.NewWith(&p, &v, &components.RodNode{Strand: se, U: u, FixedU: fixedU, Kind: kind})
	}
	for si := range rs.Strands {
		s := &rs.Strands[si]
		mat := s.Material
		se := strandMap.NewWith(&components.Strand{Name: s.Name})
		pos := s.Pos
		du := s.Length / float64(len(pos)-1)
		geo[si] = strandGeom{entity: se, pos: pos, du: du, fixed: s.Fixed, ks: mat.StretchStiffness, snap: snapReach}
		if relaxes(s) {
			geo[si].snap = snapReachRelaxed
		}
		R := rodstep.Rod{Ks: mat.StretchStiffness, Kb: mat.BendingStiffness, Rho: mat.LinearDensity,
			Alpha: mat.Damping, RestSeg: du, Length: s.Length, Fixed: s.Fixed, Radius: yarnRadius(rs)}
		// A rest-curved strand laid straight (a weave without crimp) takes
		// the straight bend: the same energy, without the projection of
		// the curved bend's Hessian (29% of tablecloth's step).
		if s.RestCurved {
			if th := rod.RestTurningAngles(pos); !rod.Straight(th) {
				R.Rest = rod.NewRestCurve(du, th)
			}
		}
		st.Step.Rods = append(st.Step.Rods, R)
		st.Step.ObstacleK = math.Max(st.Step.ObstacleK, rod.ContactStiffness(mat.StretchStiffness, du))
		pinned := map[int]int32{}
		pivots := map[int]dense.Vec3{}
		for _, p := range s.Pins {
			pinned[p.Node] = addScript(p.Motion)
			pivots[p.Node] = p.Pivot
		}
		for k, x := range pos {
			e := newNode(se, dense.Vec3(x), float64(k)*du, true)
			geo[si].nodes = append(geo[si].nodes, e)
			if script, ok := pinned[k]; ok || s.Fixed {
				if !ok {
					script = -1
				}
				pinMap.Assign(e, &components.Pinned{Anchor: dense.Vec3(x), Script: script, Pivot: pivots[k]})
			}
		}
	}

	lerp := func(g strandGeom, i int, s float64) dense.Vec3 {
		a, b := dense.Vec3(g.pos[i]), dense.Vec3(g.pos[i+1])
		return a.Add(b.Sub(a).Scale(s))
	}
	// A contact node is a new free node, or the interior Lagrangian node it
	// would sit on (within g.snap segments), which is then freed: a new node
	// on top of a Lagrangian one would start as a degenerate segment.
	freeNode := func(g strandGeom, x dense.Vec3, u float64, anchored bool) ecs.Entity {
		var e ecs.Entity
		if k := int(math.Round(u / g.du)); k > 0 && k < len(g.nodes)-1 && math.Abs(u-float64(k)*g.du) < g.snap*g.du &&
			(g.fixed || !isPinned.Has(g.nodes[k])) {
			e = g.nodes[k]
			p, _, rn := nodeMap.Get(e)
			u = rn.U
			if !g.fixed {
				*p = components.Position(x)
				rn.FixedU, rn.Kind = false, uint8(rod.EoL)
			}
		} else {
			e = newNode(g.entity, x, u, g.fixed)
		}
		_, _, rn := nodeMap.Get(e)
		if g.fixed {
			if !isPinned.Has(e) {
				pinMap.Assign(e, &components.Pinned{Anchor: x, Script: -1})
			}
		} else if anchored {
			rn.AnchorU, rn.AnchorKf = u, anchorFactor*g.ks/g.du
		}
		return e
	}
	// addContact joins strand a at (segment i, fraction s, arc length ua) to
	// strand b at (j, t, ub); normal, when given, is the contact's normal
	// (a pattern's over/under, the centrelines joined), else it is found
	// from the segments and the contact keeps their separation along it
	// (Gap).
	addContact := func(a, b, i, j int, s, t, ua, ub float64, normal *dense.Vec3, mu, cohesion, shear float64, persistent, stitched bool) {
		xa, xb := lerp(geo[a], i, s), lerp(geo[b], j, t)
		var n dense.Vec3
		gap := 0.0
		if normal != nil {
			n = *normal
		} else {
			ta := dense.Vec3(geo[a].pos[i+1]).Sub(dense.Vec3(geo[a].pos[i]))
			tb := dense.Vec3(geo[b].pos[j+1]).Sub(dense.Vec3(geo[b].pos[j]))
			n = ta.Cross(tb)
			if l := n.Norm(); l > 1e-12*ta.Norm()*tb.Norm() {
				n = n.Scale(1 / l)
			} else {
				n = dense.Vec3{0, 0, 1}
			}
			sep := xa.Sub(xb).Dot(n)
			if sep < 0 || (sep == 0 && n[2] < 0) {
				n = n.Scale(-1)
			}
			gap = math.Abs(sep)
		}
		// The nodes sit gap apart along n about the closest points' middle
		// (on a fixed strand's point).
		x := xa.Add(xb).Scale(0.5).Add(n.Scale(-gap / 2))
		switch {
		case geo[b].fixed:
			x = xb
		case geo[a].fixed:
			x = xa.Sub(n.Scale(gap))
		}
		P, Q := freeNode(geo[a], x.Add(n.Scale(gap)), ua, true), freeNode(geo[b], x, ub, true)
		k := rod.ContactStiffness(math.Max(geo[a].ks, geo[b].ks), math.Min(geo[a].du, geo[b].du))
		// Until the first step measures it, the normal force is unbounded:
		// contacts start sticking instead of sliding freely for one step.
		contactMap.NewWith(&components.RodContact{P: P, Q: Q, Normal: n, Gap: gap, K: k, NormalForce: math.Inf(1), Mu: mu, Cohesion: cohesion, Shear: shear, Persistent: persistent || stitched, Stitched: stitched})
	}

	// Sliding contacts where segments of different strands pass close. Box
	// tests (strand, then segment bounds grown by the contact distance) skip
	// the far pairs, so a set of many parallel strands does not cost
	// strands^2 x nodes^2 closest-point tests.
	segBox := make([][]geom.AABB, len(geo))
	strandBox := make([]geom.AABB, len(geo))
	for a := range geo {
		strandBox[a] = geom.EmptyAABB()
		for i := 0; i+1 < len(geo[a].pos); i++ {
			bx := geom.EmptyAABB().Grow(geo[a].pos[i]).Grow(geo[a].pos[i+1]).Pad(rs.ContactDistance)
			segBox[a] = append(segBox[a], bx)
			strandBox[a] = strandBox[a].Union(bx)
		}
	}
	for a := range geo {
		for b := a + 1; b < len(geo); b++ {
			if fa := rs.Strands[a].Fabric; fa != 0 && fa == rs.Strands[b].Fabric {
				continue // one fabric's own contacts are its pattern's crossings
			}
			if !strandBox[a].Overlaps(&strandBox[b]) {
				continue
			}
			var found [][2]float64
			for i := 0; i+1 < len(geo[a].pos); i++ {
				if !segBox[a][i].Overlaps(&strandBox[b]) {
					continue
				}
				for j := 0; j+1 < len(geo[b].pos); j++ {
					if !segBox[a][i].Overlaps(&segBox[b][j]) {
						continue
					}
					s, t, d := geom.SegmentClosest(dense.Vec3(geo[a].pos[i]), dense.Vec3(geo[a].pos[i+1]), dense.Vec3(geo[b].pos[j]), dense.Vec3(geo[b].pos[j+1]))
					if d >= rs.ContactDistance {
						continue
					}
					ua, ub := (float64(i)+s)*geo[a].du, (float64(j)+t)*geo[b].du
					dup := false
					for _, f := range found {
						if math.Abs(f[0]-ua) < 0.5*geo[a].du && math.Abs(f[1]-ub) < 0.5*geo[b].du {
							dup = true
						}
					}
					if dup || ua <= 0 || ub <= 0 || ua >= rs.Strands[a].Length || ub >= rs.Strands[b].Length {
						continue
					}
					found = append(found, [2]float64{ua, ub})
					addContact(a, b, i, j, s, t, ua, ub, nil, rs.Friction, 0, 0, false, stitchedAt(rs.Strands[a].Stitched, ua) || stitchedAt(rs.Strands[b].Stitched, ub))
				}
			}
		}
	}
	for ci := range rs.Crossings {
		c := &rs.Crossings[ci]
		if c.A < 0 || c.A >= len(geo) || c.B < 0 || c.B >= len(geo) || c.A == c.B {
			return fmt.Errorf("rods crossing %d: strands %d and %d are not two of the %d strands", ci, c.A, c.B, len(geo))
		}
		ga, gb := geo[c.A], geo[c.B]
		if !(c.UA > 0 && c.UA < rs.Strands[c.A].Length && c.UB > 0 && c.UB < rs.Strands[c.B].Length) {
			return fmt.Errorf("rods crossing %d: arc lengths %v on %s and %v on %s are not both inside their strands", ci, c.UA, rs.Strands[c.A].Name, c.UB, rs.Strands[c.B].Name)
		}
		i, j := min(int(c.UA/ga.du), len(ga.pos)-2), min(int(c.UB/gb.du), len(gb.pos)-2)
		addContact(c.A, c.B, i, j, c.UA/ga.du-float64(i), c.UB/gb.du-float64(j), c.UA, c.UB, &c.Normal, c.Mu, c.Cohesion, c.Shear, c.Persistent, false)
	}
	for ei, en := range rs.EdgeNodes {
		si := en.Strand
		if si < 0 || si >= len(geo) {
			return fmt.Errorf("rods.edge_nodes[%d].strand: no strand %d", ei, si)
		}
		g := geo[si]
		u := en.U * rs.Strands[si].Length
		i := min(int(u/g.du), len(g.pos)-2)
		x := lerp(g, i, u/g.du-float64(i))
		dir := dense.Vec3(en.B).Sub(dense.Vec3(en.A))
		node := freeNode(g, x, u, m.Solver.Friction > 0) // anchored: friction over the edge
		edgeMap.NewWith(&components.RodEdge{Node: node, A: dense.Vec3(en.A), Dir: dir.Scale(1 / dir.Norm()), K: rod.ContactStiffness(g.ks, g.du)})
	}
	strands := make([]ecs.Entity, len(geo))
	for si := range geo {
		strands[si] = geo[si].entity
	}
	return relaxRest(w, rs, strands, st.Step.Rods)
}

// stitchedAt says whether arc length u lies in one of the intervals
// (model.Strand.Stitched).
func stitchedAt(iv [][2]float64, u float64) bool {
	for _, v := range iv {
		if u >= v[0] && u <= v[1] {
			return true
		}
	}
	return false
}

// yarnRadius is the strands' radius: half the contact distance, the
// distance between the centrelines of two touching yarns.
func yarnRadius(rs *model.Rods) float64 { return rs.ContactDistance / 2 }
