package rodstep

import (
	"errors"
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
)

// workspace holds the per-step DOF map and Newton buffers.
type workspace struct {
	nodeBuf          []int32
	kindBuf          []rod.Kind
	interpA, interpC []int32

	xdof, udof []int32 // block index of x / index of u among the unknowns, -1 if not an unknown
	residual   float64 // the last accepted solve's largest gradient entry (Result.Residual)
	stalled    bool    // the last accepted solve ended with a larger gradient than it began (Result.Stalled)
	startGrad  float64 // the largest gradient entry at the solve's first iterate
	root       []int32 // union-find parents of the shared contacts' nodes
	// off is each node's offset from its x block (x = q_block + off): the
	// gaps of the shared contacts (Contact.Gap), zero for most nodes.
	off       []dense.Vec3
	pinned    []bool       // x prescribed this step (pins, and contacts sharing x with a pin)
	target    []dense.Vec3 // prescribed x
	nx, n     int          // x blocks, unknowns
	q, q0, dq []float64
	grad      []float64
	gx        []dense.Vec3 // per node: dPhi/dx of the terms in which the node's own x appears
	asm       assembly
	// exactHessian keeps the indefinite parts of the term Hessians (for
	// derivative tests); otherwise compressed segments are projected, and
	// bend triples with projectBend (Settings.ProjectBend).
	exactHessian bool
	// exactStart: the last solve converged on the exact Hessian within
	// exactStartIterations, so the next one starts with it (solve).
	exactStart     bool
	linear         Linear    // this solve's linear solver choice (Settings.Linear)
	rhs            []float64 // the iterative solve's right-hand side, -grad
	cgIterations   int       // conjugate gradient iterations so far
	factorizations int       // Newton matrix factorizations so far
	projectBend    bool
	// projectYarn projects the yarn-pair penalty Hessians onto the positive
	// semidefinite matrices for the rest of this solve; set when the Newton
	// matrix with them as they are cannot be factored (factorNewton).
	projectYarn bool
	normal      []float64    // per node: its contact's normal force of the last step
	bound       []float64    // per node: its anchor's friction bound (its contacts' Contact.FrictionBound and edgeBound)
	edgeBound   []float64    // per node: the friction bound of its obstacle edges (Edge)
	xn          []dense.Vec3 // positions at the start of the step
	un          []float64
	mass        [][64]float64 // lagged segment masses, in segment order
	saved       []*snapshot   // per halving depth
	// force marks the nodes made EIL for the rest of this (sub)step by a
	// restart (errDegenerate).
	force []bool
	// prevN, nextN: per node, the non-EIL nodes before and after it on its
	// rod this solve (-1: none), for the crossings' shear terms.
	prevN, nextN []int32
	yarn         yarnWork
	// Obstacle contact prediction (predictObstacles): predictOn asks the
	// level-2 evaluations of this direction for it, noPredict turns it off
	// (Settings.PredictContacts unset, or this iteration again after the
	// true potential rejected the predicted direction or found its decrease
	// below rounding), predicted says the last evaluation predicted a node (then
	// grad is the model's and gradTrue the potential's), near holds each
	// node's candidate obstacle.
	predictOn, noPredict, predicted bool
	gradTrue                        []float64
	near                            []obstacleNear
	// entering marks, for the rest of the solve, the nodes whose obstacle
	// term rejected a full Newton step (markEntering); released by
	// releaseEntering.
	entering []bool
	// noEntering turns the entering marks off (tests).
	noEntering bool
	phiAt      []float64 // the obstacle terms' potentials at the line search's start
	eil        []int32   // this solve's EIL nodes with a free u (listEIL)
	slid       []bool    // per EIL node: slid this iteration (boundEIL)
	held       []int32   // per EIL node: the vertex node it is held at, -1 if free (boundEIL)
	heldGrad   []float64 // unbalanced's scratch
}

func (w *workspace) size(n int) {
	if len(w.interpA) == n {
		return
	}
	w.interpA, w.interpC = make([]int32, n), make([]int32, n)
	w.xdof, w.udof = make([]int32, n), make([]int32, n)
	w.pinned, w.target = make([]bool, n), make([]dense.Vec3, n)
	w.gx = make([]dense.Vec3, n)
	w.near = make([]obstacleNear, n)
	w.entering = make([]bool, n)
	w.root = make([]int32, n)
	w.off = make([]dense.Vec3, n)
	w.normal, w.bound, w.edgeBound = make([]float64, n), make([]float64, n), make([]float64, n)
	w.force = make([]bool, n)
	w.prevN, w.nextN = make([]int32, n), make([]int32, n)
	w.xn, w.un = make([]dense.Vec3, n), make([]float64, n)
}

