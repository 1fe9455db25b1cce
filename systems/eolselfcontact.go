package systems

import (
	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// foldLabels returns, in dst (its storage reused), the self-contact fold
// label of every cloth vertex (selfcontact.Params.Fold): for an EOL vertex
// of the last gather, its feature and its body (feature times the number of
// bodies plus the body's index, by first appearance among the faces), -1
// for every other vertex but those of the EOL vertices' one-rings, which
// take the label of one of their EOL neighbours.
//
// The cloth bends sharply over a feature at its EOL vertices (Weidner 2018
// sec. 3), so within the self-contact thickness of an EOL vertex lie the
// faces and edges on the other side of the bend that hold its neighbours on
// the feature, and so may the Lagrangian vertices beside the feature (the
// conformal mesh keeps its edges there no shorter than min_edge, but at
// any angle to the feature). That nearness is the sharp bend, which the EOL constraints
// hold, not a contact between cloth layers; repelled, it pushed the bend's
// Lagrangian vertices away from the feature, against the material velocity
// the QP had solved with them, and stretched the faces there to the Eulerian
// step's limit (maxEulerStretch) until the EOL QP failed (edge-layers, one
// sheet, 98 steps). Another body's vertices on the same feature get another
// label: the layers stay apart by repulsion (Lagrangian, as sec. 3 handles
// every contact but those with sharp features).
func (c *EOLCloth) foldLabels(dst []int32) []int32 {
	s := c.state
	n := s.NumVerts()
	dst = resizeI32(dst, n)
	for i := range dst {
		dst[i] = -1
	}
	var bodies []ecs.Entity
	bodyIndex := func(b ecs.Entity) int32 {
		for k, e := range bodies {
			if e == b {
				return int32(k)
			}
		}
		bodies = append(bodies, b)
		return int32(len(bodies) - 1)
	}
	for f := range s.FaceBody {
		bodyIndex(s.FaceBody[f])
	}
	nb := int32(len(bodies))
	for k := range c.verts {
		ev := &c.verts[k]
		if c.vfStart[ev.v] == c.vfStart[ev.v+1] {
			continue
		}
		f := c.vfList[c.vfStart[ev.v]]
		dst[ev.v] = ev.feature*nb + bodyIndex(s.FaceBody[f])
	}
	// The one-ring: each unlabelled corner of a face with an EOL corner
	// takes that corner's label (the first, in face order).
	for k := range c.verts {
		v := c.verts[k].v
		for _, f := range c.vfList[c.vfStart[v]:c.vfStart[v+1]] {
			for _, u := range s.Faces[3*f : 3*f+3] {
				if dst[u] < 0 && c.eolOf[u] < 0 {
					dst[u] = dst[v]
				}
			}
		}
	}
	return dst
}

// featureClaim is the stretch [lo, hi] of a feature's parameter (an edge's
// T; 0 for a point) that one body's cloth holds: its EOL vertices there, or
// its contacts found this step, widened by min_edge.
type featureClaim struct {
	feature int32
	body    ecs.Entity
	lo, hi  float64
}

// shieldHits drops from hits, body's new contacts with sharp features
// (detect), those on a stretch of a feature that another body's cloth
// holds, and claims the rest for body. Where two cloth layers lie on a
// feature, only the one touching it is EOL there (Weidner 2018 sec. 3: EOL
// handles cloth against a rigid feature); the layer over it meets the one
// under by Lagrangian self-contact. Made EOL too (the edge's reach, 5 mm,
// exceeds the layers' distance), its vertices were put on the feature on
// top of the lower layer's, and the fail-safe's zones could not be resolved
// (edge-layers: 157767 impacts at the step the upper sheet landed). step is
// the clock's step: the claims are rebuilt from the EOL vertices at the
// first call of a step.
func (c *EOLCloth) shieldHits(step int, body ecs.Entity, hits []conformal.Hit) []conformal.Hit {
	s := c.state
	if !c.claimed || c.claimStep != step {
		c.claimed, c.claimStep, c.claims = true, step, c.claims[:0]
		for k := range c.verts {
			ev := &c.verts[k]
			if c.vfStart[ev.v] == c.vfStart[ev.v+1] {
				continue
			}
			c.claim(ev.feature, s.FaceBody[c.vfList[c.vfStart[ev.v]]], c.featureParam(ev.feature, ev.comp.T))
		}
	}
	out := hits[:0]
	for _, h := range hits {
		t := c.featureParam(h.Feature, h.T)
		held := false
		for _, cl := range c.claims {
			held = held || (cl.feature == h.Feature && cl.body != body && t >= cl.lo && t <= cl.hi)
		}
		if !held {
			out = append(out, h)
		}
	}
	for _, h := range out {
		c.claim(h.Feature, body, c.featureParam(h.Feature, h.T))
	}
	return out
}

// featureParam is t on an edge feature, 0 on a point feature.
func (c *EOLCloth) featureParam(feature int32, t float64) float64 {
	if c.features[feature].Kind != components.FeatureEdge {
		return 0
	}
	return t
}

// claim widens body's claim on feature to hold t (plus min_edge either
// side), adding it if it has none.
func (c *EOLCloth) claim(feature int32, body ecs.Entity, t float64) {
	lo, hi := t-c.set.MinEdge, t+c.set.MinEdge
	for k := range c.claims {
		if cl := &c.claims[k]; cl.feature == feature && cl.body == body {
			cl.lo, cl.hi = min(cl.lo, lo), max(cl.hi, hi)
			return
		}
	}
	c.claims = append(c.claims, featureClaim{feature: feature, body: body, lo: lo, hi: hi})
}

// crossingHits reports, in bad (by hit; its storage reused), the inserted
// hits of res whose node is a corner of a face of nm, body's preprocessed
// mesh, that crosses another face (crossings); n counts the crossing
// pairs.
//
// A hit moves its new node from the cloth edge (or face) onto the feature,
// up to reach away (Weidner 2018 sec. 6.1), with no regard for other cloth:
// where a second layer lies over the first within that distance of the
// feature, the node went through it (edge-layers in the conformal
// Lagrangian pipeline: the upper sheet 1.7 mm from the box edge, the lower
// sheet's new node put 2.8 mm from it). Only the new nodes move (a
// collapse onto one moves no other node), so the step's mesh, free of
// crossings, is crossed after it only by faces around them; the caller
// drops their hits and preprocesses again (ConformalRemesh.body), leaving
// the cloth there to the Lagrangian contacts until the way is clear.
func (e *ConformalRemesh) crossingHits(r geom.Runner, body ecs.Entity, nm *remesh.Mesh, res *conformal.Result, bad []bool) (out []bool, n int) {
	cw := &e.rm.cross
	out = resize(bad, len(res.HitNode))
	clear(out)
	if cw.node == nil {
		cw.node = map[int32]int{}
	}
	clear(cw.node)
	for k, v := range res.HitNode {
		if v >= 0 && res.HitOutcome[k] == conformal.HitInserted {
			cw.node[v] = k
		}
	}
	if len(cw.node) == 0 {
		return out, 0
	}
	inserted := func(t [3]int32) bool {
		for _, v := range t {
			if _, ok := cw.node[nm.Node[v]]; ok {
				return true
			}
		}
		return false
	}
	n = e.rm.crossings(r, body, nm, inserted, func(v int32) {
		if k, ok := cw.node[v]; ok {
			out[k] = true
		}
	})
	return out, n
}
