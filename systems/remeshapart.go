package systems

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// crossWork is the scratch of BodyRemesher.crossings, which counts the
// crossings that a remeshing pass of one body would make with the other
// cloth and itself, for the remeshing stages of cloth with self-contact.
// The remeshers move the surface (Weidner 2018 sec. 6.1: a hit's node onto
// its feature; Narain 2012 Alg. 1: a flip or collapse across a bend) with
// no regard for other cloth, and the fail-safe (SelfCollision) keeps a step
// free of crossings only if it starts so. Narain 2012 sec. 4 ("Handling
// interpenetrations") names two ways: collision detection while remeshing,
// so as not to make them, or moving the faces back after it, along their
// remeshing displacement, with impact zones. This is the first, at the
// coarsest grain, which needs no solver: a pass that would cross is changed
// (its hits dropped, crossingHits) or left out, and the next pass tries
// again. The vertex-wise repair of obstacle penetrations
// (repairPenetrations) stays; obstacleDepth checks the faces.
type crossWork struct {
	x     []float64
	faces []int32
	of    []bool // per face of the combined list: a face of the body's mesh that at accepts
	bvh   geom.BVH
	pairs []geom.TriPair
	node  map[int32]int // crossingHits: inserted node -> hit
}

// crossings counts the intersecting pairs of faces sharing no vertex, with
// body's cloth as mesh m and the other bodies' as they are in the state (a
// body remeshed earlier in this step still at its positions before), among
// the pairs with a face of m that at accepts (nil: every face of m). mark,
// when set, is called with each node of m in a counted pair.
func (rm *BodyRemesher) crossings(r geom.Runner, body ecs.Entity, m *remesh.Mesh, at func(t [3]int32) bool, mark func(node int32)) int {
	s, cw := rm.apart, &rm.cross
	cw.x, cw.faces, cw.of = append(cw.x[:0], s.X...), cw.faces[:0], cw.of[:0]
	for f, fb := range s.FaceBody {
		if fb != body {
			cw.faces = append(cw.faces, s.Faces[3*f:3*f+3]...)
			cw.of = append(cw.of, false)
		}
	}
	off := int32(len(cw.x) / 3)
	for _, p := range m.X {
		cw.x = append(cw.x, p[0], p[1], p[2])
	}
	for _, t := range m.F {
		cw.faces = append(cw.faces, off+m.Node[t[0]], off+m.Node[t[1]], off+m.Node[t[2]])
		cw.of = append(cw.of, at == nil || at(t))
	}
	cw.bvh.Build(r, cw.x, cw.faces, 0)
	cw.pairs = cw.bvh.SelfPairs(cw.pairs)
	n := 0
	for _, p := range cw.pairs {
		if !cw.of[p.A] && !cw.of[p.B] {
			continue
		}
		if !facesIntersect(cw.x, cw.faces, p) {
			continue
		}
		n++
		for _, v := range append(cw.faces[3*p.A:3*p.A+3:3*p.A+3], cw.faces[3*p.B:3*p.B+3]...) {
			if mark != nil && v >= off {
				mark(v - off)
			}
		}
	}
	return n
}

// obstacleDepth is the deepest that an obstacle reaches through a face of
// m (geom.ShapeTriangleDepth; 0: none), with the obstacles as loaded.
func (r *BodyRemesher) obstacleDepth(m *remesh.Mesh) float64 {
	depth := 0.0
	for i := range r.obstacles {
		o := &r.obstacles[i]
		ob, ok := geom.PenetrationBounds(&o.Shape, o.Offset)
		if !ok {
			continue
		}
		for _, t := range m.F {
			a, b, c := m.X[m.Node[t[0]]], m.X[m.Node[t[1]]], m.X[m.Node[t[2]]]
			if box := geom.Bounds3(a, b, c); box.Overlaps(&ob) {
				depth = max(depth, geom.ShapeTriangleDepth(&o.Shape, o.Offset, a, b, c))
			}
		}
	}
	return depth
}

// worse reports whether mesh nm, a pass over body's mesh old, crosses
// other cloth or itself more than old does, or lets an obstacle reach
// deeper through the cloth (beyond depthTolerance).
func (rm *BodyRemesher) worse(r geom.Runner, body ecs.Entity, old, nm *remesh.Mesh) bool {
	return rm.crossings(r, body, nm, nil, nil) > rm.crossings(r, body, old, nil, nil) ||
		rm.obstacleDepth(nm) > rm.obstacleDepth(old)+depthTolerance*rm.thickness
}

// depthTolerance is the deepening of an obstacle's reach through the cloth,
// as a fraction of the contact thickness, that a remeshing pass may make
// (rounding; the stat's bound is 0.1 mm).
const depthTolerance = 1e-3

// separateRound moves the free nodes of m (fixed false; EOL vertices and
// pinned nodes stay) of every face that a round obstacle (sphere, capsule: a
// wire) reaches into, out along the way geom.RoundTriangleContact gives, so
// that the face clears the obstacle by separateClearance times the contact
// thickness; at most separatePasses sweeps over the faces, and it returns
// the number of faces moved.
//
// Conformal preprocessing (Weidner 2018 sec. 6.1) collapses and flips edges
// next to its nodes with no regard for the obstacle: in wire it left a face
// from one side of the 3 mm wire to the other whose edge passes through it
// (0.3-0.6 mm deep), with every vertex outside. The vertex contacts and the fail-safe's CCD
// cannot undo a crossing the step starts with. The face's free corners are
// moved by the least-norm displacement that moves its nearest point out
// (the impulse distribution of Bridson 2002 sec. 7.1 with equal masses), as
// Narain 2012 sec. 4 moves faces back after remeshing; the rest shapes
// (material coordinates) are unchanged.
func (rm *BodyRemesher) separateRound(m *remesh.Mesh, fixed func(node int32) bool) int {
	moved := 0
	for range separatePasses {
		n := 0
		for i := range rm.obstacles {
			o := &rm.obstacles[i]
			if o.Shape.Kind != geom.Sphere && o.Shape.Kind != geom.Capsule {
				continue
			}
			ob, _ := geom.PenetrationBounds(&o.Shape, o.Offset)
			for _, t := range m.F {
				nodes := [3]int32{m.Node[t[0]], m.Node[t[1]], m.Node[t[2]]}
				a, b, c := m.X[nodes[0]], m.X[nodes[1]], m.X[nodes[2]]
				if box := geom.Bounds3(a, b, c); !box.Overlaps(&ob) {
					continue
				}
				gap, w, dir, ok := geom.RoundTriangleContact(&o.Shape, o.Offset, a, b, c)
				if !ok || gap >= 0 {
					continue
				}
				den := 0.0
				for k, v := range nodes {
					if !fixed(v) {
						den += w[k] * w[k]
					}
				}
				if !(den > 0) {
					continue
				}
				push := (separateClearance*rm.thickness - gap) / den
				for k, v := range nodes {
					if !fixed(v) {
						m.X[v] = m.X[v].Add(dir.Scale(push * w[k]))
					}
				}
				n++
			}
		}
		moved += n
		if n == 0 {
			break
		}
	}
	return moved
}

// separateClearance is the clearance, as a fraction of the contact
// thickness, that separateRound leaves between a face and a round obstacle:
// more than the depth (kinematicError) by which the fail-safe's mesh of the
// obstacle lies inside it.
const separateClearance = 0.1

// separatePasses bounds separateRound's sweeps (a face moved out can push a
// neighbour sharing its nodes in).
const separatePasses = 4
