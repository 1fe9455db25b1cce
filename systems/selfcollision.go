package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/selfcontact"
)

// SelfCollision is cloth self- and cloth-cloth collision (solver/selfcontact,
// Bridson et al. 2002): after the solve and before the position update it
// corrects the solved velocities VNew so that x = X + h VNew is reached
// without crossings, repelling proximities within the thickness. That keeps
// a state free of crossings only if nothing else moves the surface: the
// remeshing stages do, and with self-contact on they leave out a pass that
// would cross (BodyRemesher.apart). Pinned
// vertices, and in the EOL pipeline the EOL vertices, keep their velocities
// (infinite mass). The BVH and edge list are rebuilt when the topology
// version changes.
//
// The obstacles take part as kinematic geometry
// (selfcontact.Kinematic), so that their edges and corners cannot cross the
// cloth's faces between vertices, nor the fail-safe push cloth into them:
// boxes exactly, spheres and capsules as meshes whose triangles lie inside
// them by at most kinematicError times the contact thickness
// (geom.ShapeMesh), triangle-mesh obstacles as they are (a sequence's
// current frame), planes as a square under the cloth (planeQuad), moving
// with the obstacle's velocity field. Nails are left to the vertex
// contacts. The EOL vertices on the features are fixed here, at the
// contact thickness from the feature's faces, and the cloth's sharp bend
// at them is not repelled (EOLCloth.foldLabels). In the conformal
// Lagrangian pipeline the vertices on the features are Lagrangian, at the
// contact thickness too, and the obstacles meet them as any cloth vertex:
// left out, the lower of two sheets over a box edge came within 1.7 mm of
// it under the upper one (edge-layers), and its conformal remeshing had
// no room left to put its vertices on the feature.
//
// Scenes with obstacles and without self-contact run it too, for the
// obstacles alone (NewObstacleFailSafe, selfcontact.Params.KinematicOnly):
// the vertex contacts alone let a sphere poke 5.8 mm through a coarse face
// of sphere between its vertices (4 mm in sphere-arcsim); with it, surface
// max_penetration is 0 in every frame, for 15% of sphere's step time.
// Obstacle-face rows in the solve (SelfProximity with obstacle vertices)
// were the other way: they need the QP solver instead of the filtered PCG,
// which made sphere's implicit solve about 10 times slower.
//
// With proximity rows in the solve (SelfProximity), the repulsions are
// skipped: the rows hold the pairs already, and an impulse after the solve
// is what stored energy in twist's membrane.
type SelfCollision struct {
	state     *ClothState
	eol       *EOLCloth // nil outside the EOL pipeline
	params    selfcontact.Params
	solver    selfcontact.Solver
	topology  uint64
	built     bool
	invMass   []float64
	obsFilter *generic.Filter1[components.Obstacle]
	obs       []components.Obstacle
	meshes    []obstacleMesh
	kin       selfcontact.Kinematic
	prox      []selfcontact.Proximity
	rows      bool      // SelfProximity puts the proximities in the solve
	apart     []bool    // per obstacle: left out of this step's Solve (markApart)
	convex    []bool    // markApart's scratch: per obstacle, whether it is checked,
	dmin      []float64 // the least end-of-step distance of a cloth vertex from it,
	slip      []float64 // the largest squared cloth vertex velocity relative to its motion,
	near      []int32   // the vertex that last found it within reach (nearestDistances)

	Last selfcontact.Stats // the last step's counts
}

// kinematicError is the chordal error of the round obstacles' meshes, as a
// fraction of the contact thickness: the depth by which such an obstacle can
// still reach through a cloth face between its vertices.
const kinematicError = 0.05

// obstacleMesh is an analytic obstacle's surface mesh in its own frame (pos),
// or for a mesh obstacle just its triangles.
type obstacleMesh struct {
	pos    []dense.Vec3
	faces  []int32
	radius float64 // meshRadius, of an analytic obstacle's mesh
}

