// Package systems holds the stages of loom's step pipeline. Each system reads
// and writes components through ecs, gathers what the solvers need into flat
// arrays (ClothState), and scatters results back. The Lagrangian cloth pipeline
// is: DerivedData -> ScriptedMotion -> collision (ObstacleContact.Detect) ->
// ForceFill -> ImplicitSolve (PCG or LDL^T without contacts, the QP of Weidner
// 2018 eq. 12 with them) -> contact-response (ObstacleContact.Respond) ->
// Integrate: Weidner 2018 sec. 4.3 without the EOL DOFs.
package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/sparse"
)

// ClothState is the flat, gathered view of every cloth vertex and element that
// the force fill and the implicit solve work on. Vertex i owns entries 3i..3i+2
// of the per-DOF arrays. It has two parts with different owners and
// lifetimes: ClothTopology, which DerivedData rebuilds only when the world's
// topology version changes, and ClothStep, the state of the current step,
// which the pipeline's systems fill in order. Solver workspaces belong to
// the systems that use them (ImplicitSolve, EOLCloth), not to this view.
type ClothState struct {
	ClothTopology
	ClothStep
}

// ClothTopology is the part of ClothState derived from the mesh topology
// and the bodies' settings: DOF numbering, masses, element lists with their
// rest states, the sparsity pattern, the pins. DerivedData rebuilds it when
// the world's topology version changes; nothing else writes it.
type ClothTopology struct {
	topology uint64 // the world's topology version it was built for

	Verts []ecs.Entity // DOF order
	Mass  []float64    // n, kg
	Alpha []float64    // n, mass-proportional damping (1/s) of each vertex's body

	Faces     []int32 // 3 vertex indices per face
	FaceRest  []elastic.MembraneRest
	FaceLame  []elastic.Lame
	FaceBeta  []float64 // stiffness-proportional damping (s) of each face's body
	FaceBody  []ecs.Entity
	FaceEnts  []ecs.Entity
	Hinges    []int32 // 4 vertex indices per hinge
	HingeRest []elastic.HingeRest
	HingeKb   []float64
	HingeBeta []float64

	Pattern *sparse.Pattern

	Pins []Pin // the pinned vertices

	// Pins for the filtered PCG solve: a 3x3 filter per vertex (identity
	// when free, zero when pinned).
	PinFilter  []float64 // 9n
	pinnedMask []bool
}

// ClothStep is the part of ClothState that holds the current step: the
// gathered state at its start (DerivedData), the prescribed pin velocities
// (ScriptedMotion), the contact rows (collision), forces and the system
// matrix (ForceFill, Wind), the solved velocities and impulses (the solve)
// and the solve's statistics.
type ClothStep struct {
	H    float64   // s, the step size of the current step
	X, V []float64 // 3n: positions and velocities at the start of the step

	A        *sparse.BSR // the system matrix of Weidner eq. 11 with damping, over Pattern
	ElemGrad []float64
	ElemHess []float64
	Grad     []float64 // 3n, assembled elastic gradient dE/dx
	MassDiag []float64 // 3n, (1 + h alpha) m per DOF

	PinZ []float64 // 3n, the pinned vertices' prescribed velocities

	// Contact rows of this step's QP (Weidner 2018 eq. 12) and their normal
	// impulses (the QP multipliers, N s).
	Contacts []ContactRow
	Impulse  []float64
	// Proximity rows of the cloth with itself and with obstacle faces
	// (SelfProximity) and their normal impulses, after the contacts' in the
	// QP.
	Pairs       []PairRow
	PairImpulse []float64

	Ext  []float64 // 3n, external forces of the step besides gravity (wind), N
	B    []float64 // 3n, right-hand side M v + h f
	VNew []float64 // 3n, the solved velocity

	LastSolve sparse.PCGResult // the last unconstrained PCG solve
	LastQP    QPStats          // the last contact QP
	// StepPCG counts the PCG solves of the last step's implicit solve and
	// their iterations: the active-set rounds of the filtered contact solve
	// and the solves after contact refinements included.
	StepPCG struct{ Solves, Iterations int }
}

// pinned reports whether vertex i is pinned.
func (s *ClothState) pinned(i int) bool { return s.pinnedMask[i] }

// ContactRow is one inequality of the implicit step: Normal . v_Vertex >= Target.
type ContactRow struct {
	Vertex int32
	Normal dense.Vec3
	Target float64 // m/s
}

