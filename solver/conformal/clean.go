package conformal

import "math"

// activeFaces appends to dst the live faces incident to a live conformal
// vert, once each, in a deterministic order.
func (w *work) activeFaces(dst []int32) []int32 {
	ep := w.live.NextFEpoch()
	live := w.conf[:0]
	for _, v := range w.conf {
		if !w.alive[v] || w.feat[v] < 0 {
			continue
		}
		live = append(live, v)
		for _, g := range w.live.VF[v] {
			if w.live.FMark[g] != ep {
				w.live.FMark[g] = ep
				dst = append(dst, g)
			}
		}
	}
	w.conf = live
	return dst
}

// clean is the loop of sec. 6.1 over the faces incident to conformal nodes:
// collapse short non-conformal edges, collapse short conformal edges, split
// ill-conditioned faces, until an iteration changes nothing.
func (w *work) clean() (iters int, converged bool) {
	var act []int32
	for iters < w.p.MaxIter {
		iters++
		changed := false
		for _, conformal := range [2]bool{false, true} {
			act = w.activeFaces(act[:0])
			for _, g := range act {
				if !w.live.Alive[g] {
					continue
				}
				t := w.live.F[g]
				for e := 0; e < 3; e++ {
					a, b := t[e], t[(e+1)%3]
					if w.conformalEdge(a, b) != conformal || !(w.edgeLen(a, b) < w.p.MinEdge) {
						continue
					}
					if w.tryCollapse(a, b) {
						changed = true
						break
					}
				}
			}
		}
		act = w.activeFaces(act[:0])
		for _, g := range act {
			if w.live.Alive[g] && w.fixIll(g) {
				changed = true
			}
		}
		if !changed {
			return iters, true
		}
	}
	return iters, false
}

// tryCollapse collapses the edge a-b, removing the later vert if allowed,
// else the other.
func (w *work) tryCollapse(a, b int32) bool {
	i, j := max(a, b), min(a, b)
	if w.canRemove(i, j, -1) {
		w.collapse(i, j)
		return true
	}
	if w.canRemove(j, i, -1) {
		w.collapse(j, i)
		return true
	}
	return false
}

// canRemove reports whether vert i may be removed by collapsing the edge
// i-j onto j (see Preprocess for the rules), leaving faces whose angles all
// exceed amin (pass a negative amin for no bound).
func (w *work) canRemove(i, j int32, amin float64) bool {
	if w.locked[i] || w.point[i] {
		return false
	}
	// A point node stays; a conformal node leaves only onto a neighbour along
	// its chain (the corner at its edge's end included);
	// toward a conformal node otherwise (sec. 6.1).
	if w.feat[i] >= 0 && !w.conformalEdge(i, j) {
		return false
	}
	fl, fr, l, k := w.live.Wings(i, j)
	if fl < 0 && fr < 0 {
		return false
	}
	nOut, nIn, _, _ := w.live.BorderInfo(i)
	if nOut+nIn > 0 {
		// Border and corner nodes stay, except a non-conformal node on a
		// straight piece of border, removed along it onto a conformal node
		// (so that conformal border nodes can slide along the border).
		if w.feat[i] >= 0 || w.feat[j] < 0 {
			return false
		}
		in, out, ok := w.straightBorder(i)
		if !ok || (j != in && j != out) || (fl >= 0 && fr >= 0) {
			return false
		}
	}
	// Link condition: the common neighbours of i and j are exactly k and l.
	if !w.live.LinkCondition(i, j, k, l) {
		return false
	}
	// Moved faces stay counter-clockwise with positive area, and none
	// becomes flat in world space (as with three nodes on one straight
	// feature).
	for t := range w.live.Moved(i, j) {
		if w.flatInWorld(t[0], t[1], t[2]) {
			return false
		}
		if !wellFormed(w.u[t[0]], w.u[t[1]], w.u[t[2]]) || (amin >= 0 && !(minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]]) > amin)) {
			return false
		}
	}
	return true
}

// minWorldArea is the smallest ratio of world-space to material-space area
// a collapse may leave a face with (nodes on one straight feature are
// collinear in world space while their verts are not in material space).
const minWorldArea = 0.01

