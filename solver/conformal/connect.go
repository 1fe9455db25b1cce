package conformal

import (
	"slices"

	"github.com/loomsim/loom/solver/mesh"
)

// chain returns the live verts on edge features, sorted by (feature, T,
// index), and compacts w.conf.
func (w *work) chain() []int32 {
	live := w.conf[:0]
	for _, v := range w.conf {
		if w.alive[v] && w.feat[v] >= 0 {
			live = append(live, v)
		}
	}
	w.conf = live
	var out []int32
	for _, v := range live {
		if !w.point[v] {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, w.byFeatureT)
	return out
}

// byFeatureT orders verts by feature, then by parameter T along it, then by
// index: the order of a feature's chain.
func (w *work) byFeatureT(a, b int32) int {
	switch {
	case w.feat[a] != w.feat[b]:
		return int(w.feat[a]) - int(w.feat[b])
	case w.tp[a] < w.tp[b]:
		return -1
	case w.tp[a] > w.tp[b]:
		return 1
	}
	return int(a) - int(b)
}

// connect is step 2 of sec. 6.1: consecutive nodes of each edge feature
// must share an edge. When they do not but are the opposite corners of two
// adjacent faces, the edge between those faces is flipped, unless it is
// itself conformal or a new face would not be counter-clockwise or would be
// flat in world space. The pairs
// left apart are returned.
//
// A chain whose edge feature ends at a point feature with a live node (a box
// corner, Features.Ends) is joined to that node too, from its first or last
// node.
func (w *work) connect() [][2]int32 {
	var gaps [][2]int32
	join := func(a, b int32) {
		if !w.live.Adjacent(a, b) && !w.flipToward(a, b) {
			gaps = append(gaps, [2]int32{a, b})
		}
	}
	ch := w.chain()
	corner := w.pointNodes()
	for i := 0; i < len(ch); i++ {
		a, f := ch[i], w.feat[ch[i]]
		e, hasEnds := w.ends[f]
		if hasEnds && (i == 0 || w.feat[ch[i-1]] != f) {
			if c, ok := corner[e.Start]; ok {
				join(c, a)
			}
		}
		if i+1 < len(ch) && w.feat[ch[i+1]] == f {
			join(a, ch[i+1])
			continue
		}
		if c, ok := corner[e.End]; hasEnds && ok {
			join(a, c)
		}
	}
	return gaps
}

// pointNodes maps each point feature with a live node to its node (the
// first by index), for the features that end an edge feature.
func (w *work) pointNodes() map[int32]int32 {
	if len(w.ends) == 0 {
		return nil
	}
	m := map[int32]int32{}
	for _, v := range w.conf {
		if w.alive[v] && w.point[v] {
			if u, ok := m[w.feat[v]]; !ok || v < u {
				m[w.feat[v]] = v
			}
		}
	}
	return m
}

// flatInWorld reports whether face (a, b, c) would be flat in world space
// (its area below minWorldArea times its material area), as a face with
// three nodes on one straight feature is.
func (w *work) flatInWorld(a, b, c int32) bool {
	x0, x1, x2 := w.x[a], w.x[b], w.x[c]
	return x1.Sub(x0).Cross(x2.Sub(x0)).Norm() < minWorldArea*area2(w.u[a], w.u[b], w.u[c])
}

// flipToward makes the edge a-b by flipping the edge c-d of a face (a, c, d)
// whose neighbour across c-d is (d, c, b).
func (w *work) flipToward(a, b int32) bool {
	for _, g := range w.live.VF[a] {
		t := w.live.F[g]
		p := mesh.Corner(t, a)
		c, d := t[(p+1)%3], t[(p+2)%3]
		h := w.live.FaceWith(d, c)
		if h < 0 || mesh.Third(w.live.F[h], c, d) != b || w.conformalEdge(c, d) {
			continue
		}
		if !wellFormed(w.u[a], w.u[c], w.u[b]) || !wellFormed(w.u[a], w.u[b], w.u[d]) || w.flatInWorld(a, c, b) || w.flatInWorld(a, b, d) {
			continue
		}
		w.live.KillFace(g)
		w.live.KillFace(h)
		w.addFace(a, c, b, -1)
		w.addFace(a, b, d, -1)
		w.flips++
		return true
	}
	return false
}
