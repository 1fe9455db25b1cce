// Package geom owns loom's geometry kernels: signed distances to the rigid
// obstacle shapes (plane, sphere, axis-aligned box, capsule, nail point), the
// sharp features of those shapes on which Eulerian-on-Lagrangian cloth
// vertices live (box edges and corners and capsule wires, Weidner et al. 2018
// sec. 5; nail points, Weidner et al. 2018 errata sec. 3) with the exact
// tests that detect new contacts on them (sec. 6.1), axis-aligned bounding
// boxes and a triangle BVH for the broad phase (BVH), the closest points
// between two segments and between a point and a triangle, the exact
// triangle-triangle intersection test, and continuous collision detection
// for vertex-face and edge-edge pairs over a linear motion (the coplanarity
// cubic of Provot 1997 and Bridson et al. 2002 sec. 6.1, ccd.go).
// It works on plain vectors (solver/dense) and knows nothing of the ECS or
// of scenes.
//
// For the stats it also measures how deep an obstacle overlaps a cloth
// triangle (penetration.go) and tests triangle pairs for intersection
// exactly, on orientation signs (tritri.go).
package geom
