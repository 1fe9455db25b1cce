package systems

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/developable"
	"github.com/loomsim/loom/solver/geom"
)

// DevelopableCloth runs developable bodies (English & Bridson 2008): the
// state of each is its edge midpoints (solver/developable), and its vertex
// entities are the ghost conforming mesh x_c = A x_n, which pins hold,
// obstacles collide with, and the outputs show. The step's stages are
// DevelopablePredict, DevelopableProject, GhostCollision and
// GhostCorrection.
type DevelopableCloth struct {
	state    *ClothState
	contact  *ObstacleContact
	bodies   []devBody
	pos      generic.Map1[components.Position]
	vel      generic.Map1[components.Velocity]
	dofOf    map[ecs.Entity]int32
	topology uint64
	model    *model.Model
	meshes   []BodyMesh
	// self is the ghost meshes' self- and cloth-cloth collision
	// (solver/selfcontact through SelfCollision), nil without
	// solver.self_contact.
	self  *SelfCollision
	vSelf []float64 // collide: the ghost velocities before the self-collision

	// Of the last step, over all bodies.
	Iterations   int           // projection steps
	Factors      int           // numeric factorizations of J M^-1 J^T among them
	LDLT         time.Duration // spent factoring and solving J M^-1 J^T
	InPlaneError float64       // largest relative midpoint-distance error after the step
}

// devBody is one developable body: its solver state and its ghost
// vertices.
type devBody struct {
	name   string
	solver *developable.Body
	verts  []ecs.Entity // ghost vertices in body order
	dof    []int32      // their ClothState indices
	pins   []developable.Pin
	xc     []float64 // ghost positions after collision handling
	vc     []float64 // ghost velocities
	moved  bool      // collision handling changed xc this step
	// The ghost vertices the step's collision rounds found in obstacle
	// contact or pushed apart (by vertex; the normals and targets of the
	// latest round), and the contact rows given to the projection (sorted
	// by vertex).
	touch    map[int32]touchRow
	contacts []developable.Contact
	saved    []float64 // midpoints before a projection with contact rows
	tried    []float64 // reproject: the last successful projection's midpoints
	xp       []float64 // holdDrawnBack: the ghost mesh of a projection
	held     []bool    // holdDrawnBack: per ghost vertex, whether a contact row holds it
}

// touchRow is a ghost vertex held in the reprojection (devBody.touch): on
// an obstacle's surface, or (self) where the self-collision pushed it.
type touchRow struct {
	developable.Contact
	self bool
}

// NewDevelopableCloth returns the developable cloth of the model's bodies
// (all developable) over their spawned ghost vertices; the solver state is
// built at the first step (build), which reports any error.
func NewDevelopableCloth(w *ecs.World, state *ClothState, contact *ObstacleContact, self *SelfCollision, m *model.Model, meshes []BodyMesh) *DevelopableCloth {
	return &DevelopableCloth{state: state, contact: contact, self: self, model: m, meshes: meshes, pos: generic.NewMap1[components.Position](w.ECS),
		vel: generic.NewMap1[components.Velocity](w.ECS), topology: math.MaxUint64}
}

// build creates each body's nonconforming mesh and solver state, the
// midpoints of its initial vertex positions at rest.
func (d *DevelopableCloth) build() error {
	m := d.model
	for bi := range m.Bodies {
		b := &m.Bodies[bi]
		mesh, err := developable.NewMesh(len(b.Pos), b.Faces, b.FaceU)
		if err != nil {
			return fmt.Errorf("bodies[%d] (%s): %w", bi, b.Name, err)
		}
		x0 := make([]float64, 0, 3*len(b.Pos))
		for _, p := range b.Pos {
			x0 = append(x0, p[:]...)
		}
		set := b.Developable
		scheme := developable.FirstOrder
		if set.Scheme == model.BDF2Projection {
			scheme = developable.BDF2
		}
		sb, err := developable.NewBody(mesh, x0, developable.Params{Density: b.Material.Density, Bending: b.Material.BendingStiffness,
			Damping: b.Material.MassDamping, Gravity: m.Gravity, Dt: m.Dt, Scheme: scheme, Tolerance: set.Tolerance, MaxIter: set.MaxIterations})
		if err != nil {
			return fmt.Errorf("bodies[%d] (%s): %w", bi, b.Name, err)
		}
		d.bodies = append(d.bodies, devBody{name: b.Name, solver: sb, verts: d.meshes[bi].Verts,
			xc: make([]float64, 3*len(b.Pos)), vc: make([]float64, 3*len(b.Pos)), xp: make([]float64, 3*len(b.Pos))})
	}
	return nil
}

