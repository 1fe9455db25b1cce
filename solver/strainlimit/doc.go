// Package strainlimit limits the in-plane strain of a triangle mesh: it moves
// the nodes of a cloth mesh as little as possible (in the mass-weighted sense)
// so that both principal strains of every face lie inside [Min, Max].
//
// It implements sec. 5 of
//
//	R. Narain, A. Samii, J. F. O'Brien. Adaptive anisotropic remeshing for
//	cloth simulation. ACM Trans. Graph. 31(6) (SIGGRAPH Asia 2012), sec. 5
//	"Robust strain limiting on irregular meshes" (ARCSim).
//
// AugmentedLagrangian is the paper's method: strain limiting posed as the
// nonlinearly constrained problem
//
//	min f(x) = 1/2 sum_i m_i |x_i - xhat_i|^2                     (eq. 22)
//	s.t. g_{ja,lower} = w_j (eps_min - eps_ja(x)) <= 0           (eq. 23)
//	     g_{ja,upper} = w_j (eps_ja(x) - eps_max) <= 0           (eq. 24)
//
// with eps_ja = sigma_ja - 1 the principal strains (singular values of the
// deformation gradient minus one) of face j and w_j = sqrt(rest area of face
// j), solved with the slack-eliminated augmented Lagrangian (eq. 19-21) whose
// unconstrained inner problems are minimized with nonlinear conjugate
// gradients (or L-BFGS) from gonum.org/v1/gonum/optimize, using the singular
// value gradients of eq. 25-27.
//
// Jacobi is the baseline the paper compares against (its Fig. 6 and 7):
// per-face projection of the singular values into the limits followed by
// averaging of the per-face node displacements.
//
// Figure7 builds the paper's Fig. 7 test problem.
//
// All results are bitwise reproducible for any sparse.Runner: per-face work
// is written to per-face slots, per-node sums run over the incident faces in
// a fixed order, and scalar reductions are summed in fixed blocks.
package strainlimit
