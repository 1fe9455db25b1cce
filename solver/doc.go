// Package solver holds loom's numerics. It knows nothing of the ECS or of scenes:
// callers gather state into flat arrays, the subpackages work on those, and the
// callers scatter results back.
//
//   - dense: small fixed-size kernels (3-vectors, 3x3 and 3x2 matrices, the 3x2 SVD,
//     polar decomposition, PSD projection of element Hessians).
//   - elastic: per-element energies with exact gradients and Hessians (corotated
//     linear membrane, discrete hinge bending).
//   - sparse: 3x3 block-sparse matrices, deterministic parallel assembly, PCG.
//   - ldlt: supernodal sparse LDL^T with AMD ordering.
//   - schwarz: conjugate gradients with an overlapping additive Schwarz
//     preconditioner whose subdomains are factored by ldlt (the rod
//     Newton systems of large fabrics, one subdomain per yarn).
//   - qp: convex QP by ADMM with active-set polishing (Weidner 2018 eq. 12).
//   - blockqp: the same QP when every row lies in one vertex's variables, by an
//     active-set filtered PCG (the EOL cloth step).
//   - activeset: the same QP for cloth contacts, one row per vertex velocity,
//     by active-set rounds of sparse's filtered PCG (Baraff and Witkin 1998).
//   - geom: signed distances to obstacle shapes, sharp features and their
//     contact tests, bounding boxes, closest points between segments.
//   - mesh: triangle-mesh topology (vertex-face incidence, an edited mesh
//     with adjacency and the collapse link condition, hinges) shared by
//     remesh, conformal, the sheet builder and the EOL system.
//   - remesh, sizing: adaptive anisotropic remeshing and its sizing field
//     (Narain et al. 2012).
//   - strainlimit: strain limiting by augmented Lagrangian or Jacobi.
//   - eol, conformal: Eulerian-on-Lagrangian cloth kernels and conformal
//     preprocessing (Weidner et al. 2018 and errata).
//   - rod, rodstep: Eulerian-on-Lagrangian rods (Sanchez-Banderas et al. 2020).
package solver