// Predict is the system computing each body's unconstrained prediction.
func (d *DevelopableCloth) Predict() ecs.System { return DevelopablePredict{d} }

// Project is the system projecting the predictions onto the constraints.
func (d *DevelopableCloth) Project() ecs.System { return DevelopableProject{d} }

// Collision is the system resolving obstacle contacts and self-contact on
// the ghost meshes.
func (d *DevelopableCloth) Collision() ecs.System { return GhostCollision{d} }

// Correction is the system pushing the ghost meshes' changes back and
// scattering the ghost meshes to the vertex entities.
func (d *DevelopableCloth) Correction() ecs.System { return GhostCorrection{d} }

// count adds a projection's work to the step's.
func (d *DevelopableCloth) count(st developable.ProjectStats) {
	d.Iterations += st.Iterations
	d.Factors += st.Factors
	d.LDLT += st.LDLT
}

// DevelopablePredict sets each body's pins to their scripted positions at
// the end of the step (from ScriptedMotion's prescribed velocities) and
// computes the unconstrained prediction (developable.Body.Predict).
type DevelopablePredict struct{ d *DevelopableCloth }

// Name implements ecs.System.
func (DevelopablePredict) Name() string { return "developable-predict" }

// Step implements ecs.System.
func (p DevelopablePredict) Step(w *ecs.World) error {
	d := p.d
	s := d.state
	if d.bodies == nil {
		if err := d.build(); err != nil {
			return err
		}
	}
	if d.topology != w.TopologyVersion() {
		d.dofOf = make(map[ecs.Entity]int32, len(s.Verts))
		for i, e := range s.Verts {
			d.dofOf[e] = int32(i)
		}
		for bi := range d.bodies {
			b := &d.bodies[bi]
			b.dof = b.dof[:0]
			for _, e := range b.verts {
				b.dof = append(b.dof, d.dofOf[e])
			}
		}
		d.topology = w.TopologyVersion()
	}
	for bi := range d.bodies {
		b := &d.bodies[bi]
		b.solver.Constraints.SetRunner(w.Pool)
		b.pins = b.pins[:0]
		for v, i := range b.dof {
			if !s.pinned(int(i)) {
				continue
			}
			var t [3]float64
			for k := range 3 {
				t[k] = s.X[3*i+int32(k)] + s.H*s.PinZ[3*i+int32(k)]
			}
			b.pins = append(b.pins, developable.Pin{Vertex: int32(v), Target: t})
		}
		if err := b.solver.Constraints.SetPins(b.pins); err != nil {
			return fmt.Errorf("body %q: %w", b.name, err)
		}
		clear(b.touch)
		if err := b.solver.Constraints.SetContacts(nil); err != nil {
			return fmt.Errorf("body %q: %w", b.name, err)
		}
		if err := b.solver.Predict(); err != nil {
			return fmt.Errorf("body %q: %w", b.name, err)
		}
	}
	return nil
}

// DevelopableProject projects each body's prediction onto its rigidity,
// boundary and pin constraints (fast projection or BDF2), pausing at
// collisionPause for the collision detection; GhostCollision finishes the
// projection of a body that does not collide.
type DevelopableProject struct{ d *DevelopableCloth }

// Name implements ecs.System.
func (DevelopableProject) Name() string { return "developable-project" }

// Step implements ecs.System.
func (p DevelopableProject) Step(*ecs.World) error {
	d := p.d
	d.Iterations, d.Factors, d.LDLT = 0, 0, 0
	for bi := range d.bodies {
		b := &d.bodies[bi]
		err := b.solver.ProjectUntil(collisionPause)
		d.count(b.solver.LastIt)
		if err != nil {
			return fmt.Errorf("body %q: %w", b.name, err)
		}
	}
	return nil
}

