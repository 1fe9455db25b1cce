// Package sizing computes the anisotropic sizing field of Narain, Samii and
// O'Brien 2012 (ARCSim, "Adaptive Anisotropic Remeshing for Cloth
// Simulation"), sec. 4.2: one symmetric positive definite 2x2 tensor M per
// material-space vert of a remesh.Mesh, such that an edge ij is short enough
// when u_ij^T ((M_i + M_j)/2) u_ij <= 1 (eq. 1, evaluated by the remesher).
//
// # Per face
//
// All gradients are material-space Jacobians of the linear finite element
// interpolant over the face: with Dm = [u1-u0, u2-u0] (2x2, the face's verts'
// material coordinates) and a per-node quantity q, grad q = [q1-q0, q2-q0] Dm^-1.
//
//	M_crv = grad n^T grad n                     (eq. 6)
//	M_vel = grad v^T grad v                     (eq. 7)
//	M_cmp = (1 - F^T F)^+,   F = grad x         (eq. 8)
//	M_obs = (M_obs^0 + M_obs^1 + M_obs^2) / 3   (eq. 9)
//	M^    = M_crv/dn^2 + M_cmp/c^2 + M_vel/dv^2 + M_obs   (eq. 10)
//
// and the face tensor is M^ with its eigenvalues clamped by eq. 11-13 (see
// Clamp). (.)^+ replaces each eigenvalue by its positive part; both use a
// closed-form symmetric 2x2 eigen decomposition.
//
// Vertex normals n are per node: the normalised sum of the unnormalised face
// normals (x1-x0) x (x2-x0) of all faces incident to any vert of the node, i.e.
// the area-weighted average of the face normals. (The paper cites Max 1999's
// weights; area weighting is chosen here because it is exact on the symmetric
// fans of a regular grid and cheap; on a smooth surface both are first-order
// accurate at irregular vertices.) grad n is then the gradient of the
// linear interpolant of the three node normals over the face.
//
// Obstacles. For corner i of a face, lying on node a, the caller supplies the
// nearest obstacle point p_a and its outward unit normal n_a (Obstacles). The
// signed distance of a point x(u) of the face to p_a's tangent plane is
// phi_a(u) = (x(u) - p_a) . n_a. Since x is linear over the face with gradient F
// = grad x (3x2), phi_a is linear too, with material-space gradient
//
//	grad phi_a = F^T n_a   (a 2-vector: d phi/d u_k = (dx/du_k) . n_a),
//
// and phi_a(u_i) = (x_a - p_a) . n_a. Eq. 9 gives M_obs^i = g g^T / phi^2 with
// g = grad phi_a. A flat sheet parallel to the obstacle plane has F^T n = 0 and
// so M_obs = 0. Corners whose node has no obstacle point, or whose obstacle
// point is farther than Obstacles.Range from x_a, contribute zero (but still
// count in the division by 3). As phi -> 0 the tensor blows up; the
// denominator is guarded as max(phi^2, |g|^2 l_min^2), which caps the single
// nonzero eigenvalue |g|^2/phi^2 of M_obs^i at l_min^-2, the largest value the
// clamping of eq. 11 would let through anyway.
//
// # Faces to verts, and seams
//
// Vert tensors are area-weighted (material-space area) averages of the
// clamped tensors of the faces incident to the vert. Since the clamped set
// {M : l_max^-2 <= eig(M) <= l_min^-2, eig_min >= alpha_min^2 eig_max} is convex,
// the averages obey the same bounds.
//
// A node with several verts lies on a seam. Its incident faces (over all its
// verts) are ordered around the node by walking the node-level fan (the face
// after f, counter-clockwise, is the one whose next corner is f's previous
// corner as nodes). Their corner angles are laid out consecutively in one
// common tangent plane, starting from the first face's own material frame. If
// the fan closes (the node is interior to the garment) and the angles sum to
// Theta != 2 pi (a non-flat seam vertex of the input), all angles are scaled
// linearly by 2 pi/Theta; an open fan (node on the garment boundary) is not
// scaled. Each face's tensor is rotated into the tangent plane by the
// rotation that takes its corner bisector to its laid-out (scaled) bisector,
// the rotated tensors are area-averaged there, and each vert's tensor is the
// average rotated back by the rotation that takes the bisector of that vert's
// own fan to its laid-out bisector. Without scaling (seam vertices created by
// splits, straight seams) all rotations of one vert's faces coincide with the
// vert's, and the result equals the uncut mesh's plain average to rounding;
// with scaling it is the paper's "rotate" with rotation angles taken at the
// bisectors (the exact angle-scaling map is not linear and cannot be applied
// to a tensor). Nodes whose fan is not one chain or one cycle (non-manifold
// nodes, inconsistently oriented panels, a vert whose faces are not
// contiguous in the walk) fall back to the plain per-vert average. A node
// with one vert always uses the plain average, so a single-panel mesh gets
// exactly the plain area-weighted average.
//
// A vert with no incident face gets the isotropic tensor l_max^-2 I.
//
// # Cost and determinism
//
// Workspace.Compute builds the incidence lists serially (a counting sort), then
// runs four parallel loops over a sparse.Runner: face normals (per face),
// vertex normals and obstacle data (per node), face tensors (per face) and
// vert averages (per node). Every value is written by exactly one iteration and every sum
// runs in a fixed order (incident faces in CSR order built by a counting sort),
// so the result is bitwise identical for any Runner. A Workspace keeps its
// buffers, so repeated calls on meshes of the same or smaller size do not
// allocate (given a Runner that does not).
package sizing
