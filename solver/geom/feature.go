package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// FeatureKind names the kind of sharp feature an EOL vertex lies on.
type FeatureKind uint8

// Sharp features (Weidner 2018 sec. 5, errata sec. 3).
const (
	FeatureEdge   FeatureKind = iota // a box edge, a mesh's sharp edge or a wire
	FeatureCorner                    // a box's corner or a mesh's trihedral corner
	FeaturePoint                     // a nail tip
)

// Feature is one sharp feature of an obstacle at its current pose (Weidner
// 2018 sec. 3 and 5: box edges and corners; wires; errata sec. 3: points),
// moved out by the contact thickness so that an EOL vertex on it sits in the
// same layer as the Lagrangian vertices resting on the obstacle's faces.
type Feature struct {
	Obstacle int32 // index into the caller's obstacle list
	ID       int32 // feature index within the obstacle
	Kind     FeatureKind
	Wire     bool       // an edge feature on a capsule's axis (no faces)
	Radius   float64    // wire: capsule radius plus thickness
	P0       dense.Vec3 // edge: first end (offset); point or corner: the point (offset)
	Dir      dense.Vec3 // edge: unit direction
	Length   float64    // edge: length
	N        [3]dense.Vec3
	// Ends are, for a box's or a mesh's edge, the IDs (within its
	// obstacle) of the corner features at its first and second end, -1
	// where there is none; the features of one obstacle are appended in ID
	// order, so a corner's index is the edge's index - ID + Ends[k].
	Ends   [2]int32
	Vel    dense.Vec3 // the velocity of the obstacle's rotation centre
	Omega  dense.Vec3 // the obstacle's angular velocity (rad/s); zero: translating only
	Center dense.Vec3 // the obstacle's rotation centre (offset)
}

// VelAt returns the obstacle's velocity at p: Vel + Omega x (p - Center),
// Vel itself when the obstacle does not turn.
func (f *Feature) VelAt(p dense.Vec3) dense.Vec3 { return PointVelocity(f.Vel, f.Omega, f.Center, p) }

// AppendFeatures appends the sharp features of shape s translated by offset
// and moving at vel, as obstacle oi: a box's 12 edges (ids 0-11: axis*4 +
// corner bits of the two other axes) and 8 corners (12-19), a capsule's axis
// as a wire (id 0), a point obstacle's tip (id 0), a mesh's sharp edges
// and then its corners (MarkSharpEdges; ids in their order). Planes and
// spheres are smooth.
func AppendFeatures(dst []Feature, s *Shape, offset, vel dense.Vec3, oi int32, thickness float64) []Feature {
	return AppendMovingFeatures(dst, s, offset, vel, dense.Vec3{}, oi, thickness)
}

// AppendMovingFeatures is AppendFeatures for an obstacle that also turns at
// omega (rad/s) about its rotation centre; a Rotated shape's features (ends,
// directions, face normals) are turned by its R about that centre.
func AppendMovingFeatures(dst []Feature, s *Shape, offset, vel, omega dense.Vec3, oi int32, thickness float64) []Feature {
	first := len(dst)
	dst = appendAxisFeatures(dst, s, offset, vel, oi, thickness)
	c := s.RotationCenter().Add(offset)
	for i := first; i < len(dst); i++ {
		f := &dst[i]
		f.Omega, f.Center = omega, c
		if s.Rotated {
			f.P0 = c.Add(s.R.MulVec(f.P0.Sub(c)))
			f.Dir = s.R.MulVec(f.Dir)
			for k := range f.N {
				f.N[k] = s.R.MulVec(f.N[k])
			}
		}
	}
	return dst
}

