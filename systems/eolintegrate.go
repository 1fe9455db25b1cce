package systems

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/eol"
)

// EOLFriction is the first half of the end of an EOL step: friction
// (Weidner 2018 sec. 7) on the Lagrangian contacts and the EOL vertices, and
// the lift-off of EOL vertices whose constraints no longer push (they become
// Lagrangian with the world velocity of eq. 2, sec. 6.2). It changes only
// the solved velocities, so that self-collision, which runs after it,
// corrects the velocities the positions are updated with.
type EOLFriction struct{ c *EOLCloth }

// Name implements ecs.System.
func (e EOLFriction) Name() string { return "eol-friction" }

// Step implements ecs.System.
func (e EOLFriction) Step(w *ecs.World) error {
	c := e.c
	s := c.state
	c.contact.syncEntities(w)
	c.contact.applyFriction()
	c.lifted = c.lifted[:0]
	for k := range c.verts {
		ev := &c.verts[k]
		if ev.lifted = c.lifts(ev) || c.atBorder(ev) || c.alongBorder(ev); ev.lifted {
			c.lifted = append(c.lifted, k)
			continue
		}
		if c.friction > 0 {
			c.eolFriction(ev)
		}
	}
	for _, k := range c.lifted {
		ev := &c.verts[k]
		f := &c.features[ev.feature]
		v := eol.LiftOffVelocity(vec(s.VNew, ev.v), ev.xdotNew, ev.F)
		x := vec(s.X, ev.v)
		fv := f.VelAt(x)
		v = fv.Add(f.LeaveInward(x, v.Sub(fv)))
		copy(s.VNew[3*ev.v:3*ev.v+3], v[:])
	}
	return nil
}

// EOLIntegrate ends an EOL step after EOLFriction (and self-collision): the
// position update q += h q' of both the world positions and the EOL
// vertices' material coordinates (with their faces' rest shapes and the
// lumped masses that follow from them), and the scatter to the entities;
// the vertices that lifted off lose their EOL state.
type EOLIntegrate struct {
	c  *EOLCloth
	in *Integrate
}

// Name implements ecs.System.
func (e *EOLIntegrate) Name() string { return "eol-integrate" }

// Step implements ecs.System.
func (e *EOLIntegrate) Step(w *ecs.World) error {
	c := e.c
	if err := e.in.Step(w); err != nil {
		return err
	}
	if err := c.advanceMaterial(w, c.lifted); err != nil {
		return err
	}
	for _, k := range c.lifted {
		c.eolGet.Remove(c.verts[k].ent)
	}
	return nil
}

// eolFriction applies the impulse-based friction of Bridson et al. 2002 as
// sec. 7 does for EOL vertices: a factor from the world velocity (eq. 2)
// relative to the obstacle and the normal impulse scales the Eulerian
// velocity, and on an edge also the Lagrangian velocity along the edge.
func (c *EOLCloth) eolFriction(ev *eolVertex) {
	s := c.state
	f := &c.features[ev.feature]
	lambda := c.normalImpulse(ev)
	if lambda <= 0 {
		return
	}
	xd := vec(s.VNew, ev.v)
	fv := f.VelAt(vec(s.X, ev.v))
	vw := eol.LiftOffVelocity(xd, ev.xdotNew, ev.F).Sub(fv)
	speed := vw.Norm()
	if speed == 0 {
		return
	}
	factor := eol.FrictionFactor(c.friction, lambda/s.Mass[ev.v], speed)
	if f.Kind == components.FeatureEdge {
		rel := xd.Sub(fv)
		rel, ev.xdotNew = eol.ApplyEdgeFriction(factor, rel, ev.xdotNew, f.Dir)
		xd = rel.Add(fv)
		copy(s.VNew[3*ev.v:3*ev.v+3], xd[:])
		return
	}
	ev.xdotNew = eol.ApplyCornerFriction(factor, ev.xdotNew)
}

