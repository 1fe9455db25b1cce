package rodstep

import (
	"math"
	"slices"

	"github.com/loomsim/loom/solver/rod"
)

// EIL nodes sliding along their rod within a solve.
//
// An EIL node's position is interpolated (SB2020 eq. 3) between the non-EIL
// nodes a and c that bracket its u where Assign ran, at the (sub)step's
// start. Its u is massless (sec. 4.3: static equilibrium), so within one
// solve it can run far: the two EIL nodes of one contact on nearly parallel
// yarns slide together to wherever the lines through their chords meet,
// and eq. 3 past [u_a, u_c] extrapolates off the yarn. On knit-sphere with
// `degenerate_restart` such a pair ran 6.8 mm in u (seven rest segments)
// within one step, to a point 5 mm off both yarns, and the next step failed
// at every halving. So each EIL node slides along its rod's polyline of
// non-EIL nodes, a projected Newton over the intervals:
//
//   - the line search clamps each EIL node's u to its interval (clampEIL;
//     the Armijo test takes the clamped step's first-order decrease);
//   - a node at an end of its interval whose Newton update goes on past it
//     moves on to the adjacent interval (x(u) is continuous there: x_c from
//     either side), its terms built anew, and the direction is computed
//     again (boundEIL);
//   - one that then points back to the interval it came from sits at a kink
//     of the polyline where its potential is least (the yarn it touches
//     lies outside the bend): it is held there, its u tied to the vertex
//     node's (holdEIL, boundEIL), until its gradient points into its
//     interval.
//
// The rod's end nodes do not clamp: a node sliding off its rod's end is
// removed after the step (contact removal), as before.

// listEIL lists this solve's EIL nodes whose u is an unknown (begin).
func (s *State) listEIL() {
	w := &s.ws
	w.eil = w.eil[:0]
	for i := range s.X {
		if w.udof[i] >= 0 && s.Kind[i] == rod.EIL {
			w.eil = append(w.eil, int32(i))
		}
	}
	w.slid = slices.Grow(w.slid[:0], len(w.eil))[:len(w.eil)]
	w.held = slices.Grow(w.held[:0], len(w.eil))[:len(w.eil)]
	clear(w.slid)
	for k := range w.held {
		w.held[k] = -1
	}
}

// eilBounds returns EIL node i's interval [lo, hi] at q, open (-Inf or
// +Inf) on the side of its rod's end.
func (s *State) eilBounds(q []float64, i int32) (lo, hi float64) {
	w := &s.ws
	nodes := s.Rods[s.Rod[i]].nonEIL
	a, c := w.interpA[i], w.interpC[i]
	lo, hi = math.Inf(-1), math.Inf(1)
	if a != nodes[0] {
		lo = s.u(q, a)
	}
	if c != nodes[len(nodes)-1] {
		hi = s.u(q, c)
	}
	return lo, hi
}

// clampEIL clamps each EIL node's u in q to its interval at q and returns
// sum_j g_j (clamped_j - q_j), the change of the first-order decrease along
// g that the clamping makes (for the line search's Armijo test).
func (s *State) clampEIL(q, g []float64) float64 {
	w := &s.ws
	d := 0.0
	for _, i := range w.eil {
		j := w.udof[i]
		lo, hi := s.eilBounds(q, i)
		if v := min(max(q[j], lo), hi); v != q[j] {
			d += g[j] * (v - q[j])
			q[j] = v
		}
	}
	return d
}

// endTol is the distance in u, as a fraction of the rest segment, within
// which an EIL node counts as at an end of its interval (boundEIL): the
// end's own u moves with its node, so a node clamped there drifts from it
// by rounding.
const endTol = 1e-9

// holdFactor scales the stiffness with which holdEIL ties a held EIL
// node's u to its vertex's: its update then differs from the vertex node's
// by about 1e-6 of the free one, and the other unknowns are solved for as
// if the two moved as one.
const holdFactor = 1e6

