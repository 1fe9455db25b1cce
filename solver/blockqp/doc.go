// Package blockqp solves the velocity-level QP of Eulerian-on-Lagrangian cloth
// (Weidner et al. 2018, eq. 12),
//
//	minimize 1/2 v^T H v - F^T v  subject to  a_i . v = b_i (equalities),  a_i . v >= b_i (inequalities),
//
// when every constraint row is local to one small group of variables: a cloth
// vertex's world velocity (3 variables) or an EOL vertex's world and material
// velocity (5 variables). It gives the answer of the general solver in
// solver/qp on such problems at the cost of a few preconditioned conjugate
// gradient solves, with no factorisation.
//
// # Method
//
// An active-set iteration over equality-constrained solves, each done by the
// filtered ("modified") preconditioned conjugate gradients of Baraff and
// Witkin 1998, "Large steps in cloth simulation", sec. 5.3:
//
//   - Filter. For each group g, the working rows (its equalities and its
//     inequalities in the active set) are orthonormalised by Gram-Schmidt in
//     the group's variables, R_g = L_g Q_g^T with L_g lower triangular. The
//     filter S_g = I - Q_g Q_g^T removes the constrained directions, and
//     z_g = Q_g L_g^-1 b_g is the minimum-norm point that meets the working
//     rows. Because rows never couple groups, S is block diagonal and the
//     working constraints are exactly (I - S) v = z.
//   - Solve. Conjugate gradients on S (H v - F) = 0 with (I - S) v = z,
//     started at v = z + S v_prev (Solver.pcg): on the free subspace the
//     system is K d = S (F - H v) with K = S H S + d (I - S) (d_g on group
//     g, see below), which is SPD where H itself may be singular along
//     directions the equalities remove (EOL's cancelling Lagrangian-Eulerian
//     motion). The
//     preconditioner is symmetric block Gauss-Seidel on K, M = (D + L)
//     D^-1 (D + L^T), D the block diagonal with blocks B_g = S_g H_gg S_g +
//     d_g (I - S_g) (d_g the largest diagonal entry of H_gg; B_g equals the
//     filtered diagonal block on the free subspace), L the strict lower
//     block triangle S_g H_gh S_h. It is applied in the split form A =
//     E^-1 K E^-T, E = (D + L) C^-T with B_g = C_g C_g^T (Eisenstat's
//     trick, Solver.sweepBack and Solver.sweepFwd): one backward and one
//     forward sweep over H's off-diagonal blocks give the product with A,
//     so an iteration costs about one product with H. Where B_g is singular
//     on the free subspace its Cholesky pivots are patched
//     (Result.RegularizedGroups) and the forward sweep corrects for the
//     difference, so the iteration still solves with K. K and M^-1 keep the
//     free subspace, so every step meets the working rows. The recurrence
//     residual is r^T M^-1 r; the true filtered residual |S (F - H v)| is
//     recomputed whenever the recurrence, scaled by the last measured ratio
//     of the two, says Tol is met, and only it ends the solve.
//   - Multipliers. Per group, the least-squares solution of R_g^T y_g =
//     (H v - F)_g over the working rows, y_g = L_g^-T Q_g^T (H v - F)_g
//     (exact when the filtered residual is zero). Sign convention as in
//     solver/qp: H v - F = A^T y with y >= 0 on inequalities.
//   - Active set. Start from the inequality rows that are tight or violated at
//     the warm start, and those the caller marks Warm (Row.Warm: the working
//     set of the last time step, which a velocity warm start alone misses
//     when a resting contact's previous velocity meets its new row with a
//     little slack). After each solve, release working inequalities with a
//     negative multiplier and add violated inequalities, all at once (a
//     primal-dual active-set step). The first round solves only to a loose
//     tolerance (Settings.ScreenTol), tightened 100-fold after each round
//     that changes nothing, so most rounds are cheap; stop when a solve to
//     Tol changes nothing. A loose solve does not resolve H's soft
//     directions (an EOL vertex's nearly free material motion, a light
//     sheet's rigid motion against its stiff stretching), so its multipliers'
//     signs and slacks can be noise: whenever the number of candidates fails
//     to fall, the same set is re-solved 100-fold tighter instead, down to
//     1e-12, below Tol if need be (Tol is the accuracy of the answer, not of
//     the decisions). Such a re-solve that rounding stops short (PCG meets
//     c^T A c <= 0 in a soft direction) returns the accuracy it reached if
//     that meets Tol. Only groups whose working set changed rebuild their
//     filter ("Hessenberg-free": no factorisation is updated, the per-group
//     bases are just recomputed), and the next solve starts from the
//     previous solution.
//   - Fallback. When a bulk step repeats an active set, or the candidates
//     stop falling at 1e-12, the search goes on as a primal feasible
//     active-set method (Nocedal and Wright, Numerical Optimization, Alg.
//     16.3): violated rows are added until x is feasible, then each round
//     steps from x towards the new solve's answer up to the first row it
//     would violate (which joins the working set), or, if none, releases one
//     row with a negative multiplier. The objective never rises (every PCG
//     iterate lowers it), so only zero steps at degenerate rows (tight with
//     y = 0, such as resting contacts that carry no force) could cycle; after
//     a zero step the released row is the first by index (Bland's rule), and
//     a row that blocks at once after its release, which in exact arithmetic
//     a row with y < 0 cannot, had a noise-level multiplier and is kept.
//
// Internally the variables are numbered group by group and H is held as
// dense group-pair blocks (blocks.go), so no vector is indexed through a
// map. The Gauss-Seidel sweeps go through the groups in the order of
// Problem.Groups: a banded order, such as sparse.RCM's of H's group graph,
// carries a correction across the problem in fewer iterations than a
// scattered one (TestGroupOrder). Problem.Domains may cut that order into
// domains that H does not couple to each other, followed by a separator
// (sparse.Dissect cuts a banded order so): each sweep then goes through the
// domains at once on the Runner, and the separator on its own. That is
// still the sequential sweep in group order (TestDomainSweeps); only the
// sweep's sums are added domain by domain. The per-round passes (filters,
// residuals, multipliers) run on the Runner too (an *ecs.Pool fits), split
// into fixed blocks of groups whose reductions sum each block sequentially
// and the block sums in order. So results are bitwise identical for any
// worker count. The solve loop allocates nothing; buffers are kept in the
// Solver.
//
// The code is hand-written: no maintained Go library has a filtered PCG or a
// group-local active-set QP.
package blockqp