// advanceMaterial moves the material coordinate of every EOL vertex that
// stays on its feature by h Xdot, rebuilds the rest shapes of its faces and
// the lumped masses of their corners, holds the vertex on its feature, and
// stores Xdot and the feature parameter in its EOL state. Lifted vertices
// (indices into verts) keep their material coordinates. It works on the
// gathered arrays (c.mat, c.faceU, the state's X, FaceRest and Mass, the
// verts' EOL states) and then scatters what changed to the entities in one
// serial pass (scatterMaterial).
func (c *EOLCloth) advanceMaterial(w *ecs.World, lifted []int) error {
	s := c.state
	h := s.H
	c.skip = resize(c.skip, len(c.verts))
	clear(c.skip)
	for _, k := range lifted {
		c.skip[k] = true
	}
	c.faceMark = resize(c.faceMark, len(c.faceU))
	c.vertMark = resize(c.vertMark, s.NumVerts())
	c.faceList, c.vertList = c.faceList[:0], c.vertList[:0]
	defer func() {
		for _, f := range c.faceList {
			c.faceMark[f] = false
		}
		for _, v := range c.vertList {
			c.vertMark[v] = false
		}
	}()
	for k := range c.verts {
		if c.skip[k] {
			continue
		}
		ev := &c.verts[k]
		d := ev.xdotNew
		mat := &c.mat[ev.v]
		// Hold the vertex on its feature (velocity-level constraints leave a
		// drift of O(h^2) per step), before the material step is bounded:
		// a wire's hold point moves with the neighbours (by up to a
		// millimetre a step in wire), and the bound must see the faces'
		// world triangles as they end the step.
		f := &c.features[ev.feature]
		p := c.hold(ev, vec(s.X, ev.v))
		copy(s.X[3*ev.v:3*ev.v+3], p[:])
		// The material point may not pass over a neighbour within one step
		// (the conformal preprocessing cleans up between steps): shorten
		// the step so that no incident face loses more than 90% of its
		// material area or turns over.
		if a := c.materialStepLimit(ev, *mat, dense.Vec2{h * d[0], h * d[1]}); a < 1 {
			d = dense.Vec2{a * d[0], a * d[1]}
			ev.xdotNew = d
		}
		mat[0] += h * d[0]
		mat[1] += h * d[1]
		for _, f := range c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]] {
			U := &c.faceU[f]
			for j := range 3 {
				if s.Faces[3*int(f)+j] == ev.v {
					U[j] = *mat
				}
			}
			if !c.faceMark[f] {
				c.faceMark[f] = true
				c.faceList = append(c.faceList, f)
			}
		}
		ev.comp.XDot = d
		if f.Kind == components.FeatureEdge {
			ev.comp.T = f.ClosestOnLine(p)
		}
	}
	for _, f := range c.faceList {
		U := &c.faceU[f]
		rest, err := elastic.NewMembraneRest(U[0], U[1], U[2])
		if err != nil {
			return fmt.Errorf("EOL face %d after the material update: %w", f, err)
		}
		s.FaceRest[f] = rest
		for j := range 3 {
			if v := s.Faces[3*int(f)+j]; !c.vertMark[v] {
				c.vertMark[v] = true
				c.vertList = append(c.vertList, v)
			}
		}
	}
	for _, v := range c.vertList {
		var m float64
		for _, f := range c.vfList[c.vfStart[v]:c.vfStart[v+1]] {
			m += c.density[s.FaceBody[f]] * s.FaceRest[f].Area / 3
		}
		if !(m > 0) || math.IsInf(m, 0) {
			return fmt.Errorf("EOL update: vertex %d mass %g", v, m)
		}
		s.Mass[v] = m
	}
	c.scatterMaterial()
	return nil
}

// scatterMaterial writes advanceMaterial's results to the entities, on the
// system's goroutine: each EOL vertex that stayed on its feature gets its
// material coordinate, position, Xdot and (on an edge) feature parameter,
// each changed face its corners' material coordinates and rest shape, and
// each of their corners its lumped mass.
func (c *EOLCloth) scatterMaterial() {
	s := c.state
	for k := range c.verts {
		if c.skip[k] {
			continue
		}
		ev := &c.verts[k]
		*c.matMap.Get(ev.ent) = components.Material(c.mat[ev.v])
		*c.posMap.Get(ev.ent) = components.Position(vec(s.X, ev.v))
		comp := c.eolGet.Get(ev.ent)
		comp.XDot = ev.comp.XDot
		if c.features[ev.feature].Kind == components.FeatureEdge {
			comp.T = ev.comp.T
		}
	}
	for _, f := range c.faceList {
		face := c.faceMap.Get(s.FaceEnts[f])
		face.U = c.faceU[f]
		face.Rest = s.FaceRest[f]
	}
	for _, v := range c.vertList {
		*c.massMap.Get(s.Verts[v]) = components.Mass(s.Mass[v])
	}
}

