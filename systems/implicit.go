package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
)

// ImplicitSolve forms the right-hand side M v + h (f_ext - dE/dx) of the
// linearly implicit Euler step (Weidner 2018 eq. 11) and solves for the new
// velocities: by block-Jacobi PCG with the pins as filters (or LDL^T) when no
// contact rows are active, otherwise as the QP of Weidner 2018 eq. 12 with
// the pins as equalities and the contacts as inequalities, by the QP solver
// or by the filtered-PCG active-set iteration (contactFilter).
type ImplicitSolve struct {
	state   *ClothState
	gravity dense.Vec3
	rhs     func(lo, hi int)
}

// NewImplicitSolve returns the system.
func NewImplicitSolve(state *ClothState, gravity dense.Vec3) *ImplicitSolve {
	s := &ImplicitSolve{state: state, gravity: gravity}
	s.rhs = s.rhsRange
	return s
}

// Name implements ecs.System.
func (s *ImplicitSolve) Name() string { return "implicit-solve" }

// Step implements ecs.System.
func (s *ImplicitSolve) Step(w *ecs.World) error {
	st := s.state
	w.Pool.For(st.NumVerts(), s.rhs)
	copy(st.VNew, st.V)
	return st.solve(w)
}

// solve solves the step's system with the current pins and contact rows,
// starting from VNew.
func (s *ClothState) solve(w *ecs.World) error {
	s.LastQP = QPStats{}
	if len(s.Contacts) > 0 {
		if s.ContactSolver == model.ContactFilter {
			return s.Filter.solve(w, s)
		}
		return s.QP.solve(s)
	}
	if s.Linear == model.LDLT {
		return s.Direct.solve(s)
	}
	res, err := s.PCG.Solve(w.Pool, s.A, s.B, s.VNew, s.PinFilter, s.PinZ, s.Tolerance, s.MaxIterations)
	s.LastSolve = res
	if err != nil {
		return fmt.Errorf("PCG: %w", err)
	}
	if !res.Converged {
		return fmt.Errorf("PCG did not converge in %d iterations (relative residual %.3g > %g)", res.Iterations, res.Residual, s.Tolerance)
	}
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