// PairRow is one proximity inequality of the implicit step between up to
// four vertices (a vertex and a face, or two edges; Bridson 2002 sec. 6):
// Normal . sum_k W_k v_{V_k} >= Target, where V_k < 0 marks a vertex that is
// not a cloth DOF (an obstacle's, whose velocity is in Target, and in Kin
// for friction).
type PairRow struct {
	V      [4]int32
	W      [4]float64
	Normal dense.Vec3
	Target float64    // m/s
	Kin    dense.Vec3 // sum of W_k v_k over the obstacle vertices
}

// Pin is a vertex whose position is scripted.
type Pin struct {
	Vertex int32
	components.Pinned
}

// NumVerts returns the number of cloth vertices.
func (s *ClothState) NumVerts() int { return len(s.Verts) }

// DerivedData rebuilds ClothState's topology-derived data (DOF numbering,
// element arrays, sparsity pattern, workspaces) when the topology version has
// changed, and gathers positions and velocities every step.
type DerivedData struct {
	state    *ClothState
	pos      generic.Map1[components.Position]
	vel      generic.Map1[components.Velocity]
	vertices *generic.Filter3[components.Position, components.Mass, components.Member]
	faces    *generic.Filter1[components.Face]
	hinges   *generic.Filter1[components.Hinge]
	bodyOf   generic.Map1[components.Member]
	bodies   generic.Map1[components.Body]
	mass     generic.Map1[components.Mass]
	pinned   generic.Map[components.Pinned]
	damping  map[ecs.Entity]BodyDamping
	dofOf    []int32               // by entity ID, each vertex's DOF index (stale for other IDs)
	patterns sparse.PatternBuilder // builds Pattern and A, reusing the last ones' storage
}

// BodyDamping is the Rayleigh damping of one body.
type BodyDamping struct{ Alpha, Beta float64 }

// NewDerivedData returns the system; damping gives each body entity's Rayleigh
// coefficients.
func NewDerivedData(w *ecs.World, state *ClothState, damping map[ecs.Entity]BodyDamping) *DerivedData {
	return &DerivedData{
		state:    state,
		pos:      generic.NewMap1[components.Position](w.ECS),
		vel:      generic.NewMap1[components.Velocity](w.ECS),
		vertices: generic.NewFilter3[components.Position, components.Mass, components.Member](),
		faces:    generic.NewFilter1[components.Face](),
		hinges:   generic.NewFilter1[components.Hinge](),
		bodyOf:   generic.NewMap1[components.Member](w.ECS),
		bodies:   generic.NewMap1[components.Body](w.ECS),
		mass:     generic.NewMap1[components.Mass](w.ECS),
		pinned:   generic.NewMap[components.Pinned](w.ECS),
		damping:  damping,
	}
}

// Name implements ecs.System.
func (d *DerivedData) Name() string { return "derived-data" }

// Step implements ecs.System.
func (d *DerivedData) Step(w *ecs.World) error {
	s := d.state
	s.H = ecs.Resource[ecs.Clock](w).Dt
	if s.topology != w.TopologyVersion() {
		if err := d.rebuild(w); err != nil {
			return err
		}
		s.topology = w.TopologyVersion()
	}
	for i, e := range s.Verts {
		x := d.pos.Get(e)
		v := d.vel.Get(e)
		if !finite3(x[:]) || !finite3(v[:]) {
			m := d.bodyOf.Get(e)
			return fmt.Errorf("vertex %d of body %q: non-finite state x=%v v=%v", m.Index, d.bodies.Get(m.Body).Name, *x, *v)
		}
		copy(s.X[3*i:3*i+3], x[:])
		copy(s.V[3*i:3*i+3], v[:])
	}
	return nil
}

