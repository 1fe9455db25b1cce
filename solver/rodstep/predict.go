package rodstep

import "github.com/loomsim/loom/solver/dense"

// Obstacle contact prediction in the Newton model.
//
// The obstacle penalty 1/2 K pen^2 (pen = radius - distance, K =
// ObstacleK, about 1000 k_s/du: 5e8 N/m on tablecloth) has no curvature
// outside the obstacle, and a resting node's equilibrium penetration F/K
// is far below the Newton tolerance (a yarn node's weight of 1e-5 N sinks
// it 2e-14 m). A node resting on the table is therefore as often a few
// nanometres outside as inside at an iterate; outside, the Newton model
// sees no obstacle, the full step carries the node tens of micrometres into
// it, and the line search cuts the whole step to where that node barely
// enters (alpha 1e-3 to 4e-6): the other unknowns hardly move and the next
// iteration repeats it. On the built-in tablecloth, 824 of 1,020 rejected
// full steps in its first 100 steps were that (the node a median 5.8 nm
// outside), at 17 Newton iterations a step.
//
// So the model (the Newton matrix and right-hand side only) continues the
// quadratic penalty to pen < 0 for a node that is within predictBand of its
// radius outside an obstacle and pressed towards it: the true gradient of
// the potential at its x block (all terms of the nodes sharing it) has a
// positive component along the obstacle's outward normal n, i.e. the rest
// of the potential pushes it in. It adds the gradient -K pen n and the
// Hessian K n n^T to the node's obstacle term, so the full step takes the
// node to its equilibrium pen = F/K inside, where the penalty is its own.
// Energies, the line search and the convergence test stay those of the
// true potential (the directional derivative is taken with the true
// gradient, gradTrue); a direction that is not a descent direction of it,
// or whose decrease is below its rounding (which would end the solve with
// the step taken as it is), is computed again without prediction: a node
// at rest a hair outside the table and pressed by rounding only was once
// pulled onto it by the model against the rest of its yarn and accepted
// with up to 52 N unbalanced (tablecloth, 115 of 500 steps above 1 N; now
// none, as before the prediction). A fixed point of the predicted
// model is one of the true potential: a predicted node that stays outside
// keeps the pull K |pen| n in the model, so its update is at least |pen|
// and the Newton update falls below Tol only once the node is within Tol of
// the surface, where accept's full update puts it inside.
//
// A node pulled away from the obstacle (the force points outward) is not
// predicted, so no node is held at a surface it is leaving (marking nodes
// by the full step's trial point instead, and keeping the marks, held nodes
// pulled away with over 1 N and stalled). A node is predicted by the
// obstacle it is nearest to within the band (obstacles it penetrates act
// as they are); nodes sharing an x block each by their own term.
//
// It is opt-in (Settings.PredictContacts; scenes: rods.predict_contacts,
// set in tablecloth). Measured (1 worker, this 2-core VM, without -> with,
// two interleaved runs each): tablecloth's first 150 steps 18.0 -> 13.1
// Newton iterations a step, 0.17/0.19 -> 0.11/0.12 s a step, all 500
// steps 4,636 -> 4,319 iterations, none of them leaving over 1 N
// unbalanced either way; measured before the rounding exit was mended:
// tablecloth with 18 x 18 yarns a layer (lagged, first 30 steps, 2
// workers) 14.0 -> 11.7 iterations a step but no faster
// (1.96/1.87 -> 1.94/1.77 s: more conjugate gradient iterations and
// factorizations per iteration, and fewer contacts let go by step 30).
// knit-sphere's first 250 steps 21,330 -> 18,054 iterations, but its run
// then failed at step 641 (see Settings.PredictContacts), so it kept the
// plain model until the entering marks (below); rod-drop, rod-table,
// rod-box-edge and tag, with prediction, within 4% of their iterations
// without. Band 1e-5 to 1e-2 of the radius
// (150 steps): tablecloth 14.8, 13.0, 13.0, 13.3, 13.5, knit-sphere 47.6,
// 44.3, 52.1, 55.9, 81.9 (its run is chaotic: each change moves it; a wide
// band predicts nodes that the sphere's curvature then carries away). The
// same for the sliding anchors' kink (rod.Anchor: the spring 1/2 Kf d^2
// where the slide turns back) made tablecloth slower (13.1 -> 13.9-15.8).
const predictBand = 1e-3

