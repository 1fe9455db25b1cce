package conformal

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

// hitOut collects, per hit, the vert that carries it (-1: none) and what
// became of it.
type hitOut struct {
	node    []int32
	outcome []Outcome
}

// cand is a node of a feature, existing (hit < 0) or asked for by a hit,
// while deciding which hits to keep.
type cand struct {
	hit    int
	vert   int32
	u      dense.Vec2
	t      float64
	border bool
	tan    [2]dense.Vec2 // border directions at the node
	ntan   int
}

// insertHits is step 1 of sec. 6.1: decide which hits to keep (duplicates
// and border angles, per feature), then insert the kept ones in order of
// (Feature, T, index).
func (w *work) insertHits(hits []Hit, hs []hitSite, out *hitOut) error {
	for k := range out.node {
		out.node[k] = -1
		out.outcome[k] = HitInserted
	}
	if len(hits) == 0 {
		return nil
	}
	order := make([]int, len(hits))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(i, j int) int {
		hi, hj := hits[i], hits[j]
		switch {
		case hi.Feature != hj.Feature:
			return int(hi.Feature) - int(hj.Feature)
		case hi.T < hj.T:
			return -1
		case hi.T > hj.T:
			return 1
		}
		return i - j
	})
	ex := append([]int32(nil), w.conf...)
	slices.SortStableFunc(ex, w.byFeatureT)
	dupOf := make([]int, len(hits))
	for k := range dupOf {
		dupOf[k] = -1
	}
	var kept []cand
	for lo, e := 0, 0; lo < len(order); {
		f := hits[order[lo]].Feature
		hi := lo
		for hi < len(order) && hits[order[hi]].Feature == f {
			hi++
		}
		for e < len(ex) && w.feat[ex[e]] < f {
			e++
		}
		point := hits[order[lo]].Point
		kept = kept[:0]
		for ; e < len(ex) && w.feat[ex[e]] == f; e++ {
			kept = append(kept, w.existingCand(ex[e]))
		}
		// Border hits first, so that a chain keeps its ends on the border.
		for _, border := range [2]bool{true, false} {
			for _, k := range order[lo:hi] {
				if hs[k].border != border {
					continue
				}
				// A border hit is a duplicate of an interior node of its
				// chain only within MinEdge/2: mapped to a node up to
				// MinEdge away, it left the border edge beside it crossing
				// the feature without a node (in throw, with strain
				// limits, the cloth's face there cut the box's edge by
				// 1 mm). The hit goes in as the chain's border end and the
				// cleanup collapses that node onto it (sec. 6.1). A node
				// nearer to it stays the hit's node: the two would be too
				// close to be put in order along the feature (in jaws a
				// node 7e-8 from the border and the new border node were
				// left unjoined, with a degenerate face between them).
				best, bd := -1, w.p.MinEdge
				for i, c := range kept {
					d := dist2(c.u, hs[k].u)
					if border && !c.border && !(d < w.p.MinEdge/2) {
						continue
					}
					if d < bd {
						best, bd = i, d
					}
				}
				if point && len(kept) > 0 {
					best = 0 // a point touches the cloth at one node
				}
				if best >= 0 {
					out.outcome[k] = HitDuplicate
					if c := kept[best]; c.hit < 0 {
						out.node[k] = c.vert
					} else {
						dupOf[k] = c.hit
					}
					continue
				}
				c := cand{hit: k, vert: -1, u: hs[k].u, t: hits[k].T, border: hs[k].border}
				if c.border {
					c.tan[0], c.ntan = hs[k].tan, 1
				}
				kept = append(kept, c)
			}
		}
		if !point {
			w.dropBorderAngles(kept, out)
		}
		lo = hi
	}
	for _, k := range order {
		if out.outcome[k] != HitInserted {
			continue
		}
		if err := w.insertHit(k, hits[k], hs[k], out); err != nil {
			return err
		}
	}
	// Absorb only now: a collapse during insertion would remove pieces of
	// input edges that later hits are located on.
	for _, p := range w.absorbs {
		w.absorb(p[0], p[1])
	}
	for k, d := range dupOf {
		if d >= 0 {
			out.node[k] = out.node[d]
		}
	}
	return nil
}

func (w *work) existingCand(v int32) cand {
	c := cand{hit: -1, vert: v, u: w.u[v], t: w.tp[v]}
	nOut, nIn, o, i := w.live.BorderInfo(v)
	if nOut > 0 {
		c.tan[c.ntan] = w.u[o].Sub(w.u[v])
		c.ntan++
	}
	if nIn > 0 {
		c.tan[c.ntan] = w.u[i].Sub(w.u[v])
		c.ntan++
	}
	c.border = c.ntan > 0
	return c
}

