package systems

import (
	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
)

// Sim is a model spawned into a World with its step pipeline.
type Sim struct {
	Model       *model.Model
	World       *ecs.World
	Scheduler   *ecs.Scheduler
	State       *ClothState
	Rods        *RodState // nil without rods
	Remesh      *Remesh   // nil when no body is remeshed
	EOL         *EOLCloth // nil unless the pipeline is model.EOL
	Conformal   *ConformalRemesh
	StrainLimit *StrainLimit // nil when no body has strain limits
	// SelfCollision is nil unless solver.self_contact is set.
	SelfCollision *SelfCollision
	Developable   *DevelopableCloth // nil unless the pipeline is model.Developable
	Clock         *ecs.Clock
	Bodies        []BodyMesh
}

// BodyMesh is what the writers need of one body: its name, its vertex
// entities in grid order and its faces (indices into Verts), and the
// material-space level: the distinct material points U (a seam vertex has
// one per panel) and the faces over them (UFaces[f][k] is corner k of
// Faces[f]).
type BodyMesh struct {
	Name   string
	Verts  []ecs.Entity
	Faces  [][3]int32
	U      [][2]float64
	UFaces [][3]int32
}

// Build spawns the model's entities into a new World whose pool has the given
// number of workers, assembles the model's pipeline (pipelines.go) and runs
// its initial stages, so that the state can be measured before the first
// step.
func Build(m *model.Model, workers int) (*Sim, error) {
	w := ecs.NewWorld(workers)
	sim := &Sim{Model: m, World: w, Clock: &ecs.Clock{Dt: m.Dt}, State: &ClothState{}}
	ecs.AddResource(w, sim.Clock)
	sp, err := spawn(w, m)
	if err != nil {
		w.Close()
		return nil, err
	}
	sim.Bodies = sp.meshes
	st := newStages(w, m, sim, sp)
	sim.Scheduler = ecs.NewScheduler(pipeline(m, st)...)
	for _, s := range initial(st) {
		if err := s.Step(w); err != nil {
			w.Close()
			return nil, err
		}
	}
	return sim, nil
}

// AdvanceClock ends the step: t += h.
type AdvanceClock struct{}

// Name implements ecs.System.
func (AdvanceClock) Name() string { return "advance-clock" }

// Step implements ecs.System.
func (AdvanceClock) Step(w *ecs.World) error {
	c := ecs.Resource[ecs.Clock](w)
	c.Step++
	c.Time += c.Dt
	return nil
}

// Step advances the simulation by one time step. EOL cloth may take it in
// several equal substeps (EOLCloth.Substeps); the clock then counts one
// step and ends at the time one step would.
func (s *Sim) Step() error {
	if s.EOL == nil {
		return s.Scheduler.Step(s.World)
	}
	c := s.Clock
	h, step, t := c.Dt, c.Step, c.Time
	n := s.EOL.Substeps(s.World, h)
	if n == 1 {
		return s.Scheduler.Step(s.World)
	}
	defer func() { c.Dt = h }()
	c.Dt = h / float64(n)
	for i := range n {
		if err := s.Scheduler.Step(s.World); err != nil {
			return err
		}
		if i < n-1 {
			c.Step = step // the step's systems see one step number
		}
	}
	c.Time = t + h
	return nil
}

// Close releases the worker pool.
func (s *Sim) Close() { s.World.Close() }

func ptr[T any](v T) *T { return &v }

// Positions returns the current world positions of body i's vertices in grid
// order.
func (s *Sim) Positions(i int) [][3]float64 {
	pos := generic.NewMap1[components.Position](s.World.ECS)
	b := s.Bodies[i]
	out := make([][3]float64, len(b.Verts))
	for j, e := range b.Verts {
		out[j] = [3]float64(*pos.Get(e))
	}
	return out
}

// StrandNames returns the strands' names in rod order.
func (s *Sim) StrandNames() []string {
	if s.Rods == nil {
		return nil
	}
	names := generic.NewMap1[components.Strand](s.World.ECS)
	out := make([]string, len(s.Rods.Strands))
	for i, e := range s.Rods.Strands {
		out[i] = names.Get(e).Name
	}
	return out
}
