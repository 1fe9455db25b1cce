package systems

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/sparse"
)

// maxActiveSetRounds bounds the active-set corrections of the filtered
// contact solve; each round is one PCG solve.
const maxActiveSetRounds = 8

// contactFilter solves the contact step's QP (Weidner 2018 eq. 12: minimize
// 1/2 v^T A v - b^T v subject to the pins and one row n_k^T v_i >= t_k per
// contact vertex) by an active-set iteration on Baraff & Witkin's (1998)
// filtered PCG instead of the general QP solver. It uses that every contact
// row involves a single vertex: an active row is a filter S_i = I - n n^T with
// the prescribed normal velocity t n, so one PCG solve gives the equality-
// constrained optimum, and its multipliers are lambda_k = n^T (A v - b)_i (the
// normal impulse, N s). Rows with lambda_k < 0 (the obstacle would pull) are
// released and rows whose constraint the solve violates are activated, until
// the active set is stable: then v meets the QP's KKT conditions (to the PCG
// tolerance), the same answer as the QP solver without its factorizations.
type contactFilter struct {
	filter []float64 // 9n: the pins' filters with the active rows added
	z      []float64 // 3n
	av     []float64 // 3n: A v
	active []bool    // per contact row
}

func (c *contactFilter) solve(w *ecs.World, s *ClothState, pcg *sparse.PCG, set model.Solver) error {
	n := s.NumVerts()
	c.filter = resize(c.filter, 9*n)
	c.z = resize(c.z, 3*n)
	c.av = resize(c.av, 3*n)
	rows := s.Contacts
	if cap(c.active) < len(rows) {
		c.active = make([]bool, len(rows))
	}
	c.active = c.active[:len(rows)]
	for k := range c.active {
		c.active[k] = true
	}
	if cap(s.Impulse) < len(rows) {
		s.Impulse = make([]float64, len(rows))
	}
	s.Impulse = s.Impulse[:len(rows)]
	stats := QPStats{Rows: len(rows)}
	for round := 0; ; round++ {
		copy(c.filter, s.PinFilter)
		copy(c.z, s.PinZ)
		for k, r := range rows {
			if !c.active[k] {
				continue
			}
			i, nr := int(r.Vertex), r.Normal
			f := c.filter[9*i : 9*i+9]
			for a := range 3 {
				for b := range 3 {
					f[3*a+b] -= nr[a] * nr[b]
				}
				c.z[3*i+a] = r.Target * nr[a]
			}
		}
		res, err := pcg.Solve(w.Pool, s.A, s.B, s.VNew, c.filter, c.z, set.Tolerance, set.MaxIterations)
		s.LastSolve = res
		stats.Iterations += res.Iterations
		if err != nil {
			return fmt.Errorf("filtered contact solve: PCG: %w", err)
		}
		if !res.Converged {
			return fmt.Errorf("filtered contact solve with %d rows: PCG did not converge in %d iterations (relative residual %.3g > %g)",
				len(rows), res.Iterations, res.Residual, set.Tolerance)
		}
		s.A.MulVec(w.Pool, s.VNew, c.av)
		changed, violation := false, 0.0
		for k, r := range rows {
			i, nr := int(r.Vertex), r.Normal
			vn := nr[0]*s.VNew[3*i] + nr[1]*s.VNew[3*i+1] + nr[2]*s.VNew[3*i+2]
			if c.active[k] {
				lam := 0.0
				for a := range 3 {
					lam += nr[a] * (c.av[3*i+a] - s.B[3*i+a])
				}
				s.Impulse[k] = math.Max(lam, 0)
				if lam < 0 {
					c.active[k], changed = false, true
				}
				continue
			}
			s.Impulse[k] = 0
			if d := r.Target - vn; d > 0 {
				violation = math.Max(violation, d)
				// A violation within the PCG's accuracy is not a new contact.
				if d > 1e-9*(1+math.Abs(r.Target)) {
					c.active[k], changed = true, true
				}
			}
		}
		stats.Residual = math.Max(res.Residual, violation)
		if !changed || round+1 == maxActiveSetRounds {
			break
		}
	}
	s.LastQP = stats
	return nil
}
