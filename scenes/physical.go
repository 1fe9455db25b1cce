package scenes

import (
	"errors"
	"fmt"
	"math"

	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// checkPhysical rejects resolved scenes that pass the schema but mean
// nothing physically, each with the field to change (issue 22): a contact
// thickness larger than a body, a body that starts inside an obstacle, a
// density lost in rounding against the stiffness, a rod edge node off its
// strand, and an EOL reach that can never create an EOL vertex.
func (s *Scene) checkPhysical(m *model.Model) error {
	v := &validator{source: s.source}
	for bi := range s.Bodies {
		b := &s.Bodies[bi]
		p := fmt.Sprintf("bodies[%d]", bi)
		if short := min(b.Size[0], b.Size[1]); 2*s.Solver.Thickness >= short {
			v.fail("solver.contact_thickness", "%v m is not less than half the %v m shorter side of %s (%q): the contact layer would be wider than the body", s.Solver.Thickness, short, p, b.Name)
		}
		if sc := s.Solver.SelfContact; sc != nil && 2*sc.Thickness >= min(b.Size[0], b.Size[1]) {
			v.fail("solver.self_contact.thickness", "%v m is not less than half the %v m shorter side of %s (%q)", sc.Thickness, min(b.Size[0], b.Size[1]), p, b.Name)
		}
		checkInertia(v, &m.Bodies[bi], m.Dt, p)
		checkOutside(v, s, &m.Bodies[bi], m.Obstacles, p)
	}
	if r := s.Rods; r != nil {
		checkEdgeNodes(v, r)
	}
	if e := s.Solver.EOL; e != nil && (s.Solver.Mode == ModeEOL || s.Solver.Mode == ModeConformal) {
		checkReach(v, s, e.Reach)
	}
	return errors.Join(v.errs...)
}

// checkInertia rejects a density whose vertex masses vanish in rounding next
// to the stiffness in the implicit system M + h^2 K (Baraff & Witkin 1998
// eq. 18; Weidner 2018 eq. 11): a lumped vertex mass below machine epsilon
// times h^2 k leaves the step without inertia, so the body never falls
// (density 1e-300).
func checkInertia(v *validator, b *model.Body, h float64, p string) {
	area := 0.0
	for _, f := range b.FaceU {
		e1 := dense.Vec2(f[1]).Sub(dense.Vec2(f[0]))
		e2 := dense.Vec2(f[2]).Sub(dense.Vec2(f[0]))
		area += math.Abs(e1[0]*e2[1]-e1[1]*e2[0]) / 2
	}
	mat := &b.Material
	k := max(mat.StretchStiffness, mat.ShearStiffness) // N/m: a membrane's stiffness scale
	mass := mat.Density * area / float64(len(b.Pos))   // kg, the mean lumped vertex mass
	const eps = 0x1p-52
	if mass < eps*h*h*k {
		v.fail(p+".material.density", "%v kg/m^2 gives vertices of %.3g kg, lost in rounding next to h^2 k = %.3g (dt %v s, stiffness %v N/m): the step would have no inertia; raise it above %.3g", mat.Density, mass, h*h*k, h, k, eps*h*h*k*float64(len(b.Pos))/area)
	}
}

// checkOutside rejects a body with a vertex deeper inside an analytic
// obstacle (plane, sphere, box, capsule) than the contact thickness at the
// initial pose: the contact response would throw it out in one step
// (strains 2.3-4.9 measured). Mesh obstacles are left out: an open mesh has
// no inside.
func checkOutside(v *validator, s *Scene, b *model.Body, obs []model.Obstacle, p string) {
	for oi := range obs {
		o := &obs[oi]
		if o.Kind == geom.Mesh || o.Kind == geom.Point {
			continue
		}
		sh := geom.Shape{Kind: o.Kind, Center: o.Center, Normal: o.Normal, Radius: o.Radius, HalfExtents: o.HalfExtents, A: o.A, B: o.B, Rotated: o.Rotated, R: o.Rotation}
		worst, at := 0.0, -1
		for i, x := range b.Pos {
			if d, _ := geom.SignedDistance(&sh, dense.Vec3{}, dense.Vec3(x)); d < worst {
				worst, at = d, i
			}
		}
		if at >= 0 && -worst > s.Solver.Thickness+1e-9 {
			v.fail(p+".position", "vertex %d starts %.3g m inside obstacles[%d] (%s %q), deeper than the contact thickness %v m; move the body or the obstacle", at, -worst, oi, s.Obstacles[oi].Type, o.Name, s.Solver.Thickness)
		}
	}
}

// checkEdgeNodes rejects an edge node whose strand point (from + u (to -
// from)) is off its edge's line by more than the rods' contact distance:
// the edge spring (Sanchez-Banderas 2020 eq. 1) would throw the node onto
// the line in one step (a 5 m jump measured).
func checkEdgeNodes(v *validator, r *Rods) {
	strands := map[string]*Strand{}
	for si := range r.Strands {
		strands[r.Strands[si].Name] = &r.Strands[si]
	}
	for ei := range r.EdgeNodes {
		e := &r.EdgeNodes[ei]
		st, ok := strands[e.Strand]
		if !ok || e.A == e.B {
			continue // Validate has said why
		}
		from, to := dense.Vec3(st.From), dense.Vec3(st.To)
		x := from.Add(to.Sub(from).Scale(e.U))
		a, dir := dense.Vec3(e.A), dense.Vec3(e.B).Sub(dense.Vec3(e.A))
		dir = dir.Scale(1 / dir.Norm())
		w := x.Sub(a)
		off := w.Sub(dir.Scale(w.Dot(dir))).Norm()
		if off > r.ContactDistance {
			v.fail(fmt.Sprintf("rods.edge_nodes[%d].u", ei), "strand %q's point there, %s, is %.3g m off the edge line a-b, more than rods.contact_distance %v m; an edge node must start on its edge", e.Strand, fmtVec(x[:]), off, r.ContactDistance)
		}
	}
}

// checkReach rejects an EOL reach of at least half the distance between two
// sharp features (a box's shortest edge, two nail tips): every cloth edge
// near one is then within reach of another, and no EOL vertex is created
// (edge: 30 EOL vertices at reach 0.1 m, 15 at 0.5, 0 at 1; the box's
// shortest edge is 1 m).
func checkReach(v *validator, s *Scene, reach float64) {
	sep, what := math.Inf(1), ""
	for oi := range s.Obstacles {
		o := &s.Obstacles[oi]
		switch o.Type {
		case Box:
			if e := 2 * min(o.HalfExtents[0], o.HalfExtents[1], o.HalfExtents[2]); e < sep {
				sep, what = e, fmt.Sprintf("the shortest edge of obstacles[%d] (%q)", oi, o.Name)
			}
		case Point:
			for oj := oi + 1; oj < len(s.Obstacles); oj++ {
				if q := &s.Obstacles[oj]; q.Type == Point {
					if d := dense.Vec3(o.Center).Sub(dense.Vec3(q.Center)).Norm(); d < sep {
						sep, what = d, fmt.Sprintf("the distance between the nails obstacles[%d] and [%d]", oi, oj)
					}
				}
			}
		}
	}
	if 2*reach >= sep {
		v.fail("solver.eol.reach", "%v m is not less than half %s, %v m: cloth edges would be within reach of two features at once and no EOL vertex can be created", reach, what, sep)
	}
}
