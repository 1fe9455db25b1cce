// Package solver holds loom's numerics. It knows nothing of the ECS or of scenes:
// callers gather state into flat arrays, the subpackages work on those, and the
// callers scatter results back.
//
//   - dense: small fixed-size kernels (3-vectors, 3x3 and 3x2 matrices, the 3x2 SVD,
//     polar decomposition, PSD projection of element Hessians).
//   - elastic: per-element energies with exact gradients and Hessians (corotated
//     linear membrane, discrete hinge bending).
//   - sparse: 3x3 block-sparse matrices, deterministic parallel assembly, PCG.
package solver