// appendAxisFeatures appends the features of s ignoring its rotation.
func appendAxisFeatures(dst []Feature, s *Shape, offset, vel dense.Vec3, oi int32, thickness float64) []Feature {
	switch s.Kind {
	case Box:
		c := s.Center.Add(offset)
		h := s.HalfExtents
		for a := range 3 {
			b, d := (a+1)%3, (a+2)%3
			for bits := range 4 {
				sb, sd := sign(bits&2 != 0), sign(bits&1 != 0)
				var nb, nd, ea dense.Vec3
				nb[b], nd[d], ea[a] = sb, sd, 1
				// Moved out by EdgeOffset(nb, nd, thickness), which is
				// thickness (nb + nd) for these orthogonal normals.
				p := c
				p[b] += sb * (h[b] + thickness)
				p[d] += sd * (h[d] + thickness)
				p[a] -= h[a]
				// Corner IDs are 12 + bits with bit 4>>k set for +h on axis k.
				side := 0
				if sb > 0 {
					side |= 4 >> b
				}
				if sd > 0 {
					side |= 4 >> d
				}
				dst = append(dst, Feature{Obstacle: oi, ID: int32(4*a + bits), Kind: FeatureEdge,
					P0: p, Dir: ea, Length: 2 * h[a], N: [3]dense.Vec3{nb, nd}, Vel: vel,
					Ends: [2]int32{int32(12 + side), int32(12 + (side | 4>>a))}})
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
			dst = append(dst, Feature{Obstacle: oi, ID: int32(12 + bits), Kind: FeatureCorner, P0: p, N: n, Vel: vel, Ends: [2]int32{-1, -1}})
		}
	case Capsule:
		a, b := s.A.Add(offset), s.B.Add(offset)
		ab := b.Sub(a)
		l := ab.Norm()
		dst = append(dst, Feature{Obstacle: oi, Kind: FeatureEdge, Wire: true, Radius: s.Radius + thickness,
			P0: a, Dir: ab.Scale(1 / l), Length: l, Vel: vel, Ends: [2]int32{-1, -1}})
	case Mesh:
		dst = appendMeshFeatures(dst, s.Mesh, offset, vel, oi, thickness)
	case Point:
		dst = append(dst, Feature{Obstacle: oi, Kind: FeaturePoint, P0: s.Center.Add(offset).Add(s.Normal.Scale(thickness)),
			N: [3]dense.Vec3{s.Normal}, Vel: vel, Ends: [2]int32{-1, -1}})
	}
	return dst
}

func sign(pos bool) float64 {
	if pos {
		return 1
	}
	return -1
}

// ClosestOnLine returns the parameter t (clamped to [0, Length]) of the point
// of an edge feature nearest to p.
func (f *Feature) ClosestOnLine(p dense.Vec3) float64 {
	return math.Max(0, math.Min(f.Length, p.Sub(f.P0).Dot(f.Dir)))
}

// At returns the point at parameter t of an edge feature.
func (f *Feature) At(t float64) dense.Vec3 { return f.P0.Add(f.Dir.Scale(t)) }

// SegmentLine returns the parameters s in [0, 1] on segment a-b and t on the
// infinite line of edge feature f of the closest pair of points.
func (f *Feature) SegmentLine(a, b dense.Vec3) (s, t float64) {
	d := b.Sub(a)
	r := a.Sub(f.P0)
	dd, de := d.Dot(d), d.Dot(f.Dir)
	den := dd - de*de // |d|^2 sin^2 of the angle between the lines
	if den <= 1e-12*dd {
		return 0.5, r.Add(d.Scale(0.5)).Dot(f.Dir)
	}
	s = (de*r.Dot(f.Dir) - d.Dot(r)) / den
	s = math.Max(0, math.Min(1, s))
	t = a.Add(d.Scale(s)).Sub(f.P0).Dot(f.Dir)
	return s, t
}

// EdgeSide tells on which of a box edge's two faces' sides p lies: true when
// it is further out along the first face's normal than along the second's.
func (f *Feature) EdgeSide(p dense.Vec3) bool {
	r := p.Sub(f.P0)
	return r.Dot(f.N[0]) > r.Dot(f.N[1])
}

// WireNormal returns the unit direction from a wire's axis to p, in the plane
// across the wire (up, +z, when p is on the axis).
func (f *Feature) WireNormal(p dense.Vec3) dense.Vec3 {
	r := p.Sub(f.P0)
	r = r.Sub(f.Dir.Scale(r.Dot(f.Dir)))
	if l := r.Norm(); l > 1e-12 {
		return r.Scale(1 / l)
	}
	return dense.Perp(f.Dir)
}

// LeaveInward returns the velocity rel (relative to the obstacle) of a
// vertex at p on the feature as it lifts off, with the part that would carry
// it into the obstacle removed. The material point's velocity of Weidner 2018
// eq. 2, which a lifted vertex takes (sec. 6.2), is not bound by the EOL rows
// that held the vertex itself, and can point into the obstacle: a box edge's
// wedge (inward along both faces' normals: the component along the face it
// leaves least steeply is removed, so it slides along that face), a box
// corner's octant (likewise, over its three faces), a wire's axis (the
// inward radial part). The Lagrangian contacts take over from the next step;
// this keeps the lift-off step itself from entering the obstacle, as an
// inelastic contact would.
func (f *Feature) LeaveInward(p, rel dense.Vec3) dense.Vec3 {
	switch {
	case f.Kind == FeaturePoint:
		return rel
	case f.Wire:
		r := f.WireNormal(p)
		if d := rel.Dot(r); d < 0 {
			rel = rel.Sub(r.Scale(d))
		}
		return rel
	}
	k, most := -1, math.Inf(-1)
	for i, n := range f.N {
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
	return rel.Sub(f.N[k].Scale(most))
}

// Project returns the point of the feature an EOL vertex at p is held on: the
// nearest point of an edge line (for a wire, at the wire's radius from its
// axis), the corner or the point itself.
func (f *Feature) Project(p dense.Vec3) dense.Vec3 {
	if f.Kind != FeatureEdge {
		return f.P0
	}
	q := f.At(p.Sub(f.P0).Dot(f.Dir))
	if f.Wire {
		return q.Add(f.WireNormal(p).Scale(f.Radius))
	}
	return q
}
