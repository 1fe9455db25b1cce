package systems

import (
	"math"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
)

// sharpFeature is one sharp feature of an obstacle at its current pose
// (Weidner 2018 sec. 3: box edges and corners; wires; errata sec. 3: points),
// moved out by the contact thickness so that an EOL vertex on it sits in the
// same layer as the Lagrangian vertices resting on the obstacle's faces.
type sharpFeature struct {
	obstacle int32 // index into the step's obstacle list
	id       int32 // feature index within the obstacle
	kind     components.FeatureKind
	wire     bool       // an edge feature on a capsule's axis (no faces)
	radius   float64    // wire: capsule radius plus thickness
	p0       dense.Vec3 // edge: first end (offset); point or corner: the point (offset)
	dir      dense.Vec3 // edge: unit direction
	length   float64    // edge: length
	n        [3]dense.Vec3
	vel      dense.Vec3 // the obstacle's velocity
}

// appendFeatures appends obstacle o's sharp features: a box's 12 edges (ids
// 0-11: axis*4 + corner bits of the two other axes) and 8 corners (12-19), a
// capsule's axis as a wire (id 0), a point obstacle's tip (id 0). Planes and
// spheres are smooth.
func appendFeatures(dst []sharpFeature, o *components.Obstacle, oi int32, thickness float64) []sharpFeature {
	switch o.Kind {
	case components.Box:
		c := o.Center.Add(o.Offset)
		h := o.HalfExtents
		for a := range 3 {
			b, d := (a+1)%3, (a+2)%3
			for bits := range 4 {
				sb, sd := sign(bits&2 != 0), sign(bits&1 != 0)
				var nb, nd, ea dense.Vec3
				nb[b], nd[d], ea[a] = sb, sd, 1
				p := c
				p[b] += sb * (h[b] + thickness)
				p[d] += sd * (h[d] + thickness)
				p[a] -= h[a]
				dst = append(dst, sharpFeature{obstacle: oi, id: int32(4*a + bits), kind: components.FeatureEdge,
					p0: p, dir: ea, length: 2 * h[a], n: [3]dense.Vec3{nb, nd}, vel: o.Vel})
			}
		}
		for bits := range 8 {
			var p dense.Vec3
			var n [3]dense.Vec3
			for k := range 3 {
				s := sign(bits&(4>>k) != 0)
				p[k] = c[k] + s*(h[k]+thickness)
				n[k][k] = s
			}
			dst = append(dst, sharpFeature{obstacle: oi, id: int32(12 + bits), kind: components.FeatureCorner, p0: p, n: n, vel: o.Vel})
		}
	case components.Capsule:
		a, b := o.A.Add(o.Offset), o.B.Add(o.Offset)
		ab := b.Sub(a)
		l := ab.Norm()
		dst = append(dst, sharpFeature{obstacle: oi, kind: components.FeatureEdge, wire: true, radius: o.Radius + thickness,
			p0: a, dir: ab.Scale(1 / l), length: l, vel: o.Vel})
	case components.Point:
		dst = append(dst, sharpFeature{obstacle: oi, kind: components.FeaturePoint, p0: o.Center.Add(o.Offset).Add(o.Normal.Scale(thickness)),
			n: [3]dense.Vec3{o.Normal}, vel: o.Vel})
	}
	return dst
}

// featureEnds returns, for every box edge in features, the corner features
// at its ends and their parameters along it (the corners sit at T =
// -thickness and length + thickness on the edge's line, both being moved
// out by the thickness): the conformal chain of an edge ends at a node on
// its corner (solver/conformal Features.Ends).
//
// ends (nil: a new map) is cleared and filled, so a step reuses the last
// step's map.
func featureEnds(ends map[int32]conformal.EdgeEnds, features []sharpFeature) map[int32]conformal.EdgeEnds {
	if ends == nil {
		ends = map[int32]conformal.EdgeEnds{}
	}
	clear(ends)
	for fi := range features {
		f := &features[fi]
		if f.kind != components.FeatureEdge || f.wire {
			continue
		}
		e := conformal.EdgeEnds{Start: -1, End: -1, T0: 0, T1: f.length}
		for ci := range features {
			c := &features[ci]
			if c.kind != components.FeatureCorner || c.obstacle != f.obstacle {
				continue
			}
			r := c.p0.Sub(f.p0)
			t := r.Dot(f.dir)
			if r.Sub(f.dir.Scale(t)).Norm() > 1e-9*(1+f.length) {
				continue // not on the edge's line
			}
			switch {
			case t <= 0:
				e.Start, e.T0 = int32(ci), t
			case t >= f.length:
				e.End, e.T1 = int32(ci), t
			}
		}
		if e.Start >= 0 || e.End >= 0 {
			ends[int32(fi)] = e
		}
	}
	return ends
}