// obstacleNear is a node's obstacle within predictBand outside it at the
// last evaluation: its penetration (negative) and outward normal; pen = 0
// for none.
type obstacleNear struct {
	pen float64
	n   dense.Vec3
}

// predictObstacles adds the predicted obstacle contacts to the assembled
// gradient and to the obstacle terms' Hessian slots (before they are summed
// into the Newton matrix), keeping the true gradient in gradTrue, and
// records whether it predicted any node. It runs in term order, serially:
// the same model for any worker count.
func (s *State) predictObstacles() {
	w := &s.ws
	as := &w.asm
	w.gradTrue = append(w.gradTrue[:0], w.grad...)
	w.predicted = false
	K := s.ObstacleK
	for t := as.obsLo; t < as.obsHi; t++ {
		tm := &as.terms[t]
		c := w.near[tm.id]
		if c.pen == 0 {
			continue
		}
		b := 3 * int(w.xdof[tm.id])
		if !w.entering[tm.id] && c.n[0]*w.gradTrue[b]+c.n[1]*w.gradTrue[b+1]+c.n[2]*w.gradTrue[b+2] <= 0 {
			continue // pulled away, or free
		}
		for a := range 3 {
			w.grad[b+a] -= K * c.pen * c.n[a]
		}
		// The term's packed lower triangle, rows x, y, z.
		p := as.thess[tm.hess : tm.hess+6]
		k := 0
		for a := range 3 {
			for e := 0; e <= a; e++ {
				p[k] += K * c.n[a] * c.n[e]
				k++
			}
		}
		w.predicted = true
	}
}

// Entering nodes.
//
// Prediction as above covers the nodes already resting on an obstacle. A
// node that is still falling towards it (outside predictBand, or not yet
// pressed by the rest of the potential) is outside the model too, and the
// full Newton step carries it into the obstacle: on knit-sphere, whose
// patch rests on the ball, the obstacle terms rejected 5,642 of the 6,000
// full steps that the line search cut in steps 100-149, three quarters of
// them to alpha below 1e-4 (one node brought in per iteration). So a node
// whose obstacle term raised the potential along a rejected full step is
// marked entering (markEntering) for the rest of the solve: it is predicted
// within enteringBand of its radius outside the obstacle whatever the rest
// of the potential presses, so the next direction carries it onto the
// surface instead of through it. A mark is an active-set guess, checked at
// every direction that predicts: an entering node that the model's update
// leaves outside the obstacle is held there by the model's spring, pulling,
// and is released (releaseEntering) and the direction computed again
// without it. The converged point is one of the true potential either way
// (see above). The release test is as sharp as the model: with K far above
// the node's other stiffness (2.5e8 against m/h^2 = 0.4 N/m on the 0.8 mm
// knit) the model puts a marked node on the surface to about 1e-13 m, and
// that residue's sign decides; on a 20 x 20 patch of knit-75k's stitches
// 61 of 62 nodes marked at the landing were released within one iteration
// and 15 of them entered the ball at the next full step (stop 48). Measured on knit-sphere (1,000 steps, 1 worker): 93,717
// Newton iterations without prediction (stop 40), about 62,000 with it,
// 35,170 with the entering marks as well (30 step halvings).
const enteringBand = 0.5

// markEntering marks the nodes whose obstacle term's potential grew from
// w.phiAt to the last evaluation (the rejected full step); the line search
// calls it when prediction is on for this solve.
func (s *State) markEntering() {
	w := &s.ws
	as := &w.asm
	for t := as.obsLo; t < as.obsHi; t++ {
		if as.tphi[t] > w.phiAt[t-as.obsLo] {
			w.entering[as.terms[t].id] = true
		}
	}
}

// releaseEntering unmarks the entering nodes that the model predicted and
// whose update w.dq leaves them outside the obstacle (pen - n.dx < 0: the
// model's spring pulls them back onto the surface), reporting whether it
// released any.
func (s *State) releaseEntering() bool {
	w := &s.ws
	as := &w.asm
	released := false
	for t := as.obsLo; t < as.obsHi; t++ {
		id := as.terms[t].id
		c := w.near[id]
		if !w.entering[id] || c.pen == 0 {
			continue
		}
		b := 3 * int(w.xdof[id])
		if c.pen-(c.n[0]*w.dq[b]+c.n[1]*w.dq[b+1]+c.n[2]*w.dq[b+2]) < 0 {
			w.entering[id], released = false, true
		}
	}
	return released
}
