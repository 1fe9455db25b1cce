package rodstep

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rodcontact"
)

// Non-persistent yarn contacts (SB2020 sec. 5: "for non-persistent
// contacts, we use stiff penalty potentials"). Every (sub)step, after node
// assignment, the segments between consecutive non-EIL nodes of rods with a
// radius are put in a broad phase with boxes swept over the predicted motion
// (x + h v) and grown by their radius; each pair found that is not exempt
// gets the penalty K (r - d)^3 / (3 r) (rodcontact.SegmentPenalty, K from
// yarnK, r the pair's rest distance: r_a + r_b, or less while a pair found
// overlapping recovers, restDistances; d from a point held on the first
// segment for a pair of nearly parallel segments, parallelPairs) in the
// incremental potential, and,
// with State.PairMu, the lagged Coulomb friction of its normal force
// K (r - d)^2 / r (lagPairFriction; SB2020's penalties are frictionless).
// Exempt are: segments of one rod that share a
// node or are closer along the rod than pi r (a hairpin of a yarn of radius
// r touching itself needs that much arc), pairs of fixed rods, segments
// within 2 (r_a + r_b) along both rods of a persistent (sliding) contact
// between them, where the two centrelines meet by construction, and rods
// layered by persistent contacts: two rods in persistent contact with a
// common third rod on opposite sides of it (the contacts' normals, from the
// third rod to each, point apart), which the third rod keeps apart. (A
// persistent contact joins the two centrelines at one point, so such
// layers lie in one surface in the model: the patch of rod-incline, its
// upper yarns tied to the lower ones and those to the grid, would otherwise
// have its upper yarns collide with the parallel grid yarns as it slides.)
//
// After Newton converges the step is checked: a pair of non-exempt segments
// that passed through each other within the step (rodcontact.Crossed, the
// signed-volume test), or that ended closer than half their radii without a
// penalty term, fails the step, which is then halved (CCD as a safeguard: a
// step that outruns the predicted motion is retried smaller).

// yarnStiffness sets the penalty of a non-persistent contact: K =
// yarnStiffness max(ks/du_rest) of its two rods. A hundredth of the soft EIL
// constraint's 1000 ks/du (rod.ContactStiffness): a yarn's weight over a
// segment presses it in by far less than a micrometre, and the Newton matrix
// stays far better conditioned than with the EIL stiffness, with which
// Newton stalled on rod-incline (regularization up to 1e12).
const yarnStiffness = 10

// yarnK returns the penalty stiffness of pair p.
func (s *State) yarnK(p rodcontact.Pair) float64 {
	y := &s.ws.yarn
	Ra, Rb := &s.Rods[y.segs[p.A].rod], &s.Rods[y.segs[p.B].rod]
	return yarnStiffness * max(Ra.Ks/Ra.RestSeg, Rb.Ks/Rb.RestSeg)
}

// detectSlack widens the detection boxes beyond the radius (a fraction of
// it), so that pairs that come into contact within the step are caught.
const detectSlack = 0.5

// frictionVel is the slip velocity (m/s) below which obstacle friction is a
// spring rather than the full Coulomb force (IPC's eps_v).
const frictionVel = 1e-4

type yarnSegment struct {
	a, b, rod int32
	u0, u1    float64
}

// contactNear is a persistent contact seen from a segment of one of its
// rods: the other rod, the contact's u on it and the exemption reach.
type contactNear struct {
	rod int32
	u   float64
	rho float64
}

// rodSide is a rod in persistent contact with rod of, on side n of it.
type rodSide struct {
	of, rod int32
	n       dense.Vec3
}

type yarnWork struct {
	segs    []yarnSegment
	boxes   []geom.AABB
	broad   rodcontact.Broad
	pairs   []rodcontact.Pair // penalty pairs of this solve, sorted
	check   []rodcontact.Pair
	nearPtr []int32
	near    []contactNear
	layered []uint64 // rod pairs (min << 32 | max) layered by persistent contacts, sorted
	sides   []rodSide
	// layers' groupings of sides and its marks, per rod.
	ofPtr, byOf, rodPtr, byRod, stamp []int32
	segPtr, cursor                    []int32    // exemptions' scratch
	reach                             [][2]int32 // exemptions' segment range per contact side
	keepFn                            func(a, b int32) bool
	obsMuN                            []float64    // per node: mu N of its obstacle contact at the step's start
	obsNrm                            []dense.Vec3 // per node: that contact's normal
	// rest is each pair's rest distance (keyed by its four nodes' IDs),
	// reff the rest distance of each pair of this solve.
	rest, restNext map[[4]uint64]float64
	reff           []float64
	fric           []pairFriction // per pair of this solve
	// pointAt is, per pair of this solve, the parameter on its first
	// segment at which the penalty's point is held (parallelPairs), -1 for
	// none.
	pointAt []float64
}

