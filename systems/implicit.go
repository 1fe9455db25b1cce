package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/activeset"
	"github.com/loomsim/loom/solver/amg"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// ImplicitSolve forms the right-hand side M v + h (f_ext - dE/dx) of the
// linearly implicit Euler step (Weidner 2018 eq. 11) and solves for the new
// velocities: by PCG (AMG V-cycle or block-Jacobi preconditioner) with the
// pins as filters (or LDL^T) when no contact rows are active, otherwise as the QP of Weidner 2018 eq. 12 with
// the pins as equalities and the contacts as inequalities, by the QP solver
// or by the filtered-PCG active-set iteration (contactFilter). Vertices that
// the solved velocities would carry into an obstacle without a contact row
// get one (ObstacleContact.refine), and the step is solved again.
type ImplicitSolve struct {
	state   *ClothState
	contact *ObstacleContact
	gravity dense.Vec3
	solver  implicitSolver
	rhs     func(lo, hi int)
	// pairs, when set, holds the step's proximity rows (SelfProximity);
	// their friction is applied by a second solve.
	pairs *SelfCollision
	// vPrev holds the start-of-step velocities of the last step, for the
	// warm start; valid while the topology version is prevTopology.
	vPrev        []float64
	prevTopology uint64
}

// NewImplicitSolve returns the system for the gathered state, its contacts
// and the solver settings.
func NewImplicitSolve(state *ClothState, contact *ObstacleContact, gravity dense.Vec3, set model.Solver) *ImplicitSolve {
	s := &ImplicitSolve{state: state, contact: contact, gravity: gravity, solver: implicitSolver{set: set}}
	s.rhs = s.rhsRange
	return s
}

// implicitSolver solves the step's system with the current pins and contact
// rows; it owns the solvers' workspaces, kept from step to step.
type implicitSolver struct {
	set    model.Solver
	pcg    *sparse.PCG
	amg    *amg.Preconditioner // model.AMG: PCG's preconditioner
	stale  bool                // the lag has not been decided for this step's matrix
	lag    amgLag
	direct directSolve
	qp     contactQP
	filter contactFilter
	// contactSetup: the AMG hierarchy is a contact solve's (Prepare: the
	// operator filtered by the pins and active contact rows), not the one
	// precondition sets up for the pins alone.
	contactSetup bool
}

// Name implements ecs.System.
func (s *ImplicitSolve) Name() string { return "implicit-solve" }

// Step implements ecs.System.
func (s *ImplicitSolve) Step(w *ecs.World) error {
	st := s.state
	w.Pool.For(st.NumVerts(), s.rhs)
	s.warmStart(w)
	s.solver.stale = true
	s.solver.lag.record(st.StepPCG.Solves, st.StepPCG.Iterations)
	st.StepPCG.Solves, st.StepPCG.Iterations = 0, 0
	if err := s.solve(w); err != nil {
		return err
	}
	for round := 0; round < maxRefinements && s.contact.refine(st); round++ {
		if err := s.solver.solve(w, st); err != nil {
			return fmt.Errorf("contact refinement: %w", err)
		}
	}
	if s.pairs != nil && s.pairs.frictionRHS() {
		if err := s.solve(w); err != nil {
			return fmt.Errorf("proximity friction: %w", err)
		}
	}
	return nil
}

// warmStart sets the solve's initial guess VNew: the start-of-step
// velocity extrapolated by the last step's change, v + (v - v_prev), a
// second-order guess of v(t + h) for smooth motion (the first step, and the
// first after a topology change, start from v). The guess only moves the
// start of the iteration: PCG and the active set end on the same tolerance.
func (s *ImplicitSolve) warmStart(w *ecs.World) {
	st := s.state
	if s.vPrev != nil && s.prevTopology == w.TopologyVersion() && len(s.vPrev) == len(st.V) {
		for j, v := range st.V {
			st.VNew[j] = 2*v - s.vPrev[j]
		}
	} else {
		copy(st.VNew, st.V)
	}
	s.vPrev = append(s.vPrev[:0], st.V...)
	s.prevTopology = w.TopologyVersion()
}

// solve solves the step's system; if a QP with proximity rows fails (its
// ADMM iteration limit on a degenerate set of pairs), it solves again
// without them, and the fail-safe repels the pairs after the solve.
func (s *ImplicitSolve) solve(w *ecs.World) error {
	st := s.state
	err := s.solver.solve(w, st)
	if err == nil || len(st.Pairs) == 0 {
		return err
	}
	st.Pairs = st.Pairs[:0]
	copy(st.VNew, st.V)
	return s.solver.solve(w, st)
}

// solve solves the step's system with the current pins and contact rows,
// starting from VNew.
func (is *implicitSolver) solve(w *ecs.World, s *ClothState) error {
	if is.pcg == nil {
		is.pcg = sparse.NewPCG(s.NumVerts())
	} else {
		is.pcg.Resize(s.NumVerts())
	}
	s.LastQP = QPStats{}
	s.PairImpulse = s.PairImpulse[:0]
	if len(s.Contacts) > 0 || len(s.Pairs) > 0 {
		// The filtered PCG holds one-vertex rows only: proximity pairs
		// go to the QP solver.
		if is.set.Contact == model.ContactFilter && len(s.Pairs) == 0 {
			return is.filter.solve(w, s, is.pcg, is.set, is.preparer())
		}
		return is.qp.solve(s)
	}
	if is.set.Linear == model.LDLT {
		return is.direct.solve(s)
	}
	if err := is.precondition(w, s); err != nil {
		return err
	}
	res, err := is.pcg.Solve(w.Pool, s.A, s.B, s.VNew, s.PinFilter, s.PinZ, is.set.Tolerance, is.set.MaxIterations)
	s.LastSolve = res
	s.StepPCG.Solves++
	s.StepPCG.Iterations += res.Iterations
	if err != nil {
		return fmt.Errorf("PCG: %w", err)
	}
	if !res.Converged {
		return fmt.Errorf("PCG did not converge in %d iterations (relative residual %.3g > %g)", res.Iterations, res.Residual, is.set.Tolerance)
	}
	return nil
}

