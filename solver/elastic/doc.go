// Package elastic holds per-element cloth energies with exact gradients and exact
// (unprojected) Hessians, for use by an implicit / Newton-type integrator.
//
// Membrane: a corotated linear finite element on each triangle (Weidner,
// Piddington, Levin and Sueda 2018, "Eulerian-on-Lagrangian Cloth Simulation", sec. 4.2;
// the corotated density of Sifakis and Barbic 2012): with the deformation gradient
// F = Ds Dm^-1 (3x2) and its polar decomposition F = R S,
//
//	Psi(F) = mu ||F - R||_F^2 + lambda/2 (tr(R^T F) - 2)^2,    E = A Psi(F).
//
// Bending: the discrete hinge (dihedral angle) energy of discrete shells (Grinspun,
// Hirani, Desbrun and Schroeder 2003, "Discrete Shells"), as also used by Weidner et
// al. 2018 sec. 4.2 (discrete Willmore / hinge bending),
//
//	E = kb * 3|e|^2/(A1 + A2) * (theta - theta0)^2,
//
// whose gradient and Hessian follow Tamstorf and Grinspun 2013 ("Discrete bending
// forces and their Jacobians"): H = 2 kb W (grad theta grad theta^T +
// (theta - theta0) Hess theta). Here grad theta and Hess theta are the exact closed
// forms obtained from theta = atan2(y, x) with y, x polynomial invariants of the
// three hinge edge vectors (see DihedralAngle).
//
// All kernels work on fixed-size arrays and do not allocate. Hessians are returned
// exact (they can be indefinite); callers that need a convex model project them with
// dense.ProjectPSD.
package elastic
