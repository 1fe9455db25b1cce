package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
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
	stale  bool                // amg has not been set up for this step's matrix
	direct directSolve
	qp     contactQP
	filter contactFilter
}

// Name implements ecs.System.
func (s *ImplicitSolve) Name() string { return "implicit-solve" }

// Step implements ecs.System.
func (s *ImplicitSolve) Step(w *ecs.World) error {
	st := s.state
	w.Pool.For(st.NumVerts(), s.rhs)
	copy(st.VNew, st.V)
	s.solver.stale = true
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
			if err := is.precondition(w, s); err != nil {
				return err
			}
			return is.filter.solve(w, s, is.pcg, is.set)
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

// precondition sets up the AMG preconditioner for this step's matrix, once
// per step (a new symbolic setup when the mesh changed), when the settings
// ask for it.
func (is *implicitSolver) precondition(w *ecs.World, s *ClothState) error {
	if is.set.Precond != model.AMG || !is.stale {
		return nil
	}
	if is.amg == nil {
		p, err := amg.New(amg.DefaultOptions())
		if err != nil {
			return err
		}
		is.amg = p
		is.pcg.SetPreconditioner(p)
	}
	if err := is.amg.Setup(w.Pool, s.A, s.X); err != nil {
		return fmt.Errorf("AMG setup: %w", err)
	}
	is.stale = false
	return nil
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
