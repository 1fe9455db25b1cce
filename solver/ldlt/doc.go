// Package ldlt computes sparse LDL^T factorizations of symmetric positive
// definite and quasi-definite matrices and solves linear systems with them.
//
// Given a symmetric matrix A (lower triangle in compressed sparse column
// form, see Matrix), it factors P A P^T = L D L^T with P a fill-reducing
// permutation, L unit lower triangular and D diagonal, without pivoting for
// stability. That is safe for SPD matrices (every pivot > 0) and for
// quasi-definite KKT matrices [[H + σI, Aᵀ], [A, -D]] (H PSD, D positive
// diagonal), which are strongly factorizable for ANY symmetric permutation
// (Vanderbei 1995): the pivots of the H block stay positive, those of the
// -D block negative. Factor checks every pivot against the expected sign
// and returns a *PivotError naming the original column otherwise.
//
// # Method
//
//   - Ordering (Analyze): approximate minimum degree (AMD, Amestoy, Davis &
//     Duff 1996), written from the paper's description: quotient graph with
//     element absorption, approximate external degrees, aggressive
//     absorption, mass elimination and hash-based supervariable detection,
//     run on the graph compressed by identical closed adjacency (the 3 DOFs
//     of a cloth vertex become one node). The elimination tree is then
//     postordered (same fill, contiguous subtrees, larger supernodes).
//     Natural ordering (P = I) is available for comparison. Bisection
//     computes a nested-dissection ordering from the unknowns' coordinates
//     for AnalyzePerm, for large networks in space such as the rod Newton
//     systems of woven fabrics, where AMD fills up to six times more (see
//     Bisection); on the cloth grid below (N = 100) it fills 5% less.
//   - Symbolic analysis (Analyze): elimination tree and column counts of L
//     by row-subtree traversal (as in Davis' LDL), fundamental supernodes
//     and their row structures, plus a map from every entry of P A P^T to
//     its position in A.Val. The Symbolic is kept and reused for every
//     factorization while the pattern is unchanged (Factor checks that it
//     is).
//   - Numeric factorization (Factor, Refactor): supernodal left-looking
//     LDL^T. Each supernode is a dense column-major block; it gathers its
//     columns of P A P^T, subtracts the dense updates L_d D_d L_dᵀ of the
//     descendant supernodes that reach it (linked lists, as in CHOLMOD),
//     then factors its diagonal block densely. The dense kernels (the
//     update product, the block's column eliminations) are package
//     internal/kernel's, scalar or, built with GOEXPERIMENT=simd on an AVX2
//     CPU, 4 lanes wide with bitwise the same results (SIMD). A simplicial
//     up-looking LDL^T (Davis' LDL algorithm) is kept internally and tested
//     against it. Refactor and Solve do not allocate (Solve, without
//     SetRunner, makes the schedule below once).
//   - Parallel factorization (Factor.SetRunner): the supernodes of disjoint
//     subtrees of the supernodal elimination tree are factored concurrently
//     through a Runner (split until no subtree holds more than a quarter of
//     the work), then those above them in order; a large one of those (a
//     nested dissection's top separators) takes its updates through the
//     Runner split by its columns, and its block's eliminations with each
//     panel's later columns split. Each entry takes its descendants'
//     updates in the order the serial linked lists deliver them (replayed
//     once over the structure), so the factor is bitwise the serial one for
//     any Runner and worker count.
//   - Triangular solves over the same subtrees (solveScheduled), for
//     factors of at least 2^20 entries (smaller ones are solved column by
//     column, where dispatching to a Runner costs more than it saves): the
//     forward solve runs the subtrees concurrently, each summing its
//     columns' terms for the top's rows in its own accumulator, which the
//     top's entries then subtract in subtree order before the top
//     supernodes are solved in order; the backward solve does the top in
//     reverse, then the subtrees concurrently. Each supernode is solved as
//     a dense block: its rows below the diagonal block take all its
//     columns' products summed in a contiguous buffer (forward) or are
//     gathered once for the columns' dot products (backward). The order of
//     every sum is fixed by the schedule, which depends on the matrix
//     alone, so Solve is bitwise the same for any Runner or none (and
//     differs from the column solve in rounding only). On the 200 x 200
//     cloth matrix ordered by Bisection (120,000 unknowns, nnz(L) 37.5M;
//     go test -bench SolveRunner ./solver/ldlt/, medians of three
//     interleaved runs on this 2-vCPU VM) one solve takes 68 ms on 2
//     workers against 117 ms column by column (1 worker: 119 against
//     115 ms); 100 x 100: 15.9 against 25.6 ms (25.7 against 26.1).
//
// No maintained pure-Go sparse Cholesky/LDL^T exists (gonum has no sparse
// matrices; gonum/mat is used only as a dense reference in the tests), so
// this one is hand-written.
//
// # Why AMD
//
// Measured on cloth matrices (3x3 blocks of an N x N triangulated grid: each
// vertex coupled to its 1-ring and, through bending hinges, to the vertices
// across each interior edge; n = 3N², random SPD values), on a 2-core
// AMD EPYC (Turin) VM, go1.26. nnz(L) counts the unit diagonal:
//
//	N    n       nnz(A lower)  nnz(L) natural  nnz(L) AMD  (CHOLMOD AMD)  factor natural  factor AMD
//	50   7500      144654        2198382        1139127      1111938        285 ms           50 ms
//	100  30000     589254       17791782        7379583      7141776        4.98 s          0.81 s
//	200  120000   2378454      143163582       44671272     42730017          -              9.6 s
//
// Natural (row-major grid) ordering is a band of width ~3N, so nnz(L) grows
// like n^1.5 and work like n²; AMD halves the fill at N = 50 and cuts it 3.2x
// at N = 200, and the factor time 5.7x (N = 50) to 6.1x (N = 100). Our AMD's
// fill is within 2.4-4.5% of SuiteSparse AMD (CHOLMOD with nmethods = 1).
// Analyze (AMD + symbolic) takes 35 ms, 0.2 s and 1.0 s for N = 50, 100, 200,
// amortized over every later Refactor.
//
// Compared with CHOLMOD 3.0.14 (Debian libsuitesparse-dev, linked against the
// reference netlib BLAS; benchmark behind the "cholmod" build tag:
// go test -tags cholmod -bench Cholmod ./solver/ldlt/), factor time only:
//
//	N    loom (supernodal LDLᵀ)  CHOLMOD supernodal LLᵀ  CHOLMOD simplicial LDLᵀ
//	50    50 ms                   111 ms                  175 ms
//	100   0.81 s                  1.38 s                  2.18 s
//	200   9.6 s                   12.0 s                  26.2 s
//
// With an optimized BLAS (OpenBLAS/MKL) CHOLMOD's supernodal method would be
// several times faster than these numbers; the comparison with the
// simplicial LDLᵀ is the like-for-like one.
//
// A Factor is not safe for concurrent use (Solve uses internal workspace);
// a Symbolic is read-only and may be shared.
package ldlt
