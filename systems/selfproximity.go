package systems

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/selfcontact"
)

// SelfProximity turns the cloth's proximities - vertex-face and edge-edge
// pairs of the cloth with itself, and of the cloth's faces and edges with
// the obstacles' vertices and edges (as SelfCollision meshes them) - into
// rows of the implicit step's QP (Weidner 2018 eq. 12), so that the solve
// itself keeps the cloth's layers apart, as it keeps vertices out of
// obstacles: a pair at distance d with closest-point weights w_k (its four
// vertices' barycentric coordinates, Bridson et al. 2002 sec. 6) and unit
// normal n gets
//
//	n^T sum_k w_k v_k >= (thickness - d) / h,
//
// both sides moving, the linearized distance after the step, d + h n^T sum_k
// w_k v_k, at least the thickness; an obstacle vertex's velocity (its pose
// at the end of the step is prescribed) moves to the right-hand side. Pairs
// closer than twice the thickness get a row (those farther apart than the
// thickness can close by at most their distance less the thickness), at
// the start of the step, with the BVH and narrow phase of the fail-safe
// (selfcontact.Solver.Proximities). Friction on the rows with a positive
// impulse is applied before the fail-safe (pairFriction).
//
// Why rows and not only the fail-safe's repulsions: an impulse after a
// stiff implicit step moves vertices against the membrane, which the next
// step turns into elastic energy (the repulsions of twist raised the
// membrane energy by 10-75 J a step while removing 0.01 J of kinetic
// energy: strain 1.2-2.7). In the QP the membrane, the inertia and the
// contact are solved together, and the repulsions after it find the pairs
// already separating (their target, 0.1 (thickness - d) / h, is below the
// row's) and do nothing.
//
// A vertex-obstacle pair (a cloth vertex near an obstacle's face) gets no
// row here: ObstacleContact's rows hold cloth vertices against the exact
// shape. Pairs with no free cloth vertex, or whose free vertices' weights
// are too small to move the pair, are left to the fail-safe.
type SelfProximity struct{ sc *SelfCollision }

// Proximity is the system that writes the step's proximity rows.
func (sc *SelfCollision) Proximity() ecs.System {
	sc.rows = true
	return SelfProximity{sc}
}

// Name implements ecs.System.
func (p SelfProximity) Name() string { return "self-proximity" }

// repulsionFraction is the part of a pair's overlap with the layer that
// its row separates in one step.
const repulsionFraction = 0.1

// minPairWeight is the least sum of |w_k| over a pair's free cloth vertices
// for it to get a row: below it a row could ask for velocities far beyond
// what the pair needs, or be infeasible.
const minPairWeight = 0.05

// Step implements ecs.System.
func (p SelfProximity) Step(w *ecs.World) error {
	sc := p.sc
	s := sc.state
	s.Pairs = s.Pairs[:0]
	if err := sc.prepare(w, false); err != nil {
		return err
	}
	var err error
	sc.prox, err = sc.solver.Proximities(w.Pool, sc.prox[:0], s.X, sc.params, sc.kin, sc.params.Thickness)
	if err != nil {
		return fmt.Errorf("self-proximity: %w", err)
	}
	nc := int32(s.NumVerts())
	sc.pickPairs()
	for _, q := range sc.prox {
		th := sc.params.Thickness
		if q.Kinematic {
			if q.V[0] < nc && q.V[1] >= nc {
				continue // a cloth vertex against an obstacle face: ObstacleContact's
			}
			th = sc.params.KinematicThickness
		}
		if q.D >= 2*th {
			continue
		}
		r := PairRow{W: q.W, Normal: q.N, Target: (th - q.D) / s.H}
		if q.D < th {
			// Inside the layer: separate at a tenth of the overlap a
			// step, as Bridson's repulsions do (sec. 7.2); the whole
			// overlap in one step leaves the pair flying apart.
			r.Target *= repulsionFraction
		}
		free := 0.0
		for k, v := range q.V {
			switch {
			case v >= nc:
				r.V[k] = -1
				j := 3 * (v - nc)
				r.Kin = r.Kin.Add(dense.Vec3(sc.kin.V[j : j+3]).Scale(q.W[k]))
			case s.pinned(int(v)):
				r.V[k] = v
			default:
				r.V[k] = v
				free += math.Abs(q.W[k])
			}
		}
		if free < minPairWeight {
			continue
		}
		r.Target -= r.Normal.Dot(r.Kin)
		s.Pairs = append(s.Pairs, r)
	}
	return nil
}