func sign(pos bool) float64 {
	if pos {
		return 1
	}
	return -1
}

// closestOnLine returns the parameter t (clamped to [0, length]) of the point
// of an edge feature nearest to p.
func (f *sharpFeature) closestOnLine(p dense.Vec3) float64 {
	return math.Max(0, math.Min(f.length, p.Sub(f.p0).Dot(f.dir)))
}

// at returns the point at parameter t of an edge feature.
func (f *sharpFeature) at(t float64) dense.Vec3 { return f.p0.Add(f.dir.Scale(t)) }

// segmentLine returns the parameters s in [0, 1] on segment a-b and t on the
// infinite line of edge feature f of the closest pair of points.
func (f *sharpFeature) segmentLine(a, b dense.Vec3) (s, t float64) {
	d := b.Sub(a)
	r := a.Sub(f.p0)
	dd, de := d.Dot(d), d.Dot(f.dir)
	den := dd - de*de // |d|^2 sin^2 of the angle between the lines
	if den <= 1e-12*dd {
		return 0.5, r.Add(d.Scale(0.5)).Dot(f.dir)
	}
	s = (de*r.Dot(f.dir) - d.Dot(r)) / den
	s = math.Max(0, math.Min(1, s))
	t = a.Add(d.Scale(s)).Sub(f.p0).Dot(f.dir)
	return s, t
}

// edgeSide tells on which of a box edge's two faces' sides p lies: true when
// it is further out along the first face's normal than along the second's.
func (f *sharpFeature) edgeSide(p dense.Vec3) bool {
	r := p.Sub(f.p0)
	return r.Dot(f.n[0]) > r.Dot(f.n[1])
}

// wireNormal returns the unit direction from a wire's axis to p, in the plane
// across the wire (up, +z, when p is on the axis).
func (f *sharpFeature) wireNormal(p dense.Vec3) dense.Vec3 {
	r := p.Sub(f.p0)
	r = r.Sub(f.dir.Scale(r.Dot(f.dir)))
	if l := r.Norm(); l > 1e-12 {
		return r.Scale(1 / l)
	}
	return dense.Perp(f.dir)
}

// leaveInward returns the velocity rel (relative to the obstacle) of a
// vertex at p on the feature as it lifts off, with the part that would carry
// it into the obstacle removed. The material point's velocity of eq. 2,
// which a lifted vertex takes (sec. 6.2), is not bound by the EOL rows that
// held the vertex itself, and can point into the obstacle: a box edge's
// wedge (inward along both faces' normals: the component along the face it
// leaves least steeply is removed, so it slides along that face), a box
// corner's octant (likewise, over its three faces), a wire's axis (the
// inward radial part). The Lagrangian contacts take over from the next step;
// this keeps the lift-off step itself from entering the obstacle, as an
// inelastic contact would.
func (f *sharpFeature) leaveInward(p, rel dense.Vec3) dense.Vec3 {
	switch {
	case f.kind == components.FeaturePoint:
		return rel
	case f.wire:
		r := f.wireNormal(p)
		if d := rel.Dot(r); d < 0 {
			rel = rel.Sub(r.Scale(d))
		}
		return rel
	}
	k, most := -1, math.Inf(-1)
	for i, n := range f.n {
		if n == (dense.Vec3{}) {
			continue
		}
		d := rel.Dot(n)
		if d >= 0 {
			return rel // leaving through this face: outside the obstacle
		}
		if d > most {
			k, most = i, d
		}
	}
	if k < 0 {
		return rel
	}
	return rel.Sub(f.n[k].Scale(most))
}

// project returns the point of the feature an EOL vertex at p is held on: the
// nearest point of an edge line (for a wire, at the wire's radius from its
// axis), the corner or the point itself.
func (f *sharpFeature) project(p dense.Vec3) dense.Vec3 {
	if f.kind != components.FeatureEdge {
		return f.p0
	}
	q := f.at(p.Sub(f.p0).Dot(f.dir))
	if f.wire {
		return q.Add(f.wireNormal(p).Scale(f.radius))
	}
	return q
}