// pairFriction is a penalty pair's Coulomb friction, lagged at the start of
// the (sub)step as the obstacles' is: mu N of its penalty force there, the
// closest points' parameters s, t on its two segments and their offset
// r0 = p(s) - q(t), and the normal r0/|r0|.
type pairFriction struct {
	muN  float64
	s, t float64
	r0   dense.Vec3
	n    dense.Vec3
}

// detect lists the segments and the penalty pairs of this (sub)step of
// length h (after Assign).
func (s *State) detect(h float64) {
	y := &s.ws.yarn
	y.segs, y.boxes, y.pairs = y.segs[:0], y.boxes[:0], y.pairs[:0]
	s.listSegments()
	if len(y.segs) == 0 {
		return
	}
	for _, sg := range y.segs {
		r := s.Rods[sg.rod].Radius
		xa, xb := s.X[sg.a], s.X[sg.b]
		bx := geom.EmptyAABB().Grow(xa).Grow(xb).Grow(xa.Add(s.V[sg.a].Scale(h))).Grow(xb.Add(s.V[sg.b].Scale(h)))
		y.boxes = append(y.boxes, bx.Pad(r*(1+detectSlack)))
	}
	s.exemptions()
	s.layers()
	if y.keepFn == nil {
		y.keepFn = s.keepPair
	}
	y.pairs = y.broad.Pairs(s.Runner, y.boxes, y.keepFn, y.pairs)
	s.restDistances()
	s.lagPairFriction()
	s.parallelPairs()
}

// parallelSine is the sine of the angle between two segments of a penalty
// pair below which parallelPairs holds the pair's point on the first one.
// Held at the middle of the overlap, the point's distance to the other
// segment exceeds the segments' closest distance by at most half the
// overlap times the sine: 1% of a segment here, 5% of the sum of the radii
// on knit-sphere (0.98 mm segments, 0.2 mm).
const parallelSine = 0.02

// parallelPairs sets, for each penalty pair whose segments are within
// parallelSine of parallel at the (sub)step's start and overlap along
// their direction, the parameter on its first segment of the middle of the
// overlap (the second segment's end points projected onto the first,
// clamped to it), where the pair's penalty holds its point for the step
// (rodcontact.PointSegmentPenalty); -1 for the others, whose penalty takes
// the segments' closest points.
func (s *State) parallelPairs() {
	y := &s.ws.yarn
	y.pointAt = y.pointAt[:0]
	for _, p := range y.pairs {
		a, b := y.segs[p.A], y.segs[p.B]
		x0, e1 := s.X[a.a], s.X[a.b].Sub(s.X[a.a])
		x2, x3 := s.X[b.a], s.X[b.b]
		e2 := x3.Sub(x2)
		l1, l2 := e1.Dot(e1), e2.Dot(e2)
		at := -1.0
		if c := e1.Cross(e2); c.Dot(c) < parallelSine*parallelSine*l1*l2 && l1 > 0 {
			s2, s3 := x2.Sub(x0).Dot(e1)/l1, x3.Sub(x0).Dot(e1)/l1
			lo, hi := max(0, min(s2, s3)), min(1, max(s2, s3))
			if lo <= hi {
				at = (lo + hi) / 2
			}
		}
		y.pointAt = append(y.pointAt, at)
	}
}