// Result reports one step.
type Result struct {
	Iterations int // Newton iterations, summed over substeps
	Halvings   int // times the step was halved after Newton failed
	// CGIterations are the conjugate gradient iterations of the iterative
	// or lagged linear solves (Settings.Linear), summed over the step's
	// Newton iterations; 0 with the direct solver.
	CGIterations int
	// Factorizations are the Newton matrix's factorizations (direct or
	// the iterative path's), failed ones included: the exact-Hessian tries
	// (direction) and the regularization ladder's (factorRegularized); a
	// lagged solve that converged factors none.
	Factorizations int
	// Residual is the largest entry of the incremental potential's
	// gradient (N: the unbalanced force on a coordinate) at the last
	// Newton iterate of each substep, the largest over the substeps. A
	// solve that converged has it near zero; one that stopped because the
	// regularized update fell below Tol, though the gradient had not, has
	// it large: a false convergence.
	Residual float64
	// Stalled counts the substeps whose solve stopped with a larger
	// unbalanced force (Residual) than it started with: Newton did not
	// reduce it at all, so the step's measured forces (contact normal
	// forces) mean nothing.
	Stalled int
}

// Settings of the Newton solve.
type Settings struct {
	MaxIterations int     // per solve
	Tol           float64 // converged when the largest update is below Tol (m)
	MaxHalvings   int
	// ProjectBend makes the bend triples' Hessians positive semidefinite
	// (rod.BendGradHessPSD; projected Newton). Rest-curved bends are
	// projected always (see evalTerm). Off by default: on
	// rod-incline (anchorFactor 100) it raised the step halvings at 50 deg
	// from 1 to 22, though with anchorFactor 1 it let the 50 deg run finish
	// where the exact Hessian fails at step 366. The Newton matrix still
	// needs regularization either way (see the report in issue 5).
	ProjectBend bool
	// AlwaysProject skips the exact Hessian (see direction): every Newton
	// iteration on the projected Hessians, as the solver did before
	// (linear convergence where a projection acted).
	AlwaysProject bool
	// Linear chooses how the Newton systems are solved (linear.go).
	Linear Linear
	// DegenerateRestart restarts a (sub)step whose Newton iterate brings an
	// EoL node near its neighbour with the node EIL (markDegenerate). Off by
	// default: it mends the false convergences of the woven scenes
	// (pocket, 500 steps: 62 steps above 1 N unbalanced -> 0, with 35% fewer
	// Newton iterations), but knit-sphere's Newton fails at step 96 with it
	// (scenes/README, "Known defect").
	DegenerateRestart bool
	// PredictContacts turns on the obstacle contact prediction of the
	// Newton model (predictObstacles, and the entering marks,
	// markEntering). Off by default (scenes set it: tablecloth,
	// knit-sphere); before the entering marks, knit-sphere's chaotic run
	// failed at step 641 with it (the yarn check refusing, at the smallest
	// step, two segments of one yarn 0.03 mm apart without a penalty term).
	PredictContacts bool
}

// DefaultSettings are 100 iterations, 1e-9 m and 6 halvings. Where the
// Hessians are projected (rest-curved bends, compressed segments, contacts)
// Newton converges linearly, and the knitted and woven fabrics' steps need
// more than 30 iterations: with 30, knit-sphere halved its steps down to
// 7.8e-6 s and stopped at step 130 (tablecloth at 49); with 100 it runs past
// step 560 (tablecloth to 79). A step halving restarts the step at twice
// the cost, so the extra iterations are the cheaper fallback.
func DefaultSettings() Settings { return Settings{MaxIterations: 100, Tol: 1e-9, MaxHalvings: 6} }

var debugNewton = false

// phiFloor times the sum of the terms' magnitudes is what the incremental
// potential can resolve: a Newton step predicting a smaller decrease is at
// working precision.
const phiFloor = 1e3 * 0x1p-52

// ErrNoConvergence is returned when Newton fails even after MaxHalvings.
var ErrNoConvergence = errors.New("Newton did not converge")

// Step advances the state by h: node assignment, then Newton on the
// incremental potential; if Newton fails, the step is split in two halves
// (recursively, up to MaxHalvings levels). targetAt gives pinned nodes'
// prescribed positions at a time offset in (0, h] from the step's start.
func (s *State) Step(h float64, set Settings, targetAt func(i int, dt float64) dense.Vec3) (Result, error) {
	cg, nf := s.ws.cgIterations, s.ws.factorizations
	res, err := s.step(h, 0, h, set, targetAt, 0)
	res.CGIterations = s.ws.cgIterations - cg
	res.Factorizations = s.ws.factorizations - nf
	return res, err
}

