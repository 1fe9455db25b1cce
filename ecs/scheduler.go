package ecs

import (
	"fmt"
	"time"
)

// System is one stage of the step pipeline.
type System interface {
	Name() string
	Step(w *World) error
}

// Scheduler runs an ordered list of systems once per step and accumulates the
// wall time spent in each.
type Scheduler struct {
	systems []System
	elapsed []time.Duration `snapshot:"-"` // measurements, not state: a checkpoint leaves them out
}

// NewScheduler returns a scheduler for the systems, in the order given.
func NewScheduler(systems ...System) *Scheduler {
	return &Scheduler{systems: systems, elapsed: make([]time.Duration, len(systems))}
}

// Systems returns the pipeline in order.
func (s *Scheduler) Systems() []System { return s.systems }

// Step runs every system once. It stops at the first error and reports which
// system failed at which step.
func (s *Scheduler) Step(w *World) error {
	step := 0
	if c := Resource[Clock](w); c != nil {
		step = c.Step
	}
	for i, sys := range s.systems {
		t0 := time.Now()
		err := sys.Step(w)
		s.elapsed[i] += time.Since(t0)
		if err != nil {
			return fmt.Errorf("step %d: system %s: %w", step, sys.Name(), err)
		}
	}
	return nil
}

// Timing is the time one system spent since the last ResetTimings.
type Timing struct {
	System  string
	Elapsed time.Duration
}

// Timings returns the accumulated time per system, in pipeline order.
func (s *Scheduler) Timings() []Timing {
	out := make([]Timing, len(s.systems))
	for i, sys := range s.systems {
		out[i] = Timing{System: sys.Name(), Elapsed: s.elapsed[i]}
	}
	return out
}

// ResetTimings zeroes the accumulated times.
func (s *Scheduler) ResetTimings() {
	for i := range s.elapsed {
		s.elapsed[i] = 0
	}
}