// lagPairFriction records each penalty pair's friction data at the
// (sub)step's start (pairFriction): the penalty force of the pair's closest
// points there (rodcontact.PenaltyForce), times State.PairMu. A pair not pressed at the start has no friction within the
// step.
func (s *State) lagPairFriction() {
	y := &s.ws.yarn
	y.fric = y.fric[:0]
	for k, p := range y.pairs {
		f := pairFriction{}
		if s.PairMu > 0 {
			a, b := y.segs[p.A], y.segs[p.B]
			xa, xb, xc, xd := s.X[a.a], s.X[a.b], s.X[b.a], s.X[b.b]
			sp, tq, d := geom.SegmentClosest(xa, xb, xc, xd)
			if fn := rodcontact.PenaltyForce(s.yarnK(p), y.reff[k], d); fn > 0 && d > 0 {
				r0 := xa.Scale(1 - sp).Add(xb.Scale(sp)).Sub(xc.Scale(1 - tq).Add(xd.Scale(tq)))
				f = pairFriction{muN: s.PairMu * fn, s: sp, t: tq, r0: r0, n: r0.Scale(1 / d)}
			}
		}
		y.fric = append(y.fric, f)
	}
}

// rampSteps is the number of (sub)steps over which a pair found overlapping
// recovers its full rest distance.
const rampSteps = 50

// restDistances sets each pair's rest distance: the sum of the radii, but a
// pair found closer than that (two yarns whose persistent contact was just
// removed, their centrelines meeting at its point; or a contact the
// detection caught late) starts at the distance it has and grows back to the
// radii over rampSteps (sub)steps, so that the penalty separates them
// gradually instead of with a kick of k r^2/r.
//
// Without pair friction (PairMu 0) a pair is forgotten once its rest
// distance is back at the radii, so a pair still pressed restarts at its
// own distance the next time it is found: its force is off every other
// step (a known defect: a yarn resting on others jitters by about g h^2).
// Remembering every pair fixes that, and pair friction needs it (its
// normal force, lagged from the step's start, would flicker with the
// penalty: TestPairFrictionThreshold), but for every scene it made
// pocket's rod Newton fail at step 139. With also the exemption reach
// widened as 2 (r_a + r_b) / max(sin theta, 1/2) by the crossing angle
// theta, pocket ran, but tag's rod Newton failed at step 97 and
// knit-sphere failed the pass-through checker at step 105 (its yarns 1 and
// 2 17 um apart 0.86 mm of arc from their contact: a stitch looping back
// to the point where the contact joins the centrelines); with the bound
// 0.4, knit-sphere at step 146; with the old rule kept within 8 (r_a +
// r_b) of contacts, pocket and tag failed again. So only PairMu > 0
// remembers every pair.
func (s *State) restDistances() {
	y := &s.ws.yarn
	if y.rest == nil {
		y.rest, y.restNext = map[[4]uint64]float64{}, map[[4]uint64]float64{}
	}
	clear(y.restNext)
	y.reff = y.reff[:0]
	for _, p := range y.pairs {
		a, b := y.segs[p.A], y.segs[p.B]
		key := [4]uint64{s.id(a.a), s.id(a.b), s.id(b.a), s.id(b.b)}
		r := s.radii(p)
		re, ok := y.rest[key]
		if ok {
			re = min(r, re+r/rampSteps)
		} else {
			_, _, d := geom.SegmentClosest(s.X[a.a], s.X[a.b], s.X[b.a], s.X[b.b])
			re = min(r, d)
		}
		y.reff = append(y.reff, re)
		if re < r || s.PairMu > 0 {
			y.restNext[key] = re
		}
	}
	y.rest, y.restNext = y.restNext, y.rest
}

// id returns node i's identity (State.ID).
func (s *State) id(i int32) uint64 {
	if s.ID == nil {
		return uint64(i)
	}
	return s.ID[i]
}

// listSegments lists the segments between consecutive non-EIL nodes of the
// rods with a radius, in rod order.
func (s *State) listSegments() {
	y := &s.ws.yarn
	for r := range s.Rods {
		R := &s.Rods[r]
		if !(R.Radius > 0) {
			continue
		}
		for k := 0; k+1 < len(R.nonEIL); k++ {
			a, b := R.nonEIL[k], R.nonEIL[k+1]
			y.segs = append(y.segs, yarnSegment{a: a, b: b, rod: int32(r), u0: s.U[a], u1: s.U[b]})
		}
	}
}

