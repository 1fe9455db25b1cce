package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
)

// PinRelease lets pins go at their release time (model.Pin.Release): it
// removes the Pinned component, which changes the DOF set and so bumps the
// topology version. Runs first in the step, so the released vertex is free
// for the whole step that starts at or after its release time.
type PinRelease struct {
	pinned *generic.Filter1[components.Pinned]
	pins   generic.Map1[components.Pinned]
	next   float64 // earliest pending release time, +Inf when none
	due    []ecs.Entity
}

// NewPinRelease returns the system.
func NewPinRelease(w *ecs.World) *PinRelease {
	r := &PinRelease{pinned: generic.NewFilter1[components.Pinned](), pins: generic.NewMap1[components.Pinned](w.ECS)}
	r.next = r.scan(w, math.Inf(-1))
	return r
}

// Name implements ecs.System.
func (r *PinRelease) Name() string { return "pin-release" }

// scan collects the pins due at time t into r.due and returns the earliest
// release time still pending after t.
func (r *PinRelease) scan(w *ecs.World, t float64) float64 {
	next := math.Inf(1)
	r.due = r.due[:0]
	q := r.pinned.Query(w.ECS)
	for q.Next() {
		p := q.Get()
		switch {
		case p.Release <= 0:
		case p.Release <= t:
			r.due = append(r.due, q.Entity())
		default:
			next = math.Min(next, p.Release)
		}
	}
	return next
}

// Step implements ecs.System.
func (r *PinRelease) Step(w *ecs.World) error {
	c := ecs.Resource[ecs.Clock](w)
	t := c.Time + c.Dt/2 // the clock accumulates rounding: a release due now must not slip a step
	if t < r.next {
		return nil
	}
	r.next = r.scan(w, t)
	for _, e := range r.due {
		r.pins.Remove(e)
	}
	if len(r.due) > 0 {
		w.BumpTopology()
	}
	return nil
}