// NewSelfCollision returns the system; eol is the EOL cloth whose EOL
// vertices stay fixed, or nil; the scene's obstacles join as kinematic
// geometry with the contact thickness.
func NewSelfCollision(state *ClothState, eol *EOLCloth, set model.SelfContact, contactThickness float64) *SelfCollision {
	return &SelfCollision{state: state, eol: eol,
		params:    selfcontact.Params{Thickness: set.Thickness, Friction: set.Friction, KinematicThickness: contactThickness},
		obsFilter: generic.NewFilter1[components.Obstacle]()}
}

// NewObstacleFailSafe returns the system for a scene without cloth
// self-contact: only the obstacles' pairs with the cloth, at the contact
// thickness (selfcontact.Params.KinematicOnly).
func NewObstacleFailSafe(state *ClothState, contactThickness float64) *SelfCollision {
	return &SelfCollision{state: state,
		params:    selfcontact.Params{Thickness: contactThickness, KinematicThickness: contactThickness, KinematicOnly: true},
		obsFilter: generic.NewFilter1[components.Obstacle]()}
}

// Name implements ecs.System.
func (sc *SelfCollision) Name() string { return "self-collision" }

// Step implements ecs.System.
func (sc *SelfCollision) Step(w *ecs.World) error {
	s := sc.state
	n := s.NumVerts()
	if err := sc.prepare(w, true); err != nil {
		return err
	}
	sc.invMass = resize(sc.invMass, n)
	for i := range n {
		m := s.Mass[i]
		switch {
		case s.pinned(i), !(m > 0):
			sc.invMass[i] = 0
		case sc.eol != nil && i < len(sc.eol.eolOf) && sc.eol.eolOf[i] >= 0:
			sc.invMass[i] = 0
		default:
			sc.invMass[i] = 1 / m
		}
	}
	par := sc.params
	if sc.eol != nil {
		par.Fold = sc.eol.foldLabels(par.Fold)
		sc.params.Fold = par.Fold
	}
	par.NoRepulsions = sc.rows && len(s.Pairs) > 0
	st, err := sc.solver.Solve(w.Pool, s.X, s.VNew, sc.invMass, s.H, par, sc.kin)
	sc.Last = st
	if err != nil {
		return fmt.Errorf("self-collision: %w", err)
	}
	return nil
}

// prepare gathers the obstacles, marks those apart from the cloth over the
// step when certify is set (markApart: the solved velocities VNew must be
// this step's), places the others and sets the solver's topology when it
// or the obstacles changed.
func (sc *SelfCollision) prepare(w *ecs.World, certify bool) error {
	s := sc.state
	rebuild := sc.gatherObstacles(w) || !sc.built || sc.topology != s.topology
	sc.markApart(certify && !rebuild)
	sc.placeObstacles()
	if rebuild {
		if err := sc.solver.SetTopology(w.Pool, s.NumVerts(), s.Faces, s.X, sc.kin); err != nil {
			return err
		}
		sc.topology, sc.built = s.topology, true
	}
	return nil
}

// gatherObstacles collects the obstacles, meshing them the first time (and
// again if the number of obstacles changes, when it reports true), and
// places the planes' squares (planeQuad).
func (sc *SelfCollision) gatherObstacles(w *ecs.World) bool {
	obs := sc.obs[:0]
	q := sc.obsFilter.Query(w.ECS)
	for q.Next() {
		obs = append(obs, *q.Get())
	}
	sc.obs = obs
	rebuilt := false
	if len(obs) != len(sc.meshes) {
		rebuilt = true
		sc.meshes = sc.meshes[:0]
		sc.kin.Faces = sc.kin.Faces[:0]
		nk := int32(0)
		for i := range obs {
			var m obstacleMesh
			switch o := &obs[i]; o.Kind {
			case components.Mesh:
				m.faces = o.Mesh.Faces // its vertices are the surface's current ones
			case geom.Plane:
				m.pos, m.faces = make([]dense.Vec3, 4), []int32{0, 1, 2, 0, 2, 3} // placed each step (planeQuad)
			default:
				m.pos, m.faces, _, _ = geom.ShapeMesh(&o.Shape, kinematicError*sc.params.KinematicThickness)
				m.radius = meshRadius(m.pos, o.RotationCenter())
			}
			sc.meshes = append(sc.meshes, m)
			for _, f := range m.faces {
				sc.kin.Faces = append(sc.kin.Faces, f+nk)
			}
			nk += int32(sc.meshVerts(i))
		}
	}
	for i := range obs {
		if obs[i].Kind == geom.Plane {
			sc.planeQuad(i)
		}
	}
	return rebuilt
}