func (s *State) step(h, t0, hFull float64, set Settings, targetAt func(int, float64) dense.Vec3, depth int) (Result, error) {
	s.Assign()
	clear(s.ws.force)
	saved := s.snapshot(depth)
	try := func(set Settings) (int, error) {
		total := 0
		for restarts := 0; ; restarts++ {
			s.detect(h)
			it, err := s.solve(h, set, func(i int) dense.Vec3 { return targetAt(i, t0+h) })
			total += it
			if errors.Is(err, errDegenerate) && restarts < maxRestarts {
				s.restore(saved) // with the nodes the solve marked EIL
				continue
			}
			if err == nil {
				err = s.verify()
			}
			return total, err
		}
	}
	it, err := try(set)
	if err != nil && !set.AlwaysProject {
		// Newton with the exact Hessians failed, or found a solution that
		// the yarn check refuses (a local minimum through another yarn):
		// the step again on the projected Hessians, which stay closer to
		// the start, before it is halved. (After a solve that was projected
		// throughout, the retry differs only in the yarn pairs' rest
		// distances, ramped once more by detect; skipping it there made
		// tag stop at step 77.)
		s.restore(saved)
		p := set
		p.AlwaysProject = true
		var n int
		n, err = try(p)
		it += n
	}
	if err == nil {
		res := Result{Iterations: it, Residual: s.ws.residual}
		if s.ws.stalled {
			res.Stalled = 1
		}
		return res, nil
	}
	if depth >= set.MaxHalvings {
		return Result{Iterations: it}, fmt.Errorf("%w at step size %g s after %d halvings: %v", ErrNoConvergence, h, depth, err)
	}
	s.restore(saved)
	res := Result{Iterations: it, Halvings: 1}
	for k := 0; k < 2; k++ {
		r, err := s.step(h/2, t0+float64(k)*h/2, hFull, set, targetAt, depth+1)
		res.Iterations += r.Iterations
		res.Halvings += r.Halvings
		res.Residual = max(res.Residual, r.Residual)
		res.Stalled += r.Stalled
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

type snapshot struct {
	x, v   []dense.Vec3
	u, ud  []float64
	anchor []rod.Anchor
	kind   []rod.Kind
}

// snapshot saves the state a failed step returns to. Each recursion level
// of step halving needs its own copy; level 0 (every step) reuses its
// buffers, so a step that converges allocates nothing for it.
func (s *State) snapshot(depth int) *snapshot {
	for len(s.ws.saved) <= depth {
		s.ws.saved = append(s.ws.saved, &snapshot{})
	}
	p := s.ws.saved[depth]
	p.x = append(p.x[:0], s.X...)
	p.v = append(p.v[:0], s.V...)
	p.u = append(p.u[:0], s.U...)
	p.ud = append(p.ud[:0], s.UDot...)
	p.anchor = append(p.anchor[:0], s.Anchor...)
	p.kind = append(p.kind[:0], s.Kind...)
	return p
}

func (s *State) restore(p *snapshot) {
	copy(s.X, p.x)
	copy(s.V, p.v)
	copy(s.U, p.u)
	copy(s.UDot, p.ud)
	copy(s.Anchor, p.anchor)
	copy(s.Kind, p.kind)
	// The nodes restarts marked stay EIL for the rest of the (sub)step,
	// through the projected retry too; a halving's Assign makes those that
	// are farther than the safety distance from their neighbours EoL again,
	// at their neighbours' chord (Assign's EIL -> EoL transition). Undoing
	// the marks before the retry and the halvings instead (the saved
	// assignment and positions) made pocket's rod Newton fail at step 95;
	// undoing them before the halvings only, pocket's at step 87, and two
	// of tag's yarns came within 1.5e-8 m at step 115.
	forced := false
	for i, f := range s.ws.force {
		if f {
			s.Kind[i], forced = rod.EIL, true
		}
	}
	if forced {
		// The node order and interpolation neighbours for the added EIL
		// nodes.
		s.assign(true)
	}
}

// number builds the DOF map for this step.
func (s *State) number(target func(i int) dense.Vec3) {
	w := &s.ws
	for i := range s.X {
		w.xdof[i], w.udof[i] = -1, -1
		w.pinned[i] = s.Pinned[i]
		if s.Pinned[i] {
			w.target[i] = target(i)
		}
	}
	// Contacts whose nodes are both non-EIL share x; a pin on either pins
	// both, the other at its gap from it, through chains of contacts too
	// (repeated until no pin spreads; a node pinned first keeps its target).
	for spread := true; spread; {
		spread = false
		for _, c := range s.Contacts {
			if !s.shared(c) || w.pinned[c.P] == w.pinned[c.Q] {
				continue
			}
			d := c.Normal.Scale(c.Gap)
			if w.pinned[c.P] {
				w.pinned[c.Q], w.target[c.Q] = true, w.target[c.P].Sub(d)
			} else {
				w.pinned[c.P], w.target[c.P] = true, w.target[c.Q].Add(d)
			}
			spread = true
		}
	}
	// The nodes of shared contacts share one x block (union-find over the
	// contacts, the block numbered at the lowest node of each set): a node
	// given a block of its own and then its partner's would leave an unused
	// block, a zero row of the Newton matrix that needed regularization in
	// every solve. off[i] is x_i - x_root(i) (x_i - x_parent(i) until
	// find compresses the path); where contacts close a cycle, the gaps of
	// the ones that joined the set first hold.
	root := w.root[:len(s.X)]
	off := w.off[:len(s.X)]
	for i := range root {
		root[i], off[i] = int32(i), dense.Vec3{}
	}
	var find func(i int32) int32
	find = func(i int32) int32 {
		p := root[i]
		if p == i {
			return i
		}
		r := find(p)
		off[i] = off[i].Add(off[p])
		root[i] = r
		return r
	}
	for _, c := range s.Contacts {
		if !s.shared(c) || w.pinned[c.P] {
			continue
		}
		a, b := find(c.P), find(c.Q)
		if a == b {
			continue
		}
		// x_P - x_Q = d, x_a = x_P - off[P], x_b = x_Q - off[Q].
		d := c.Normal.Scale(c.Gap)
		if a < b {
			root[b], off[b] = a, off[c.P].Sub(d).Sub(off[c.Q])
		} else {
			root[a], off[a] = b, d.Add(off[c.Q]).Sub(off[c.P])
		}
	}
	w.nx = 0
	for i := range s.X {
		if s.Kind[i] == rod.EIL || w.pinned[i] {
			continue
		}
		if r := find(int32(i)); r == int32(i) {
			w.xdof[i] = int32(w.nx)
			w.nx++
		} else {
			w.xdof[i] = w.xdof[r]
		}
	}
	n := 3 * w.nx
	for i := range s.X {
		if !s.FixedU[i] {
			w.udof[i] = int32(n)
			n++
		}
	}
	w.n = n
	w.q = resize(w.q, n)
	w.q0 = resize(w.q0, n)
	w.dq = resize(w.dq, n)
	w.grad = resize(w.grad, n)
	for i := range s.X {
		if b := w.xdof[i]; b >= 0 {
			x := s.X[i].Sub(w.off[i])
			copy(w.q[3*b:3*b+3], x[:])
		}
		if j := w.udof[i]; j >= 0 {
			w.q[j] = s.U[i]
		}
	}
}

func (s *State) shared(c Contact) bool {
	return s.Kind[c.P] != rod.EIL && s.Kind[c.Q] != rod.EIL
}

// x returns node i's position for the unknowns q (EIL: interpolated).
func (s *State) x(q []float64, i int32) dense.Vec3 {
	w := &s.ws
	switch {
	case w.xdof[i] >= 0:
		b, o := w.xdof[i], &w.off[i]
		return dense.Vec3{q[3*b] + o[0], q[3*b+1] + o[1], q[3*b+2] + o[2]}
	case w.pinned[i]:
		return w.target[i]
	default:
		a, c := w.interpA[i], w.interpC[i]
		return rod.Interpolate(s.x(q, a), s.x(q, c), s.u(q, a), s.u(q, c), s.u(q, i))
	}
}

func (s *State) u(q []float64, i int32) float64 {
	if j := s.ws.udof[i]; j >= 0 {
		return q[j]
	}
	return s.U[i]
}

// solve runs Newton with backtracking line search on the incremental
// potential and, on success, updates positions, velocities and anchors.
func (s *State) solve(h float64, set Settings, target func(i int) dense.Vec3) (int, error) {
	w := &s.ws
	if err := s.begin(set, target); err != nil {
		return 0, err
	}
	// Projected Newton (robust far from the solution) until the line search
	// takes a full step, then the exact Hessians while full steps go on
	// (quadratic convergence where the projections had made it linear).
	// Measured on the first 40 steps of the fabric scenes (1 worker, this
	// VM; projected only -> hybrid): tablecloth 13.7 -> 11.0 s, knit-sphere
	// 5.3 -> 3.1 s, tag 3.8 -> 1.6 s, pocket 6.6 -> 2.5 s. Exact Hessians
	// from the first iteration were faster still on the fabrics but took
	// steps of centimetres far from the solution (rod-table stopped at step
	// 850). A solve after one that converged on the exact Hessians within
	// exactStartIterations (a yarn falling freely, or at rest) starts with
	// them (exactStart), skipping the projections of its first iteration:
	// knit-75k's free fall (loom bench --fabric-cases knit-75k, two
	// interleaved rounds, median s/step) 1.32/1.40 -> 0.92/0.83 on 1
	// worker, 0.91/0.83 -> 0.65/0.55 on 2, where the rest-curved bends'
	// projections had been a third of the time; the built-in fabric scenes'
	// Newton iterations over 100 steps unchanged.
	exact := w.exactStart && !set.AlwaysProject
	w.exactStart = false
	w.noPredict = !set.PredictContacts
	for it := 1; it <= set.MaxIterations; it++ {
		if set.DegenerateRestart && s.markDegenerate(w.q) {
			return it, errDegenerate
		}
		clear(w.slid)
		for first := true; ; first = false {
			phi, mu, err := s.direction(h, exact)
			if err != nil {
				return it, err
			}
			if again, err := s.boundEIL(first); err != nil {
				return it, err
			} else if again {
				continue // this iteration again, with the EIL nodes slid or held
			}
			if w.predicted && s.releaseEntering() {
				continue // this iteration again, without the released nodes
			}
			// Converged when the full Newton update is below Tol. (Judging the
			// update after the line search instead stops wherever the line
			// search took a tiny step; and once the update is at the level of
			// rounding the potential cannot decrease measurably any more, so the
			// line search must not be asked to.)
			grad := w.grad
			if w.predicted {
				grad = w.gradTrue
			}
			step, slope := 0.0, 0.0
			for k, d := range w.dq {
				step = math.Max(step, math.Abs(d))
				slope += d * grad[k]
			}
			if debugNewton {
				s.debugIteration(h, it, phi, slope, step, mu)
			}
			if it == 1 {
				w.startGrad = s.unbalanced(grad)
			}
			if step < set.Tol {
				w.exactStart = w.exactHessian && it <= exactStartIterations
				s.noteResidual()
				s.accept(h)
				return it, nil
			}
			alpha, done := 0.0, false
			if slope < 0 {
				alpha, done, err = s.lineSearch(h, phi, slope, grad)
			} else {
				err = fmt.Errorf("Newton direction is not a descent direction (slope %g)", slope)
			}
			if (err != nil || done) && w.predicted {
				// This iteration again, without prediction: the true
				// potential rejected the predicted direction, or the
				// direction's true decrease is below rounding, where only
				// the unpredicted Newton step may be taken as the solution
				// (a node at rest a hair outside the obstacle, pressed by
				// rounding only, pulled onto it by the model against the
				// rest of its yarn was accepted with 18-52 N unbalanced on
				// tablecloth).
				w.noPredict = true
				continue
			}
			if err != nil && w.exactHessian {
				exact = false // this iteration again, projected
				continue
			}
			if err != nil {
				return it, fmt.Errorf("iteration %d (Newton update %g): %w", it, step, err)
			}
			if done {
				s.noteResidual()
				s.accept(h)
				return it, nil
			}
			exact = alpha == 1 && !set.AlwaysProject
			w.noPredict = !set.PredictContacts
			break
		}
	}
	return set.MaxIterations, fmt.Errorf("no convergence in %d iterations", set.MaxIterations)
}

// exactStartIterations is the most Newton iterations after which a solve
// that converged on the exact Hessians has the next one start with them.
const exactStartIterations = 2

// errDegenerate ends a solve whose iterate brought a node within half the
// safety distance of its neighbour (markDegenerate): the step restarts
// with the node EIL.
var errDegenerate = errors.New("degenerate segment")

// maxRestarts bounds the restarts of one (sub)step for degenerate segments.
const maxRestarts = 8

// markDegenerate marks for EIL (ws.force) each node that the iterate q
// brings closer in u than half the assignment's safety distance (Assign,
// 0.1 of the rest segment) to its non-EIL neighbour, and reports whether
// it marked any. The node assignment of SB2020 sec. 4.1 runs at the step's
// start; within the step an EoL node sliding onto its neighbour makes a
// segment of zero length and zero material length together (its stretch
// energy k (l - du)^2 / (2 du) stays bounded, so nothing stops it), where
// the bend Hessians grow as 1/l^2 (measured on tag: 6e23 against 1e6 for
// the rest of the Newton matrix at l = 2.5e-14 m), the factorization's
// pivots turn negative in rounding, and the regularization that factors it
// (mu up to 1e17) left updates below Tol while the gradient was 1e4 N: a
// false convergence. The step restarts from its start with the node EIL,
// its segments and yarn pairs detected anew.
//
// Assign keeps a pair apart by making b EIL (b free, with a non-EIL node
// after it to interpolate from) or a (b fixed, a free, with one before
// it); an EoL node that slid to a rod's end stays EoL and is removed after
// the step, so such pairs are left alone. (Leaving alone also the pairs
// more than four safety distances apart at the step's start, iterates flung
// far rather than nodes sliding, left 7 of 250 tag steps and 7 of 500
// pocket steps with over 1 N unbalanced, against 1 and 0.)
func (s *State) markDegenerate(q []float64) bool {
	if !s.EIL {
		return false
	}
	marked := false
	for r := range s.Rods {
		R := &s.Rods[r]
		if R.Fixed {
			continue
		}
		d := R.SafetyDistance() / 2
		for k := 0; k+1 < len(R.nonEIL); k++ {
			a, b := R.nonEIL[k], R.nonEIL[k+1]
			if !(s.u(q, b)-s.u(q, a) < d) {
				continue
			}
			switch {
			case !s.FixedU[b] && k+2 < len(R.nonEIL):
				s.ws.force[b], marked = true, true
			case s.FixedU[b] && !s.FixedU[a] && k > 0:
				s.ws.force[a], marked = true, true
			}
		}
	}
	return marked
}

// noteResidual records the largest entry of the gradient at the accepted
// iterate (Result.Residual) and whether it exceeds the first iterate's
// (Result.Stalled).
func (s *State) noteResidual() {
	s.ws.residual = s.unbalanced(s.ws.grad)
	s.ws.stalled = s.ws.residual > s.ws.startGrad
}

// maxAbs returns the largest magnitude in v (0 if empty).
func maxAbs(v []float64) float64 {
	g := 0.0
	for _, x := range v {
		g = max(g, math.Abs(x))
	}
	return g
}

// direction assembles the Newton system at w.q and solves it for the
// update w.dq, returning the potential there and the regularization used.
// With exact it first tries the exact Hessian of every term (Newton proper,
// quadratic convergence where the system is positive definite), and where
// its factorization meets a pivot that is not positive (or the last failed
// factorization's direction shows it would), assembles again with
// the projected Hessians (compressed segments, rest-curved bends, contacts'
// Gauss-Newton, yarn penalties: positive semidefinite term by term) and
// factors those, regularized if need be. w.exactHessian says which was used.
func (s *State) direction(h float64, exact bool) (phi, mu float64, err error) {
	w := &s.ws
	w.exactHessian = exact
	w.predictOn, w.predicted = !w.noPredict && len(s.Obstacles) > 0, false
	defer func() { w.predictOn = false }()
	phi = s.eval(w.q, h, 2)
	if exact {
		// A kept direction of negative curvature (curvatureBound) certifies
		// that the exact Hessian would not factor: no need to try.
		indefinite := s.curvatureBound(0) > 0
		if !indefinite {
			err = s.factorOnce()
			indefinite = notPositive(err)
			if indefinite {
				s.pivotDirection(err)
			}
		}
		if indefinite {
			w.exactHessian = false
			s.eval(w.q, h, 2)
		}
	}
	if !w.exactHessian {
		mu, err = s.factorNewton(h)
	}
	if err != nil {
		return phi, mu, err
	}
	if w.asm.iter != nil || w.asm.solved {
		return phi, mu, nil // factorOnce solved for w.dq
	}
	for k := range w.dq {
		w.dq[k] = -w.grad[k]
	}
	w.asm.fac.Solve(w.dq, w.dq)
	return phi, mu, nil
}

// lineSearch backtracks (Armijo) along w.dq from w.q, whose potential is phi
// and slope the directional derivative, and moves w.q to the point it
// accepts. done reports an iterate converged to working precision: the full
// step's predicted decrease below the rounding of the potential, the step
// taken as it is.
func (s *State) lineSearch(h, phi, slope float64, grad []float64) (alpha float64, done bool, err error) {
	w := &s.ws
	alpha = 1.0
	trial := w.q0 // reuse as the trial buffer; q0 is no longer needed
	floor := phiFloor * w.asm.phiAbs
	for ls := 0; ; ls++ {
		for k := range trial {
			trial[k] = w.q[k] + alpha*w.dq[k]
		}
		decrease := alpha*slope + s.clampEIL(trial, grad)
		marking := ls == 0 && !w.noPredict && !w.noEntering
		if marking {
			as := &w.asm
			w.phiAt = append(w.phiAt[:0], as.tphi[as.obsLo:as.obsHi]...)
		}
		p := s.eval(trial, h, 0)
		if p <= phi+1e-4*decrease {
			break
		}
		if marking {
			s.markEntering()
		}
		if ls == 0 && -slope <= floor {
			// The line search cannot tell better from worse any more (the
			// potential is a sum of terms up to phiAbs): take the Newton
			// step, the best estimate there.
			return 1, true, nil
		}
		if ls == 30 {
			if !(p <= phi) {
				return alpha, false, errors.New("line search failed")
			}
			break
		}
		alpha /= 2
	}
	w.q, w.q0 = trial, w.q
	return alpha, false, nil
}

// accept takes the full update w.dq and ends the solve.
func (s *State) accept(h float64) {
	w := &s.ws
	for k, d := range w.dq {
		w.q[k] += d
	}
	s.clampEIL(w.q, w.grad)
	s.eval(w.q, h, 1)
	s.finish(h)
}

// debugIteration prints one Newton iteration and where its gradient is
// largest.
func (s *State) debugIteration(h float64, it int, phi, slope, step, mu float64) {
	w := &s.ws
	gn, arg := 0.0, 0
	for k, g := range w.grad {
		if math.Abs(g) >= gn {
			gn, arg = math.Abs(g), k
		}
	}
	what, node := "x", -1
	for i := range s.X {
		if int(w.udof[i]) == arg {
			what, node = "u", i
		}
		if b := int(w.xdof[i]); b >= 0 && arg/3 == b && arg < 3*w.nx {
			node = i
		}
	}
	kind, a, nf := rod.Kind(0), rod.Anchor{}, 0.0
	if node >= 0 {
		kind, a, nf = s.Kind[node], s.Anchor[node], w.normal[node]
	}
	mt := 0
	for t, e := range w.asm.tphi {
		if e < w.asm.tphi[mt] {
			mt = t
		}
	}
	tm := w.asm.terms[mt]
	fmt.Printf("   min term %d kind %d energy %.3g nodes %d %d %d id %d\n", mt, tm.kind, w.asm.tphi[mt], tm.a, tm.b, tm.c, tm.id)
	fmt.Printf("h %g newton it %d phi %.12g slope %.3g update %.3g mu %.3g |grad| %.3g at %s of node %d (%v, anchor %+v, normal force %.3g)\n",
		h, it, phi, slope, step, mu, gn, what, node, kind, a, nf)
}

// begin sets up a solve: the start-of-step state it lags (positions,
// Eulerian coordinates, contact forces, obstacle contacts, masses), the
// unknowns' numbering and initial guess, and the term list.
func (s *State) begin(set Settings, target func(i int) dense.Vec3) error {
	w := &s.ws
	w.projectBend, w.projectYarn = set.ProjectBend, false
	w.linear = set.Linear
	copy(w.xn, s.X)
	copy(w.un, s.U)
	clear(w.entering)
	// A yarn sliding over an obstacle edge through its edge node feels
	// Coulomb friction ObstacleMu N, N the edge spring's force at the
	// step's start (lagged as the contacts' normal forces).
	clear(w.edgeBound)
	for _, e := range s.Edges {
		d := w.xn[e.Node].Sub(e.A)
		d = d.Sub(e.Dir.Scale(d.Dot(e.Dir)))
		w.edgeBound[e.Node] += s.ObstacleMu * e.K * d.Norm()
	}
	for _, c := range s.Contacts {
		w.normal[c.P], w.normal[c.Q] = c.NormalForce, c.NormalForce
	}
	s.frictionBounds()
	s.number(target)
	s.listEIL()
	s.lagObstacles()
	copy(w.q0, w.q)
	if err := s.buildTerms(); err != nil {
		return err
	}
	s.lagMasses()
	return nil
}

// factorNewton factors the Newton matrix assembled at w.q
// (factorRegularized). Where that fails, the yarn-pair penalties are
// indefinite beyond any regularization up to the matrix's largest diagonal
// entry: their curvature term phi'(d) Hess d grows as 1/d when two
// centrelines come close (rodcontact.SegmentPenalty), and on tablecloth it
// put -5e11 on a diagonal whose other terms gave 1e5. Then their Hessians are
// projected onto the positive semidefinite matrices (dense.ProjectPSD) for
// the rest of the solve, the matrix is assembled again and factored. The
// energy and gradient are the same, so the line search and the convergence
// test are unchanged; only the direction differs. Where that fails too, the
// straight rods' bend Hessians are projected as well (as with
// Settings.ProjectBend) for the rest of the solve: yarns bent sharply at
// crossings (tablecloth, step 267 once its straight yarns took the straight
// bend) made the matrix indefinite beyond regularization 1e11.
func (s *State) factorNewton(h float64) (float64, error) {
	w := &s.ws
	mu, err := s.factorRegularized()
	for err != nil && !w.exactHessian {
		if _, notPD := err.(*notPDError); !notPD {
			break
		}
		switch {
		case !w.projectYarn && len(w.yarn.pairs) > 0:
			w.projectYarn = true
		case !w.projectBend:
			w.projectBend = true
		default:
			return mu, err
		}
		s.eval(w.q, h, 2)
		mu, err = s.factorRegularized()
	}
	return mu, err
}

// notPDError is factorRegularized's failure: every regularization tried
// left a pivot that is not positive.
type notPDError struct{ mu float64 }

func (e *notPDError) Error() string {
	return fmt.Sprintf("Newton matrix not positive definite even with regularization %g", e.mu)
}

// finish writes the solution back: positions, Eulerian coordinates,
// velocities (q - q_n)/h, EIL positions by interpolation, then contact normal
// forces and anchor friction.
func (s *State) finish(h float64) {
	w := &s.ws
	for i := range s.X {
		if j := w.udof[i]; j >= 0 {
			s.U[i] = w.q[j]
		}
	}
	for i := range s.X {
		s.X[i] = s.x(w.q, int32(i))
	}
	for i := range s.X {
		s.V[i] = s.X[i].Sub(w.xn[i]).Scale(1 / h)
		s.UDot[i] = (s.U[i] - w.un[i]) / h
	}
	for k := range s.Contacts {
		c := &s.Contacts[k]
		s.followNormal(c)
		if s.shared(*c) {
			// The shared point is pushed by P's rod with -gx[P] and by Q's
			// with -gx[Q]; their push on each other along the normal (which
			// points from Q's rod to P's) is gx[P].n = -gx[Q].n at
			// equilibrium. A side with a pin of its own (not one shared
			// through the contact) feels the pin too, and a fixed rod has
			// no terms at all (its gx reads 0), so the other side's value
			// is used then.
			np, nq := w.gx[c.P].Dot(c.Normal), -w.gx[c.Q].Dot(c.Normal)
			fixedP, fixedQ := s.Rods[s.Rod[c.P]].Fixed, s.Rods[s.Rod[c.Q]].Fixed
			switch {
			case fixedQ && !fixedP, s.Pinned[c.Q] && !s.Pinned[c.P] && !fixedP:
				c.NormalForce = np
			case fixedP && !fixedQ, s.Pinned[c.P] && !s.Pinned[c.Q] && !fixedQ:
				c.NormalForce = nq
			default:
				c.NormalForce = (np + nq) / 2
			}
		} else {
			c.NormalForce = c.K * (s.X[c.Q].Sub(s.X[c.P]).Dot(c.Normal) + c.Gap)
		}
	}
	// The anchors take their stick/slide state on the bounds with the
	// normal forces just measured (the edges' lagged).
	s.frictionBounds()
	for i := range s.Anchor {
		if a := &s.Anchor[i]; a.Kf > 0 {
			a.Slide(w.un[i], s.U[i], w.bound[i])
		}
	}
}

// frictionBounds sets each node's anchor friction bound: its obstacle
// edges' (edgeBound) plus its contacts' Contact.FrictionBound.
func (s *State) frictionBounds() {
	w := &s.ws
	copy(w.bound, w.edgeBound)
	for _, c := range s.Contacts {
		b := c.FrictionBound()
		w.bound[c.P] += b
		w.bound[c.Q] += b
	}
}

// followNormal turns contact c's normal with its yarns: the unit normal of
// the plane of the two rods' tangents at the contact, on the side of the
// old normal (so the pattern's over/under, and the side a proximity contact
// was found on, are kept). Yarns draped over an edge or hanging carry their
// crossings' planes with them; a normal fixed at load would measure the
// normal force (the friction bound, the release test) along a stale
// direction. Where the tangents are within minCrossingSine of parallel the
// plane is ill-defined and the normal is kept.
func (s *State) followNormal(c *Contact) {
	tp, tq := s.tangent(c.P), s.tangent(c.Q)
	n := tp.Cross(tq)
	l := n.Norm()
	if !(l > minCrossingSine*tp.Norm()*tq.Norm()) {
		return
	}
	n = n.Scale(1 / l)
	if n.Dot(c.Normal) < 0 {
		n = n.Scale(-1)
	}
	c.Normal = n
}

// minCrossingSine is the smallest sine of the angle between two yarns at a
// contact for which followNormal takes the plane of their tangents (about
// 6 degrees).
const minCrossingSine = 0.1

// tangent returns the direction of node i's rod at i: from its non-EIL
// neighbour before to the one after (the node itself at an end).
func (s *State) tangent(i int32) dense.Vec3 {
	a, c := s.ws.interpA[i], s.ws.interpC[i]
	if a < 0 {
		a = i
	}
	if c < 0 {
		c = i
	}
	return s.X[c].Sub(s.X[a])
}

func resize(a []float64, n int) []float64 {
	if cap(a) < n {
		return make([]float64, n)
	}
	return a[:n]
}
