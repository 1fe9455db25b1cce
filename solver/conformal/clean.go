package conformal

// activeFaces appends to dst the live faces incident to a live conformal
// vert, once each, in a deterministic order.
func (w *work) activeFaces(dst []int32) []int32 {
	ep := w.nextFEpoch()
	live := w.conf[:0]
	for _, v := range w.conf {
		if !w.alive[v] || w.feat[v] < 0 {
			continue
		}
		live = append(live, v)
		for _, g := range w.vf[v] {
			if w.fmark[g] != ep {
				w.fmark[g] = ep
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
				if !w.fAlive[g] {
					continue
				}
				t := w.f[g]
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
			if w.fAlive[g] && w.fixIll(g) {
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
	if w.canRemove(i, j) {
		w.collapse(i, j)
		return true
	}
	if w.canRemove(j, i) {
		w.collapse(j, i)
		return true
	}
	return false
}

// canRemove reports whether vert i may be removed by collapsing the edge
// i-j onto j (see Preprocess for the rules).
func (w *work) canRemove(i, j int32) bool {
	if w.locked[i] {
		return false
	}
	// A conformal node leaves only onto a neighbour on its edge feature;
	// toward a conformal node otherwise (sec. 6.1).
	if w.feat[i] >= 0 && !w.conformalEdge(i, j) {
		return false
	}
	fl, fr := w.faceWith(i, j), w.faceWith(j, i)
	if fl < 0 && fr < 0 {
		return false
	}
	nOut, nIn, _, _ := w.borderInfo(i)
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
	k, l := int32(-1), int32(-1)
	if fl >= 0 {
		l = third(w.f[fl], i, j)
	}
	if fr >= 0 {
		k = third(w.f[fr], i, j)
	}
	// Link condition: the common neighbours of i and j are exactly k and l.
	ep := w.nextVEpoch()
	for _, f := range w.vf[j] {
		for _, x := range w.f[f] {
			w.vmark[x] = ep
		}
	}
	for _, f := range w.vf[i] {
		for _, x := range w.f[f] {
			if x != i && x != j && x != k && x != l && w.vmark[x] == ep {
				return false
			}
		}
	}
	// Moved faces stay counter-clockwise with positive area.
	for _, f := range w.vf[i] {
		t := w.f[f]
		if posIn(t, j) >= 0 {
			continue
		}
		t[posIn(t, i)] = j
		if !wellFormed(w.u[t[0]], w.u[t[1]], w.u[t[2]]) {
			return false
		}
	}
	return true
}

// fixIll treats an ill-conditioned face g (an angle below MinAngle) and
// reports whether it changed the mesh. The paper splits one edge at its
// midpoint, chosen by the number of conformal verts (one: the edge opposite
// it; two: the edge between them; three: the non-conformal edge), and lets
// the next iteration collapse what became short. Here:
//
//   - when the face's shortest edge (opposite its smallest angle) is below
//     2*MinEdge, it is collapsed by the rules of the short-edge collapses:
//     the needle goes, where a split would only halve the small angle (and
//     for the paper's edge, a split of an edge below 2*MinEdge would have its
//     halves collapsed straight away);
//   - otherwise the paper's edge is split at its midpoint when it is the
//     face's longest: the small angles then sit at its ends and the new node
//     lands near the opposite vert, to be collapsed with it later (or the
//     face is bisected toward it); splitting a shorter edge would only halve
//     a small angle, so nothing is done and the face is left to the
//     remesher.
func (w *work) fixIll(g int32) bool {
	t := w.f[g]
	if minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]]) >= w.p.MinAngle {
		return false
	}
	var l [3]float64
	s := 0
	for k := 0; k < 3; k++ {
		l[k] = w.edgeLen(t[k], t[(k+1)%3])
		if l[k] < l[s] {
			s = k
		}
	}
	if l[s] < 2*w.p.MinEdge && w.tryCollapse(t[s], t[(s+1)%3]) {
		return true
	}
	nc, p := 0, 0
	for k, v := range t {
		if w.feat[v] >= 0 {
			nc++
			p = k
		}
	}
	e := -1 // the edge t[e]-t[e+1]
	switch nc {
	case 1: // the edge opposite the conformal vert t[p]
		e = (p + 1) % 3
	case 2: // the edge between the conformal verts
		for k, v := range t {
			if w.feat[v] < 0 {
				e = (k + 1) % 3
			}
		}
	case 3: // the (longest) non-conformal edge
		for k := 0; k < 3; k++ {
			if !w.conformalEdge(t[k], t[(k+1)%3]) && (e < 0 || l[k] > l[e]) {
				e = k
			}
		}
	}
	if e < 0 {
		return false
	}
	a, b := t[e], t[(e+1)%3]
	if l[e] < 2*w.p.MinEdge {
		return w.tryCollapse(a, b)
	}
	if l[(e+1)%3] > l[e] || l[(e+2)%3] > l[e] {
		return false
	}
	n := w.splitEdge(a, b, 0.5)
	if w.conformalEdge(a, b) {
		// The midpoint of a straight feature stays on it.
		w.makeConformal(n, w.feat[a], 0.5*(w.tp[a]+w.tp[b]), false)
	}
	w.splits++
	return true
}

// quality counts the faces touching a conformal vert with an angle below
// MinAngle, and the edges touching a conformal vert shorter than MinEdge
// whose ends are not both on the border.
func (w *work) quality() (ill, short int) {
	act := w.activeFaces(nil)
	for _, g := range act {
		t := w.f[g]
		if minAngle(w.u[t[0]], w.u[t[1]], w.u[t[2]]) < w.p.MinAngle {
			ill++
		}
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			if w.feat[a] < 0 && w.feat[b] < 0 {
				continue
			}
			if a > b && w.faceWith(b, a) >= 0 {
				continue // counted from the other face
			}
			if w.edgeLen(a, b) < w.p.MinEdge && !(w.onBorder(a) && w.onBorder(b)) {
				short++
			}
		}
	}
	return ill, short
}
