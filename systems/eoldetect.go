package systems

import (
	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// detectScratch holds detect's buffers between steps (on ConformalRemesh), so
// that detection allocates nothing once they have grown.
type detectScratch struct {
	hits   []conformal.Hit
	edges  []featureBox // the edge features in feature order, with their boxes
	groups []edgeGroup  // runs of one obstacle's edge features in edges
	faces  []geom.AABB  // the faces' bounding boxes (with point features only)
	head   []int32      // per node, the last of its met edges in met (-1: none)
	met    []edgeLink   // the edges met so far, chained by their lower node
}

// edgeLink is a met mesh edge from its lower node to node b; next is the
// lower node's previous met edge (-1: none).
type edgeLink struct{ b, next int32 }

// featureBox is edge feature fi's bounding box (a wire's widened by its
// radius).
type featureBox struct {
	fi  int32
	box geom.AABB
}

// edgeGroup is a run edges[start:end] of one obstacle's edge features and the
// union of their boxes.
type edgeGroup struct {
	start, end int
	box        geom.AABB
}

// detect finds the cloth's new contacts with sharp features (Weidner 2018
// sec. 6.1): mesh edges that cross an edge feature (on different sides of a
// box edge's two faces, or of a wire, and within the reach of it or inside
// the obstacle there; away from the edge's ends, which are corners), and
// faces that a point feature (a nail tip or a box corner) touches from their
// inside. feature gives each node's current feature (-1: none). The hits come
// edge hits first, each edge at its first face in m.F order with its
// features in order, then point hits by feature and face; the returned slice
// is s's and holds until the next call.
//
// Bounding boxes prune the pairs before the exact tests (geom.Feature's
// EdgeHit and PointHit), with a margin that exceeds the farthest those accept
// by at least the reach (a cloth edge a-b's box is within max(reach, |a-b|)
// of a box edge's, or the radius plus reach of a wire's, when EdgeHit
// accepts; a face's box within reach of the point when PointHit does): they
// only skip pairs that
// cannot hit, rounding included. An edge is tested once, where it is first
// met, found among those met through its lower node.
func (c *EOLCloth) detect(m *remesh.Mesh, feature []int32, s *detectScratch) []conformal.Hit {
	s.hits = s.hits[:0]
	s.edges, s.groups = s.edges[:0], s.groups[:0]
	hasPoint := false
	for fi := range c.features {
		f := &c.features[fi]
		if f.Kind != components.FeatureEdge {
			hasPoint = true
			continue
		}
		q := f.At(f.Length)
		var b geom.AABB
		for k := range 3 {
			b.Lo[k], b.Hi[k] = min(f.P0[k], q[k])-f.Radius, max(f.P0[k], q[k])+f.Radius
		}
		if g := len(s.groups) - 1; g >= 0 && c.features[s.edges[len(s.edges)-1].fi].Obstacle == f.Obstacle {
			s.groups[g].end++
			s.groups[g].box.Include(&b)
		} else {
			s.groups = append(s.groups, edgeGroup{start: len(s.edges), end: len(s.edges) + 1, box: b})
		}
		s.edges = append(s.edges, featureBox{fi: int32(fi), box: b})
	}
	if len(s.edges) > 0 {
		c.detectEdges(m, feature, s)
	}
	if hasPoint {
		c.detectPoints(m, feature, s)
	}
	return s.hits
}

// detectEdges appends the hits of mesh edges on edge features (s.edges).
func (c *EOLCloth) detectEdges(m *remesh.Mesh, feature []int32, s *detectScratch) {
	reach := c.set.Reach
	s.head = s.head[:0]
	for range m.X {
		s.head = append(s.head, -1)
	}
	s.met = s.met[:0]
	for _, t := range m.F {
	sides:
		for k := range 3 {
			a, b := m.Node[t[k]], m.Node[t[(k+1)%3]]
			if a > b {
				a, b = b, a
			}
			for j := s.head[a]; j >= 0; j = s.met[j].next {
				if s.met[j].b == b {
					continue sides
				}
			}
			s.met = append(s.met, edgeLink{b: b, next: s.head[a]})
			s.head[a] = int32(len(s.met) - 1)
			xa, xb := m.X[a], m.X[b]
			var lo, hi dense.Vec3
			for j := range 3 {
				lo[j], hi[j] = min(xa[j], xb[j]), max(xa[j], xb[j])
			}
			// |a-b| is at most the box's L1 size.
			margin := 2*reach + (hi[0] - lo[0]) + (hi[1] - lo[1]) + (hi[2] - lo[2])
			seg := geom.AABB{Lo: lo, Hi: hi}
			for gi := range s.groups {
				g := &s.groups[gi]
				if g.box.Apart(&seg, margin) {
					continue
				}
				for j := g.start; j < g.end; j++ {
					e := &s.edges[j]
					if e.box.Apart(&seg, margin) {
						continue
					}
					if feature[a] == e.fi || feature[b] == e.fi {
						continue
					}
					if hs, ht, hx, ok := c.features[e.fi].EdgeHit(xa, xb, reach); ok {
						s.hits = append(s.hits, conformal.Hit{A: a, B: b, Face: -1, Feature: e.fi, S: hs, X: hx, T: ht})
					}
				}
			}
		}
	}
}

// detectPoints appends the hits of faces on point features (nail tips, box
// corners).
func (c *EOLCloth) detectPoints(m *remesh.Mesh, feature []int32, s *detectScratch) {
	reach := c.set.Reach
	s.faces = s.faces[:0]
	all := geom.EmptyAABB()
	for _, t := range m.F {
		b := geom.Bounds3(m.X[m.Node[t[0]]], m.X[m.Node[t[1]]], m.X[m.Node[t[2]]])
		all.Include(&b)
		s.faces = append(s.faces, b)
	}
	margin := 2 * reach
	for fi := range c.features {
		f := &c.features[fi]
		tip := geom.AABB{Lo: f.P0, Hi: f.P0}
		if f.Kind == components.FeatureEdge || all.Apart(&tip, margin) {
			continue
		}
		for face, t := range m.F {
			if s.faces[face].Apart(&tip, margin) {
				continue
			}
			a, b, d := m.Node[t[0]], m.Node[t[1]], m.Node[t[2]]
			if feature[a] == int32(fi) || feature[b] == int32(fi) || feature[d] == int32(fi) {
				continue
			}
			if bary, ok := f.PointHit(m.X[a], m.X[b], m.X[d], reach); ok {
				s.hits = append(s.hits, conformal.Hit{Face: int32(face), Bary: bary, X: f.P0, Feature: int32(fi), Point: true})
			}
		}
	}
}
