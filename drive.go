package loom

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// kinematic is the motion of every obstacle of a Sim: the scene's scripted
// motion (base; nil: static) until the caller sets a pose or a velocity,
// then the caller's poses. It answers the scripted-motion system with the
// pose at the start of the coming step (index 0) and at its end (index 1),
// as offsets and rotations about the obstacle's pivot (model.Motion), so
// that the obstacle's velocity and angular velocity are the finite
// differences of the poses set: the contacts see the obstacle move exactly
// as it is moved.
type kinematic struct {
	base    model.Motion
	driven  bool
	rotates bool
	h       float64 // s, the step
	tEnd    float64 // s, the end time of the step the poses were set for
	off     [2]dense.Vec3
	rot     [2]dense.Mat3
}

// at returns which pose holds at time t.
func (k *kinematic) at(t float64) int {
	if t < k.tEnd-k.h/2 {
		return 0
	}
	return 1
}

// Offset implements model.Motion.
func (k *kinematic) Offset(t float64) [3]float64 {
	switch {
	case k.driven:
		return k.off[k.at(t)]
	case k.base != nil:
		return k.base.Offset(t)
	}
	return [3]float64{}
}

// VelocityAt implements model.Motion: the finite difference of the poses.
func (k *kinematic) VelocityAt(t float64) [3]float64 {
	switch {
	case k.driven:
		return k.off[1].Sub(k.off[0]).Scale(1 / k.h)
	case k.base != nil:
		return k.base.VelocityAt(t)
	}
	return [3]float64{}
}

// Rotates implements model.Motion.
func (k *kinematic) Rotates() bool {
	if k.driven {
		return k.rotates
	}
	return k.base != nil && k.base.Rotates()
}

// Rotation implements model.Motion.
func (k *kinematic) Rotation(t float64) [3][3]float64 {
	switch {
	case k.driven:
		return k.rot[k.at(t)]
	case k.base != nil:
		return k.base.Rotation(t)
	}
	return dense.Identity3
}

// AngularVelocityAt implements model.Motion: log(R1 R0^T) / h.
func (k *kinematic) AngularVelocityAt(t float64) [3]float64 {
	switch {
	case k.driven:
		return dense.RotationLog(k.rot[1].Mul(k.rot[0].T())).Scale(1 / k.h)
	case k.base != nil:
		return k.base.AngularVelocityAt(t)
	}
	return [3]float64{}
}

// begin readies k for a pose of the step from t to t+h: the first time, the
// scripted pose at t becomes the start; at a later step, the pose last set
// (reached at t) does.
func (k *kinematic) begin(t, h float64) {
	if !k.driven {
		k.off[1], k.rot[1] = k.Offset(t), k.Rotation(t)
		k.rotates = k.Rotates()
		k.driven = true
	}
	if k.tEnd != t+h {
		k.off[0], k.rot[0] = k.off[1], k.rot[1]
	}
	k.h, k.tEnd = h, t+h
}

// pose returns the world position of o's rotation centre and its world
// rotation (relative to the shape as the scene gives it) under motion
// offset off and rotation r about o's pivot (model.Pose).
func pose(o *components.Obstacle, off dense.Vec3, r dense.Mat3) (dense.Vec3, dense.Mat3) {
	c := o.Shape.RotationCenter()
	return o.Pivot.Add(off).Add(r.MulVec(c.Sub(o.Pivot))), r.Mul(o.Rest)
}

