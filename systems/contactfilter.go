package systems

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/activeset"
	"github.com/loomsim/loom/solver/sparse"
)

// contactFilter solves the contact step's QP (Weidner 2018 eq. 12) by the
// active-set iteration on Baraff & Witkin's (1998) filtered PCG of
// solver/activeset instead of the general QP solver: it passes the step's
// matrix, right-hand side, pin filters and contact rows, and keeps the
// solver's workspace between steps.
type contactFilter struct {
	solver activeset.Solver
	rows   []activeset.Row
}

func (c *contactFilter) solve(w *ecs.World, s *ClothState, pcg *sparse.PCG, set model.Solver, prep activeset.Preparer) error {
	c.rows = c.rows[:0]
	for _, r := range s.Contacts {
		c.rows = append(c.rows, activeset.Row(r))
	}
	if cap(s.Impulse) < len(c.rows) {
		s.Impulse = make([]float64, len(c.rows))
	}
	s.Impulse = s.Impulse[:len(c.rows)]
	p := activeset.Problem{A: s.A, B: s.B, PinFilter: s.PinFilter, PinZ: s.PinZ, Rows: c.rows,
		Tolerance: set.Tolerance, MaxIterations: set.MaxIterations, Prepare: prep}
	res, err := c.solver.Solve(w.Pool, pcg, &p, s.VNew, s.Impulse)
	s.LastSolve = res.Last
	s.StepPCG.Solves += res.Solves
	s.StepPCG.Iterations += res.Iterations
	if err != nil {
		return err
	}
	s.LastQP = QPStats{Rows: len(c.rows), Iterations: res.Iterations, Residual: res.Residual}
	return nil
}