// pickPairs keeps, of the proximities, the vertex-face pairs, and of those
// of one vertex the nearest, then each next nearest whose normal makes more
// than 60 degrees with every one kept (a vertex between two layers keeps a
// row on each side). Edge-edge pairs and the other vertex-face pairs of a
// vertex are, for the nearly parallel layers that contact makes, nearly
// linear combinations of the rows kept: a QP with them has degenerate
// active sets (the KKT matrix of its polishing step singular), and they
// bring no constraint the fail-safe's repulsions and CCD do not enforce
// after the solve.
func (sc *SelfCollision) pickPairs() {
	prox := sc.prox[:0]
	for _, q := range sc.prox {
		if !q.EdgeEdge {
			prox = append(prox, q)
		}
	}
	slices.SortStableFunc(prox, func(a, b selfcontact.Proximity) int {
		if c := cmp.Compare(a.V[0], b.V[0]); c != 0 {
			return c
		}
		return cmp.Compare(a.D, b.D)
	})
	kept := prox[:0]
	start := 0
	for _, q := range prox {
		if len(kept) > start && kept[start].V[0] != q.V[0] {
			start = len(kept)
		}
		near := false
		for _, k := range kept[start:] {
			if k.N.Dot(q.N) > 0.5 {
				near = true
				break
			}
		}
		if !near {
			kept = append(kept, q)
		}
	}
	sc.prox = kept
}

// frictionRHS adds to the step's right-hand side the Coulomb friction
// impulses (Bridson 2002 sec. 7.3) of the proximity rows that pushed in the
// solve just done, and reports whether it added any, for the solve to be
// repeated: each row's relative tangential velocity would be stopped by a
// tangential impulse J = -vt / sum_k w_k^2 / m_k (spread over its cloth
// vertices by w_k J), capped at mu times the row's normal impulse. Applied
// through the implicit solve (as the forces of eq. 11 are) rather than to
// the solved velocities after it: a velocity change after a stiff step is
// stored in the membrane by the next one (twist without friction keeps
// max_strain below 0.2 to t = 1.3 s; with friction applied after the solve
// it reached 1.4). The impulses are computed on the first solve's
// velocities, so friction lags that solve by one linear solve, not by a
// step.
func (sc *SelfCollision) frictionRHS() bool {
	s := sc.state
	mu := sc.params.Friction
	if mu == 0 || len(s.PairImpulse) != len(s.Pairs) {
		return false
	}
	added := false
	for k := range s.Pairs {
		lam := s.PairImpulse[k]
		if !(lam > 0) {
			continue
		}
		r := &s.Pairs[k]
		rel, wm := r.Kin, 0.0
		for a, v := range r.V {
			if v < 0 {
				continue
			}
			rel = rel.Add(dense.Vec3(s.VNew[3*v : 3*v+3]).Scale(r.W[a]))
			if !s.pinned(int(v)) && s.Mass[v] > 0 {
				wm += r.W[a] * r.W[a] / s.Mass[v]
			}
		}
		vt := rel.Sub(r.Normal.Scale(rel.Dot(r.Normal)))
		speed := vt.Norm()
		if !(speed > 0) || !(wm > 0) {
			continue
		}
		j := math.Min(speed/wm, mu*lam) / speed
		for a, v := range r.V {
			if v < 0 || s.pinned(int(v)) {
				continue
			}
			for d := 0; d < 3; d++ {
				s.B[3*int(v)+d] -= j * r.W[a] * vt[d]
			}
			added = true
		}
	}
	return added
}
