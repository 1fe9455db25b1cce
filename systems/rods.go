package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/rodstep"
)

// RodState is the gathered view of every rod node, contact and edge node that
// the rod step works on, with the entity behind each index.
type RodState struct {
	Step     rodstep.State
	Nodes    []ecs.Entity // node index -> entity
	Strands  []ecs.Entity // rod index -> strand entity
	Contacts []ecs.Entity // contact index -> contact entity
	Edges    []ecs.Entity
	pins     []components.Pinned // per node (Script -2: not pinned)

	// ReleaseSteps is model.Rods.ReleaseSteps (0: pullSteps).
	ReleaseSteps int

	LastResult rodstep.Result
	halvings   int     // since the last Measure
	residual   float64 // the largest Result.Residual since the last Measure
	stalled    int     // Result.Stalled summed since the last Measure
	topology   uint64
}

// RodGather rebuilds the rod index maps when the topology changes and gathers
// node coordinates, kinds and anchors every step.
type RodGather struct {
	state    *RodState
	nodes    *generic.Filter1[components.RodNode]
	strands  *generic.Filter1[components.Strand]
	contacts *generic.Filter1[components.RodContact]
	edges    *generic.Filter1[components.RodEdge]
	node     generic.Map1[components.RodNode]
	pos      generic.Map1[components.Position]
	vel      generic.Map1[components.Velocity]
	pinned   generic.Map[components.Pinned]
	contact  generic.Map1[components.RodContact]
	edge     generic.Map1[components.RodEdge]
	index    map[ecs.Entity]int32
}

// NewRodGather returns the system.
func NewRodGather(w *ecs.World, state *RodState) *RodGather {
	return &RodGather{
		state:    state,
		nodes:    generic.NewFilter1[components.RodNode](),
		strands:  generic.NewFilter1[components.Strand](),
		contacts: generic.NewFilter1[components.RodContact](),
		edges:    generic.NewFilter1[components.RodEdge](),
		node:     generic.NewMap1[components.RodNode](w.ECS),
		pos:      generic.NewMap1[components.Position](w.ECS),
		vel:      generic.NewMap1[components.Velocity](w.ECS),
		pinned:   generic.NewMap[components.Pinned](w.ECS),
		contact:  generic.NewMap1[components.RodContact](w.ECS),
		edge:     generic.NewMap1[components.RodEdge](w.ECS),
		index:    map[ecs.Entity]int32{},
	}
}

// Name implements ecs.System.
func (g *RodGather) Name() string { return "rod-gather" }

// Step implements ecs.System.
func (g *RodGather) Step(w *ecs.World) error {
	s := g.state
	if s.topology != w.TopologyVersion() {
		g.rebuild(w)
		s.topology = w.TopologyVersion()
	}
	st := &s.Step
	for i, e := range s.Nodes {
		n := g.node.Get(e)
		st.X[i] = dense.Vec3(*g.pos.Get(e))
		st.V[i] = dense.Vec3(*g.vel.Get(e))
		st.U[i], st.UDot[i] = n.U, n.UDot
		st.FixedU[i] = n.FixedU
		st.Kind[i] = rod.Kind(n.Kind)
		// The stick/slide state is the node's, so a rebuild of the arrays
		// (a topology change) keeps each surviving anchor's.
		st.Anchor[i] = rod.Anchor{U: n.AnchorU, Kf: n.AnchorKf, Slip: n.AnchorSlip}
		if !finite3(st.X[i][:]) || !finite3(st.V[i][:]) || math.IsNaN(n.U) {
			return fmt.Errorf("rod node %d: non-finite state x=%v v=%v u=%v", i, st.X[i], st.V[i], n.U)
		}
	}
	for k, e := range s.Contacts {
		c := g.contact.Get(e)
		st.Contacts[k] = rodstep.Contact{P: g.index[c.P], Q: g.index[c.Q], Normal: c.Normal, Gap: c.Gap, K: c.K, NormalForce: c.NormalForce, Mu: c.Mu, Cohesion: c.Cohesion,
			Shear: c.Shear, ShearCos0: c.ShearCos0, ShearRest: c.ShearRest, Stitched: c.Stitched}
	}
	return nil
}