// precondition sets up the AMG preconditioner for this step's matrix (a new
// symbolic setup when the mesh changed), once per step, when the settings
// ask for it and the lag (amgLag) does not keep the last setup. With pins,
// the hierarchy is the pin-filtered matrix's (amg.SetupFiltered). A step
// with contact rows sets its hierarchies up through Prepare instead, for
// the operator filtered by its active rows as well.
func (is *implicitSolver) precondition(w *ecs.World, s *ClothState) error {
	if is.set.Precond != model.AMG || !is.stale {
		return nil
	}
	is.stale = false
	if err := is.newAMG(); err != nil {
		return err
	}
	if is.amg.Matches(s.A) && is.lag.keep() && !is.contactSetup {
		return nil
	}
	var pins []float64
	if len(s.Pins) > 0 {
		pins = s.PinFilter
	}
	if err := is.amg.SetupFiltered(w.Pool, s.A, pins, s.X); err != nil {
		return fmt.Errorf("AMG setup: %w", err)
	}
	is.contactSetup = false
	is.lag.reset()
	return nil
}

// newAMG makes the AMG preconditioner on first use.
func (is *implicitSolver) newAMG() error {
	if is.amg != nil {
		return nil
	}
	p, err := amg.New(amg.DefaultOptions())
	if err != nil {
		return err
	}
	is.amg = p
	is.pcg.SetPreconditioner(p)
	return nil
}

// preparer returns the contact solve's activeset.Preparer: the solver
// itself with the AMG preconditioner, none with block-Jacobi.
func (is *implicitSolver) preparer() activeset.Preparer {
	if is.set.Precond != model.AMG {
		return nil
	}
	return is
}

// Prepare implements activeset.Preparer: the AMG hierarchy of A filtered
// by the pins and the round's active contact rows (no positions: the
// default options' near-null space is the translations). It replaces this
// step's setup, so the next step without contacts sets up anew.
func (is *implicitSolver) Prepare(r sparse.Runner, A *sparse.BSR, filter []float64) error {
	is.stale = false
	if err := is.newAMG(); err != nil {
		return err
	}
	if err := is.amg.SetupFiltered(r, A, filter, nil); err != nil {
		return fmt.Errorf("AMG setup: %w", err)
	}
	is.contactSetup = true
	return nil
}

// The AMG hierarchy's numeric setup (a fifth of a 100x100 drape step) is
// kept as a lagged preconditioner for up to amgLagSteps - 1 steps after it:
// the V-cycle of a recent matrix of the same pattern is still a symmetric
// positive definite approximation of the new matrix's inverse (amg.Setup
// keeps what it reads), so PCG converges to the same tolerance, in a few
// more iterations (100x100 drape, 35 steps from rest: 9.8% fewer
// instructions by callgrind; the last step's iterations 25 -> 30). Where
// the cloth turns quickly the lagged V-cycle degrades fast: the 3x3
// diagonal blocks its smoother inverts are stiff in the cloth's plane and
// soft across it, so a block inverted a few steps earlier, in another
// orientation, mixes the two (sphere-arcsim after the sphere has passed:
// 2-4x the iterations of a fresh setup). So the setup is kept only while
// the steps after it need at most amgLagGrowth times the iterations per
// solve of the first one. The rule reads iteration counts, which are
// bitwise the same for any worker count and after a restart (the lag is in
// the state image).
const (
	amgLagSteps  = 4
	amgLagGrowth = 1.5
)

// amgLag counts the steps since the last AMG numeric setup and their PCG
// iterations per solve.
type amgLag struct {
	age  int     // steps solved by PCG since the setup
	base float64 // the first of them: iterations per solve
	last float64 // the latest of them: iterations per solve
}

// reset starts a new lag after a setup.
func (l *amgLag) reset() { l.age = 0 }

// record notes a finished step's PCG solves and iterations (no solves: the
// step did not use PCG, or used it without the preconditioner's setup).
func (l *amgLag) record(solves, iterations int) {
	if solves == 0 {
		return
	}
	l.age++
	l.last = float64(iterations) / float64(solves)
	if l.age == 1 {
		l.base = l.last
	}
}

// keep reports whether the next step may use the last setup.
func (l *amgLag) keep() bool {
	return l.age > 0 && l.age < amgLagSteps && l.last <= amgLagGrowth*l.base+1
}

func (s *ImplicitSolve) rhsRange(lo, hi int) {
	st := s.state
	h := st.H
	for i := lo; i < hi; i++ {
		m := st.Mass[i]
		for k := 0; k < 3; k++ {
			j := 3*i + k
			st.B[j] = m*st.V[j] + h*(m*s.gravity[k]+st.Ext[j]-st.Grad[j])
		}
	}
}