// placeObstacles places the obstacles' meshes at their current pose with
// their velocities in sc.kin, but for those marked apart (markApart): the
// Solve does not read them. Selfcontact wants the positions at the start
// of the step; the obstacles are at their pose at its end (ScriptedMotion
// ran), so each vertex is taken back along its velocity: x - h v.
func (sc *SelfCollision) placeObstacles() {
	obs := sc.obs
	h := sc.state.H
	nk := sc.kinVerts()
	sc.kin.X = slices.Grow(sc.kin.X[:0], 3*nk)[:3*nk]
	sc.kin.V = slices.Grow(sc.kin.V[:0], 3*nk)[:3*nk]
	X, V := sc.kin.X, sc.kin.V
	j := 0
	for i := range obs {
		nv := sc.meshVerts(i)
		if sc.apart[i] {
			j += 3 * nv
			continue
		}
		pl := placementOf(&obs[i])
		for k := range nv {
			x0, x1, x2, v0, v1, v2 := pl.at(sc.ownPoint(i, k))
			X[j], X[j+1], X[j+2] = x0-h*v0, x1-h*v1, x2-h*v2
			V[j], V[j+1], V[j+2] = v0, v1, v2
			j += 3
		}
	}
}

// ownPoint is vertex k of obstacle i's kinematic mesh in the obstacle's own
// frame, with its deformation velocity (a mesh obstacle's current frame
// and vertex velocities; zero for an analytic obstacle's mesh).
func (sc *SelfCollision) ownPoint(i, k int) (p0, p1, p2, u0, u1, u2 float64) {
	if o := &sc.obs[i]; o.Kind == components.Mesh {
		m := o.Mesh
		if m.Vel != nil {
			u0, u1, u2 = m.Vel[3*k], m.Vel[3*k+1], m.Vel[3*k+2]
		}
		return m.Pos[3*k], m.Pos[3*k+1], m.Pos[3*k+2], u0, u1, u2
	}
	p := &sc.meshes[i].pos[k]
	return p[0], p[1], p[2], 0, 0, 0
}

// kinVerts is the number of vertices of all the obstacles' kinematic meshes.
func (sc *SelfCollision) kinVerts() int {
	n := 0
	for i := range sc.obs {
		n += sc.meshVerts(i)
	}
	return n
}

// meshRadius is the largest distance of an obstacle mesh's vertices (its
// own frame) from its rotation centre c: no point of it turns faster than
// |omega| times that.
func meshRadius(pos []dense.Vec3, c dense.Vec3) float64 {
	r := 0.0
	for _, p := range pos {
		r = max(r, p.Sub(c).Norm())
	}
	return r
}

// apartMargin is the factor on the kinematic thickness that markApart's
// bound must clear (with twice the collision tolerance on top): slack for
// the rounding of the distances it sums.
const apartMargin = 1.1