func (g *RodGather) rebuild(w *ecs.World) {
	s := g.state
	st := &s.Step
	strandIndex := map[ecs.Entity]int32{}
	s.Strands = s.Strands[:0]
	q := g.strands.Query(w.ECS)
	for q.Next() {
		strandIndex[q.Entity()] = int32(len(s.Strands))
		s.Strands = append(s.Strands, q.Entity())
	}
	rods := make([]rodstep.Rod, len(s.Strands))
	for r := range rods {
		rods[r] = st.Rods[r] // materials are set by Build and kept
		rods[r].Nodes = nil
	}
	clear(g.index)
	s.Nodes = s.Nodes[:0]
	nq := g.nodes.Query(w.ECS)
	for nq.Next() {
		g.index[nq.Entity()] = int32(len(s.Nodes))
		s.Nodes = append(s.Nodes, nq.Entity())
	}
	n := len(s.Nodes)
	st.X, st.V = make([]dense.Vec3, n), make([]dense.Vec3, n)
	st.U, st.UDot = make([]float64, n), make([]float64, n)
	st.Rod, st.FixedU = make([]int32, n), make([]bool, n)
	st.Pinned, st.Target = make([]bool, n), make([]dense.Vec3, n)
	st.Kind, st.Anchor = make([]rod.Kind, n), make([]rod.Anchor, n)
	st.ID = make([]uint64, n)
	s.pins = make([]components.Pinned, n)
	for i, e := range s.Nodes {
		r := strandIndex[g.node.Get(e).Strand]
		st.Rod[i] = r
		// The entity (with its generation: a removed entity's ID is
		// reused) names the node across rebuilds.
		st.ID[i] = uint64(e.ID())<<32 | uint64(e.Generation())
		rods[r].Nodes = append(rods[r].Nodes, int32(i))
		s.pins[i].Script = -2
		if g.pinned.Has(e) {
			s.pins[i] = *g.pinned.Get(e)
			st.Pinned[i] = true
		}
	}
	st.Rods = rods
	s.Contacts = s.Contacts[:0]
	cq := g.contacts.Query(w.ECS)
	for cq.Next() {
		s.Contacts = append(s.Contacts, cq.Entity())
	}
	st.Contacts = make([]rodstep.Contact, len(s.Contacts))
	st.Edges = st.Edges[:0]
	eq := g.edges.Query(w.ECS)
	for eq.Next() {
		e := eq.Get()
		st.Edges = append(st.Edges, rodstep.Edge{Node: g.index[e.Node], A: e.A, Dir: e.Dir, K: e.K})
	}
}

// rodLinear maps the model's rod solver choice to rodstep's.
var rodLinear = map[model.RodLinear]rodstep.Linear{
	model.RodAuto: rodstep.LinearAuto, model.RodDirect: rodstep.LinearDirect, model.RodIterative: rodstep.LinearIterative, model.RodLagged: rodstep.LinearLagged,
}

// RodNewton takes the implicit rod step (node assignment, then Newton on the
// mixed statics-dynamics incremental potential, halving the step when Newton
// fails) and scatters positions, velocities, Eulerian coordinates, kinds and
// anchors back to the node entities.
type RodNewton struct {
	state    *RodState
	scripts  *Scripts
	settings rodstep.Settings
	node     generic.Map1[components.RodNode]
	pos      generic.Map1[components.Position]
	vel      generic.Map1[components.Velocity]
	contact  generic.Map1[components.RodContact]
	obsQuery *generic.Filter1[components.Obstacle]
}

// NewRodNewton returns the system.
func NewRodNewton(w *ecs.World, state *RodState, scripts *Scripts) *RodNewton {
	return &RodNewton{
		state: state, scripts: scripts, settings: rodstep.DefaultSettings(),
		node:     generic.NewMap1[components.RodNode](w.ECS),
		pos:      generic.NewMap1[components.Position](w.ECS),
		vel:      generic.NewMap1[components.Velocity](w.ECS),
		contact:  generic.NewMap1[components.RodContact](w.ECS),
		obsQuery: generic.NewFilter1[components.Obstacle](),
	}
}

// Name implements ecs.System.
func (r *RodNewton) Name() string { return "rod-newton" }