// ObstaclePose returns obstacle h's current pose: the world position of its
// centre (a sphere's or box's centre, a capsule's midpoint, a plane's point,
// a nail's tip) and its orientation as a unit quaternion {x, y, z, w}
// relative to the scene's axes (a turned box starts at its turn).
func (s *Sim) ObstaclePose(h Obstacle) (position [3]float64, orientation [4]float64, err error) {
	sl, err := s.obstacle(h)
	if err != nil {
		return position, orientation, err
	}
	o := s.acc.Obstacle(sl.ent)
	k, t := sl.motion, s.sim.Clock.Time
	p, r := pose(o, k.Offset(t), k.Rotation(t))
	q := dense.QuatFromMat(r)
	return p, [4]float64{q[1], q[2], q[3], q[0]}, nil
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// SetObstaclePose moves obstacle h to the given pose by the end of the next
// step: position of its centre (see ObstaclePose) and orientation, a
// quaternion {x, y, z, w} (normalized here; it must not be zero). The
// obstacle moves kinematically: its contacts see the velocity and angular
// velocity that take it from its current pose to this one in one step.
// Call it once per frame before Step; a later call before the same Step
// replaces the pose. Planes and nail points cannot turn.
func (s *Sim) SetObstaclePose(h Obstacle, position [3]float64, orientation [4]float64) error {
	sl, err := s.obstacle(h)
	if err != nil {
		return err
	}
	if !finite(position[:]...) || !finite(orientation[:]...) {
		return fmt.Errorf("%w: obstacle pose position %v orientation %v is not finite", ErrInvalidValue, position, orientation)
	}
	q := dense.Quat{orientation[3], orientation[0], orientation[1], orientation[2]}
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if !(n > 1e-12) {
		return fmt.Errorf("%w: obstacle orientation %v is not a rotation (zero quaternion)", ErrInvalidValue, orientation)
	}
	if err := s.drive(sl, dense.Vec3(position), q.Normalize().Mat()); err != nil {
		return err
	}
	return nil
}

// SetObstacleVelocity moves obstacle h for the next step at velocity v
// (m/s, of its centre) and angular velocity omega (rad/s, world axes): its
// pose at the end of the step is the current one advanced by h v and
// turned by exp(h omega).
func (s *Sim) SetObstacleVelocity(h Obstacle, v, omega [3]float64) error {
	sl, err := s.obstacle(h)
	if err != nil {
		return err
	}
	if !finite(v[:]...) || !finite(omega[:]...) {
		return fmt.Errorf("%w: obstacle velocity %v angular velocity %v is not finite", ErrInvalidValue, v, omega)
	}
	o := s.acc.Obstacle(sl.ent)
	k, t, dt := sl.motion, s.sim.Clock.Time, s.sim.Clock.Dt
	p, r := pose(o, k.Offset(t), k.Rotation(t))
	p = p.Add(dense.Vec3(v).Scale(dt))
	r = dense.QuatExp(dense.Vec3(omega).Scale(dt)).Mat().Mul(r)
	if err := s.drive(sl, p, r); err != nil {
		return err
	}
	return nil
}

// drive sets the pose of sl's obstacle at the end of the coming step to
// centre p and world rotation r.
func (s *Sim) drive(sl *obstacleSlot, p dense.Vec3, r dense.Mat3) error {
	o := s.acc.Obstacle(sl.ent)
	rel := r.Mul(o.Rest.T()) // the motion's rotation: from the scene's pose
	turns := rel != dense.Identity3
	if turns && (o.Kind == geom.Plane || o.Kind == geom.Point) {
		return fmt.Errorf("%w: obstacle %q is a %s, which cannot turn", ErrInvalidValue, o.Name, kindName(o.Kind))
	}
	k := sl.motion
	k.begin(s.sim.Clock.Time, s.sim.Clock.Dt)
	c := o.Shape.RotationCenter()
	k.off[1] = p.Sub(o.Pivot).Sub(rel.MulVec(c.Sub(o.Pivot))) // pivot + off + rel (c - pivot) = p
	k.rot[1] = rel
	k.rotates = k.rotates || turns
	return nil
}

func kindName(k geom.ShapeKind) string {
	switch k {
	case geom.Plane:
		return scenes.Plane
	case geom.Sphere:
		return scenes.Sphere
	case geom.Box:
		return scenes.Box
	case geom.Capsule:
		return scenes.Capsule
	}
	return scenes.Point
}

// AddObstacle adds an obstacle, given in the scene format (validated like
// the scene's own; its name must differ from the live obstacles'), while
// the simulation runs; it takes part from the next step on, moved by its
// scripted motion (if any) until driven.
func (s *Sim) AddObstacle(o scenes.Obstacle) (Obstacle, error) {
	if s.closed {
		return 0, ErrClosed
	}
	for _, h := range s.Obstacles() {
		if sl, _ := s.obstacle(h); s.acc.Obstacle(sl.ent).Name == o.Name {
			return 0, fmt.Errorf("%w: AddObstacle: an obstacle named %q exists", ErrInvalidValue, o.Name)
		}
	}
	e, k, err := s.spawnObstacle(o)
	if err != nil {
		return 0, fmt.Errorf("%w: AddObstacle %q: %w", ErrInvalidValue, o.Name, err)
	}
	s.added = append(s.added, o)
	slot := slices.IndexFunc(s.obstacles, func(sl obstacleSlot) bool { return !sl.alive() })
	if slot < 0 {
		s.obstacles = append(s.obstacles, obstacleSlot{})
		slot = len(s.obstacles) - 1
	}
	sl := &s.obstacles[slot]
	sl.ent, sl.motion = e, k
	sl.gen++
	return Obstacle(pack(sl.gen, slot)), nil
}

// spawnObstacle resolves o as the only obstacle of the scene (the scene's
// checks and its resolution into the model, in one place) and spawns it
// with a kinematic motion.
func (s *Sim) spawnObstacle(o scenes.Obstacle) (ecs.Entity, *kinematic, error) {
	one := *s.scene
	one.Obstacles = []scenes.Obstacle{o}
	m, err := one.Model()
	if err != nil {
		return ecs.Entity{}, nil, err
	}
	mo := m.Obstacles[0]
	k := &kinematic{base: mo.Motion}
	mo.Motion = k
	e, err := s.acc.AddObstacle(&mo)
	return e, k, err
}

// AddObstacleJSON is AddObstacle with the obstacle as JSON in the scene
// format (an unknown field is an error).
func (s *Sim) AddObstacleJSON(data []byte) (Obstacle, error) {
	var o scenes.Obstacle
	if err := decodeStrict(data, &o); err != nil {
		return 0, fmt.Errorf("%w: AddObstacleJSON: %w", ErrInvalidValue, err)
	}
	return s.AddObstacle(o)
}

// RemoveObstacle removes obstacle h; its handle becomes stale. Vertices
// attached to it stay where it left them. An obstacle that EOL vertices
// lie on cannot be removed.
func (s *Sim) RemoveObstacle(h Obstacle) error {
	sl, err := s.obstacle(h)
	if err != nil {
		return err
	}
	if err := s.acc.RemoveObstacle(sl.ent); err != nil {
		return fmt.Errorf("%w: RemoveObstacle: %w", ErrInvalidValue, err)
	}
	sl.ent = ecs.Entity{}
	return nil
}