// markApart sets sc.apart for each obstacle, and sc.kin.Apart for its mesh
// vertices, when its body provably stays farther than the kinematic
// thickness from every cloth point over the step, so that the fail-safe
// can leave it out with the same result (selfcontact.Kinematic.Apart);
// with check false (before the solve, or when the solver's topology is set
// this step from every obstacle's placed mesh) none is. Only convex
// analytic obstacles are checked (boxes, spheres, capsules; planes, whose
// square lies in the plane); mesh obstacles never are.
//
// The bound, at the step's end (x1 = x + h v, the obstacle K at its pose,
// its mesh inside K) and carried back over the step by the relative
// motion: a cloth point p(t) = sum_j w_j x_j(t) and a mesh point q(t) both
// move linearly, to p1 and q1, by Delta_p = sum_j w_j h v_j and by h (vel +
// omega x (q1 - c)) (c the obstacle's rotation centre, |q1 - c| <= r:
// meshRadius), so
//
//	|p(t) - q(t)| >= |p1 - q1| - |Delta_p - h vel| - h |omega| r,
//	|p1 - q1| >= min_j d_j - L / sqrt(3),
//	|Delta_p - h vel| <= max_j |h v_j - h vel|,
//
// d_j the signed distance of x1_j from K and L the longest cloth edge at
// x1: every point of a triangle lies within L / sqrt(3) of one of its
// corners (TestTriangleCoverRadius). The obstacle is apart when min_j d_j
// - L / sqrt(3) - max_j |h v_j - h vel| - h |omega| r exceeds
// apartMargin times the kinematic thickness plus twice the collision
// tolerance.
func (sc *SelfCollision) markApart(check bool) {
	s := sc.state
	sc.apart = resize(sc.apart, len(sc.obs))
	clear(sc.apart)
	sc.kin.Apart = resize(sc.kin.Apart, sc.kinVerts())
	clear(sc.kin.Apart)
	if !check {
		return
	}
	sc.dmin = resize(sc.dmin, len(sc.obs))
	sc.slip = resize(sc.slip, len(sc.obs))
	sc.convex = resize(sc.convex, len(sc.obs))
	checked := false
	for i := range sc.obs {
		sc.dmin[i], sc.slip[i] = math.Inf(1), 0
		switch sc.obs[i].Kind {
		case geom.Plane, geom.Sphere, geom.Box, geom.Capsule:
			sc.convex[i], checked = true, true
		default:
			sc.convex[i] = false
		}
	}
	if !checked {
		return
	}
	h := s.H
	need := apartMargin*sc.params.KinematicThickness + 2*sc.params.Tolerance()
	if !sc.nearestDistances(need) {
		return
	}
	// The largest relative displacement and edge length, as the largest
	// squared ones: h sqrt(.) is monotone, so its maximum is h sqrt(max).
	slip2 := sc.slip
	for j := 0; j+2 < len(s.X); j += 3 {
		v0, v1, v2 := s.VNew[j], s.VNew[j+1], s.VNew[j+2]
		for i := range sc.obs {
			if sc.convex[i] {
				w := &sc.obs[i].Vel
				d0, d1, d2 := v0-w[0], v1-w[1], v2-w[2]
				slip2[i] = max(slip2[i], d0*d0+d1*d1+d2*d2)
			}
		}
	}
	L2 := 0.0
	for f := 0; f+2 < len(s.Faces); f += 3 {
		for k := range 3 {
			a, b := 3*int(s.Faces[f+k]), 3*int(s.Faces[f+(k+1)%3])
			xa, xb := s.X[a:a+3:a+3], s.X[b:b+3:b+3]
			va, vb := s.VNew[a:a+3:a+3], s.VNew[b:b+3:b+3]
			e0 := (xb[0] - xa[0]) + h*(vb[0]-va[0])
			e1 := (xb[1] - xa[1]) + h*(vb[1]-va[1])
			e2 := (xb[2] - xa[2]) + h*(vb[2]-va[2])
			L2 = max(L2, e0*e0+e1*e1+e2*e2)
		}
	}
	L := math.Sqrt(L2)
	k := 0
	for i := range sc.obs {
		o, nv := &sc.obs[i], sc.meshVerts(i)
		if sc.convex[i] && sc.dmin[i]-L/math.Sqrt(3)-h*math.Sqrt(slip2[i])-h*o.Omega.Norm()*sc.meshes[i].radius > need {
			sc.apart[i] = true
			for v := k; v < k+nv; v++ {
				sc.kin.Apart[v] = true
			}
		}
		k += nv
	}
}

