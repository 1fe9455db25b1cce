// Package developable simulates inextensible (developable) cloth with
// nonconforming elements after English & Bridson 2008 (restated in
// papers/README.md, whose OCR is damaged). It knows no ECS: a body is a
// triangle mesh with rest (material) coordinates, and the state is one
// position per mesh edge, at the edge's midpoint.
//
//   - Topology (NewMesh): edges numbered in face order, each face's local
//     edge k opposite its corner k, edge masses (a third of each incident
//     face's mass), the ghost map A (Ghost).
//   - Constraints (constraints.go): per face the three midpoint-distance
//     rigidity constraints C_ij = |x_i - x_j|^2 - d_ij^2; the boundary
//     constraints, that at each border vertex the corner positions
//     a = m_b + m_c - m_a extrapolated from its faces agree, written per
//     interior edge at the border as two rows (across the edge; the third
//     is implied by rigidity to first order and would make the system
//     singular); pins of ghost vertices; and obstacle contacts of ghost
//     vertices, n . (A x_n)_v = target (Contact), so that a projection
//     after collision handling keeps both rigidity and the contacts. Each row is scaled to a
//     relative measure (C_ij / d_ij^2; lengths over the body's mean edge
//     length) so one tolerance serves them all.
//   - Bending (bending.go): Wardetzky et al. 2007's quadratic energy on the
//     Crouzeix-Raviart (nonconforming) mesh, E = k_b/2 x^T L^T A^-1 L x,
//     with its constant Hessian assembled once.
//   - Integration (step.go, constraints.go): fast projection (Goldenthal et
//     al. 2007) of a first-order or BDF2 prediction onto C(x) = 0, each step
//     solving (J M^-1 J^T) dl = C with solver/ldlt, whose symbolic analysis
//     is kept while the constraint set is unchanged and whose numeric
//     factorization is kept across steps and time steps while it still
//     halves |C| per step (a chord iteration); the factorization runs
//     independent subtrees concurrently (SetRunner, bitwise the same for
//     any runner). A projection can pause at a loose tolerance and resume
//     with the same steps (ProjectUntil, Resume).
//   - Ghost conforming mesh (ghost.go): x_c = A x_n for collisions and
//     output, and the correction x_n' = x_n + A^T lambda with (A A^T) lambda
//     = x_c' - A x_n, A A^T factored once.
//
// Everything here runs serially in a fixed order, so results do not depend
// on the caller's worker count.
package developable
