package systems

import (
	"reflect"
	"strings"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/internal/snapshot"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/amg"
	"github.com/loomsim/loom/solver/blockqp"
)

// A state image (loom's checkpoints) is the world's entities and
// components (ecs.World.EncodeImage) and then the Sim itself, walked by
// package snapshot: every system in the pipeline with the fields it keeps
// from step to step (ClothState, the remesher's meshes and sizing state, the
// EOL and conformal state, the rods' gathered state and yarn contacts, the
// developable bodies' BDF2 history and factors, the self-collision state,
// the implicit solve's AMG hierarchy and warm power vector, the contact
// QP's and active set's warm starts, the clock, the scripts and the topology
// version). Decoding lays it over a Sim freshly built from the same model,
// so that what the walk leaves out keeps the fresh Sim's value: the model
// (immutable), the worker pool, arche's world object and the handles into it
// (generic maps and filters), closures, and the scheduler's timings.

// componentTypes are the component types an image may hold that a freshly
// built world has not registered yet.
var componentTypes = []reflect.Type{
	reflect.TypeFor[components.Position](), reflect.TypeFor[components.Velocity](), reflect.TypeFor[components.Mass](),
	reflect.TypeFor[components.Material](), reflect.TypeFor[components.Member](), reflect.TypeFor[components.Pinned](),
	reflect.TypeFor[components.Body](), reflect.TypeFor[components.Face](), reflect.TypeFor[components.Hinge](),
	reflect.TypeFor[components.Obstacle](), reflect.TypeFor[components.EOL](), reflect.TypeFor[components.Contact](),
	reflect.TypeFor[components.Strand](), reflect.TypeFor[components.RodNode](), reflect.TypeFor[components.RodContact](),
	reflect.TypeFor[components.RodEdge](),
}

// StateConfig is what a state image leaves to the Sim it is laid over:
// the model, the worker pool, and every type of the standard library or of
// arche that holds pointers (arche's world and the maps and filters bound
// to it, timers, locks' waiters).
var StateConfig = snapshot.Config{Skip: func(t reflect.Type) bool {
	switch t {
	case reflect.TypeFor[model.Model](), reflect.TypeFor[ecs.Pool]():
		return true
	}
	pkg := t.PkgPath()
	if pkg == "" {
		return false
	}
	foreign := strings.HasPrefix(pkg, "github.com/mlange-42/arche") || !strings.Contains(strings.Split(pkg, "/")[0], ".")
	return foreign && snapshot.HasPointers(t)
},
	Types: []reflect.Type{reflect.TypeFor[*amg.Preconditioner]()},
	Lazy:  []reflect.Type{reflect.TypeFor[blockqp.Solver]()},
}

// EncodeState appends the image of s's state to e.
func (s *Sim) EncodeState(e *snapshot.Encoder) {
	s.World.EncodeImage(e)
	e.Encode(&s)
}

// DecodeState lays the state image read by d over s, which must be built
// from the model the image was made with and not stepped since. It costs
// the image's size; no step runs.
func (s *Sim) DecodeState(d *snapshot.Decoder) error {
	if err := s.World.DecodeImage(d, componentTypes); err != nil {
		return err
	}
	self := s
	if err := d.Decode(&self); err != nil {
		return err
	}
	if self != s {
		return snapshot.ErrImage // the root is always decoded into s
	}
	return nil
}
