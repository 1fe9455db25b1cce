package systems

import (
	"fmt"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Access is what an embedding (package loom) reads and changes of a running
// Sim between steps, keeping arche's types inside systems: vertex
// positions, the obstacles as entities, pins. Its methods allocate nothing
// once the caller's buffers have grown to size.
type Access struct {
	sim      *Sim
	pos      generic.Map1[components.Position]
	vel      generic.Map1[components.Velocity]
	obstacle generic.Map1[components.Obstacle]
	isObs    generic.Map[components.Obstacle]
	pinned   generic.Map1[components.Pinned]
	isPinned generic.Map[components.Pinned]
	eol      *generic.Filter1[components.EOL]
	scripts  *Scripts
}

// NewAccess returns the accessor of s.
func NewAccess(s *Sim) *Access {
	w := s.World.ECS
	return &Access{sim: s, pos: generic.NewMap1[components.Position](w), vel: generic.NewMap1[components.Velocity](w), obstacle: generic.NewMap1[components.Obstacle](w),
		isObs:  generic.NewMap[components.Obstacle](w),
		pinned: generic.NewMap1[components.Pinned](w), isPinned: generic.NewMap[components.Pinned](w), eol: generic.NewFilter1[components.EOL](),
		scripts: ecs.Resource[Scripts](s.World)}
}

// AppendPositions appends body i's vertex positions, in the order of
// Bodies[i].Verts, to dst.
func (a *Access) AppendPositions(i int, dst []dense.Vec3) []dense.Vec3 {
	for _, e := range a.sim.Bodies[i].Verts {
		dst = append(dst, dense.Vec3(*a.pos.Get(e)))
	}
	return dst
}

// AppendVelocities appends body i's vertex velocities, in the order of
// Bodies[i].Verts, to dst.
func (a *Access) AppendVelocities(i int, dst []dense.Vec3) []dense.Vec3 {
	for _, e := range a.sim.Bodies[i].Verts {
		dst = append(dst, dense.Vec3(*a.vel.Get(e)))
	}
	return dst
}

// Alive reports whether entity e exists.
func (a *Access) Alive(e ecs.Entity) bool { return a.sim.World.ECS.Alive(e) }

// Obstacle returns obstacle e's component (nil when e is not a live
// obstacle).
func (a *Access) Obstacle(e ecs.Entity) *components.Obstacle {
	if !a.Alive(e) || !a.isObs.Has(e) {
		return nil
	}
	return a.obstacle.Get(e)
}

// Obstacles appends the obstacle entities, in spawn order for those of the
// model, to dst.
func (a *Access) Obstacles(dst []ecs.Entity) []ecs.Entity {
	q := generic.NewFilter1[components.Obstacle]().Query(a.sim.World.ECS)
	for q.Next() {
		dst = append(dst, q.Entity())
	}
	return dst
}

// obstacleComponent is the component spawned for model obstacle o, its
// motion registered in scripts; a mesh obstacle's surface (and sequence) is
// built here.
func obstacleComponent(r geom.Runner, o *model.Obstacle, scripts *Scripts) (components.Obstacle, error) {
	co := components.Obstacle{Name: o.Name, Shape: geom.Shape{Kind: o.Kind, Center: o.Center, Normal: o.Normal,
		Radius: o.Radius, HalfExtents: o.HalfExtents, A: o.A, B: o.B}, Script: scripts.add(o.Motion), Rest: dense.Identity3, Pivot: o.Pivot, Sequence: -1}
	if o.Kind == geom.Mesh {
		var err error
		if co.Mesh, co.Sequence, err = newMeshObstacle(r, o.Mesh, scripts); err != nil {
			return components.Obstacle{}, err
		}
	}
	if o.Rotated {
		co.Rotated, co.R, co.Rest = true, o.Rotation, o.Rotation
	}
	return co, nil
}

// AddObstacle spawns obstacle o while the simulation runs, its motion
// registered as a new script; it takes part from the next step on.
func (a *Access) AddObstacle(o *model.Obstacle) (ecs.Entity, error) {
	co, err := obstacleComponent(a.sim.World.Pool, o, a.scripts)
	if err != nil {
		return ecs.Entity{}, err
	}
	return a.obstacle.NewWith(&co), nil
}

// RemoveObstacle removes obstacle e. An obstacle that EOL vertices lie on
// cannot be removed (their material-space motion is defined by its
// features).
func (a *Access) RemoveObstacle(e ecs.Entity) error {
	if a.Obstacle(e) == nil {
		return fmt.Errorf("not a live obstacle")
	}
	q := a.eol.Query(a.sim.World.ECS)
	for q.Next() {
		if q.Get().Obstacle == e {
			q.Close()
			return fmt.Errorf("obstacle %q holds EOL vertices", a.obstacle.Get(e).Name)
		}
	}
	a.sim.World.ECS.RemoveEntity(e)
	return nil
}

// Scripts returns the motion scripts resource (Pinned.Script and
// Obstacle.Script index into it).
func (a *Access) Scripts() *Scripts { return a.scripts }

// Pin holds vertex v of body i on anchor moved by motion script (-1: fixed)
// about pivot (model.Pose), replacing any pin it had. Pins change the DOF
// set: the topology version changes.
func (a *Access) Pin(i int, v int, p components.Pinned) {
	e := a.sim.Bodies[i].Verts[v]
	if a.isPinned.Has(e) {
		*a.pinned.Get(e) = p
	} else {
		a.pinned.Assign(e, &p)
	}
	a.sim.World.BumpTopology()
}

// Unpin frees vertex v of body i; it reports whether it was pinned.
func (a *Access) Unpin(i int, v int) bool {
	e := a.sim.Bodies[i].Verts[v]
	if !a.isPinned.Has(e) {
		return false
	}
	a.pinned.Remove(e)
	a.sim.World.BumpTopology()
	return true
}
