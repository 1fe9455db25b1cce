package rodstep

import (
	"errors"
	"fmt"
	"slices"

	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/sparse"
)

// Linear chooses the solver of the Newton systems.
type Linear uint8

const (
	// LinearAuto solves systems of fewer than AutoLagged unknowns by
	// sparse LDL^T, those up to AutoIterative by LinearLagged and larger
	// ones iteratively.
	LinearAuto Linear = iota
	// LinearDirect is sparse LDL^T (package ldlt) ordered by AMD, or by
	// nested dissection at the nodes' positions from bisectionUnknowns
	// unknowns on: exact, its symbolic analysis reused while the terms'
	// connectivity holds.
	LinearDirect
	// LinearIterative is conjugate gradients preconditioned by additive
	// Schwarz over the yarns (package schwarz): every rod's segment and
	// bend unknowns form one subdomain, factored exactly, so the stiff
	// stretch along each yarn is inverted and only the couplings between
	// yarns (shared contact positions, penalties, anchors) are left to the
	// iteration.
	LinearIterative
	// LinearLagged is LinearDirect whose factor is kept as the
	// preconditioner of conjugate gradients for later Newton matrices of the
	// same pattern (solveLagged), refactored when they do not converge
	// quickly or meet non-positive curvature.
	LinearLagged
)

// AutoIterative is LinearAuto's switch, in unknowns. A woven stack's
// LDL^T factor fills like a sheet's (n log n entries, n^1.5 work) when it
// is ordered by nested dissection (bisectionUnknowns); one Newton system of
// tablecloth (three plain-weave layers of k x k yarns, 1 worker, this
// 2-core VM), the direct solver's factor and solve against the Schwarz
// conjugate gradients to 1e-6: k = 12 (8,408 unknowns) 74 ms against
// 562 ms (642 iterations); k = 24 (35,310) 0.47 s against 1.31 s (369);
// k = 48 (143,166) 4.0 s against 4.7 s (366), L holding 32.5M entries
// (260 MB). (Ordered by AMD, the factor had taken 0.48 s and 40.8 s at
// k = 12 and 24.) A single system understates the factor's advantage: the
// lagged factor serves several Newton iterations, while the Schwarz
// iteration count stays. On pocket with two 180 x 180 denim layers (389,520
// nodes, 1,036,800 unknowns, 2 workers) the first step took 127 s and
// 5.8 GB resident with LinearLagged (4 Newton iterations, 2
// factorizations), and had not ended after 13 minutes (25 CPU minutes)
// with LinearIterative, the choice of the switch at 10^5 before; at the
// paper's size (625,596 nodes) LinearLagged took 510 s a step and 9.8 GB. The
// factor's memory (n log n) is the limit: about 12 GB at 2 x 10^6
// unknowns by that run's figure.
const AutoIterative = 2000000

// AutoLagged is where LinearAuto starts keeping the factor as the
// preconditioner of later Newton matrices (LinearLagged), below
// AutoIterative. Measured on tablecloth (first 30 steps with three 18 x 18
// layers, about 17,000 unknowns, 1 worker): 1.51x faster than factoring
// every Newton matrix; with the built-in 6 x 6 layers (1,896 unknowns, 40
// steps) 1.25x. The built-in scenes stay below it and solve directly,
// exactly.
const AutoLagged = 10000

// lagged reports whether a system of n unknowns is solved by conjugate
// gradients on a lagged factor.
func (l Linear) lagged(n int) bool {
	switch l {
	case LinearLagged:
		return true
	case LinearAuto:
		return n >= AutoLagged && n < AutoIterative
	}
	return false
}

// iterative reports whether a system of n unknowns is solved iteratively.
func (l Linear) iterative(n int) bool {
	switch l {
	case LinearIterative:
		return true
	case LinearDirect, LinearLagged:
		return false
	}
	return n >= AutoIterative
}

// cgTol is the conjugate gradient solve's relative residual (an inexact
// Newton direction: Newton's convergence test and line search are
// unchanged), cgLoose the residual a solve that runs out of iterations must
// still reach for its direction to be taken, and cgMaxIterations the
// iterations it may take. Measured on tablecloth's first 60 steps (6 x 6
// yarns a layer, run iteratively): 1e-6 takes the direct solver's Newton
// iterations (718, 1 halving, 61 s); 1e-3 (963 iterations, 2 halvings,
// 44 s) and 1e-4 (1043, 3 halvings, 71 s) leave its trajectory.
const (
	cgTol           = 1e-6
	cgLoose         = 1e-2
	cgMaxIterations = 5000
)

