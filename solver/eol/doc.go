// Package eol holds the per-vertex and per-triangle numerics of Eulerian-on-Lagrangian
// (EOL) cloth (Weidner, Piddington, Levin and Sueda 2018, "Eulerian-on-Lagrangian Cloth
// Simulation", ACM TOG 37(4); and the authors' 2019 errata): the deformation gradient
// and world velocity of a triangle whose vertices carry both Lagrangian (x, world) and
// Eulerian (X, material) coordinates (sec. 4, eqs. 1-4), the 15x15 generalized inertia
// (eq. 8), the map of nodal forces and stiffness blocks to Lagrangian and Eulerian
// components (eqs. 9-10), the vertex deformation gradient averaged by rotation and
// stretch separately (errata sec. 1), the velocity constraint rows of EOL vertices at
// box corners, box edges and points (sec. 5 Alg. 2, errata Alg. 1 and sec. 3), the
// velocity transfer to a newly inserted EOL vertex (sec. 6.2 eq. 13) and the
// impulse friction factors of sec. 7 (after Bridson, Fedkiw and Anderson 2002).
//
// Everything here is a pure function over the small dense types of solver/dense; the
// per-element kernels do not allocate (the Append* constraint builders append to a
// caller's slice). Assembly into global matrices, the QP and the ECS glue live
// elsewhere. The tests check the kernels against finite differences of the paper's
// kinematics, a quadrature of the kinetic energy and gonum dense solves.
package eol
