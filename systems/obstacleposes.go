package systems

import (
	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// ObstaclePose is an obstacle as the writers need it: its name and its shape
// at the current pose (Shape turned by its current rotation, translated by
// Offset; components.Obstacle).
type ObstaclePose struct {
	Name   string
	Shape  geom.Shape
	Offset dense.Vec3
}

// Obstacles returns every obstacle's current pose, in the World's order
// (the same from frame to frame).
func (s *Sim) Obstacles() []ObstaclePose {
	var out []ObstaclePose
	q := generic.NewFilter1[components.Obstacle]().Query(s.World.ECS)
	for q.Next() {
		o := q.Get()
		out = append(out, ObstaclePose{Name: o.Name, Shape: o.Shape, Offset: o.Offset})
	}
	return out
}
