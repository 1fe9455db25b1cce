// Package ecs is loom's thin layer over the arche entity-component-system
// (github.com/mlange-42/arche v0.15.3): the World, typed resources, the ordered
// system scheduler with per-system timings, the worker pool and the CPU
// description. arche's types stay inside ecs and systems, so the engine can move
// to another ECS by changing those two packages only.
package ecs

import (
	arche "github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"
)

// Entity is a handle to an entity of the World (arche's Entity).
type Entity = arche.Entity

// World holds every entity of a scene, its resources, the worker pool and the
// topology version.
type World struct {
	// ECS is the underlying arche world. Only the goroutine running the
	// scheduler touches it; pool workers see gathered arrays.
	ECS *arche.World
	// Pool runs parallel loops over elements and rows.
	Pool *Pool

	topology uint64
}

// NewWorld returns an empty world whose pool has the given number of workers
// (see WorkerCount for the default).
func NewWorld(workers int) *World {
	w := arche.NewWorld()
	return &World{ECS: &w, Pool: NewPool(workers), topology: 1}
}

// TopologyVersion is a counter that changes whenever entities that define the
// mesh topology (vertices, faces, hinges) are created or removed. Derived data
// (DOF numbering, adjacency, sparsity patterns) keys on it and is rebuilt only
// when it changes.
func (w *World) TopologyVersion() uint64 { return w.topology }

// BumpTopology records a topology change.
func (w *World) BumpTopology() { w.topology++ }

// Close stops the worker pool.
func (w *World) Close() { w.Pool.Close() }

// AddResource stores r as the world's resource of type T.
func AddResource[T any](w *World, r *T) {
	res := generic.NewResource[T](w.ECS)
	res.Add(r)
}

// Resource returns the world's resource of type T, or nil if it has none.
func Resource[T any](w *World) *T {
	res := generic.NewResource[T](w.ECS)
	if !res.Has() {
		return nil
	}
	return res.Get()
}

// Clock is the simulation clock resource.
type Clock struct {
	Step int     // steps taken
	Time float64 // s
	Dt   float64 // s, the step size
}
