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
//   - Tentative prolongator from the near-null space B by a thin QR per
//     aggregate, B_g = Q_g R_g (nullspace.go): Q_g's rows are P_tent's, R_g
//     the next level's B. By default B is the three translations, so Q_g =
//     I / sqrt(|g|) and each aggregate is one coarse block row; with
//     coordinates and Options.RotationLevels it also holds the three rigid
//     rotations, and an aggregate gets two coarse block rows, so every
//     level keeps 3x3 blocks and shares the same kernels. The rotations
//     halve the iterations (100x100: 34 to 17; 200x200: 78 to 34) but
//     double the operator complexity (1.24 to 2.47) and triple the numeric
//     setup, and do not pay in CPU time, so they are off by default.
//   - Prolongator smoothing by damped Jacobi on the filtered operator A^F
//     (eq. 3.5: A without its weak blocks, lumped into the diagonal; see
//     below), P = (I - omega D_F^-1 A^F) P_tent, omega = 4/3 /
//     rho(D_F^-1 A^F) (eq. 3.4, sec. 4), D_F the 3x3 block diagonal of A^F
//     and rho estimated by ten power-method steps from a fixed start vector
//     after a symbolic setup, three from the last setup's vector after.
//   - Galerkin coarse operators A_c = P^T (A P), by two block products whose
//     patterns and term-to-block maps are built once per pattern.
//   - The coarsest level (at most MaxCoarse block rows) is solved by sparse
//     LDL^T (package ldlt), analysed once per pattern, refactored per setup.
//
// With PCG's filters (pins, contact directions; sparse.PCG applies the
// preconditioner as S M^-1 S), SetupFiltered builds the hierarchy for the
// filtered operator S A S + d (I - S) instead of A: the smoother and the
// coarse corrections then see a pinned vertex as fixed rather than moving
// its free neighbours against couplings the filter removes. On the game
// loop's cape (loom.CapeScene, 736 vertices, its shoulder row pinned) that
// cuts PCG's iterations from 8.4 to 3.7 a step and the solver's instructions
// by 29% (callgrind); on the pinned 100x100 sheet, from 30 to 24 and by 17%;
// with sphere-arcsim's contact rows as well (one normal direction filtered
// at each active contact vertex), from 232 to 118 over ten steps.
//
// Setup is split into a symbolic part (strength, aggregates, the patterns
// of P, P^T, A P and P^T A P, the colouring, the coarse analysis), redone
// only when the fine matrix's pattern changes (the cloth was remeshed), and
// a numeric part redone for each Setup. Apply reads only what Setup kept,
// so a caller may keep a setup for later matrices of the same pattern (a
// lagged preconditioner; the implicit cloth solve redoes it at least every
// fourth step, sooner when the iterations grow, and for each contact solve
// with the hierarchy of the operator filtered by its active rows). KeepProlongator keeps P from the last symbolic setup and
// refreshes only the Galerkin products: on the drape at 100x100 the
// iterations grow from 29 to 50 within 50 steps (a freshly smoothed P stays
// at 35-37), so it is off by default.
//
// # V-cycle
//
// The default smoother is multicolour block Gauss-Seidel, forward before
// the coarse correction and backward after it, which makes the V-cycle a
// symmetric positive definite operator (what PCG needs; tested as
// x^T M y = y^T M x). Rows of one colour share no block, so a colour's rows
// update in parallel and the result does not depend on the split. At each
// numeric setup A's off-diagonal blocks are copied in colour order, split
// into L (earlier colours) and U (later colours) and rounded to single
// precision, U as the transposed mirror blocks of L so that L + D + U stays
// exactly symmetric: the sweeps stream half the bytes. The forward sweep
// from zero reads L only, and the residual right after it is -U x
// (Eisenstat 1981's saving for symmetric Gauss-Seidel), so smoothing and
// residual read the matrix twice per V-cycle instead of about three and a
// half times. Damped block Jacobi is the alternative.
//
// The sweeps read the filtered operator A^F too: the weak blocks
// (relative strength below Options.WeakDrop, 0.03) left out and each one's
// symmetric part lumped into its row's diagonal block (Vanek et al.'s
// filtered matrix; Bienz et al. 2016's sparsification). On the finest level
// of a cloth these are the couplings only the bending hinges make, between
// the wing tips of each hinge, 36% of the drape's blocks; on the coarser
// levels, about half of the Galerkin operators' blocks. So the fine level
// needs 3 colours instead of 7 and the second 6 instead of 12 (fewer
// barriers a sweep), and P reaches fewer aggregates. PCG iterations on the
// bench's drape sheets: sheet-100-amg 24 -> 23, sheet-200-amg 50 -> 46.
// Interleaved `loom bench` runs on a 2-vCPU VM, medians of pairwise ratios
// (the smoother's drop, five runs, then the filtered prolongator, four):
// sheet-200-amg 0.88 x 0.91 (1 worker) and 0.91 x 0.86 (2 workers);
// sheet-100-amg 0.83 x 0.82 (1 worker) and 1.01 x 0.92 (2 workers). See
// filterPattern.
//
// Every parallel loop writes disjoint rows and sums in a fixed order; the
// only reductions (the power method's norms) use sparse.Dot's fixed blocks,
// so setup and V-cycle are bitwise identical for any Runner. A level of
// fewer than 4096 block rows whose row order is incoherent (more than a
// fifth of its blocks coupling the first half of its rows with the second,
// as in a remeshed cloth) runs its V-cycle kernels on the calling
// goroutine: there the parallel sweeps moved x's cache lines between cores
// on nearly every block (serialLevel; sphere-arcsim's frame 0.228 -> 0.183
// s on 2 workers).
//
// Measured on a 100x100 drape step matrix at relative tolerance 1e-4 from
// zero: block-Jacobi PCG 751 iterations; AMG with Gauss-Seidel 34 (26 with
// two sweeps, 22 with three, which cost as much as they save), three levels
// of 10,000, 1,155 and 140 block rows. CPU time on one core (loaded 2-vCPU
// VM): fine-level forward sweep and residual 2.67 ms in double precision
// with the full rows, 0.64 ms now; the backward sweep 1.59 to 0.62 ms; one
// SpMV about 0.9 ms; the numeric setup about 42 ms (Galerkin products 14,
// the colour-order copy 7, the prolongator 4).
//
// The code is hand-written: no maintained Go library does algebraic
// multigrid.
package amg
