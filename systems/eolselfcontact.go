package systems

import "github.com/loomsim/loom/ecs"

// foldLabels returns, in dst (its storage reused), the self-contact fold
// label of every cloth vertex (selfcontact.Params.Fold): for an EOL vertex
// of the last gather, its feature and its body (feature times the number of
// bodies plus the body's index, by first appearance among the faces), -1
// for every other vertex but those of the EOL vertices' one-rings, which
// take the label of one of their EOL neighbours.
//
// The cloth bends sharply over a feature at its EOL vertices (Weidner 2018
// sec. 4), so within the self-contact thickness of an EOL vertex lie the
// faces and edges on the other side of the bend that hold its neighbours on
// the feature, and so may the Lagrangian vertices beside the feature (the
// conformal mesh keeps its edges there no shorter than min_edge, but at
// any angle to the feature). That nearness is the sharp bend, which the EOL constraints
// hold, not a contact between cloth layers; repelled, it pushed the bend's
// Lagrangian vertices away from the feature, against the material velocity
// the QP had solved with them, and stretched the faces there to the Eulerian
// step's limit (maxEulerStretch) until the EOL QP failed (edge-layers, one
// sheet, 98 steps). Another body's vertices on the same feature get another
// label: the layers stay apart by repulsion (Lagrangian, as sec. 4 handles
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
