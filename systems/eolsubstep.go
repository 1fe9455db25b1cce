package systems

import (
	"math"

	"github.com/loomsim/loom/ecs"
)

// maxEOLSubsteps bounds the number of substeps of one EOL step.
const maxEOLSubsteps = 8

// Substeps returns the number of equal substeps the next step of size h
// takes: the material under an EOL vertex may move by at most MinEdge/2
// per substep (the CFL-like condition of the conformal preprocessing, sec. 6.1:
// it runs once per substep and keeps the edges at the conformal vertices at
// least MinEdge long in material space, so a faster flow carries the
// material at the feature past its Lagrangian neighbour within one
// substep; the Eulerian step is then cut short (materialStepLimit) while
// the neighbour moves on at full speed, and the face between them
// stretches: throw reached principal strain 5.8 at 3.4 m/s over the box's
// edge with h = 5 ms and MinEdge = 1 cm). The speeds are the EOL vertices'
// Xdot (components.EOL) at the start of the step. The cloth's world
// velocities are not bounded the same way: with them also held to MinEdge/2
// (or to the contact thickness) per substep, wire's trailing corners, which
// whip over the wire at about 1 m/s, reached max_strain 3.6-4.1 and 6.5-8 mm
// through the wire (1.6 mm with one step). Without EOL vertices it is 1.
func (c *EOLCloth) Substeps(w *ecs.World, h float64) int {
	speed := 0.0
	q := c.eolF.Query(w.ECS)
	any := false
	for q.Next() {
		any = true
		x := q.Get().XDot
		speed = math.Max(speed, math.Hypot(x[0], x[1]))
	}
	if !any {
		return 1
	}
	return eolSubsteps(speed, h, c.set.MinEdge)
}

// eolSubsteps is the number of substeps that move a point at the given
// speed by at most minEdge/2 each, between 1 and maxEOLSubsteps.
func eolSubsteps(speed, h, minEdge float64) int {
	n := math.Ceil(speed * h / (minEdge / 2))
	if !(n > 1) {
		return 1
	}
	return int(math.Min(n, maxEOLSubsteps))
}