// dropBorderAngles drops hits whose conformal edge to their neighbour in T
// would meet the border at less than BorderAngle (sec. 6.1: "before we
// insert a conformal edge that touches the cloth border, we check ... the
// angle between the edge and the border"), preferring to drop the border
// end, until every edge with a hit passes.
func (w *work) dropBorderAngles(kept []cand, out *hitOut) {
	slices.SortStableFunc(kept, func(a, b cand) int {
		switch {
		case a.t < b.t:
			return -1
		case a.t > b.t:
			return 1
		}
		return a.hit - b.hit
	})
	for changed := true; changed; {
		changed = false
		for i := 0; i+1 < len(kept); i++ {
			a, b := kept[i], kept[i+1]
			if !(a.border || b.border) || (a.hit < 0 && b.hit < 0) {
				continue
			}
			if w.borderAngle(a, b) >= w.p.BorderAngle {
				continue
			}
			drop := i
			switch {
			case a.border && a.hit >= 0:
			case b.border && b.hit >= 0:
				drop = i + 1
			case a.hit >= 0:
			default:
				drop = i + 1
			}
			out.outcome[kept[drop].hit] = HitBorderAngle
			copy(kept[drop:], kept[drop+1:])
			kept = kept[:len(kept)-1]
			changed = true
			break
		}
	}
}

// borderAngle is the smallest angle between the segment a-b and the border
// directions at its border ends.
func (w *work) borderAngle(a, b cand) float64 {
	d := b.u.Sub(a.u)
	ang := math.Pi / 2
	for _, c := range [2]cand{a, b} {
		for i := 0; i < c.ntan; i++ {
			tg := c.tan[i]
			ang = min(ang, math.Atan2(math.Abs(cross2(d, tg)), math.Abs(dot2(d, tg))))
		}
	}
	return ang
}

// param returns the parameter of vert v along the input edge a-b (a < b),
// when v is a, b or a vert made on that edge.
func (w *work) param(v, a, b int32) (float64, bool) {
	switch {
	case v == a:
		return 0, true
	case v == b:
		return 1, true
	case int(v) >= w.nV0:
		if m := w.made[int(v)-w.nV0]; m.a == a && m.b == b {
			return m.s, true
		}
	}
	return 0, false
}

// segOf returns the input edge that the current edge x-y lies on, if any,
// with the parameters of x and y along it. Only meaningful while inserting
// hits (only splits have happened, so an edge between two input verts is an
// input edge).
func (w *work) segOf(x, y int32) (a, b int32, px, py float64, ok bool) {
	switch {
	case int(x) < w.nV0 && int(y) < w.nV0:
		a, b = min(x, y), max(x, y)
	case int(x) >= w.nV0:
		m := w.made[int(x)-w.nV0]
		a, b = m.a, m.b
	default:
		m := w.made[int(y)-w.nV0]
		a, b = m.a, m.b
	}
	if a < 0 {
		return
	}
	var okx, oky bool
	px, okx = w.param(x, a, b)
	py, oky = w.param(y, a, b)
	ok = okx && oky
	return
}

// candFaces returns the live faces inside input face g.
func (w *work) candFaces(dst []int32, g int32) []int32 {
	if w.live.Alive[g] {
		dst = append(dst, g)
	}
	for _, f := range w.kids[g] {
		if w.live.Alive[f] {
			dst = append(dst, f)
		}
	}
	return dst
}