// exemptions lists, per segment, the persistent contacts within reach of
// it (CSR in nearPtr / near, in contact order): a counting sort over the
// segments, which are contiguous per rod and sorted by u.
func (s *State) exemptions() {
	y := &s.ws.yarn
	nr := len(s.Rods)
	y.segPtr = slices.Grow(y.segPtr[:0], nr+1)[:nr+1]
	clear(y.segPtr)
	for _, sg := range y.segs {
		y.segPtr[sg.rod+1]++
	}
	for r := 0; r < nr; r++ {
		y.segPtr[r+1] += y.segPtr[r]
	}
	// reach returns the segments of node's rod within rho of it in u.
	reach := func(node int32, rho float64) (lo, hi int) {
		r := s.Rod[node]
		lo, hi = int(y.segPtr[r]), int(y.segPtr[r+1])
		u := s.U[node]
		k, _ := slices.BinarySearchFunc(y.segs[lo:hi], u-rho, func(sg yarnSegment, v float64) int {
			if sg.u1 < v {
				return -1
			}
			return 1
		})
		k += lo
		end := k
		for end < hi && y.segs[end].u0 <= u+rho {
			end++
		}
		return k, end
	}
	// Count each segment's contacts, keeping each contact side's segment
	// range for the fill.
	y.nearPtr = slices.Grow(y.nearPtr[:0], len(y.segs)+1)[:len(y.segs)+1]
	clear(y.nearPtr)
	y.reach = y.reach[:0]
	for _, c := range s.Contacts {
		rho := 2 * (s.Rods[s.Rod[c.P]].Radius + s.Rods[s.Rod[c.Q]].Radius)
		for _, node := range [2]int32{c.P, c.Q} {
			lo, hi := reach(node, rho)
			y.reach = append(y.reach, [2]int32{int32(lo), int32(hi)})
			for k := lo; k < hi; k++ {
				y.nearPtr[k+1]++
			}
		}
	}
	for i := range y.segs {
		y.nearPtr[i+1] += y.nearPtr[i]
	}
	y.near = slices.Grow(y.near[:0], int(y.nearPtr[len(y.segs)]))[:y.nearPtr[len(y.segs)]]
	next := append(y.cursor[:0], y.nearPtr[:len(y.segs)]...) // fill positions
	for ci, c := range s.Contacts {
		rho := 2 * (s.Rods[s.Rod[c.P]].Radius + s.Rods[s.Rod[c.Q]].Radius)
		for side, other := range [2]int32{c.Q, c.P} { // side 0 is P's segments, near Q
			r := y.reach[2*ci+side]
			for k := r[0]; k < r[1]; k++ {
				y.near[next[k]] = contactNear{rod: s.Rod[other], u: s.U[other], rho: rho}
				next[k]++
			}
		}
	}
	y.cursor = next
}

// layers lists the rod pairs layered by persistent contacts: two rods that
// touch a third from opposite sides (contact normals with a negative dot
// product), sorted and unique. Each rod visits the sides of the rods it
// touches and marks the partners it has found (stamp), so a pair is listed
// once however many rods both touch: listing it for each such rod and
// sorting the duplicates away (a weave's two wefts lie on opposite sides of
// every other warp) cost a third of a step's contact detection on
// tablecloth at 48 x 48 yarns a layer.
func (s *State) layers() {
	y := &s.ws.yarn
	nr := len(s.Rods)
	y.sides = y.sides[:0]
	for _, c := range s.Contacts {
		rp, rq := s.Rod[c.P], s.Rod[c.Q]
		// Normal points from Q's rod towards P's rod.
		y.sides = append(y.sides, rodSide{of: rq, rod: rp, n: c.Normal}, rodSide{of: rp, rod: rq, n: c.Normal.Scale(-1)})
	}
	// The sides grouped by the rod they touch (byOf) and by their own rod
	// (byRod), as index lists with offsets.
	y.ofPtr, y.byOf = groupSides(y.ofPtr, y.byOf, y.sides, nr, func(r rodSide) int32 { return r.of })
	y.rodPtr, y.byRod = groupSides(y.rodPtr, y.byRod, y.sides, nr, func(r rodSide) int32 { return r.rod })
	y.stamp = slices.Grow(y.stamp[:0], nr)[:nr]
	for r := range y.stamp {
		y.stamp[r] = -1
	}
	y.layered = y.layered[:0]
	for a := range int32(nr) {
		start := len(y.layered)
		for _, i := range y.byRod[y.rodPtr[a]:y.rodPtr[a+1]] {
			sa := &y.sides[i]
			for _, j := range y.byOf[y.ofPtr[sa.of]:y.ofPtr[sa.of+1]] {
				b := y.sides[j].rod
				if b > a && y.stamp[b] != a && sa.n.Dot(y.sides[j].n) < 0 {
					y.stamp[b] = a
					y.layered = append(y.layered, uint64(a)<<32|uint64(b))
				}
			}
		}
		slices.Sort(y.layered[start:])
	}
}