// Step implements ecs.System.
func (r *RodNewton) Step(w *ecs.World) error {
	s := r.state
	st := &s.Step
	clock := ecs.Resource[ecs.Clock](w)
	// Obstacles at their pose at the end of the step (ScriptedMotion ran).
	st.Obstacles = st.Obstacles[:0]
	q := r.obsQuery.Query(w.ECS)
	for q.Next() {
		o := q.Get()
		st.Obstacles = append(st.Obstacles, rodstep.Obstacle{Shape: o.Shape, Offset: o.Offset})
	}
	t0 := clock.Time
	target := func(i int, dt float64) dense.Vec3 {
		p := s.pins[i]
		return r.scripts.pinTarget(&p, t0+dt)
	}
	st.Runner = w.Pool
	res, err := st.Step(clock.Dt, r.settings, target)
	s.LastResult = res
	s.halvings += res.Halvings
	s.residual = max(s.residual, res.Residual)
	s.stalled += res.Stalled
	if err != nil {
		return err
	}
	for i, e := range s.Nodes {
		*r.pos.Get(e) = components.Position(st.X[i])
		*r.vel.Get(e) = components.Velocity(st.V[i])
		n := r.node.Get(e)
		n.U, n.UDot, n.Kind = st.U[i], st.UDot[i], uint8(st.Kind[i])
		n.AnchorU, n.AnchorSlip = st.Anchor[i].U, st.Anchor[i].Slip
	}
	for k, e := range s.Contacts {
		c := r.contact.Get(e)
		c.Normal, c.NormalForce = st.Contacts[k].Normal, st.Contacts[k].NormalForce
		c.ShearCos0, c.ShearRest = st.Contacts[k].ShearCos0, st.Contacts[k].ShearRest
	}
	return nil
}

// pullSteps is how many consecutive steps a contact's normal force must pull
// before the contact is removed, and an edge node's spring must hold its
// yarn down before the node is removed (RodEdges), unless the scene sets its
// own count (model.Rods.ReleaseSteps).
const pullSteps = 50

// releaseSteps is the scene's pull count, or pullSteps.
func (s *RodState) releaseSteps() int {
	if s.ReleaseSteps > 0 {
		return s.ReleaseSteps
	}
	return pullSteps
}

// RodContactRemoval removes a sliding contact, with its two nodes, when a
// node's Eulerian coordinate leaves its rod or, unless it is a woven
// crossing (Persistent: interlaced yarns), when the normal force pulls the
// rods together instead of pushing them apart (SB2020 sec. 5).
type RodContactRemoval struct {
	state   *RodState
	node    generic.Map1[components.RodNode]
	contact generic.Map1[components.RodContact]
	doomed  []ecs.Entity
}

// NewRodContactRemoval returns the system.
func NewRodContactRemoval(w *ecs.World, state *RodState) *RodContactRemoval {
	return &RodContactRemoval{state: state, node: generic.NewMap1[components.RodNode](w.ECS), contact: generic.NewMap1[components.RodContact](w.ECS)}
}

// Name implements ecs.System.
func (r *RodContactRemoval) Name() string { return "rod-contact-removal" }

// Step implements ecs.System.
func (r *RodContactRemoval) Step(w *ecs.World) error {
	s := r.state
	r.doomed = r.doomed[:0]
	for k, e := range s.Contacts {
		c := r.contact.Get(e)
		off := false
		for _, ne := range [2]ecs.Entity{c.P, c.Q} {
			i := s.indexOf(ne, k)
			L := s.Step.Rods[s.Step.Rod[i]].Length
			if u := r.node.Get(ne).U; u <= 0 || u >= L {
				off = true
			}
		}
		// A transient pull (rods released from a straight start, a jolt)
		// must persist for s.releaseSteps() steps before the rods are let go.
		// A pull within the step's unbalanced force (Result.Residual: the
		// accuracy of the measured forces) is no pull: rods falling freely
		// together press on each other with round-off, either sign. A step
		// whose Newton solve stalled (Result.Stalled) measured no force and
		// leaves the count as it was: counting its forces as presses kept
		// knit-sphere's contacts through its stalled steps, and two of its
		// yarns came within 0.045 mm at step 980.
		switch r := s.LastResult; {
		case c.Persistent:
			c.Pulling = 0
		case r.Stalled > 0:
		case c.NormalForce < -r.Residual:
			c.Pulling++
		default:
			c.Pulling = 0
		}
		if off || c.Pulling >= s.releaseSteps() {
			r.doomed = append(r.doomed, e, c.P, c.Q)
		}
	}
	for _, e := range r.doomed {
		w.ECS.RemoveEntity(e)
	}
	if len(r.doomed) > 0 {
		w.BumpTopology()
	}
	return nil
}

// indexOf returns the node index of contact k's node entity e.
func (s *RodState) indexOf(e ecs.Entity, k int) int32 {
	c := s.Step.Contacts[k]
	if s.Nodes[c.P] == e {
		return c.P
	}
	return c.Q
}