// collisionPause is the largest scaled |C| (relative midpoint-distance
// error x 2) at which DevelopableProject hands a body's prediction to
// collision detection before the projection reaches the body's tolerance:
// a body that collides is projected again with its contact rows from the
// corrected positions (GhostCorrection), which makes the last steps of the
// first projection wasted work; one that does not finishes the projection
// where it paused, and is collided again (GhostCollision). At 1e-2 the
// paused midpoints lie within about 0.005 of an edge length of the
// finished ones (on paper-drape's 51 x 51 sheet 0.03 mm, against its 2 mm
// contact thickness), and the pause saves about half the first
// projection's factorizations there.
const collisionPause = 1e-2

// GhostCollision maps each body to its ghost mesh and keeps the ghost
// vertices out of the obstacles: a vertex whose end-of-step position lies
// closer to an obstacle than the contact thickness is moved out along the
// obstacle's normal, which in the step's velocity v = (x_c - x^n)/h is a
// normal impulse; Coulomb friction with that impulse then acts on the
// tangential velocity relative to the obstacle (ObstacleContact's friction
// and contact entities). Pinned vertices keep their script. With
// solver.self_contact, the ghost meshes' velocities then go through
// SelfCollision (Bridson et al. 2002 via solver/selfcontact, the obstacles
// as kinematic geometry), so that x_c' = x_c^n + h v_c is reached from the
// start-of-step ghost mesh without crossings.
type GhostCollision struct{ d *DevelopableCloth }

// Name implements ecs.System.
func (GhostCollision) Name() string { return "ghost-collision" }

// Step implements ecs.System. A body whose projection paused
// (collisionPause) and that nothing moved finishes its projection, and
// the ghost meshes are collided again at the finished positions.
func (g GhostCollision) Step(w *ecs.World) error {
	d := g.d
	if err := d.collide(w); err != nil {
		return err
	}
	resumed := false
	for bi := range d.bodies {
		b := &d.bodies[bi]
		if b.moved || !b.solver.LastIt.Paused {
			continue
		}
		err := b.solver.Resume()
		d.count(b.solver.LastIt)
		if err != nil {
			return fmt.Errorf("body %q: %w", b.name, err)
		}
		resumed = true
	}
	if !resumed {
		return nil
	}
	return d.collide(w)
}

// collide maps each body to its ghost mesh (xc) and moves the ghost
// vertices out of the obstacles and apart (GhostCollision), recording which
// bodies moved.
func (d *DevelopableCloth) collide(w *ecs.World) error {
	s, c := d.state, d.contact
	c.gatherObstacles(w)
	s.Contacts, s.Impulse, c.rowObstacle = s.Contacts[:0], s.Impulse[:0], c.rowObstacle[:0]
	s.VNew = resize(s.VNew, 3*s.NumVerts())
	h := s.H
	for bi := range d.bodies {
		b := &d.bodies[bi]
		b.solver.Ghost.Map(b.solver.X, b.xc)
		b.moved = false
		for v, i := range b.dof {
			x := dense.Vec3(b.xc[3*v : 3*v+3])
			for k := range 3 {
				s.VNew[3*int(i)+k] = (x[k] - s.X[3*int(i)+k]) / h
			}
			if s.pinned(int(i)) {
				continue
			}
			best, depth := -1, 0.0
			var nrm dense.Vec3
			for j := range c.obstacles {
				o := &c.obstacles[j]
				dist, n := geom.SignedDistance(&o.Shape, o.Offset, x)
				if dd := c.thickness - dist; dd > depth {
					best, depth, nrm = j, dd, n
				}
			}
			if best < 0 {
				continue
			}
			c.obstacle[i], c.gap[i] = int32(best), -depth
			copy(c.normal[3*i:3*i+3], nrm[:])
			if b.touch == nil {
				b.touch = map[int32]touchRow{}
			}
			b.touch[int32(v)] = touchRow{Contact: developable.Contact{Vertex: int32(v), Normal: nrm}}
			c.addRow(int(i))
			// The push out is the velocity change depth/h along the normal:
			// a normal impulse m depth/h.
			for k := range 3 {
				s.VNew[3*int(i)+k] += nrm[k] * depth / h
			}
			s.Impulse = append(s.Impulse, s.Mass[i]*depth/h)
			b.moved = true
		}
	}
	c.applyFriction()
	c.syncEntities(w)
	if d.self != nil {
		d.vSelf = append(d.vSelf[:0], s.VNew...)
		if err := d.self.Step(w); err != nil {
			return err
		}
		if st := d.self.Last; st.Proximities+st.Impacts+st.ZoneVerts > 0 {
			for bi := range d.bodies {
				d.bodies[bi].moved = true
			}
			d.touchSelf()
		}
	}
	for bi := range d.bodies {
		b := &d.bodies[bi]
		if !b.moved {
			continue
		}
		for v, i := range b.dof {
			for k := range 3 {
				b.xc[3*v+k] = s.X[3*int(i)+k] + h*s.VNew[3*int(i)+k]
			}
			if ct, ok := b.touch[int32(v)]; ok {
				ct.Target = dense.Vec3(ct.Normal).Dot(dense.Vec3(b.xc[3*v : 3*v+3]))
				b.touch[int32(v)] = ct
			}
		}
	}
	return nil
}