// nearestDistances sets sc.dmin[i], for each obstacle still marked in
// sc.convex, to the least signed distance of a cloth vertex's end-of-step
// position x + h v from it, and unmarks an obstacle as soon as some vertex
// is within need of it: the bound of markApart only subtracts from dmin,
// so that obstacle cannot be apart. The vertex that decided it is checked
// first at the next step (sc.near): a cloth that stays at an obstacle is
// decided by one distance. It reports whether any obstacle is still
// marked.
func (sc *SelfCollision) nearestDistances(need float64) bool {
	s := sc.state
	h := s.H
	nv := len(s.X) / 3
	sc.near = resize(sc.near, len(sc.obs))
	left := 0
	dist := func(i, j int) float64 {
		o := &sc.obs[i]
		x1 := dense.Vec3{s.X[3*j] + h*s.VNew[3*j], s.X[3*j+1] + h*s.VNew[3*j+1], s.X[3*j+2] + h*s.VNew[3*j+2]}
		d, _ := geom.SignedDistance(&o.Shape, o.Offset, x1)
		return d
	}
	for i := range sc.obs {
		if !sc.convex[i] {
			continue
		}
		if j := int(sc.near[i]); j < nv {
			sc.dmin[i] = min(sc.dmin[i], dist(i, j))
		}
		if sc.dmin[i] > need {
			left++
		} else {
			sc.convex[i] = false
		}
	}
	for j := 0; j < nv && left > 0; j++ {
		for i := range sc.obs {
			if !sc.convex[i] {
				continue
			}
			sc.dmin[i] = min(sc.dmin[i], dist(i, j))
			if !(sc.dmin[i] > need) {
				sc.convex[i], sc.near[i] = false, int32(j)
				left--
			}
		}
	}
	return left > 0
}

// planeQuad places plane i's stand-in in the fail-safe (in its own frame):
// a square of two triangles about the point of the plane under the centre
// of the box around the cloth's start and end positions, of half-size that
// box's diagonal plus planeMargin, so that every cloth point that can reach
// the plane in this step lies over it. An infinite plane has no edges or
// corners for the cloth to cross; the square keeps the fail-safe from
// pushing cloth through it.
func (sc *SelfCollision) planeQuad(i int) {
	s, o := sc.state, &sc.obs[i]
	// The box of x and x + h v over the vertices, on scalars (as
	// geom.AABB.Grow takes them).
	box := geom.EmptyAABB()
	lo0, lo1, lo2 := box.Lo[0], box.Lo[1], box.Lo[2]
	hi0, hi1, hi2 := box.Hi[0], box.Hi[1], box.Hi[2]
	h := s.H
	for k := 0; k+2 < len(s.X); k += 3 {
		x, v := s.X[k:k+3:k+3], s.VNew[k:k+3:k+3]
		lo0, lo1, lo2 = min(lo0, x[0]), min(lo1, x[1]), min(lo2, x[2])
		hi0, hi1, hi2 = max(hi0, x[0]), max(hi1, x[1]), max(hi2, x[2])
		e0, e1, e2 := x[0]+h*v[0], x[1]+h*v[1], x[2]+h*v[2]
		lo0, lo1, lo2 = min(lo0, e0), min(lo1, e1), min(lo2, e2)
		hi0, hi1, hi2 = max(hi0, e0), max(hi1, e1), max(hi2, e2)
	}
	box = geom.AABB{Lo: dense.Vec3{lo0, lo1, lo2}, Hi: dense.Vec3{hi0, hi1, hi2}}
	half := box.Hi.Sub(box.Lo).Norm() + planeMargin
	// The box's centre in the plane's own frame (placement.at's inverse).
	ctr := box.Lo.Add(box.Hi).Scale(0.5).Sub(o.Offset)
	if o.Rotated {
		c := o.RotationCenter()
		ctr = c.Add(o.R.T().MulVec(ctr.Sub(c)))
	}
	n := o.Normal
	foot := ctr.Sub(n.Scale(ctr.Sub(o.Center).Dot(n)))
	t1, t2 := dense.Tangents(n)
	m := &sc.meshes[i]
	m.pos = m.pos[:0]
	for _, uv := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
		m.pos = append(m.pos, foot.Add(t1.Scale(uv[0]*half)).Add(t2.Scale(uv[1]*half)))
	}
	m.radius = meshRadius(m.pos, o.RotationCenter())
}

// planeMargin (m) is added to the half-size of a plane's square (planeQuad).
const planeMargin = 1

// meshVerts is the number of vertices of obstacle i's kinematic mesh.
func (sc *SelfCollision) meshVerts(i int) int {
	if o := &sc.obs[i]; o.Kind == components.Mesh {
		return len(o.Mesh.Pos) / 3
	}
	return len(sc.meshes[i].pos)
}