// materialStepLimit returns the largest a in [0, 1] (by bisection) for which
// moving EOL vertex ev's material coordinate from u by a*du keeps each of its
// faces counter-clockwise with at least a tenth of its current material
// area, never shrinks a face already below 1e-4 min_edge^2, and stretches no
// face beyond eulerStretch (or further, if it is already beyond): the
// material may not run over a neighbour faster than the conformal
// preprocessing between steps can collapse it, nor squeeze a face to nothing
// over many steps.
//
// The stretch bound matters where the preprocessing cannot collapse the
// face, as when a chain runs along the cloth's border (border nodes stay):
// there eq. 9's force, mapped through the vertex's averaged F, does not feel
// the thin face's energy, so the material would flow on until the face is a
// sliver holding a world-size edge. Stopped, the stretched face pulls its
// Lagrangian corners towards the feature instead.
func (c *EOLCloth) materialStepLimit(ev *eolVertex, u, du dense.Vec2) float64 {
	s := c.state
	floor := 1e-4 * c.set.MinEdge * c.set.MinEdge // twice the smallest area a step may shrink a face to
	faces := c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]]
	c.stretch0 = c.stretch0[:0]
	for _, f := range faces {
		c.stretch0 = append(c.stretch0, c.faceStretch(f, -1, dense.Vec2{}))
	}
	ok := func(a float64) bool {
		p := dense.Vec2{u[0] + a*du[0], u[1] + a*du[1]}
		for k, f := range faces {
			U := c.faceU[f]
			var moved [3]dense.Vec2
			for j := range 3 {
				moved[j] = U[j]
				if s.Faces[3*int(f)+j] == ev.v {
					moved[j] = p
				}
			}
			a, a0 := signedArea2(moved), signedArea2(U)
			if a < 0.1*a0 || (a < floor && a < a0) {
				return false
			}
			if st := c.faceStretch(f, ev.v, p); st > math.Max(c.eulerStretch(f), c.stretch0[k]) {
				return false
			}
		}
		return true
	}
	if ok(1) {
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 20 {
		mid := (lo + hi) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// atBorder reports whether EOL vertex ev's material point has reached the
// end of the cloth: for an interior vertex, it lies within MinEdge/2
// (material space) of a border edge of one of its faces; for a border
// vertex, which slides along the border (Weidner 2018 sec. 3), within
// MinEdge/2 of a cloth corner of one of its faces, where the border ends
// (corners stay Lagrangian). The material at the feature has then run out,
// as far as the conformal mesh resolves it (the preprocessing keeps no edge
// shorter than MinEdge there, and may not remove border nodes or corners),
// and the cloth slides off the feature there (a nail's point, an edge
// running along the border, a box edge the cloth's corner slips over), so
// the vertex lifts off. Kept on, its faces towards that border or corner
// thin to slivers while their world triangles keep their size: the border
// beside a nail flapped at 2-3 m/s, and in friction a border vertex 0.6 mm
// from the corner in material space, 5 mm from it in the world, gave a face
// principal strain 7.
func (c *EOLCloth) atBorder(ev *eolVertex) bool {
	s := c.state
	border := c.borderNormal[ev.v] != (dense.Vec2{})
	u := c.mat[ev.v]
	lim := c.set.MinEdge / 2
	faces := c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]]
	for _, f := range faces {
		fU := &c.faceU[f]
		for j := range 3 {
			a, b := s.Faces[3*int(f)+(j+1)%3], s.Faces[3*int(f)+(j+2)%3]
			switch {
			case a == ev.v || b == ev.v:
				continue
			case border:
				for _, k := range [2]int{(j + 1) % 3, (j + 2) % 3} {
					if d := u.Sub(fU[k]); c.corner[s.Faces[3*int(f)+k]] && math.Hypot(d[0], d[1]) < lim {
						return true
					}
				}
			case c.borderEdge(a, b) && dense.SegmentDistance2(u, fU[(j+1)%3], fU[(j+2)%3]) < lim:
				return true
			}
		}
	}
	return false
}