// insertHit inserts, snaps or blocks one kept hit.
func (w *work) insertHit(k int, h Hit, s hitSite, out *hitOut) error {
	cands := w.candFaces(nil, s.face)
	var near []int32
	if s.a >= 0 {
		// Edge hit: the current piece of the input edge a-b holding s.
		ex, ey, sx := int32(-1), int32(-1), 0.0
		for _, g := range cands {
			t := w.live.F[g]
			for e := 0; e < 3 && ex < 0; e++ {
				x, y := t[e], t[(e+1)%3]
				px, okx := w.param(x, s.a, s.b)
				py, oky := w.param(y, s.a, s.b)
				if okx && oky && (px < s.s && s.s < py || py < s.s && s.s < px) {
					ex, ey, sx = x, y, (s.s-px)/(py-px)
				}
			}
		}
		if ex < 0 {
			// A node of another feature already sits exactly at S (two
			// features crossing the cloth edge at one point, as near a box
			// corner): the hit is blocked by it.
			out.outcome[k] = HitBlocked
			return nil
		}
		near = append(near, ex, ey)
		if g := w.live.FaceWith(ex, ey); g >= 0 {
			near = append(near, mesh.Third(w.live.F[g], ex, ey))
		}
		if g := w.live.FaceWith(ey, ex); g >= 0 {
			near = append(near, mesh.Third(w.live.F[g], ex, ey))
		}
		done, free := w.snap(k, h, s.u, near, out)
		if done {
			return nil
		}
		n := w.splitEdge(ex, ey, sx)
		m := &w.made[int(n)-w.nV0]
		m.a, m.b, m.s = s.a, s.b, s.s
		w.placeHit(k, n, h, out)
		w.absorbLater(free, n)
		return nil
	}
	// Face hit: the live face inside the input face that holds the point
	// best (largest smallest barycentric coordinate).
	best, bmin := int32(-1), math.Inf(-1)
	var bc [3]float64
	for _, g := range cands {
		t := w.live.F[g]
		a := area2(w.u[t[0]], w.u[t[1]], w.u[t[2]])
		var c [3]float64
		for i := 0; i < 3; i++ {
			c[i] = area2(s.u, w.u[t[(i+1)%3]], w.u[t[(i+2)%3]]) / a
		}
		if mn := min(c[0], c[1], c[2]); mn > bmin {
			best, bmin, bc = g, mn, c
		}
	}
	if best < 0 {
		return fmt.Errorf("conformal: hit %d: internal error: face %d has no live part", k, h.Face)
	}
	t := w.live.F[best]
	done, free := w.snap(k, h, s.u, t[:], out)
	if done {
		return nil
	}
	// Close to an edge: split the edge at the projection instead of making
	// a sliver.
	ei, ed, es := -1, w.p.MinEdge/4, 0.0
	for i := 0; i < 3; i++ {
		x, y := t[i], t[(i+1)%3]
		d := w.u[y].Sub(w.u[x])
		q := dot2(s.u.Sub(w.u[x]), d) / dot2(d, d)
		if !(q > 0 && q < 1) {
			continue
		}
		if dd := dist2(s.u, lerp2(w.u[x], w.u[y], q)); dd < ed {
			ei, ed, es = i, dd, q
		}
	}
	var n int32
	if ei >= 0 {
		x, y := t[ei], t[(ei+1)%3]
		a, b, px, py, ok := w.segOf(x, y)
		n = w.splitEdge(x, y, es)
		if ok {
			m := &w.made[int(n)-w.nV0]
			m.a, m.b, m.s = a, b, px+es*(py-px)
		}
	} else {
		for i := range bc {
			bc[i] = max(bc[i], 0)
		}
		sum := bc[0] + bc[1] + bc[2]
		for i := range bc {
			bc[i] /= sum
		}
		n = w.splitFace(best, bc)
	}
	w.placeHit(k, n, h, out)
	w.absorbLater(free, n)
	return nil
}

// snap handles a hit within MinEdge of one of the verts near. It is a
// duplicate of a node of its feature or blocked by a node of another feature
// or a locked node (handled, true); otherwise (false) the hit is inserted,
// and the free node it fell next to, if any, is returned to be absorbed.
//
// A free node on the cloth's border within MinEdge/4 of the hit cannot be
// absorbed (border nodes stay, canRemove), and a node inserted beside it
// would leave a sliver: in jaws a hit 0.02 mm from a border node, on an
// interior edge, made a face of that node, its border neighbour and the
// new node all on the border's line (max_strain 11, 494 one step later).
// The border node becomes the hit's node instead, moved onto the feature
// (the cloth's border touches the feature there; Weidner 2018 sec. 3 lets
// a border node slide along the border), or, at a cloth corner, which
// stays Lagrangian, the hit is blocked.
func (w *work) snap(k int, h Hit, u dense.Vec2, near []int32, out *hitOut) (bool, int32) {
	v, bd := int32(-1), w.p.MinEdge
	for _, x := range near {
		if d := dist2(w.u[x], u); d < bd {
			v, bd = x, d
		}
	}
	switch {
	case v < 0:
		return false, -1
	case w.feat[v] == h.Feature:
		out.outcome[k], out.node[k] = HitDuplicate, v
	case w.feat[v] >= 0 || w.locked[v]:
		out.outcome[k] = HitBlocked
	case bd < w.p.MinEdge/4 && w.onBorder(v):
		if _, _, straight := w.straightBorder(v); !straight {
			out.outcome[k] = HitBlocked
			break
		}
		w.placeHit(k, v, h, out)
	default:
		return false, v
	}
	return true, -1
}

// onBorder reports whether vert v has a border edge.
func (w *work) onBorder(v int32) bool {
	nOut, nIn, _, _ := w.live.BorderInfo(v)
	return nOut+nIn > 0
}

// absorbLater records that free vert v (if >= 0) is to be absorbed by the
// new node n once all hits are inserted.
func (w *work) absorbLater(v, n int32) {
	if v >= 0 {
		w.absorbs = append(w.absorbs, [2]int32{v, n})
	}
}

// absorb collapses free vert v, which a hit landed within MinEdge of, onto
// the hit's new node n when the cleanup's rules allow it (the collapse
// toward the conformal node of sec. 6.1, done at once): the free node goes,
// its faces now meet the feature at n, and nothing is strained, since n lies
// where the cloth touches the feature in both material and world space.
func (w *work) absorb(v, n int32) {
	if w.alive[v] && w.feat[v] < 0 && w.live.Adjacent(v, n) && w.canRemove(v, n, -1) {
		w.collapse(v, n)
	}
}

func (w *work) placeHit(k int, n int32, h Hit, out *hitOut) {
	w.makeConformal(n, h.Feature, h.T, h.Point)
	w.x[n] = h.X
	out.outcome[k], out.node[k] = HitInserted, n
}
