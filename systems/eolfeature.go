package systems

import (
	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// featureEnds returns, for every edge feature of a box or a mesh in
// features, the corner features at its ends (geom.Feature.Ends) and their
// parameters along it (both being moved out by the thickness, a corner lies
// on the edge's line: a box's at T = -thickness and length + thickness):
// the conformal chain of an edge ends at a node on its corner (solver/
// conformal Features.Ends). A corner beyond neither end (only a mesh
// corner sharper than a box's could be) is no end.
//
// ends (nil: a new map) is cleared and filled, so a step reuses the last
// step's map.
func featureEnds(ends map[int32]conformal.EdgeEnds, features []geom.Feature) map[int32]conformal.EdgeEnds {
	if ends == nil {
		ends = map[int32]conformal.EdgeEnds{}
	}
	clear(ends)
	for fi := range features {
		f := &features[fi]
		if f.Kind != components.FeatureEdge || f.Wire {
			continue
		}
		e := conformal.EdgeEnds{Start: -1, End: -1, T0: 0, T1: f.Length}
		for k, id := range f.Ends {
			if id < 0 {
				continue
			}
			ci := fi - int(f.ID) + int(id) // the obstacle's features are in ID order
			t := features[ci].P0.Sub(f.P0).Dot(f.Dir)
			switch {
			case k == 0 && t <= 0:
				e.Start, e.T0 = int32(ci), t
			case k == 1 && t >= f.Length:
				e.End, e.T1 = int32(ci), t
			}
		}
		if e.Start >= 0 || e.End >= 0 {
			ends[int32(fi)] = e
		}
	}
	return ends
}

// hold returns the point of its feature where EOL vertex ev at x is held:
// Feature.Project, or for a wire Feature.WireHold over the other corners of
// ev's faces that are not EOL vertices on the same wire (those lie along
// it), so that its faces clear the wire.
func (c *EOLCloth) hold(ev *eolVertex, x dense.Vec3) dense.Vec3 {
	f := &c.features[ev.feature]
	if !f.Wire {
		return f.Project(x)
	}
	s := c.state
	return f.WireHold(x, func(yield func(dense.Vec3) bool) {
		for _, fc := range c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]] {
			for _, o := range s.Faces[3*int(fc) : 3*int(fc)+3] {
				if o == ev.v || c.eolOf[o] >= 0 && c.verts[c.eolOf[o]].feature == ev.feature {
					continue
				}
				if !yield(vec(s.X, o)) {
					return
				}
			}
		}
	})
}
