package systems

import (
	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
)

// Scripts is the resource holding the scene's motion scripts and deforming
// mesh sequences; Pinned.Script and Obstacle.Script index Motions,
// Obstacle.Sequence indexes Sequences.
type Scripts struct {
	Motions   []model.Motion
	Sequences []*MeshSequence
}

// add appends motion m and returns its index, or -1 (no script) when m is nil.
func (s *Scripts) add(m model.Motion) int32 {
	if m == nil {
		return -1
	}
	s.Motions = append(s.Motions, m)
	return int32(len(s.Motions) - 1)
}

// offset returns script i's displacement at time t (zero for i < 0).
func (s *Scripts) offset(i int32, t float64) dense.Vec3 {
	if i < 0 {
		return dense.Vec3{}
	}
	return dense.Vec3(s.Motions[i].Offset(t))
}

// pinTarget returns where pin p's vertex is scripted to be at time t: its
// anchor moved by its motion about its pivot (model.Pose).
func (s *Scripts) pinTarget(p *components.Pinned, t float64) dense.Vec3 {
	if p.Script < 0 {
		return p.Anchor.Add(dense.Vec3{})
	}
	return model.Pose(s.Motions[p.Script], p.Pivot, p.Anchor, t)
}

// obstaclePose returns the translation of obstacle o's rotation centre c and
// its motion's rotation at time t for a rotating motion m: the centre goes to
// pivot + offset + Rm (c - pivot).
func obstaclePose(o *components.Obstacle, m model.Motion, t float64) (dense.Vec3, dense.Mat3) {
	c := o.Shape.RotationCenter()
	return model.Pose(m, o.Pivot, c, t).Sub(c), dense.Mat3(m.Rotation(t))
}

// ScriptedMotion moves obstacles to their pose at the end of the step (and a
// deforming mesh's vertices to their positions then, MeshSequence) and sets
// the pinned vertices' prescribed velocities so that they land exactly on their
// scripted positions: z = (anchor + offset(t+h) - x) / h.
type ScriptedMotion struct {
	state     *ClothState
	scripts   *Scripts
	obstacles *generic.Filter1[components.Obstacle]
}

// NewScriptedMotion returns the system.
func NewScriptedMotion(state *ClothState, scripts *Scripts) *ScriptedMotion {
	return &ScriptedMotion{
		state:     state,
		scripts:   scripts,
		obstacles: generic.NewFilter1[components.Obstacle](),
	}
}

// Name implements ecs.System.
func (m *ScriptedMotion) Name() string { return "scripted-motion" }

// Step implements ecs.System.
func (m *ScriptedMotion) Step(w *ecs.World) error {
	c := ecs.Resource[ecs.Clock](w)
	t0, t1, h := c.Time, c.Time+c.Dt, c.Dt
	for _, seq := range m.scripts.Sequences {
		seq.advance(w.Pool, t0, t1)
	}
	q := m.obstacles.Query(w.ECS)
	for q.Next() {
		o := q.Get()
		if o.Script >= 0 && m.scripts.Motions[o.Script].Rotates() {
			// A turning obstacle: its centre's velocity and its angular
			// velocity are the step's finite differences, so that the
			// obstacle lands on its scripted pose at t+h.
			mo := m.scripts.Motions[o.Script]
			off0, r0 := obstaclePose(o, mo, t0)
			off1, r1 := obstaclePose(o, mo, t1)
			o.Offset, o.Vel = off1, off1.Sub(off0).Scale(1/h)
			o.Rotated, o.R = true, r1.Mul(o.Rest)
			o.Omega = dense.RotationLog(r1.Mul(r0.T())).Scale(1 / h)
			continue
		}
		prev := m.scripts.offset(o.Script, t0)
		o.Offset = m.scripts.offset(o.Script, t1)
		o.Vel = o.Offset.Sub(prev).Scale(1 / h)
	}
	s := m.state
	for _, p := range s.Pins {
		target := m.scripts.pinTarget(&p.Pinned, t1)
		i := int(p.Vertex)
		for k := 0; k < 3; k++ {
			s.PinZ[3*i+k] = (target[k] - s.X[3*i+k]) / h
		}
	}
	return nil
}