// alongBorder reports whether EOL vertex ev is a border vertex held on a box edge
// that runs along the cloth's border: in material space, the edge's
// direction (the material tangent that F maps onto it, Alg. 2's t-bar) meets
// the border within the preprocessing's border angle (Weidner 2018 sec. 6.1:
// no conformal edge may meet the border at a smaller angle). The edge is the
// vertex's feature, or at a box corner the edge between the two faces whose
// rows push the vertex hardest (the edge the cloth is wrapped over there;
// none when fewer than two rows push).
//
// Such a vertex is locked (the over-constrained case of Fig. 3(d)): its
// Eulerian velocity may only run along the border (b-bar^T Xdot = 0, Alg.
// 2), which no longer carries material across the edge, and its Lagrangian
// velocity is held in the normal cone (n_i^T xdot >= 0), which forbids moving
// onto either face. The rest of the cloth is pulled back by it: in throw the
// trailing border's vertex on the box's near corner held the cloth for 70 ms
// while its speed over the top fell from 1.1 to 0.25 m/s (40% of its kinetic
// energy) and a face at it stretched to max_strain 1.4. The material has run
// out across the edge there, as at the border itself (atBorder), so the
// vertex lifts off and crosses the edge as a Lagrangian vertex held by the
// obstacle contacts.
func (c *EOLCloth) alongBorder(ev *eolVertex) bool {
	b := c.borderNormal[ev.v]
	if b == (dense.Vec2{}) {
		return false
	}
	f := &c.features[ev.feature]
	var d dense.Vec3
	switch {
	case f.Kind == components.FeatureEdge && !f.Wire:
		d = f.Dir
	case f.Kind == components.FeatureCorner:
		var n [2]dense.Vec3
		var y [2]float64
		for _, r := range c.rows[ev.rowLo:ev.rowHi] {
			switch {
			case r.Eq || r.L == (dense.Vec3{}) || !(r.Y > 0):
			case r.Y > y[0]:
				n[1], y[1] = n[0], y[0]
				n[0], y[0] = r.L, r.Y
			case r.Y > y[1]:
				n[1], y[1] = r.L, r.Y
			}
		}
		if !(y[1] > 0) {
			return false
		}
		d = n[0].Cross(n[1])
		if l := d.Norm(); l > 0 {
			d = d.Scale(1 / l)
		} else {
			return false
		}
	default:
		return false
	}
	t := featureTangent(ev.F, d)
	// |t . b| / |b| is the cosine of the angle between the edge and the
	// border normal: the sine of the angle between the edge and the border.
	return math.Abs(t[0]*b[0]+t[1]*b[1]) < math.Hypot(b[0], b[1])*math.Sin(c.set.BorderAngle*math.Pi/180)
}

// borderEdge reports whether the mesh edge a-b has a single face.
func (c *EOLCloth) borderEdge(a, b int32) bool {
	s := c.state
	n := 0
	for _, f := range c.vfList[c.vfStart[a]:c.vfStart[a+1]] {
		t := s.Faces[3*int(f) : 3*int(f)+3]
		if t[0] == b || t[1] == b || t[2] == b {
			n++
		}
	}
	return n == 1
}

// maxEulerStretch is the largest principal stretch (world over material
// length) an Eulerian step may give a face of a body without strain limits
// (see materialStepLimit).
const maxEulerStretch = 2

// eulerStretch is the largest principal stretch an Eulerian step may give
// face f: 1 + the strain limit of its body where it has one (the limit
// StrainLimit holds the Lagrangian motion to, so that neither half of the
// step breaks it), else maxEulerStretch.
func (c *EOLCloth) eulerStretch(f int32) float64 {
	if m, ok := c.strainMax[c.state.FaceBody[f]]; ok {
		return 1 + m
	}
	return maxEulerStretch
}

// faceStretch returns the largest principal stretch of face f at the
// current world positions, with vertex v's material coordinate at p (v < 0:
// as it is), or +Inf for a degenerate material triangle.
func (c *EOLCloth) faceStretch(f, v int32, p dense.Vec2) float64 {
	s := c.state
	U := c.faceU[f]
	var x [3]dense.Vec3
	for j := range 3 {
		vj := s.Faces[3*int(f)+j]
		if vj == v {
			U[j] = p
		}
		x[j] = vec(s.X, vj)
	}
	rest, err := elastic.NewMembraneRest(U[0], U[1], U[2])
	if err != nil {
		return math.Inf(1)
	}
	_, sv, _ := dense.SVD32(rest.DeformationGradient(x[0], x[1], x[2]))
	return sv[0]
}

// signedArea2 is twice the signed area of a material triangle
// (counter-clockwise positive).
func signedArea2(u [3]dense.Vec2) float64 {
	a, b := u[1].Sub(u[0]), u[2].Sub(u[0])
	return a[0]*b[1] - a[1]*b[0]
}
