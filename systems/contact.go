package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// ObstacleContact is the cloth-obstacle contact model: each vertex whose gap to
// an obstacle (signed distance minus the contact thickness) is within half the
// layer, or would close within the step, becomes a Contact entity and an
// inequality row n^T v_i >= -gap/h of the implicit step's QP (Weidner 2018
// eq. 12): a vertex ends the step at or outside the contact layer, rests on
// the obstacle, and lifts off freely when the QP multiplier would have to
// pull. The gap is measured to the obstacle at its pose at the end of the
// step (ScriptedMotion puts it there), so its motion over the step is in the
// gap already: the distance at the end of the step is, to first order,
// gap + h n^T v_i. (Adding the obstacle's normal velocity to the target
// as well, as loom did before, counts its motion twice: a vertex could
// follow an obstacle moving away from it into the obstacle's end pose by h
// times its normal speed, 3.8 mm in the sphere scene.) The solve
// (ImplicitSolve, EOLCloth) adds rows for vertices its solved velocity would
// carry into an obstacle (refine) and solves again; ContactResponse, run
// after it, records the contacts as entities and applies Coulomb friction
// with the QP's normal impulses.
type ObstacleContact struct {
	state     *ClothState
	thickness float64
	friction  float64

	obstacles   []components.Obstacle
	obstacleEnt []ecs.Entity
	obsFilter   *generic.Filter1[components.Obstacle]
	contactMap  generic.Map1[components.Contact]
	live        []ecs.Entity // contact entities, reused from step to step
	rowObstacle []int32      // obstacle index of each row of state.Contacts

	// Per vertex, for this step.
	obstacle []int32   // index into obstacles, -1 when free
	normal   []float64 // 3n
	gap      []float64 // n
	surfVel  []float64 // 3n: the obstacle surface's own (deformation) velocity at the vertex's nearest point

	// exclude, when set, returns the vertices to keep out of the rows;
	// excluded is its answer for the current step.
	exclude  func() []bool
	excluded []bool

	detect func(lo, hi int)
}

// NewObstacleContact returns the contact model; thickness (m) is the layer kept
// between cloth and obstacles, friction the Coulomb coefficient.
func NewObstacleContact(w *ecs.World, state *ClothState, thickness, friction float64) *ObstacleContact {
	c := &ObstacleContact{
		state:      state,
		thickness:  thickness,
		friction:   friction,
		obsFilter:  generic.NewFilter1[components.Obstacle](),
		contactMap: generic.NewMap1[components.Contact](w.ECS),
	}
	c.detect = c.detectRange
	return c
}

// Collision is the system that finds contacts and turns them into constraints.
func (c *ObstacleContact) Collision() ecs.System { return Collision{c} }

// Response is the system that records the contacts and applies friction.
func (c *ObstacleContact) Response() ecs.System { return ContactResponse{c} }

// Collision finds the cloth-obstacle contacts of the step (ObstacleContact).
type Collision struct{ c *ObstacleContact }

// Name implements ecs.System.
func (d Collision) Name() string { return "collision" }

// Step implements ecs.System.
func (d Collision) Step(w *ecs.World) error { return d.c.detectStep(w) }

// ContactResponse records the step's contacts as entities and applies
// Coulomb friction (ObstacleContact).
type ContactResponse struct{ c *ObstacleContact }

// Name implements ecs.System.
func (r ContactResponse) Name() string { return "contact-response" }

// Step implements ecs.System.
func (r ContactResponse) Step(w *ecs.World) error { return r.c.respondStep(w) }

// ExcludeWith makes the contact model keep the vertices that exclude (called
// at each detection) marks out of its rows: EOL vertices, whose contact
// with their feature is EOL constraints.
func (c *ObstacleContact) ExcludeWith(exclude func() []bool) { c.exclude = exclude }

func (c *ObstacleContact) detectStep(w *ecs.World) error {
	s := c.state
	c.excluded = nil
	if c.exclude != nil {
		c.excluded = c.exclude()
	}
	n := s.NumVerts()
	c.gatherObstacles(w)
	w.Pool.For(n, c.detect)
	// Pinned vertices keep their script.
	for _, p := range s.Pins {
		c.obstacle[p.Vertex] = -1
	}
	s.Contacts, c.rowObstacle = s.Contacts[:0], c.rowObstacle[:0]
	for i := range s.Verts {
		if c.obstacle[i] >= 0 {
			c.addRow(i)
		}
	}
	return nil
}

// gatherObstacles copies the obstacles (at their pose at the end of the
// step) out of the world, and sizes the per-vertex arrays.
func (c *ObstacleContact) gatherObstacles(w *ecs.World) {
	if n := c.state.NumVerts(); len(c.gap) != n {
		c.obstacle = make([]int32, n)
		c.normal = make([]float64, 3*n)
		c.gap = make([]float64, n)
		c.surfVel = make([]float64, 3*n)
	}
	c.obstacles, c.obstacleEnt = c.obstacles[:0], c.obstacleEnt[:0]
	q := c.obsFilter.Query(w.ECS)
	for q.Next() {
		c.obstacles = append(c.obstacles, *q.Get())
		c.obstacleEnt = append(c.obstacleEnt, q.Entity())
	}
}

