package rod

import (
	"cmp"
	"slices"
)

// Kind is the role of a rod node in the discretization (SB2020 sec. 3, 4.1).
type Kind uint8

const (
	// EoL: free Lagrangian x and free Eulerian u (Sueda et al. 2011).
	EoL Kind = iota
	// EIL: free Eulerian u only; x is interpolated (SB2020 eq. 3) between the
	// nearest non-EIL nodes before and after it in u. Massless, no internal energy.
	EIL
	// Lagrangian: a node with a fixed Eulerian coordinate (rod end or
	// discretization point): free x, u not a DOF. For stretch, bending and mass it
	// plays exactly the role of an EoL node; it is never tagged EIL.
	Lagrangian
)

// String returns "EoL", "EIL" or "Lagrangian".
func (k Kind) String() string {
	switch k {
	case EoL:
		return "EoL"
	case EIL:
		return "EIL"
	case Lagrangian:
		return "Lagrangian"
	}
	return "Kind(?)"
}

// AssignNodes performs the node assignment of SB2020 sec. 4.1 for ONE rod of
// n = len(u) nodes. u[i] is node i's Eulerian coordinate; fixedU[i] tells whether
// it is fixed (nil: no node is fixed); d > 0 is the safety distance (the paper uses
// 0.1 x the rest segment length). It writes
//
//   - order[0:n]: the node indices sorted by increasing u, ties broken by
//     increasing index (a total order, so the result is deterministic and does not
//     depend on the previous content of order; NaN sorts first);
//   - kind[i] for every node i.
//
// Rule. Fixed nodes are Lagrangian, free nodes start as EoL. The sorted sequence is
// walked keeping the last non-EIL (EoL or Lagrangian) node L. A node whose distance
// u - u_L is >= d is kept and becomes the new L. A free node closer than d to L is
// tagged EIL (L is unchanged, so a cluster of any size within d of L becomes EIL,
// and a chain of close nodes is measured against L, not against its previous
// neighbour). A fixed node closer than d to L stays Lagrangian and, following the
// paper ("we tag as EIL the last EoL node instead"), L is tagged EIL if it is a
// free EoL node; the fixed node becomes the new L. If L is itself fixed, both
// fixed nodes stay Lagrangian: the only case in which two consecutive non-EIL
// nodes can be closer than d, and only if the caller put two fixed points closer
// than d.
//
// Guarantee: consecutive non-EIL nodes are >= d apart in u, except two fixed nodes
// placed closer than d. When the rod's end nodes are fixed and every free node lies
// strictly inside them (u_first < u < u_last), every EIL node has a non-EIL node
// before and after it in order (its interpolation nodes a and c). A free node at or
// beyond an end (it slid off the rod; SB2020 sec. 5 removes such nodes) can end up
// EIL with no non-EIL node on one side; the caller must remove it.
//
// AssignNodes panics if len(order) < n, len(kind) < n or fixedU is non-nil with
// len(fixedU) < n. It does not allocate.
func AssignNodes(u []float64, fixedU []bool, d float64, order []int, kind []Kind) {
	n := len(u)
	if len(order) < n || len(kind) < n || (fixedU != nil && len(fixedU) < n) {
		panic("rod: AssignNodes: buffer shorter than u")
	}
	ord := order[:n]
	for i := range ord {
		ord[i] = i
	}
	slices.SortFunc(ord, func(i, j int) int {
		if c := cmp.Compare(u[i], u[j]); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	last := -1 // node index of the last non-EIL node
	for _, i := range ord {
		fixed := fixedU != nil && fixedU[i]
		if fixed {
			kind[i] = Lagrangian
		} else {
			kind[i] = EoL
		}
		if last < 0 || u[i]-u[last] >= d {
			last = i
			continue
		}
		if !fixed {
			kind[i] = EIL
			continue
		}
		if kind[last] == EoL {
			kind[last] = EIL
		}
		last = i
	}
}
