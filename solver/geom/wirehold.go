package geom

import (
	"iter"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// MaxWireWrap (radians) bounds half the angle between the two tangent
// lines whose corner WireHold holds an EOL vertex at: there the vertex is
// R / cos(75 deg) = 3.9 R from the axis. A cloth wrapped further round the
// wire (the corner runs off to infinity as the wrap nears 180 degrees)
// cannot be held clear of it by one vertex; its faces then cut the cylinder.
const MaxWireWrap = 75 * math.Pi / 180

// WireHold returns the point where an EOL vertex at p on wire f is held, in
// the plane across the wire through p, so that the segment from it to every
// neighbour (the other corners of the vertex's faces) clears the cylinder
// of radius R = f.Radius (the wire's radius plus the contact thickness)
// about the axis.
//
// The wire is a sharp feature (Weidner 2018 sec. 5) only at the scale of the
// cloth's faces, and one conformal line of EOL vertices must wrap it. So it
// is held like an edge whose two faces are the planes tangent to that
// cylinder along which the cloth leaves it on either side: where a box or
// mesh edge's vertex sits, the offset of EdgeOffset from both planes (the
// box rule is its right-angle case), at the corner of the two tangent lines
// in the cross-section. Held at f.Project(p) instead (radius R above the
// axis), a cloth that leaves on one side more steeply than acos(r / R)
// below the tangent there cuts through the wire (radius r) between the
// vertex and its neighbour, which no vertex contact sees (the wire scene:
// 3.7 mm).
//
// In the cross-section a neighbour q at distance rho from the axis sees the
// arc of the cylinder within gamma = acos(R / rho) of its direction (a
// neighbour inside the cylinder sees only its direction), and a point on
// the cylinder clears q exactly when it is on that arc. When the arcs of all
// neighbours overlap, the vertex goes to the point of their common arc
// nearest to p's direction (p's own when it is on it: f.Project(p)).
// Otherwise the point nearest to the axis that clears all of them is the
// corner of the two tangent lines at the ends of the gap, at angles t1 < t2
// (the least end of the arcs on one side and the greatest start on the
// other): R / cos(a) along their bisector, a = (t2 - t1)/2, capped at
// MaxWireWrap.
func (f *Feature) WireHold(p dense.Vec3, neighbours iter.Seq[dense.Vec3]) dense.Vec3 {
	q := f.At(p.Sub(f.P0).Dot(f.Dir))
	e1 := f.WireNormal(p)
	e2 := f.Dir.Cross(e1)
	// Angles from e1 (radians): the common arc is [start, end]; a gap when
	// start > end.
	start, end := math.Inf(-1), math.Inf(1)
	for nb := range neighbours {
		r := nb.Sub(q)
		a, b := r.Dot(e1), r.Dot(e2)
		rho := math.Hypot(a, b)
		if rho == 0 {
			continue
		}
		gamma := math.Acos(math.Min(1, f.Radius/rho))
		phi := math.Atan2(b, a)
		start, end = math.Max(start, phi-gamma), math.Min(end, phi+gamma)
	}
	mid, dist := math.Max(start, math.Min(end, 0)), f.Radius
	if start > end {
		mid, dist = (start+end)/2, f.Radius/math.Cos(math.Min((start-end)/2, MaxWireWrap))
	}
	d := e1.Scale(math.Cos(mid)).Add(e2.Scale(math.Sin(mid)))
	return q.Add(d.Scale(dist))
}