// detectRange finds, for vertices [lo, hi), the obstacle with the smallest gap
// among those the vertex touches or would reach within the step.
func (c *ObstacleContact) detectRange(lo, hi int) {
	s := c.state
	h := s.H
	// Within half the layer counts as touching, so resting cloth keeps its row.
	margin := 0.5 * c.thickness
	for i := lo; i < hi; i++ {
		if c.excluded != nil && c.excluded[i] {
			c.obstacle[i] = -1
			continue
		}
		p := dense.Vec3(s.X[3*i : 3*i+3])
		v := dense.Vec3(s.V[3*i : 3*i+3])
		best, bestGap := int32(-1), math.Inf(1)
		var bestN, bestU dense.Vec3
		for j := range c.obstacles {
			o := &c.obstacles[j]
			d, nrm, u := geom.SignedDistanceVel(&o.Shape, o.Offset, p)
			g := d - c.thickness
			if g+h*math.Min(v.Dot(nrm), 0) < margin && g < bestGap {
				best, bestGap, bestN, bestU = int32(j), g, nrm, u
			}
		}
		c.obstacle[i] = best
		c.gap[i] = bestGap
		copy(c.normal[3*i:3*i+3], bestN[:])
		copy(c.surfVel[3*i:3*i+3], bestU[:])
	}
}

// obstacleVelAt returns the velocity of obstacle o's point at p: v + omega x
// r about its current rotation centre; exactly o.Vel when it does not turn.
func obstacleVelAt(o *components.Obstacle, p dense.Vec3) dense.Vec3 {
	if o.Omega == (dense.Vec3{}) {
		return o.Vel
	}
	return geom.PointVelocity(o.Vel, o.Omega, o.RotationCenter().Add(o.Offset), p)
}

// contactVel is the velocity of the obstacle surface that vertex i touches:
// its rigid motion at the vertex plus the surface's own deformation velocity
// at its nearest point (for friction: the rows need no obstacle velocity).
func (c *ObstacleContact) contactVel(o *components.Obstacle, i int) dense.Vec3 {
	return obstacleVelAt(o, dense.Vec3(c.state.X[3*i:3*i+3])).Add(dense.Vec3(c.surfVel[3*i : 3*i+3]))
}

// addRow appends vertex i's constraint n^T v_i >= -gap/h, the gap measured
// to the obstacle's end-of-step pose (ScriptedMotion has moved it there, and
// a sequence to its end-of-step frame), so the obstacle's motion is in the
// gap already.
func (c *ObstacleContact) addRow(i int) {
	s := c.state
	n := dense.Vec3(c.normal[3*i : 3*i+3])
	s.Contacts = append(s.Contacts, ContactRow{Vertex: int32(i), Normal: n, Target: -c.gap[i] / s.H})
	c.rowObstacle = append(c.rowObstacle, c.obstacle[i])
}

// maxRefinements bounds the extra solves a step may take when the solved
// velocities would carry vertices without a row into an obstacle.
const maxRefinements = 3

func (c *ObstacleContact) respondStep(w *ecs.World) error {
	c.syncEntities(w)
	c.applyFriction()
	return nil
}

// applyFriction applies Coulomb friction to the solved velocities of the
// contact rows with the QP's normal impulses.
func (c *ObstacleContact) applyFriction() {
	s := c.state
	if c.friction == 0 {
		return
	}
	for k, row := range s.Contacts {
		lambda := s.Impulse[k] // normal impulse (N s), >= 0
		if lambda <= 0 {
			continue
		}
		i := int(row.Vertex)
		o := &c.obstacles[c.rowObstacle[k]]
		v := dense.Vec3(s.VNew[3*i : 3*i+3])
		rel := v.Sub(c.contactVel(o, i))
		vt := rel.Sub(row.Normal.Scale(rel.Dot(row.Normal)))
		speed := vt.Norm()
		if speed == 0 {
			continue
		}
		// Coulomb: the tangential impulse is at most mu times the normal one.
		cut := math.Min(1, c.friction*lambda/(s.Mass[i]*speed))
		v = v.Sub(vt.Scale(cut))
		copy(s.VNew[3*i:3*i+3], v[:])
	}
}

// refine adds a row for every free vertex without one (and not excluded)
// that the solved velocity would carry into an obstacle, and reports whether
// it added any.
func (c *ObstacleContact) refine(s *ClothState) bool {
	added := false
	for i := range c.gap {
		if c.obstacle[i] < 0 && !s.pinned(i) && (c.excluded == nil || !c.excluded[i]) && c.penetrating(i) {
			c.addRow(i)
			added = true
		}
	}
	return added
}

// penetrating reports whether the solved velocity would carry vertex i deeper
// than a tenth of the contact layer into some obstacle; it records the
// obstacle, normal and gap so the vertex can get a row.
func (c *ObstacleContact) penetrating(i int) bool {
	s := c.state
	p := dense.Vec3(s.X[3*i : 3*i+3])
	v := dense.Vec3(s.VNew[3*i : 3*i+3])
	for j := range c.obstacles {
		o := &c.obstacles[j]
		d, nrm, u := geom.SignedDistanceVel(&o.Shape, o.Offset, p)
		g := d - c.thickness
		if g+s.H*v.Dot(nrm) < -0.1*c.thickness {
			c.obstacle[i], c.gap[i] = int32(j), g
			copy(c.normal[3*i:3*i+3], nrm[:])
			copy(c.surfVel[3*i:3*i+3], u[:])
			return true
		}
	}
	return false
}

// syncEntities makes the Contact entities match this step's rows, reusing
// entities from the previous step.
func (c *ObstacleContact) syncEntities(w *ecs.World) {
	s := c.state
	for k, row := range s.Contacts {
		i := int(row.Vertex)
		ct := components.Contact{Vertex: s.Verts[i], Obstacle: c.obstacleEnt[c.rowObstacle[k]], Normal: row.Normal, Gap: c.gap[i], Impulse: s.Impulse[k]}
		if k < len(c.live) {
			*c.contactMap.Get(c.live[k]) = ct
		} else {
			c.live = append(c.live, c.contactMap.NewWith(&ct))
		}
	}
	for _, e := range c.live[len(s.Contacts):] {
		w.ECS.RemoveEntity(e)
	}
	c.live = c.live[:len(s.Contacts)]
}