// groupSides lists the indices of sides by key(side) in [0, n) (a counting
// sort, stable): those of key k are idx[ptr[k]:ptr[k+1]].
func groupSides(ptr, idx []int32, sides []rodSide, n int, key func(rodSide) int32) ([]int32, []int32) {
	ptr = slices.Grow(ptr[:0], n+2)[:n+2]
	clear(ptr)
	for _, sd := range sides {
		ptr[key(sd)+2]++
	}
	for k := 2; k < n+2; k++ {
		ptr[k] += ptr[k-1]
	}
	idx = slices.Grow(idx[:0], len(sides))[:len(sides)]
	for i, sd := range sides {
		k := key(sd) + 1
		idx[ptr[k]] = int32(i)
		ptr[k]++
	}
	return ptr[:n+1], idx
}

// keepPair says whether segments i < j get a penalty term (see the exempt
// pairs above). It only reads.
func (s *State) keepPair(i, j int32) bool {
	y := &s.ws.yarn
	a, b := y.segs[i], y.segs[j]
	Ra, Rb := &s.Rods[a.rod], &s.Rods[b.rod]
	if Ra.Fixed && Rb.Fixed {
		return false
	}
	if s.Pinned[a.a] && s.Pinned[a.b] && s.Pinned[b.a] && s.Pinned[b.b] {
		return false
	}
	if a.rod == b.rod {
		if a.a == b.a || a.a == b.b || a.b == b.a || a.b == b.b {
			return false
		}
		gap := max(b.u0-a.u1, a.u0-b.u1)
		return gap >= math.Pi*Ra.Radius
	}
	if _, ok := slices.BinarySearch(y.layered, uint64(min(a.rod, b.rod))<<32|uint64(max(a.rod, b.rod))); ok {
		return false
	}
	for _, n := range y.near[y.nearPtr[i]:y.nearPtr[i+1]] {
		if n.rod == b.rod && n.u >= b.u0-n.rho && n.u <= b.u1+n.rho {
			return false
		}
	}
	return true
}

// segmentPoints returns the end points of the two segments of a pair at q.
func (s *State) segmentPoints(q []float64, p rodcontact.Pair) [4]dense.Vec3 {
	y := &s.ws.yarn
	a, b := y.segs[p.A], y.segs[p.B]
	return [4]dense.Vec3{s.x(q, a.a), s.x(q, a.b), s.x(q, b.a), s.x(q, b.b)}
}

// radii returns the sum of the radii of a pair's two rods (their contact
// distance; the penalty's rest distance is reff).
func (s *State) radii(p rodcontact.Pair) float64 {
	y := &s.ws.yarn
	return s.Rods[y.segs[p.A].rod].Radius + s.Rods[y.segs[p.B].rod].Radius
}

// divergedStretch bounds the distance of two consecutive nodes of a rod by
// divergedStretch times the larger of their material distance and the rod's
// rest spacing; a step past it is taken to have diverged: a yarn pulled to
// three times its length carries hundreds of newtons (k_s of the built-in
// yarns is 200-500 N), thousands of times its weight, and only a Newton
// iterate flung far gets there (as pocket's nodes jerked at 12 m/s within
// a substep before the hybrid Newton). The rest spacing keeps the short
// segments next to sliding contacts (near degeneracy, the EIL nodes'
// domain) from being judged by their tiny material length. It fired on
// none of the built-in scenes' runs when it was added.
const divergedStretch = 3

