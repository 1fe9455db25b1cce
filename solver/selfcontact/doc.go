// Package selfcontact resolves cloth self- and cloth-cloth collisions by
// correcting the velocities of one implicit step, after the solve and before
// the position update: given the start positions x0, the solve's velocities
// v, masses and the step h, it returns velocities for which the linear
// motion x0 -> x0 + h v is free of crossings, with proximities within the
// cloth's thickness resisted.
//
// It follows Bridson, Fedkiw and Anderson 2002 ("Robust treatment of
// collisions, contact and friction for cloth animation"):
//
//  1. Repulsions (sec. 7.2): every vertex-face and edge-edge pair closer
//     than the thickness at x0 gets an inelastic impulse that makes its
//     relative normal velocity at least 0.1 (thickness - distance) / h, with
//     Coulomb friction (sec. 7.3): the relative tangential velocity shrinks
//     by at most mu times the normal velocity change.
//  2. Collisions (sec. 7.1): continuous collision detection over the motion
//     (geom.VertexFaceCCD / EdgeEdgeCCD) and inelastic impulses on the
//     impacts, for a few iterations.
//  3. The fail-safe, impact zones (sec. 7.4): impacts still left merge the
//     vertices involved into zones (union-find), and each zone moves as one
//     rigid translation with the zone's momentum; zones grow until no
//     impact is left between distinct zones or free vertices. Bridson's
//     zones also rotate; ARCSim (Narain et al. 2012) after Harmon et al.
//     2008, solves a constrained projection for inelastic zones instead. A
//     translation is chosen here because it makes the guarantee trivial and
//     needs no optimizer: relative positions inside a zone are constant over
//     the step, so a zone that starts intersection-free cannot cross itself,
//     and every iteration merges at least two components, so the loop ends.
//     The price is that zones lose angular momentum (they damp) - acceptable
//     for a fail-safe that only acts where the impulses failed.
//
// Vertices with zero inverse mass (pins, Eulerian-on-Lagrangian vertices) are
// never moved by impulses; a zone holding such vertices moves with their
// velocity: their common one when they share it, as static pins do; else the
// affine field v = A x + b that their velocities fit, which a turning rigid
// obstacle's linearised motion is (every zone vertex then moves by one
// invertible affine map, which keeps the zone free of crossings as a
// translation does); else their mean, and the step reports the zone as
// unresolved.
//
// Obstacles take part as kinematic geometry (Kinematic): vertices with
// infinite mass and prescribed velocities, and their triangles, tested
// against the cloth's (vertex-face both ways, edge-edge) but never against
// each other, with their own proximity thickness (the obstacle contact
// layer). So an obstacle's edge or corner cannot pass through a cloth face
// between its vertices, and the fail-safe cannot push cloth into an
// obstacle. A zone that reaches a kinematic vertex takes that vertex's whole
// body (its connected kinematic triangles), so that the body's motion is
// determined in the zone. A caller that can show a body stays farther than
// the kinematic thickness from the cloth over the whole step marks it
// (Kinematic.Apart) and the Solve leaves it out, with the same result.
//
// Proximities returns the pairs within the thickness (plus a reach) with
// their closest-point weights and normals, for a solve that holds them as
// constraints inside the implicit step; Params.NoRepulsions then skips step
// 1, and Params.KinematicOnly leaves the cloth's pairs with itself out (a
// scene with obstacles and no self-contact).
//
// Candidate pairs come from geom.BVHs: one over the cloth's triangles and
// one per kinematic body (a connected set of kinematic triangles). A body's
// motion is fixed over a Solve, so its tree is fitted once per pass kind;
// and when the body moves rigidly (its positions an affine map of those at
// SetTopology, found by geom.AffineFrame and checked at every vertex), the
// tree keeps its boxes from SetTopology and the queries carry the boxes they
// visit along the step's motion (geom.Sweep), so that a finely meshed round
// obstacle costs no refit per step; when the queries would carry more boxes
// than the tree has (cloth lying on the body), the tree is refitted only
// where it can meet the cloth (geom.BVH.RefitSweptNear: a node whose
// carried box misses the cloth's tree keeps that box). Every vertex-face pair whose vertex is
// not in the face and every edge-edge pair sharing no vertex is tested,
// including those of triangles that share a vertex (a tight fold crosses
// its own one-ring). A pass runs in parallel over fixed blocks of cloth
// triangles: each triangle's queries (BVH.OverlappingAfter in the cloth's
// tree, unless KinematicOnly, and OverlappingSwept or OverlappingBox in each
// kinematic body's), its pairs' narrow phase, and the hits into the block's
// own list. The narrow phase rejects cheaply first, and only what cannot be
// a hit: boxes apart by more than the thickness (proximity) or, for CCD,
// swept boxes apart by more than the tolerance or a start distance that the
// pair's relative motion cannot close, before the coplanarity cubic.
// Impulses are then applied serially, block by block, in the order of the
// sorted triangle pairs, so results are bitwise identical for any worker
// count.
package selfcontact