func finite3(a []float64) bool {
	for _, x := range a[:3] {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func (d *DerivedData) rebuild(w *ecs.World) error {
	s := d.state
	s.Verts = s.Verts[:0]
	q := d.vertices.Query(w.ECS)
	for q.Next() {
		s.Verts = append(s.Verts, q.Entity())
	}
	// DOFs follow arche's storage order, which depends only on the order in
	// which entities were created: a function of the scene, not of the workers.
	n := len(s.Verts)
	for i, e := range s.Verts {
		if id := int(e.ID()); id >= len(d.dofOf) {
			d.dofOf = append(d.dofOf, make([]int32, id+1-len(d.dofOf))...)
		}
		d.dofOf[e.ID()] = int32(i)
	}
	s.X = resize(s.X, 3*n)
	s.V = resize(s.V, 3*n)
	s.Mass = resize(s.Mass, n)
	s.Alpha = resize(s.Alpha, n)
	s.PinFilter = resize(s.PinFilter, 9*n)
	s.PinZ = resize(s.PinZ, 3*n)
	s.B = resize(s.B, 3*n)
	s.Ext = resize(s.Ext, 3*n)
	clear(s.Ext)
	s.VNew = resize(s.VNew, 3*n)
	s.Grad = resize(s.Grad, 3*n)
	s.MassDiag = resize(s.MassDiag, 3*n)
	s.Pins = s.Pins[:0]
	s.pinnedMask = resize(s.pinnedMask, n)
	for i, e := range s.Verts {
		s.Mass[i] = float64(*d.mass.Get(e))
		if s.Mass[i] <= 0 {
			m := d.bodyOf.Get(e)
			return fmt.Errorf("vertex %d of body %q has non-positive mass %g", m.Index, d.bodies.Get(m.Body).Name, s.Mass[i])
		}
		s.Alpha[i] = d.damping[d.bodyOf.Get(e).Body].Alpha
		f := s.PinFilter[9*i : 9*i+9]
		clear(f)
		s.pinnedMask[i] = d.pinned.Has(e)
		if s.pinnedMask[i] {
			s.Pins = append(s.Pins, Pin{Vertex: int32(i), Pinned: *d.pinned.Get(e)})
		} else {
			f[0], f[4], f[8] = 1, 1, 1
		}
	}

	s.Faces, s.FaceRest, s.FaceLame, s.FaceBeta, s.FaceBody, s.FaceEnts = s.Faces[:0], s.FaceRest[:0], s.FaceLame[:0], s.FaceBeta[:0], s.FaceBody[:0], s.FaceEnts[:0]
	fq := d.faces.Query(w.ECS)
	for fq.Next() {
		f := fq.Get()
		for _, v := range f.V {
			s.Faces = append(s.Faces, d.dof(v))
		}
		s.FaceRest = append(s.FaceRest, f.Rest)
		s.FaceLame = append(s.FaceLame, f.Lame)
		s.FaceBeta = append(s.FaceBeta, d.damping[f.Body].Beta)
		s.FaceBody = append(s.FaceBody, f.Body)
		s.FaceEnts = append(s.FaceEnts, fq.Entity())
	}
	s.Hinges, s.HingeRest, s.HingeKb, s.HingeBeta = s.Hinges[:0], s.HingeRest[:0], s.HingeKb[:0], s.HingeBeta[:0]
	hq := d.hinges.Query(w.ECS)
	for hq.Next() {
		h := hq.Get()
		for _, v := range h.V {
			s.Hinges = append(s.Hinges, d.dof(v))
		}
		s.HingeRest = append(s.HingeRest, h.Rest)
		s.HingeKb = append(s.HingeKb, h.Stiffness)
		s.HingeBeta = append(s.HingeBeta, d.damping[d.bodyOf.Get(h.V[0]).Body].Beta)
	}

	p, A, err := d.patterns.Build(w.Pool, n, []sparse.ElementGroup{{Stride: 3, Verts: s.Faces, Form: sparse.Packed}, {Stride: 4, Verts: s.Hinges, Form: sparse.Factor}})
	if err != nil {
		return fmt.Errorf("sparsity pattern: %w", err)
	}
	s.Pattern, s.A = p, A
	s.ElemGrad = resize(s.ElemGrad, p.GradLen())
	s.ElemHess = resize(s.ElemHess, p.HessLen())
	return nil
}

// dof returns the DOF index of vertex entity v, or -1 (which the sparsity
// pattern rejects) when v is not one of the cloth vertices.
func (d *DerivedData) dof(v ecs.Entity) int32 {
	if id := int(v.ID()); id < len(d.dofOf) {
		if i := d.dofOf[id]; int(i) < len(d.state.Verts) && d.state.Verts[i] == v {
			return i
		}
	}
	return -1
}

// resize returns s resliced to length n, its contents left as they are, or
// a new zeroed slice with a quarter more capacity than n when s is too short:
// sizes that follow a changing mesh settle without reallocating every step.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
