// Package sparse owns loom's global linear algebra for the implicit cloth step
// (M - h^2 K) v' = M v + h f (Weidner et al. 2018, eq. 11): symmetric 3x3
// block-sparse matrices (BSR), their parallel assembly from per-element
// gradients and Hessians, and a block-Jacobi preconditioned conjugate gradient
// solver with Baraff & Witkin (1998) constraint filtering.
//
// # Two-pass deterministic assembly
//
// Assembly is split in two passes so that it needs no locks and no atomics and
// gives bitwise-identical results for any number of workers:
//
//  1. Element pass (done by callers, e.g. package elastic): each element writes
//     its local gradient and Hessian (in its group's HessForm: dense, packed
//     upper blocks, or a rank-one factor) into its own, disjoint slot of a
//     flat array (see Pattern.GradOffset and Pattern.HessOffset). Elements
//     never write to shared memory, so this pass parallelises trivially.
//  2. Gather pass (this package): each stored 3x3 block (and each vertex of
//     the gradient) owns a precomputed, ordered list of the element blocks that
//     contribute to it, built once per topology by NewPattern. Workers are
//     split over block rows; each block is summed over its list in that fixed
//     order and written once. No two workers write the same memory and the
//     floating-point summation order never depends on the split.
//
// Reductions (dot products, norms) are likewise made split-independent: they
// are computed over fixed-size blocks whose partial sums are stored by block
// index and then added serially in block order.
//
// Parallelism is supplied by the caller through the Runner interface, so the
// package spawns no goroutines of its own. Serial runs everything on the calling
// goroutine.
//
// The code is hand-written because gonum has no sparse matrices; the tests check
// it against dense gonum/mat references.
package sparse
