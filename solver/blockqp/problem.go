package blockqp

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/qp"
)

// MaxGroupSize is the largest number of variables in a group (an EOL vertex:
// world velocity plus material velocity).
const MaxGroupSize = 5

// Group is one block of variables that constraint rows may couple: a cloth
// vertex's world velocity (3 variables) or an EOL vertex's world and material
// velocities (5). The groups of a Problem partition the variables.
type Group struct {
	Vars []int32
}

// Row is one constraint on the variables of one group:
//
//	sum_k Coef[k] v[Vars[k]] = Target  (Eq)   or   >= Target  (otherwise).
//
// Warm marks an inequality that was in the working set of a previous, similar
// solve (the last time step's active contacts): it joins the first working
// set, as the rows tight or violated at the warm start do. It is only a
// starting guess: the answer does not depend on it, the number of active-set
// rounds does.
type Row struct {
	Group  int32
	Coef   []float64 // len(Groups[Group].Vars), not all zero
	Eq     bool
	Warm   bool
	Target float64
}

// Problem is the QP minimize 1/2 v^T H v - F^T v subject to the Rows.
//
// H is given either as a scalar CSR matrix (H) or by pairs of groups (HG),
// exactly one of the two. It is stored in full (both triangles) and must be
// symmetric (not checked);
// it must be positive definite on the subspace the equality rows leave free,
// and may be singular only along directions the equalities remove. Every
// variable belongs to exactly one group of 1 to MaxGroupSize variables. The
// rows of a group, equalities and inequalities together, must be linearly
// independent (so a group has at most as many rows as variables). All values
// must be finite.
type Problem struct {
	H      *qp.CSR
	HG     *GroupMatrix
	F      []float64
	Groups []Group
	Rows   []Row
	// Domains, if not empty, lets the Gauss-Seidel sweeps run on several
	// workers: with Domains[0] = 0 and ascending, groups Domains[d] ..
	// Domains[d+1]-1 form domain d for d < len(Domains)-1, and the groups
	// from Domains[len(Domains)-1] on form the separator. H must not couple
	// groups of two different domains (the separator may couple to any
	// group). The sweeps go through the domains at once and the separator on
	// its own, which is the sequential sweep in group order, so only the
	// order in which a sweep's sums are added depends on Domains, never on
	// the worker count. sparse.Dissect orders groups this way.
	Domains []int
}

// GroupMatrix is H by pairs of groups, for callers that assemble it so (a
// cloth's vertex blocks): block row g, for group g of Problem.Groups, is
// blocks Ptr[g] .. Ptr[g+1]-1, and block b is the k_g x k_h part of H in the
// rows of group g's variables and the columns of group h = Col[b]'s (each in
// Vars order), row major at Val[Off[b]:Off[b]+k_g k_h]. A block row lists a
// group at most once; the groups it leaves out are not coupled to g (a
// diagonal block left out is zero).
type GroupMatrix struct {
	Ptr, Col, Off []int32
	Val           []float64
}

// CSR returns m as a scalar CSR matrix of n rows over the variables of
// groups (for solvers that take one, such as solver/qp's); it keeps every
// entry of the blocks, zeros too, and its rows' columns are in block order,
// not sorted.
func (m *GroupMatrix) CSR(groups []Group, n int) *qp.CSR {
	h := &qp.CSR{Rows: n, Cols: n, RowPtr: make([]int, n+1)}
	for g, grp := range groups {
		w := 0
		for _, o := range m.Col[m.Ptr[g]:m.Ptr[g+1]] {
			w += len(groups[o].Vars)
		}
		for _, v := range grp.Vars {
			h.RowPtr[v+1] = w
		}
	}
	for i := 0; i < n; i++ {
		h.RowPtr[i+1] += h.RowPtr[i]
	}
	h.Col, h.Val = make([]int, h.RowPtr[n]), make([]float64, h.RowPtr[n])
	for g, grp := range groups {
		for a, v := range grp.Vars {
			k := h.RowPtr[v]
			for b := m.Ptr[g]; b < m.Ptr[g+1]; b++ {
				vars := groups[m.Col[b]].Vars
				val := m.Val[int(m.Off[b])+a*len(vars):]
				for c, j := range vars {
					h.Col[k], h.Val[k] = int(j), val[c]
					k++
				}
			}
		}
	}
	return h
}

