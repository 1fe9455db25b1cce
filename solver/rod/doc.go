// Package rod holds the numerics of Eulerian-on-Lagrangian (EoL) rods with EIL
// nodes (Sanchez-Banderas, Rodriguez, Barreiro and Otaduy 2020, "Robust
// Eulerian-on-Lagrangian Rods", SIGGRAPH; "SB2020" below). It knows nothing of the
// ECS: callers gather one rod's (or one element's) coordinates into plain values,
// call a kernel, and scatter the results. All kernels work on fixed-size arrays and
// do not allocate.
//
// A rod node carries a Lagrangian (world) position x in R3 and an Eulerian
// (material, rest arc length) coordinate u. What the package owns:
//
//   - Node assignment (SB2020 sec. 4.1): AssignNodes sorts one rod's nodes by u and
//     tags each node Lagrangian (fixed u: ends, discretization points), EoL (free x
//     and u) or EIL (free u only; x interpolated by eq. 3). Internal energies and
//     inertia are defined over consecutive non-EIL nodes only.
//   - Stretch (SB2020 eq. 2): V_s = 1/2 k_s du (|dx|/du - 1)^2 per pair of
//     consecutive non-EIL nodes; StretchEnergy, StretchGradHess.
//   - Bending (SB2020 eq. 4): V_b = k_b theta^2/(du1 + du2) per triple of
//     consecutive non-EIL nodes, theta the turning angle; BendEnergy,
//     BendGradHess. theta^2 is differentiated through the invariants
//     S = |e1 x e2|^2 and c = e1.e2, in which it is analytic at theta = 0.
//   - EIL interpolation (SB2020 eq. 3): Interpolate, and ContactPoint, which also
//     carries its Jacobian and second derivatives.
//   - EIL soft contact constraint (SB2020 sec. 3.3, 4.2; the constraint is eq. 1):
//     a zero-rest-length spring 1/2 k |p - y|^2 between two contact points, each an
//     EoL node or an EIL interpolated point; ContactGradHess. ContactStiffness is
//     the paper's choice k = 1000 k_s/du_rest.
//   - Eulerian anchor friction (Cirio et al. 2014, used unchanged in SB2020
//     sec. 4.2): Anchor, a spring 1/2 k_f (u - U)^2 whose anchor U slips under
//     Coulomb's law.
//   - Segment generalized mass (SB2020 sec. 4.3, kinetic energy of Cirio et al.
//     2014): SegmentMass, the closed-form 8x8 integral of rho J^T J.
//   - Node transitions (SB2020 sec. 4.1 and appendix eq. 7-10): ToEIL, ToEoL and the
//     optimal Eulerian coordinates EoLToEILU (eq. 8) and EILToEoLU (eq. 7).
//
// DOF orders (local vectors, Hessians row-major n x n):
//
//	stretch, mass  (8):  x_a(3), x_b(3), u_a, u_b
//	bending       (12):  x_a(3), x_b(3), x_c(3), u_a, u_b, u_c
//	EoL point      (3):  x
//	EIL point      (9):  x_a(3), x_c(3), u_a, u_c, u_b     (a, c: the non-EIL
//	                     neighbours of the EIL node b; u_a < u_b < u_c normally)
//	contact  (6..18):    DOFs of p, then DOFs of y
//
// A Lagrangian node's u is not a DOF: the kernels still take and differentiate it,
// and the caller drops its u rows and columns when scattering (equivalently, as
// SB2020 sec. 4.3 does for EIL x, cancels them in the system matrix).
//
// Energies are returned with exact (unprojected) Hessians; they can be indefinite,
// and callers that need a convex model project them (dense.ProjectPSD).
package rod
