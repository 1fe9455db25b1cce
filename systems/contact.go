package systems

import (
	"fmt"
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
)

// ObstacleContact is the cloth-obstacle contact model of the foundation: each
// vertex whose gap to an obstacle (signed distance minus the contact
// thickness) would close within the step becomes a Contact entity and a
// velocity constraint of the filtered implicit solve (Baraff & Witkin 1998,
// sec. 5): its normal velocity relative to the obstacle is prescribed as
// -gap/h, so it ends the step on the contact layer and a resting vertex has
// zero normal velocity. ContactResponse, run after the solve, releases contacts
// whose constraint impulse pulls (so cloth lifts off freely on the next step)
// and applies Coulomb friction. The QP of a later issue replaces both.
type ObstacleContact struct {
	state     *ClothState
	thickness float64
	friction  float64

	obstacles   []components.Obstacle
	obstacleEnt []ecs.Entity
	obsFilter   *generic.Filter1[components.Obstacle]
	contactMap  generic.Map1[components.Contact]
	live        []ecs.Entity // contact entities, reused from step to step
	liveVertex  []int32      // the DOF index of each live contact's vertex

	// Per vertex, for this step.
	obstacle []int32   // index into obstacles, -1 when free
	normal   []float64 // 3n
	gap      []float64 // n
	released []bool    // the constraint pulled last step
	residual []float64 // 3n: A v - b, the constraint impulses

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

// Detect is the system that finds contacts and turns them into constraints.
func (c *ObstacleContact) Detect() ecs.System { return contactDetect{c} }

// Respond is the system that releases pulling contacts and applies friction.
func (c *ObstacleContact) Respond() ecs.System { return contactRespond{c} }

type contactDetect struct{ c *ObstacleContact }

func (d contactDetect) Name() string            { return "collision" }
func (d contactDetect) Step(w *ecs.World) error { return d.c.detectStep(w) }

type contactRespond struct{ c *ObstacleContact }

func (r contactRespond) Name() string            { return "contact-response" }
func (r contactRespond) Step(w *ecs.World) error { return r.c.respondStep(w) }

func (c *ObstacleContact) detectStep(w *ecs.World) error {
	s := c.state
	n := s.NumVerts()
	if len(c.gap) != n {
		c.obstacle = make([]int32, n)
		c.normal = make([]float64, 3*n)
		c.gap = make([]float64, n)
		c.released = make([]bool, n)
		c.residual = make([]float64, 3*n)
	}
	c.obstacles, c.obstacleEnt = c.obstacles[:0], c.obstacleEnt[:0]
	q := c.obsFilter.Query(w.ECS)
	for q.Next() {
		c.obstacles = append(c.obstacles, *q.Get())
		c.obstacleEnt = append(c.obstacleEnt, q.Entity())
	}
	copy(s.Filter, s.PinFilter)
	copy(s.Z, s.PinZ)
	w.Pool.For(n, c.detect)

	// Pinned vertices keep their script.
	for _, p := range s.Pins {
		c.obstacle[p.Vertex] = -1
	}
	c.liveVertex = c.liveVertex[:0]
	for i := range s.Verts {
		if c.obstacle[i] >= 0 {
			c.liveVertex = append(c.liveVertex, int32(i))
			c.constrain(i)
		}
	}
	return nil
}

// syncEntities makes the Contact entities match this step's contacts, reusing
// entities from the previous step.
func (c *ObstacleContact) syncEntities(w *ecs.World) {
	s := c.state
	for k, iv := range c.liveVertex {
		i := int(iv)
		ct := components.Contact{Vertex: s.Verts[i], Obstacle: c.obstacleEnt[c.obstacle[i]], Normal: dense.Vec3(c.normal[3*i : 3*i+3]), Gap: c.gap[i]}
		if k < len(c.live) {
			*c.contactMap.Get(c.live[k]) = ct
		} else {
			c.live = append(c.live, c.contactMap.NewWith(&ct))
		}
	}
	for _, e := range c.live[len(c.liveVertex):] {
		w.ECS.RemoveEntity(e)
	}
	c.live = c.live[:len(c.liveVertex)]
}

// detectRange finds, for vertices [lo, hi), the obstacle with the smallest gap
// that the vertex would close within the step.
func (c *ObstacleContact) detectRange(lo, hi int) {
	s := c.state
	h := s.H
	for i := lo; i < hi; i++ {
		p := dense.Vec3(s.X[3*i : 3*i+3])
		v := dense.Vec3(s.V[3*i : 3*i+3])
		best, bestGap := int32(-1), math.Inf(1)
		var bestN dense.Vec3
		for j := range c.obstacles {
			o := &c.obstacles[j]
			d, nrm := signedDistance(o, p)
			g := d - c.thickness
			vn := v.Sub(o.Vel).Dot(nrm)
			// A vertex within half the layer of the surface counts as touching
			// so that resting cloth stays constrained instead of alternating.
			margin := 0.5 * c.thickness
			if c.released[i] && g >= 0 {
				margin = 0
			}
			if g+h*math.Min(vn, 0) < margin && g < bestGap {
				best, bestGap, bestN = int32(j), g, nrm
			}
		}
		c.obstacle[i] = best
		c.gap[i] = bestGap
		copy(c.normal[3*i:3*i+3], bestN[:])
	}
}

// constrain fixes vertex i's normal velocity to v_obs.n - gap/h.
func (c *ObstacleContact) constrain(i int) {
	s := c.state
	h := s.H
	o := &c.obstacles[c.obstacle[i]]
	n := dense.Vec3(c.normal[3*i : 3*i+3])
	target := o.Vel.Dot(n) - c.gap[i]/h
	f := s.Filter[9*i : 9*i+9]
	z := s.Z[3*i : 3*i+3]
	for a := 0; a < 3; a++ {
		z[a] = target * n[a]
		for b := 0; b < 3; b++ {
			id := 0.0
			if a == b {
				id = 1
			}
			f[3*a+b] = id - n[a]*n[b]
		}
	}
}

// maxRefinements bounds the extra solves a step may take when the solved
// velocities would carry unconstrained vertices into an obstacle.
const maxRefinements = 3

func (c *ObstacleContact) respondStep(w *ecs.World) error {
	s := c.state
	for round := 0; round < maxRefinements; round++ {
		added := 0
		for i := range c.gap {
			if c.obstacle[i] < 0 && !s.pinned(i) && c.penetrating(i) {
				c.constrain(i)
				c.liveVertex = append(c.liveVertex, int32(i))
				added++
			}
		}
		if added == 0 {
			break
		}
		if err := c.solve(w); err != nil {
			return err
		}
	}
	c.syncEntities(w)
	clear(c.released)
	if len(c.liveVertex) == 0 {
		return nil
	}
	s.A.MulVec(w.Pool, s.VNew, c.residual)
	for k, iv := range c.liveVertex {
		i := int(iv)
		n := dense.Vec3(c.normal[3*i : 3*i+3])
		var r dense.Vec3
		for a := 0; a < 3; a++ {
			r[a] = c.residual[3*i+a] - s.B[3*i+a]
		}
		lambda := r.Dot(n) // normal constraint impulse (N s)
		c.contactMap.Get(c.live[k]).Impulse = lambda
		if lambda < 0 {
			c.released[i] = true
			continue
		}
		if c.friction == 0 {
			continue
		}
		o := &c.obstacles[c.obstacle[i]]
		v := dense.Vec3(s.VNew[3*i : 3*i+3])
		rel := v.Sub(o.Vel)
		vt := rel.Sub(n.Scale(rel.Dot(n)))
		speed := vt.Norm()
		if speed == 0 {
			continue
		}
		// Coulomb: the tangential impulse is at most mu times the normal one.
		cut := math.Min(1, c.friction*lambda/(s.Mass[i]*speed))
		v = v.Sub(vt.Scale(cut))
		copy(s.VNew[3*i:3*i+3], v[:])
	}
	return nil
}

// penetrating reports whether the solved velocity would carry free vertex i
// deeper than a tenth of the contact layer into some obstacle; it records the
// obstacle, normal and gap so the vertex can be constrained.
func (c *ObstacleContact) penetrating(i int) bool {
	s := c.state
	p := dense.Vec3(s.X[3*i : 3*i+3])
	v := dense.Vec3(s.VNew[3*i : 3*i+3])
	for j := range c.obstacles {
		o := &c.obstacles[j]
		d, nrm := signedDistance(o, p)
		g := d - c.thickness
		if g+s.H*v.Sub(o.Vel).Dot(nrm) < -0.1*c.thickness {
			c.obstacle[i], c.gap[i] = int32(j), g
			copy(c.normal[3*i:3*i+3], nrm[:])
			return true
		}
	}
	return false
}

// solve re-solves the implicit system with the current constraints, warm
// started from the last solution.
func (c *ObstacleContact) solve(w *ecs.World) error {
	s := c.state
	res, err := s.PCG.Solve(w.Pool, s.A, s.B, s.VNew, s.Filter, s.Z, s.Tolerance, s.MaxIterations)
	s.LastSolve = res
	if err != nil {
		return fmt.Errorf("PCG (contact refinement): %w", err)
	}
	if !res.Converged {
		return fmt.Errorf("PCG (contact refinement) did not converge in %d iterations (relative residual %.3g)", res.Iterations, res.Residual)
	}
	return nil
}