// fixIll treats an ill-conditioned face g (an angle below MinAngle) and
// reports whether it changed the mesh. The paper splits one edge at its
// midpoint, chosen by the number of conformal verts (one: the edge opposite
// it; two: the edge between them; three: the non-conformal edge), and lets
// the next iteration collapse the new vert with what became close to it. In
// the configurations this targets (a conformal node sliding onto an edge, a
// chain edge sliding onto a node) that edge is the face's longest and the
// face a cap, flat against it. Here:
//
//   - a needle, whose shortest edge (opposite its smallest angle) is below
//     2*MinEdge, has that edge collapsed by the rules of the short-edge
//     collapses (a split would only halve the small angle; and a split of an
//     edge below 2*MinEdge would have its halves collapsed straight back);
//   - a cap, whose longest edge has the opposite vert c within 2*MinEdge
//     of it, with its foot inside the edge, has that edge split at the foot
//     and the new vert collapsed at once with c (the conformal one survives;
//     with neither conformal the new vert goes, which flips the edge), so
//     that no other face's cleanup can undo the split first; the split is
//     undone unless such a collapse is allowed and leaves faces whose angles
//     all exceed the cap's smallest (the paper splits at the midpoint and
//     collapses later, which needs several bisections when c is off-centre);
//   - otherwise, when the paper's edge is the longest and at least
//     4*MinEdge long, it is split at its midpoint (a bisection toward c,
//     whose new edges are all at least 2*MinEdge long).
//
// When neither collapse is valid, the free vert of the face nearest a
// conformal node or edge (within 2*MinEdge) is removed and its hole
// re-triangulated (dissolve), if that leaves faces better than this one.
//
// A face no rule fixes is left to the remesher (Result.IllShaped).
func (w *work) fixIll(g int32) bool {
	t := w.live.F[g]
	if minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]]) >= w.p.MinAngle {
		return false
	}
	var l [3]float64
	s, e := 0, 0 // shortest and longest edge: t[k]-t[k+1]
	for k := 0; k < 3; k++ {
		l[k] = w.edgeLen(t[k], t[(k+1)%3])
		if l[k] < l[s] {
			s = k
		}
		if l[k] > l[e] {
			e = k
		}
	}
	if l[s] < 2*w.p.MinEdge && w.tryCollapse(t[s], t[(s+1)%3]) {
		return true
	}
	a, b, c := t[e], t[(e+1)%3], t[(e+2)%3]
	d, r := w.u[b].Sub(w.u[a]), w.u[c].Sub(w.u[a])
	q := dot2(r, d) / dot2(d, d)
	if h := math.Abs(cross2(d, r)) / math.Sqrt(dot2(d, d)); h < 2*w.p.MinEdge && q > 0 && q < 1 {
		// A cap: split at the foot of c and collapse the new vert with c,
		// if that leaves better faces.
		a0 := minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]])
		n := w.split(a, b, q)
		switch {
		case w.canRemove(n, c, a0):
			w.collapse(n, c)
		case w.canRemove(c, n, a0):
			w.collapse(c, n)
		default:
			// Undo: collapsing the new vert back onto a restores the faces.
			w.collapse(n, a)
			w.collapses--
			return w.dissolveNearest(t, a0)
		}
		w.splits++
		return true
	}
	if w.dissolveNearest(t, minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]])) {
		return true
	}
	if l[e] >= 4*w.p.MinEdge && e == w.paperEdge(t) {
		// Bisect toward c; the halves and the new edge to c are at least
		// 2*MinEdge long, so no needle collapse takes the new vert back.
		w.split(a, b, 0.5)
		w.splits++
		return true
	}
	return false
}

// split splits the edge a-b at parameter s from a; the new vert is
// conformal when a-b is a conformal edge (a point of a straight feature
// between two others stays on it; T is interpolated like X).
func (w *work) split(a, b int32, s float64) int32 {
	n := w.splitEdge(a, b, s)
	if f, ta, tb, ok := w.chainT(a, b); ok {
		w.makeConformal(n, f, ta+s*(tb-ta), false)
	}
	return n
}

// paperEdge is the edge of face t (index k: t[k]-t[k+1]) that the rule of
// sec. 6.1 splits, or -1.
func (w *work) paperEdge(t [3]int32) int {
	nc, p := 0, 0
	for k, v := range t {
		if w.feat[v] >= 0 {
			nc++
			p = k
		}
	}
	switch nc {
	case 1: // the edge opposite the conformal vert t[p]
		return (p + 1) % 3
	case 2: // the edge between the conformal verts
		for k, v := range t {
			if w.feat[v] < 0 {
				return (k + 1) % 3
			}
		}
	case 3: // the (longest) non-conformal edge
		e := -1
		for k := 0; k < 3; k++ {
			if !w.conformalEdge(t[k], t[(k+1)%3]) && (e < 0 || w.edgeLen(t[k], t[(k+1)%3]) > w.edgeLen(t[e], t[(e+1)%3])) {
				e = k
			}
		}
		return e
	}
	return -1
}

// quality counts the faces touching a conformal vert with an angle below
// MinAngle, and the edges touching a conformal vert shorter than MinEdge
// whose ends are not both on the border.
func (w *work) quality() (ill, short int) {
	act := w.activeFaces(nil)
	for _, g := range act {
		t := w.live.F[g]
		if minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]]) < w.p.MinAngle {
			ill++
		}
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			if w.feat[a] < 0 && w.feat[b] < 0 {
				continue
			}
			if a > b && w.live.FaceWith(b, a) >= 0 {
				continue // counted from the other face
			}
			if w.edgeLen(a, b) < w.p.MinEdge && !(w.live.OnBorder(a) && w.live.OnBorder(b)) {
				short++
			}
		}
	}
	return ill, short
}

// dissolveNearest dissolves the free vert of face t nearest the chain,
// within 2*MinEdge of it, whose hole fills with faces whose angles all
// exceed amin, trying the nearer first.
func (w *work) dissolveNearest(t [3]int32, amin float64) bool {
	var cand [3]int32
	var dist [3]float64
	n := 0
	for _, v := range t {
		if w.feat[v] >= 0 {
			continue
		}
		d := w.chainDist(v)
		if !(d < 2*w.p.MinEdge) {
			continue
		}
		k := n
		for k > 0 && dist[k-1] > d {
			cand[k], dist[k] = cand[k-1], dist[k-1]
			k--
		}
		cand[k], dist[k] = v, d
		n++
	}
	for _, v := range cand[:n] {
		if w.dissolve(v, amin) {
			return true
		}
	}
	return false
}