// Settings controls a solve. Zero fields take the DefaultSettings values.
type Settings struct {
	// Tol is the PCG stopping rule: ||S (F - H v)||_2 <= Tol ||S (F - H z)||_2,
	// the filtered residual relative to that of the prescribed point z.
	Tol float64
	// ScreenTol is the PCG tolerance of the first (screening) round: the
	// active set is searched with inexact solves, and the tolerance tightens
	// 100-fold after each round that leaves the set unchanged, down to Tol,
	// and after each round whose changes are not fewer than before, down to
	// 1e-12 (see the package doc); only an unchanged set at Tol or tighter is
	// converged. ScreenTol <= Tol starts at Tol.
	ScreenTol float64
	// MaxCG bounds the PCG iterations of one active-set round.
	MaxCG int
	// MaxRounds bounds the active-set rounds (one PCG solve each; the primal
	// fallback changes one row a round).
	MaxRounds int
	// FeasTol: an inequality is violated when a.v < b - FeasTol * ps, with
	// ps = max_i ||a_i||_1 ||v||_inf or max_i |b_i|, whichever is larger.
	FeasTol float64
	// DualTol: a working inequality is released when y < -DualTol * ys, with
	// ys = max(||y||_inf, max(||H v||_inf, ||F||_inf) / ||A||_1) as in
	// solver/qp's residuals.
	DualTol float64
}

// DefaultSettings returns Tol 1e-10, ScreenTol 1e-2, MaxCG 2000, MaxRounds
// 50, FeasTol 1e-9, DualTol 1e-8.
func DefaultSettings() Settings {
	return Settings{Tol: 1e-10, ScreenTol: 1e-2, MaxCG: 2000, MaxRounds: 50, FeasTol: 1e-9, DualTol: 1e-8}
}

func (s Settings) withDefaults() (Settings, error) {
	d := DefaultSettings()
	if s.Tol == 0 {
		s.Tol = d.Tol
	}
	if s.FeasTol == 0 {
		s.FeasTol = d.FeasTol
	}
	if s.DualTol == 0 {
		s.DualTol = d.DualTol
	}
	if s.ScreenTol == 0 {
		s.ScreenTol = d.ScreenTol
	}
	if err := positive("Tol", s.Tol); err != nil {
		return s, err
	}
	if err := positive("FeasTol", s.FeasTol); err != nil {
		return s, err
	}
	if err := positive("DualTol", s.DualTol); err != nil {
		return s, err
	}
	if err := positive("ScreenTol", s.ScreenTol); err != nil {
		return s, err
	}
	if s.MaxCG == 0 {
		s.MaxCG = d.MaxCG
	}
	if s.MaxRounds == 0 {
		s.MaxRounds = d.MaxRounds
	}
	if s.MaxCG < 0 || s.MaxRounds < 0 {
		return s, fmt.Errorf("blockqp: Settings.MaxCG = %d, MaxRounds = %d: want positive counts", s.MaxCG, s.MaxRounds)
	}
	return s, nil
}

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("blockqp: Settings.%s = %v, want a positive finite number", name, v)
	}
	return nil
}

// Result is the outcome of Solver.Solve. Its slices belong to the Solver and
// are overwritten by the next Solve; copy them to keep them (passing X back as
// the next warm start is fine).
type Result struct {
	// X is the solution.
	X []float64
	// Y holds one multiplier per row, in the convention H X - F = A^T Y, with
	// Y >= 0 on inequalities and Y = 0 on inactive ones.
	Y []float64
	// Active marks the working rows (equalities always).
	Active []bool
	// CGIterations counts PCG iterations over all rounds; Rounds counts
	// active-set rounds (PCG solves).
	CGIterations, Rounds int
	// Converged: the last PCG solve met Tol and the active set was stable
	// (no violated inactive inequality, no negative working multiplier).
	Converged bool
	// Message says why the solve did not converge ("" when it did).
	Message string
	// Residual is the relative filtered residual of the last PCG solve.
	Residual float64
	// Violation is the largest inequality violation, max(0, b - a.X) / ps;
	// NegMultiplier the largest negative inequality multiplier, max(0, -y) /
	// ys (ps and ys as in Settings).
	Violation, NegMultiplier float64
	// RegularizedGroups counts groups whose preconditioner block was singular
	// on the free subspace (H singular in a free direction) and was patched.
	RegularizedGroups int
}

func finite(x float64) bool { return x-x == 0 } // NaN and ±Inf give NaN