// touchSelf adds to each body's contact set (devBody.touch) the ghost
// vertices the self-collision moved (their velocity changed by more than
// selfTouch of solver.contact_thickness per step) and no obstacle holds: the
// reprojection may hold each along its push's direction, where the push put
// it (reproject), as if the cloth it was pushed from were an obstacle
// surface. Without those rows the reprojection drew sheets lying on each
// other back together, the next round pushed them apart again, and the last
// round's correction, which stands unprojected, bent the faces: layers with
// three developable sheets kept an in-plane error of 0.05-0.08 in its
// frames after landing (0.005-0.014 with them; the landing itself, about
// 0.30-0.42 s, still reaches 0.68 at layers' bending stiffness:
// TestDevelopableLayers, scene layers-developable).
func (d *DevelopableCloth) touchSelf() {
	s := d.state
	eps := selfTouch * d.contact.thickness / s.H
	for bi := range d.bodies {
		b := &d.bodies[bi]
		for v, i := range b.dof {
			if ct, ok := b.touch[int32(v)]; ok && !ct.self {
				continue
			}
			dv := dense.Vec3(s.VNew[3*int(i) : 3*int(i)+3]).Sub(dense.Vec3(d.vSelf[3*int(i) : 3*int(i)+3]))
			l := dv.Norm()
			if !(l > eps) {
				continue
			}
			if b.touch == nil {
				b.touch = map[int32]touchRow{}
			}
			b.touch[int32(v)] = touchRow{Contact: developable.Contact{Vertex: int32(v), Normal: dv.Scale(1 / l)}, self: true}
		}
	}
}

// selfTouch is the fraction of the contact thickness a self-collision push
// must move a ghost vertex within the step for the vertex to be held
// (touchSelf).
const selfTouch = 1e-3

// correctionRounds bounds the rounds of GhostCorrection.
const correctionRounds = 4

// reproject projects body b again after a ghost correction, with the
// ghost vertices its collision rounds found in obstacle contact held on
// the surface by contact rows (developable.Contact), so that the
// projection reaches rigid faces and the contacts together instead of
// undoing the correction's push out. The vertices the self-collision
// pushed (touchSelf) are held where the push put them, along its
// direction, only where a projection without them draws them back by more
// than selfSlack of the contact thickness: an active set grown over at
// most selfRounds projections (holding every pushed vertex over-constrains
// the faces: layers' bottom sheet had 300-400 such rows and its
// projection failed). Where a projection with rows fails (the rows
// conflict), the last one that succeeded stands, or the projection without
// contact rows.
func (d *DevelopableCloth) reproject(b *devBody) error {
	b.contacts = b.contacts[:0]
	for _, c := range b.touch {
		if !c.self {
			b.contacts = append(b.contacts, c.Contact)
		}
	}
	b.saved = append(b.saved[:0], b.solver.X...)
	if err := d.projectFromSaved(b); err != nil {
		if len(b.contacts) == 0 {
			return err
		}
		b.contacts = b.contacts[:0]
		return d.projectFromSaved(b)
	}
	for range selfRounds {
		if !d.holdDrawnBack(b) {
			return nil
		}
		b.tried = append(b.tried[:0], b.solver.X...)
		if d.projectFromSaved(b) != nil {
			copy(b.solver.X, b.tried) // the last successful projection
			return nil
		}
	}
	return nil
}

