package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
)

// Integrate takes the position step x' = x + h v' (Weidner 2018 sec. 4.3) and
// scatters positions and velocities back to the vertex entities. A
// non-finite velocity stops the run with an error naming the vertex, before
// anything is written back.
type Integrate struct {
	state  *ClothState
	pos    generic.Map1[components.Position]
	vel    generic.Map1[components.Velocity]
	member generic.Map1[components.Member]
	body   generic.Map1[components.Body]
}

// NewIntegrate returns the system.
func NewIntegrate(w *ecs.World, state *ClothState) *Integrate {
	return &Integrate{
		state:  state,
		pos:    generic.NewMap1[components.Position](w.ECS),
		vel:    generic.NewMap1[components.Velocity](w.ECS),
		member: generic.NewMap1[components.Member](w.ECS),
		body:   generic.NewMap1[components.Body](w.ECS),
	}
}

// Name implements ecs.System.
func (in *Integrate) Name() string { return "integrate" }

// Step implements ecs.System.
func (in *Integrate) Step(w *ecs.World) error {
	s := in.state
	for j, v := range s.VNew {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			m := in.member.Get(s.Verts[j/3])
			return fmt.Errorf("velocity of vertex %d of body %q is %v", m.Index, in.body.Get(m.Body).Name, v)
		}
	}
	h := s.H
	for i, e := range s.Verts {
		x := in.pos.Get(e)
		v := in.vel.Get(e)
		for k := 0; k < 3; k++ {
			j := 3*i + k
			s.V[j] = s.VNew[j]
			s.X[j] += h * s.VNew[j]
			v[k], x[k] = s.V[j], s.X[j]
		}
	}
	return nil
}
