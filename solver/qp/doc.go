// Package qp solves the convex quadratic programs of constrained implicit
// cloth steps (Weidner et al. 2018, eq. 12, velocity level):
//
//	minimize 1/2 v^T H v - F^T v  subject to  Aeq v = Beq,  Ain v >= Bin,
//
// with H sparse, symmetric and only positive semi-definite, n up to ~1e5 and
// comparatively few constraints.
//
// # Method
//
// The solver is OSQP-style ADMM (Stellato et al. 2020, "OSQP: an operator
// splitting solver for quadratic programs") followed by active-set polishing:
//
//   - Modified Ruiz equilibration of [[H, C^T], [C, 0]] (C = [Aeq; Ain]) plus
//     cost scaling.
//   - ADMM on the quasi-definite KKT matrix [[H + sigma I, C^T], [C, -R^-1]],
//     R = diag(rho) (rho x 1e3 on equality rows), factored once by package
//     ldlt (LDL^T with prescribed pivot signs, AMD ordering). Each iteration
//     is one triangular solve; rho is rebalanced from the primal/dual residual
//     ratio (at most every 25 iterations, only when it moves by 5x), each
//     change costing a numeric refactorisation with the same symbolic
//     analysis. sigma > 0 makes the matrix quasi-definite although H is
//     singular.
//   - OSQP's primal and dual infeasibility certificates on the iterate
//     differences give Infeasible and DualInfeasible.
//   - Polishing: the active set is guessed from the ADMM iterate (z_i - l_i <
//     -y_i, OSQP sign), and the equality-constrained KKT system
//     [[H, C_act^T], [C_act, 0]] is solved. Its regularised version
//     [[H + delta I, C_act^T], [C_act, -delta I]] is factored with the SAME
//     pattern and symbolic analysis as the ADMM matrix (inactive rows of C are
//     zeroed and decoupled with a -1 diagonal), so polishing needs no new
//     analysis. The regularisation is removed by restarted GMRES
//     preconditioned with that factor (a Krylov-accelerated iterative
//     refinement: plain refinement stalls on the near-singular modes that a
//     singular H and degenerate constraints create), wrapped in a tiny
//     proximal x-regularisation (1e-10, scaled units) that keeps the answer
//     next to the ADMM point along flat directions. If the polished point
//     misses the tolerance, the primal-dual active-set rule (active when
//     multiplier exceeds slack) corrects the set for a few rounds; if that
//     fails too, ADMM continues with 10x tighter tolerances and polishing is
//     retried (also periodically, at doubling intervals, when ADMM is slow).
//   - A warm start (previous Result) seeds x, y and z and, first of all, a
//     polish with the active set predicted from the previous solution: for a
//     slightly changed problem this solves it with one factorisation and zero
//     ADMM iterations.
//
// Why: an interior-point method needs a fresh factorisation of the full
// n+m KKT matrix at every one of its 15-40 iterations, and a dual active-set
// method needs H^-1 (H is singular here) or one solve per constraint for a
// Schur complement. ADMM needs a single factorisation whose pattern never
// changes between time steps, so the symbolic analysis is reused for the
// whole simulation, and warm starts are natural. ADMM alone is only
// moderately accurate; polishing on the guessed active set makes the answer
// exact to rounding (KKT residuals typically 1e-15), which meets the 1e-8
// requirement. On the 30k-variable cloth benchmark a cold solve costs about
// three ldlt factorisations (ADMM factor, polish factor, 30 solves); a warm
// solve about one.
//
// # Residuals
//
// Residuals (and Result.Residuals, Settings.Tol) use infinity norms and the
// sign convention H x - F = Aeq^T yeq + Ain^T yin, yin >= 0. With s = Ain x -
// Bin, ||A||_inf the largest absolute row sum:
//
//	Stationarity    = ||H x - F - Aeq^T yeq - Ain^T yin|| /
//	                  max(||H x||, ||F||, ||Aeq^T yeq||, ||Ain^T yin||)
//	PrimalEq        = ||Aeq x - Beq|| / max(||Aeq||_inf ||x||, ||Beq||)
//	PrimalIn        = ||max(-s, 0)|| / max(||Ain||_inf ||x||, ||Bin||)
//	DualIn          = ||max(-yin, 0)|| / ys
//	Complementarity = max_i min(|yin_i| / ys, |s_i| / max(||Ain||_inf ||x||, ||Bin||))
//
// where ys = max(||yeq||, ||yin||, max(||H x||, ||F||) / max(||Aeq||_1,
// ||Ain||_1)) is the multiplier scale (||A||_1: largest absolute column sum).
// A ratio 0/0 is 0. The primal scale uses ||A|| ||x|| rather than ||A x|| so
// that constraints that are exactly tight at zero (A x = B = 0, resting
// contact) are judged relative to the size of the solution.
// Complementarity asks, per constraint, that either the multiplier or the
// slack be relatively zero.
//
// Status Solved means every residual is <= Settings.Tol (default 1e-8).
package qp