// yarnSubdomains lists each rod's unknowns: those of its segment and bend
// terms (its nodes' positions and Eulerian coordinates, and the positions
// its contact nodes share with other rods', where subdomains overlap), and
// all the unknowns of each yarn penalty pair and soft contact that touches
// them, so that a stiff coupling between two yarns lies inside both
// subdomains. Without those, tablecloth (run iteratively) needed up to 5000
// iterations per solve from step 44, when the layers' yarn penalties grow
// stiff, and halved its steps where the direct solver did not; with them
// its first 60 steps take the direct solver's Newton iterations (718
// against 719). Unknowns of no rod's terms are left out (schwarz
// preconditions them by their diagonal).
//
// Also measured, on tablecloth with three layers of 12 x 12 yarns (9,058
// unknowns, first 10 steps, 520 iterations per solve): a coarse level of
// region translations (and of the regions' Eulerian shifts per rod) added
// to the subdomain solves cut the iterations by 4% at more than 4% of the
// cost; boxes of 6 and 12 rest segments with one segment of overlap as
// subdomains took 200 and 140 iterations, but their factors (2D patches,
// which fill) made the steps 3x slower. Neither is kept.
func (s *State) yarnSubdomains() [][]int32 {
	as := &s.ws.asm
	owner := make([]int32, s.ws.n) // 1 + the (last) rod whose segments or bends list it
	sub := make([][]int32, len(s.Rods))
	for _, t := range as.terms {
		if t.kind != termSegment && t.kind != termBend {
			continue
		}
		for _, i := range as.locIdx[t.loc : t.loc+int(t.n)] {
			if i >= 0 {
				owner[i] = t.rod + 1
				sub[t.rod] = append(sub[t.rod], i)
			}
		}
	}
	// Terms coupling yarns (yarn penalties, soft contacts): each yarn they
	// touch takes in all their unknowns.
	for _, t := range as.terms {
		if t.kind != termYarn && t.kind != termContact {
			continue
		}
		loc := as.locIdx[t.loc : t.loc+int(t.n)]
		for _, i := range loc {
			if i < 0 || owner[i] == 0 {
				continue
			}
			for _, j := range loc {
				if j >= 0 {
					sub[owner[i]-1] = append(sub[owner[i]-1], j)
				}
			}
		}
	}
	for r := range sub {
		slices.Sort(sub[r])
		sub[r] = slices.Compact(sub[r])
	}
	return sub
}

// Iterative reports whether the last solve's systems were solved
// iteratively.
func (s *State) Iterative() bool { return s.ws.asm.iter != nil }

// solveIterative solves the factored system for the Newton update w.dq.
// Non-positive curvature in the iteration is reported as a matrix that is
// not positive definite (notPositive), as a pivot would be.
func (s *State) solveIterative() error {
	w := &s.ws
	res, err := w.asm.iter.Solve(s.Runner, w.newtonRHS(w.n), w.dq, cgTol, cgMaxIterations)
	w.cgIterations += res.Iterations
	if err != nil {
		return err
	}
	if !res.Converged && !(res.Residual <= cgLoose) {
		return fmt.Errorf("conjugate gradients reached relative residual %.3g in %d iterations", res.Residual, res.Iterations)
	}
	return nil
}

// newtonRHS sets w.rhs to the Newton system's right-hand side -grad over
// its first n unknowns and returns it.
func (w *workspace) newtonRHS(n int) []float64 {
	w.rhs = resize(w.rhs, n)
	for k, g := range w.grad[:n] {
		w.rhs[k] = -g
	}
	return w.rhs
}

// notPositive reports whether err says the Newton matrix is not positive
// definite: a pivot of the direct factor, or of a yarn's factor, or
// non-positive curvature in the conjugate gradients.
func notPositive(err error) bool {
	var pe *ldlt.PivotError
	return errors.As(err, &pe) || errors.Is(err, sparse.ErrCurvature)
}