// holdEIL ties each held EIL node's u to the u of the vertex it is held at
// in the assembled Newton matrix (after a level-2 eval): a spring of
// stiffness K = holdFactor max(|H_jj|, 1) between the two (or on its u
// alone where the vertex's u is fixed). The vertex's u moves with its
// node, so the held node must too: held on its own, it was dragged by the
// line search's clamp against its gradient, and the direction was no
// descent direction. The entry between the two is in the pattern: the
// node's contact term has both.
func (s *State) holdEIL() {
	w := &s.ws
	A := &w.asm.A
	for k, i := range w.eil {
		v := w.held[k]
		if v < 0 {
			continue
		}
		j := w.udof[i]
		d := &A.Val[A.ColPtr[j]] // diagonal first in each column
		K := holdFactor * max(math.Abs(*d), 1)
		*d += K
		jv := w.udof[v]
		if jv < 0 {
			continue
		}
		A.Val[A.ColPtr[jv]] += K
		col, row := int(min(j, jv)), int(max(j, jv))
		for p := A.ColPtr[col]; p < A.ColPtr[col+1]; p++ {
			if A.RowIdx[p] == row {
				A.Val[p] -= K
				break
			}
		}
	}
}

// boundEIL looks at the EIL nodes at an end of their interval after a
// direction was computed: one whose update goes on past the end slides to
// the adjacent interval, or, if it slid in from there in this iteration, is
// held (its potential along u is least at the vertex). At the first
// direction of an iteration a held node whose gradient points into its
// interval, or that left the end, is let go. It reports whether the
// direction must be computed again, and builds the terms anew where a node
// slid; when it need not, it sets each held node's update to its vertex's.
// A node slides at most once an iteration (the solve clears slid at its
// start) and is let go only at the iteration's first direction (first), so
// the direction is computed at most four times for one node an iteration.
func (s *State) boundEIL(first bool) (bool, error) {
	w := &s.ws
	du := func(i int32) float64 {
		if j := w.udof[i]; j >= 0 {
			return w.dq[j]
		}
		return 0
	}
	again, slid := false, false
	for k, i := range w.eil {
		j := w.udof[i]
		lo, hi := s.eilBounds(w.q, i)
		a, c := w.interpA[i], w.interpC[i]
		eps := endTol * s.Rods[s.Rod[i]].RestSeg
		atHi, atLo := w.q[j] >= hi-eps, w.q[j] <= lo+eps
		if w.held[k] >= 0 {
			if first && !(atHi && w.grad[j] < 0 || atLo && w.grad[j] > 0) {
				w.held[k], again = -1, true
			}
			continue
		}
		up, down := atHi && w.dq[j] > du(c), atLo && w.dq[j] < du(a)
		switch nodes := s.Rods[s.Rod[i]].nonEIL; {
		case !up && !down:
		case w.slid[k] && up:
			w.held[k], again = c, true
		case w.slid[k]:
			w.held[k], again = a, true
		case up:
			w.interpA[i], w.interpC[i] = c, nodes[slices.Index(nodes, c)+1]
			w.slid[k], again, slid = true, true, true
		default:
			w.interpA[i], w.interpC[i] = nodes[slices.Index(nodes, a)-1], a
			w.slid[k], again, slid = true, true, true
		}
	}
	if slid {
		return true, s.buildTerms()
	}
	if !again {
		// The held nodes move with their vertices: the tie's residue (a
		// millionth of the free update) would keep the update above Tol
		// and carry the node past its end into the line search's clamp.
		for k, i := range w.eil {
			if v := w.held[k]; v >= 0 {
				w.dq[w.udof[i]] = du(v)
			}
		}
	}
	return again, nil
}

// unbalanced returns the largest entry of the gradient g but for the held
// EIL nodes' u: a held node sits at a vertex of its rod's polyline where
// the potential's one-sided derivatives along u point at the vertex from
// both sides, an equilibrium (0 is among its subgradients) whose gradient
// entry is the vertex's reaction, not an unbalanced force.
func (s *State) unbalanced(g []float64) float64 {
	w := &s.ws
	saved := w.heldGrad[:0]
	for k, i := range w.eil {
		if w.held[k] >= 0 {
			j := w.udof[i]
			saved = append(saved, g[j])
			g[j] = 0
		}
	}
	m := maxAbs(g)
	n := 0
	for k, i := range w.eil {
		if w.held[k] >= 0 {
			g[w.udof[i]] = saved[n]
			n++
		}
	}
	w.heldGrad = saved
	return m
}