// verify checks the finished step (positions from ws.xn to X): no segment
// stretched past divergedStretch, no crossing segments, no pair closer than
// half the sum of its radii that had no penalty term, or that had one but
// was left there by a stalled solve (Result.Stalled: an iterate with more
// unbalanced force than the step began with; knit-sphere's step 996 ended
// so with 4e4 N unbalanced and two courses 0.1 mm apart, 0.8 mm being the
// sum of their radii).
func (s *State) verify() error {
	if err := s.checkStretch(); err != nil {
		return err
	}
	y := &s.ws.yarn
	if len(y.segs) == 0 {
		return nil
	}
	xn := s.ws.xn
	for k, sg := range y.segs {
		r := s.Rods[sg.rod].Radius
		y.boxes[k] = geom.EmptyAABB().Grow(xn[sg.a]).Grow(xn[sg.b]).Grow(s.X[sg.a]).Grow(s.X[sg.b]).Pad(r / 4)
	}
	y.check = y.broad.Pairs(s.Runner, y.boxes, y.keepFn, y.check)
	for _, p := range y.check {
		a, b := y.segs[p.A], y.segs[p.B]
		x0 := [4]dense.Vec3{xn[a.a], xn[a.b], xn[b.a], xn[b.b]}
		x1 := [4]dense.Vec3{s.X[a.a], s.X[a.b], s.X[b.a], s.X[b.b]}
		r := s.radii(p)
		// A pair whose centrelines touch at the step's start (a persistent
		// contact just released, or a pair leaving its exemption zone at
		// the contact's point) has no side yet: separating either way is
		// not a pass-through.
		if _, _, d0 := geom.SegmentClosest(x0[0], x0[1], x0[2], x0[3]); d0 > 1e-3*r && rodcontact.Crossed(&x0, &x1, 1e-3*r) {
			return fmt.Errorf("yarn segments %d-%d (rod %d) and %d-%d (rod %d) crossed within the step", a.a, a.b, a.rod, b.a, b.b, b.rod)
		}
		_, penalized := slices.BinarySearchFunc(y.pairs, p, comparePairs)
		if penalized && !s.ws.stalled {
			continue
		}
		if _, _, d := geom.SegmentClosest(x1[0], x1[1], x1[2], x1[3]); d < r/2 {
			if penalized {
				return fmt.Errorf("yarn segments %d-%d (rod %d) and %d-%d (rod %d) came %.3g m apart (radii %.3g) in a stalled solve (%.3g N unbalanced)", a.a, a.b, a.rod, b.a, b.b, b.rod, d, r, s.ws.residual)
			}
			return fmt.Errorf("yarn segments %d-%d (rod %d) and %d-%d (rod %d) came %.3g m apart (radii %.3g) without a penalty term", a.a, a.b, a.rod, b.a, b.b, b.rod, d, r)
		}
	}
	return nil
}

// checkStretch fails a step that left two consecutive nodes of a rod (EIL
// nodes at their interpolated positions) farther apart than divergedStretch
// times the larger of their material distance and the rest spacing.
func (s *State) checkStretch() error {
	for r := range s.Rods {
		R := &s.Rods[r]
		if R.Fixed {
			continue
		}
		for k := 0; k+1 < len(R.Nodes); k++ {
			a, b := R.Nodes[k], R.Nodes[k+1]
			du := max(math.Abs(s.U[b]-s.U[a]), R.RestSeg)
			if l := s.X[b].Sub(s.X[a]).Norm(); l > divergedStretch*du {
				return fmt.Errorf("rod %d: nodes %d and %d %.3g m apart, %.3g times their material distance or rest spacing (the solve diverged)", r, a, b, l, l/du)
			}
		}
	}
	return nil
}

func comparePairs(p, q rodcontact.Pair) int {
	if p.A != q.A {
		return int(p.A - q.A)
	}
	return int(p.B - q.B)
}

// lagObstacles records each node's obstacle normal force and normal at the
// step's start (the friction of the step lags them, as the anchors lag the
// contacts' normal forces).
func (s *State) lagObstacles() {
	y := &s.ws.yarn
	n := len(s.X)
	if len(y.obsMuN) != n {
		y.obsMuN, y.obsNrm = make([]float64, n), make([]dense.Vec3, n)
	}
	for i := range y.obsMuN {
		y.obsMuN[i] = 0
		if len(s.Obstacles) == 0 || s.ObstacleMu == 0 {
			continue
		}
		var f dense.Vec3
		th := s.Rods[s.Rod[i]].Radius
		for _, o := range s.Obstacles {
			d, nrm := o.Distance(s.ws.xn[i])
			if pen := th - d; pen > 0 {
				f = f.Add(nrm.Scale(s.ObstacleK * pen))
			}
		}
		if N := f.Norm(); N > 0 {
			y.obsMuN[i], y.obsNrm[i] = s.ObstacleMu*N, f.Scale(1/N)
		}
	}
}