// projectFromSaved projects body b from its midpoints before the
// reprojection (devBody.saved) with the contact rows b.contacts.
func (d *DevelopableCloth) projectFromSaved(b *devBody) error {
	slices.SortFunc(b.contacts, func(p, q developable.Contact) int { return cmp.Compare(p.Vertex, q.Vertex) })
	if err := b.solver.Constraints.SetContacts(b.contacts); err != nil {
		return err
	}
	copy(b.solver.X, b.saved)
	err := b.solver.Project()
	d.count(b.solver.LastIt)
	return err
}

// selfRounds bounds the projections of reproject that add self-collision
// rows.
const selfRounds = 2

// selfSlack is how far, as a fraction of the contact thickness, a
// projection may draw a self-collision-pushed vertex back before it is held
// (reproject).
const selfSlack = 0.1

// holdDrawnBack adds to b.contacts the self-collision-pushed vertices of b
// (touchSelf) without a row that b's projected midpoints draw back along
// their push by more than selfSlack of the contact thickness, and reports
// whether it added any.
func (d *DevelopableCloth) holdDrawnBack(b *devBody) bool {
	b.solver.Ghost.Map(b.solver.X, b.xp)
	b.held = resize(b.held, len(b.dof))
	clear(b.held)
	for _, c := range b.contacts {
		b.held[c.Vertex] = true
	}
	slack := selfSlack * d.contact.thickness
	added := false
	for v := range b.dof {
		ct, ok := b.touch[int32(v)]
		if !ok || !ct.self || b.held[v] {
			continue
		}
		if dense.Vec3(ct.Normal).Dot(dense.Vec3(b.xp[3*v:3*v+3])) < ct.Target-slack {
			b.contacts = append(b.contacts, ct.Contact)
			added = true
		}
	}
	return added
}

// GhostCorrection pushes each body's ghost-mesh change back to its
// midpoints (developable.Body.Correct, with the velocity update of the
// body's scheme). The correction is a least-norm change of the midpoints
// and bends the faces' rigidity; where it leaves the constraints beyond
// tolerance, the body is projected again (reproject) with the ghost
// vertices found in obstacle contact so far in the step held on the
// surface by contact rows, so that one projection reaches rigid faces out
// of the obstacles; the ghost mesh is then collided and corrected again
// (vertices the projection pushed in join the rows), up to
// correctionRounds rounds, the last correction standing unprojected. Then
// it closes the step and writes the ghost mesh x_c = A x_n and its
// velocity A v_n to the vertex entities and the gathered state.
type GhostCorrection struct{ d *DevelopableCloth }

// Name implements ecs.System.
func (GhostCorrection) Name() string { return "ghost-correction" }

// Step implements ecs.System.
func (g GhostCorrection) Step(w *ecs.World) error {
	d := g.d
	s := d.state
	for round := 1; ; round++ {
		again := false
		for bi := range d.bodies {
			b := &d.bodies[bi]
			if !b.moved {
				continue
			}
			b.solver.Correct(b.xc)
			if round == correctionRounds || b.solver.Residual() <= b.solver.P.Tolerance {
				continue
			}
			if err := d.reproject(b); err != nil {
				return fmt.Errorf("body %q, correction round %d: %w", b.name, round, err)
			}
			again = true
		}
		if !again {
			break
		}
		if err := d.collide(w); err != nil {
			return err
		}
	}
	d.InPlaneError = 0
	for bi := range d.bodies {
		b := &d.bodies[bi]
		b.solver.EndStep()
		d.InPlaneError = math.Max(d.InPlaneError, b.solver.Mesh.InPlaneError(b.solver.X))
		b.solver.Ghost.Map(b.solver.X, b.xc)
		b.solver.Ghost.Map(b.solver.V, b.vc)
		for v, i := range b.dof {
			x, u := b.xc[3*v:3*v+3], b.vc[3*v:3*v+3]
			if !finite3(x) || !finite3(u) {
				return fmt.Errorf("ghost vertex %d of body %q: non-finite state x=%v v=%v", v, b.name, x, u)
			}
			copy(s.X[3*i:3*i+3], x)
			copy(s.V[3*i:3*i+3], u)
			copy(d.pos.Get(b.verts[v])[:], x)
			copy(d.vel.Get(b.verts[v])[:], u)
		}
	}
	return nil
}
