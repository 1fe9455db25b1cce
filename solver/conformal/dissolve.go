package conformal

import (
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

// dissolve removes the interior free vert v and fills the hole its faces
// leave with new faces, and reports whether it did. It is the cleanup's last
// resort for a free vert that a conformal chain has swept onto (sec. 6.1's
// collapse toward the conformal vertex, when no single collapse is valid):
// when v fans over two or more chain edges, any collapse of v onto one of
// the chain's nodes makes a face of three chain nodes, which is flat in
// world space (they lie on one straight feature), and often in material
// space too.
//
// The hole is v's link polygon, counter-clockwise in material space. It is
// filled by ear clipping, taking at each step the ear with the largest
// smallest angle among the valid ones: counter-clockwise and not degenerate
// in material space (wellFormed), not flat in world space (flatInWorld),
// holding no other polygon node, not duplicating an edge that exists
// outside the hole, and with all its angles above amin. If the hole cannot
// be filled so, the mesh is left as it was.
func (w *work) dissolve(v int32, amin float64) bool {
	if !w.alive[v] || w.locked[v] || w.feat[v] >= 0 || w.live.OnBorder(v) {
		return false
	}
	poly := w.link(v)
	if poly == nil {
		return false
	}
	var outer []int32 // faces beyond the link taken into the hole
	for grow := 0; ; grow++ {
		if faces, ok := w.fillHole(poly, amin); ok {
			for len(w.live.VF[v]) > 0 {
				w.live.KillFace(w.live.VF[v][0])
			}
			for _, f := range outer {
				w.live.KillFace(f)
			}
			for _, t := range faces {
				w.addFace(t[0], t[1], t[2], -1)
			}
			w.alive[v] = false
			w.collapses++
			return true
		}
		if grow == maxGrow {
			return false
		}
		// Take in the face across the longest hole edge that is not a
		// chain edge, so that a flat ear of three chain nodes is replaced by
		// two faces with that face's apex (the flip that repairs it).
		best, bestL, apex, face := -1, 0.0, int32(-1), int32(-1)
		for i := range poly {
			a, b := poly[i], poly[(i+1)%len(poly)]
			f := w.live.FaceWith(b, a)
			if f < 0 || w.chainEdge(a, b) {
				continue
			}
			y := mesh.Third(w.live.F[f], a, b)
			if slices.Contains(poly, y) {
				continue
			}
			if l := w.edgeLen(a, b); l > bestL {
				best, bestL, apex, face = i, l, y, f
			}
		}
		if best < 0 {
			return false
		}
		poly = slices.Insert(poly, best+1, apex)
		outer = append(outer, face)
	}
}

// maxGrow is how many faces beyond its link dissolve may take into a hole.
const maxGrow = 2

// fillHole triangulates the counter-clockwise polygon poly by ear clipping
// (see dissolve) and reports whether every ear was valid.
func (w *work) fillHole(poly []int32, amin float64) ([][3]int32, bool) {
	poly = slices.Clone(poly)
	faces := make([][3]int32, 0, len(poly)-2)
	for len(poly) > 3 {
		best, bestA := -1, -1.0
		n := len(poly)
		for i := range poly {
			a, b, c := poly[(i+n-1)%n], poly[i], poly[(i+1)%n]
			if w.live.Adjacent(a, c) {
				continue // a-c exists outside the hole
			}
			if q := w.earQuality(a, b, c, poly, amin); q > bestA {
				best, bestA = i, q
			}
		}
		if best < 0 {
			return nil, false
		}
		faces = append(faces, [3]int32{poly[(best+n-1)%n], poly[best], poly[(best+1)%n]})
		poly = slices.Delete(poly, best, best+1)
	}
	if w.earQuality(poly[0], poly[1], poly[2], poly, amin) < 0 {
		return nil, false
	}
	return append(faces, [3]int32{poly[0], poly[1], poly[2]}), true
}

// link returns the link of interior vert v as a counter-clockwise polygon
// (the far edges b->c of its faces (v, b, c), chained), or nil when they do
// not form one simple cycle.
func (w *work) link(v int32) []int32 {
	fs := w.live.VF[v]
	if len(fs) < 3 {
		return nil
	}
	next := make(map[int32]int32, len(fs))
	for _, f := range fs {
		t := w.live.F[f]
		p := mesh.Corner(t, v)
		b, c := t[(p+1)%3], t[(p+2)%3]
		if _, dup := next[b]; dup {
			return nil
		}
		next[b] = c
	}
	poly := make([]int32, 0, len(fs))
	start := w.live.F[fs[0]][(mesh.Corner(w.live.F[fs[0]], v)+1)%3]
	for b := start; ; {
		poly = append(poly, b)
		c, ok := next[b]
		if !ok || len(poly) > len(fs) {
			return nil
		}
		if c == start {
			break
		}
		b = c
	}
	if len(poly) != len(fs) {
		return nil
	}
	return poly
}

// earQuality returns the smallest material-space angle of the ear (a, b, c)
// of polygon poly, or -1 if the ear is not valid (see dissolve).
func (w *work) earQuality(a, b, c int32, poly []int32, amin float64) float64 {
	ua, ub, uc := w.u[a], w.u[b], w.u[c]
	if !wellFormed(ua, ub, uc) || w.flatInWorld(a, b, c) {
		return -1
	}
	q := minAngle(ua, ub, uc)
	if !(q > amin) {
		return -1
	}
	for _, p := range poly {
		if p == a || p == b || p == c {
			continue
		}
		up := w.u[p]
		if area2(ua, ub, up) >= 0 && area2(ub, uc, up) >= 0 && area2(uc, ua, up) >= 0 {
			return -1
		}
	}
	return q
}

// chainDist returns the material-space distance from free vert v to the
// nearest conformal node or conformal edge of its faces (+Inf if none).
func (w *work) chainDist(v int32) float64 {
	d := math.Inf(1)
	for _, f := range w.live.VF[v] {
		t := w.live.F[f]
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			switch {
			case a == v || b == v:
				if o := a + b - v; w.feat[o] >= 0 {
					d = math.Min(d, w.edgeLen(v, o))
				}
			case w.conformalEdge(a, b):
				d = math.Min(d, dense.SegmentDistance2(w.u[v], w.u[a], w.u[b]))
			}
		}
	}
	return d
}

// chainEdge reports whether a-b joins consecutive nodes of an edge
// feature's chain (no live node of the feature lies between them in T).
// An edge between two nodes of the feature that skips one is not.
func (w *work) chainEdge(a, b int32) bool {
	f, ta, tb, ok := w.chainT(a, b)
	if !ok {
		return false
	}
	lo, hi := math.Min(ta, tb), math.Max(ta, tb)
	for _, c := range w.conf {
		if w.alive[c] && c != a && c != b && w.feat[c] == f && !w.point[c] && w.tp[c] > lo && w.tp[c] < hi {
			return false
		}
	}
	return true
}
