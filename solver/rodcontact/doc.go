// Package rodcontact finds and resolves the non-persistent yarn contacts of
// an assembly of rods (Sanchez-Banderas et al. 2020, "SB2020", sec. 5: "for
// non-persistent contacts, we use stiff penalty potentials"): a broad phase
// over the rods' segments (a uniform grid of bounding boxes, the same pairs
// in the same order for any worker count), the segment-segment penalty
// potential 1/2 k (r_a + r_b - d)^2 with its gradient and Hessian, the
// lagged Coulomb friction potential of a penalty contact, and the
// continuous (signed-volume) test for two segments crossing within a step.
//
// It works on flat arrays and knows nothing of rods' nodes or kinds: package
// rodstep says which segments exist and which pairs are exempt.
package rodcontact
