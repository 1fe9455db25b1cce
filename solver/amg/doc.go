// Package amg is a smoothed-aggregation algebraic multigrid preconditioner
// (Vanek, Mandel & Brezina 1996, "Algebraic multigrid by smoothed
// aggregation for second and fourth order elliptic problems") for the
// implicit cloth step's symmetric positive definite 3x3 block-sparse
// systems, applied by sparse.PCG as one V-cycle per iteration.
//
// # Hierarchy
//
//   - Strength of connection on block Frobenius norms (eq. 3.1 with blocks
//     for entries): j is a strong neighbour of i when ||A_ij|| >= Theta
//     sqrt(||A_ii|| ||A_jj||).
//   - Aggregation by the paper's three greedy passes, serial in row order
//     (deterministic; a 100x100 sheet's 10,000 vertices take well under a
//     millisecond).
//   - Tentative prolongator from the near-null space of the three
//     translations: block (i, agg(i)) = I / sqrt(|agg(i)|), so every level
//     keeps 3x3 blocks (one coarse "vertex" per aggregate) and all levels
//     share the same kernels. The rotations would add three coarse unknowns
//     per aggregate; the cloth matrix M + h^2 K is nonsingular (the mass
//     term), and translations are what ML uses by default for a
//     3-unknown-per-node problem.
//   - Prolongator smoothing by damped Jacobi, P = (I - omega D^-1 A) P_tent,
//     omega = 4/3 / rho(D^-1 A) (eq. 3.4, sec. 4), D the 3x3 block diagonal
//     and rho estimated by ten power-method steps from a fixed start vector.
//   - Galerkin coarse operators A_c = P^T (A P), by two block products whose
//     patterns and term-to-block maps are built once per pattern.
//   - The coarsest level (at most MaxCoarse block rows) is solved by sparse
//     LDL^T (package ldlt), analysed once per pattern, refactored per setup.
//
// Setup is split into a symbolic part (strength, aggregates, the patterns
// of P, P^T, A P and P^T A P, the colouring, the coarse analysis), redone
// only when the fine matrix's pattern changes (the cloth was remeshed), and
// a numeric part redone for every new matrix. KeepProlongator keeps P from
// the last symbolic setup and refreshes only the Galerkin products: on the
// drape at 100x100 the iterations grow from 29 to 50 within 50 steps (a
// freshly smoothed P stays at 35-37), so it is off by default.
//
// # V-cycle
//
// The default smoother is multicolour block Gauss-Seidel, forward before
// the coarse correction and backward after it, which makes the V-cycle a
// symmetric positive definite operator (what PCG needs; tested as
// x^T M y = y^T M x). Rows of one colour share no block, so a colour's rows
// update in parallel and the result does not depend on the split; A's rows
// are copied in colour order at each numeric setup so that the sweeps
// stream the matrix. Damped block Jacobi is the alternative.
//
// Every parallel loop writes disjoint rows and sums in a fixed order; the
// only reductions (the power method's norms) use sparse.Dot's fixed blocks,
// so setup and V-cycle are bitwise identical for any Runner.
//
// Measured on a 100x100 drape step matrix at relative tolerance 1e-4 from
// zero: block-Jacobi PCG 1000 iterations; AMG with Gauss-Seidel 36 (57 with
// Jacobi; 25 with two Gauss-Seidel sweeps, which cost as much as they
// save), three levels of 10,000, 1,155 and 143 block rows. One V-cycle
// costs about three fine-level SpMVs, the numeric setup about 40.
//
// The code is hand-written: no maintained Go library does algebraic
// multigrid.
package amg
