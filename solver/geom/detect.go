package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// EdgeHit tests cloth edge a-b against edge feature f for a new EOL contact
// (Weidner 2018 sec. 6.1): the edge crosses from one side of a box edge's two
// faces to the other (or passes a wire's axis), away from the feature's ends
// by reach, and within reach of it (for a box edge: along the bisector of its
// faces' normals, and no further than max(reach, |a-b|); for a wire: within
// its radius plus reach). It returns the parameter s of the crossing on a-b,
// t along the feature and the point x on the feature where the new EOL
// vertex goes.
func (f *Feature) EdgeHit(a, b dense.Vec3, reach float64) (s, t float64, x dense.Vec3, ok bool) {
	s, t = f.SegmentLine(a, b)
	if !(s > 0 && s < 1) || t < reach || t > f.Length-reach {
		return 0, 0, dense.Vec3{}, false
	}
	q := f.At(t)
	p := a.Add(b.Sub(a).Scale(s))
	w := p.Sub(q)
	if f.Wire {
		ua, ub := a.Sub(q), b.Sub(q)
		ua, ub = ua.Sub(f.Dir.Scale(ua.Dot(f.Dir))), ub.Sub(f.Dir.Scale(ub.Dot(f.Dir)))
		if ua.Dot(ub) >= 0 || w.Norm() > f.Radius+reach {
			return 0, 0, dense.Vec3{}, false
		}
		return s, t, q.Add(f.WireNormal(p).Scale(f.Radius)), true
	}
	if f.EdgeSide(a) == f.EdgeSide(b) {
		return 0, 0, dense.Vec3{}, false
	}
	bis := f.N[0].Add(f.N[1])
	bis = bis.Scale(1 / bis.Norm())
	if w.Dot(bis) > reach || w.Norm() > math.Max(reach, b.Sub(a).Norm()) {
		return 0, 0, dense.Vec3{}, false
	}
	return s, t, q, true
}

// PointHit tests triangle (a, b, c) against point feature f: the point's
// projection lies inside the triangle and the triangle is within reach of
// it along its normal. It returns the projection's barycentric coordinates.
func (f *Feature) PointHit(a, b, c dense.Vec3, reach float64) ([3]float64, bool) {
	p := f.P0
	nrm := b.Sub(a).Cross(c.Sub(a))
	area2 := nrm.Norm()
	if area2 == 0 {
		return [3]float64{}, false
	}
	nrm = nrm.Scale(1 / area2)
	d := p.Sub(a).Dot(nrm)
	if math.Abs(d) > reach {
		return [3]float64{}, false
	}
	q := p.Sub(nrm.Scale(d))
	wa := b.Sub(q).Cross(c.Sub(q)).Dot(nrm) / area2
	wb := c.Sub(q).Cross(a.Sub(q)).Dot(nrm) / area2
	wc := 1 - wa - wb
	if wa <= 0 || wb <= 0 || wc <= 0 {
		return [3]float64{}, false
	}
	return [3]float64{wa, wb, wc}, true
}
