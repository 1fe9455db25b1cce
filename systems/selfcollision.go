package systems

import (
	"fmt"
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
	rows      bool // SelfProximity puts the proximities in the solve

	Last selfcontact.Stats // the last step's counts
}

// kinematicError is the chordal error of the round obstacles' meshes, as a
// fraction of the contact thickness: the depth by which such an obstacle can
// still reach through a cloth face between its vertices.
const kinematicError = 0.05

// obstacleMesh is an analytic obstacle's surface mesh in its own frame (pos),
// or for a mesh obstacle just its triangles.
type obstacleMesh struct {
	pos   []dense.Vec3
	faces []int32
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
	if err := sc.prepare(w); err != nil {
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

// prepare gathers the obstacles and sets the solver's topology when it or
// the obstacles changed.
func (sc *SelfCollision) prepare(w *ecs.World) error {
	s := sc.state
	rebuilt := sc.gatherObstacles(w)
	if rebuilt || !sc.built || sc.topology != s.topology {
		if err := sc.solver.SetTopology(w.Pool, s.NumVerts(), s.Faces, s.X, sc.kin); err != nil {
			return err
		}
		sc.topology, sc.built = s.topology, true
	}
	return nil
}

// gatherObstacles places the obstacles' meshes at their current pose with
// their velocities in sc.kin, meshing them the first time (and again if the
// number of obstacles changes, when it reports true).
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
			}
			sc.meshes = append(sc.meshes, m)
			for _, f := range m.faces {
				sc.kin.Faces = append(sc.kin.Faces, f+nk)
			}
			nk += int32(sc.meshVerts(i))
		}
	}
	// Selfcontact wants the positions at the start of the step; the
	// obstacles are at their pose at its end (ScriptedMotion ran), so each
	// vertex is taken back along its velocity: x - h v.
	h := sc.state.H
	nk := 0
	for i := range obs {
		nk += sc.meshVerts(i)
	}
	sc.kin.X = slices.Grow(sc.kin.X[:0], 3*nk)[:3*nk]
	sc.kin.V = slices.Grow(sc.kin.V[:0], 3*nk)[:3*nk]
	j := 0
	for i := range obs {
		o := &obs[i]
		if o.Kind == geom.Plane {
			sc.planeQuad(i)
		}
		pl := placementOf(o)
		X, V := sc.kin.X, sc.kin.V
		if o.Kind == components.Mesh {
			m := o.Mesh
			for k := 0; k < len(m.Pos); k += 3 {
				var u0, u1, u2 float64
				if m.Vel != nil {
					u0, u1, u2 = m.Vel[k], m.Vel[k+1], m.Vel[k+2]
				}
				x0, x1, x2, v0, v1, v2 := pl.at(m.Pos[k], m.Pos[k+1], m.Pos[k+2], u0, u1, u2)
				X[j], X[j+1], X[j+2] = x0-h*v0, x1-h*v1, x2-h*v2
				V[j], V[j+1], V[j+2] = v0, v1, v2
				j += 3
			}
			continue
		}
		for _, p := range sc.meshes[i].pos {
			x0, x1, x2, v0, v1, v2 := pl.at(p[0], p[1], p[2], 0, 0, 0)
			X[j], X[j+1], X[j+2] = x0-h*v0, x1-h*v1, x2-h*v2
			V[j], V[j+1], V[j+2] = v0, v1, v2
			j += 3
		}
	}
	return rebuilt
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
	box := geom.EmptyAABB()
	for k := 0; k+2 < len(s.X); k += 3 {
		p := dense.Vec3(s.X[k : k+3])
		box = box.Grow(p).Grow(p.Add(dense.Vec3(s.VNew[k : k+3]).Scale(s.H)))
	}
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
