package geom

import (
	"cmp"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
)

// Runner runs body over [0, n) split into chunks, possibly concurrently, with
// body(lo, hi) called on disjoint ranges covering [0, n). *ecs.Pool and
// sparse.Serial satisfy it; a nil Runner runs serially.
type Runner interface {
	For(n int, body func(lo, hi int))
}

func runFor(r Runner, n int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if r == nil {
		body(0, n)
		return
	}
	r.For(n, body)
}

// TriPair is a pair of triangle indices. Pairs of one tree have A < B; pairs
// between two trees have A in the first tree and B in the second.
type TriPair struct{ A, B int32 }

func comparePairs(p, q TriPair) int {
	if c := cmp.Compare(p.A, q.A); c != 0 {
		return c
	}
	return cmp.Compare(p.B, q.B)
}

// bvhNode is one node of a BVH. A leaf (Left < 0) holds triangle Tri;
// MaxTri is the largest triangle index in the node's subtree.
type bvhNode struct {
	Box         AABB
	Left, Right int32
	Tri, MaxTri int32
}

// BVH is a bounding volume hierarchy over the triangles of a mesh, one
// triangle per leaf, for the broad phase of cloth self- and cloth-cloth
// collision (Bridson et al. 2002 sec. 6 uses such a tree of swept boxes).
//
// Build makes the tree from the triangles' centroids by a median split on
// the longest axis of the centroids' box, ties broken by triangle index, so
// the tree depends only on its input; it is rebuilt when the topology
// changes. Refit (or RefitSwept) recomputes every box bottom-up from new
// positions without changing the tree's shape; it runs level by level, each
// level in parallel over a Runner, and each box is a pure function of its
// children, so the boxes do not depend on the split. Every leaf box is
// padded by Margin on every side, so two triangles are reported when their
// boxes, each grown by Margin, overlap: every pair closer than 2*Margin along
// each axis (in particular every pair within Euclidean distance 2*Margin).
//
// Queries return their pairs sorted by (A, B), so the output order is
// deterministic. Buffers are reused across Refit and queries; a steady state
// of Refit + queries into a caller-reused slice allocates nothing.
type BVH struct {
	Margin float64

	faces []int32 // copy of the triangles, 3 per triangle
	nodes []bvhNode
	leaf  []int32 // the leaf node of each triangle
	// byDepth lists node indices grouped by depth, depthStart[d] the start of
	// depth d; Refit walks the depths from the deepest up.
	byDepth    []int32
	depthStart []int

	// RefitSweptNear's state: each node's parent, whether the last call
	// fitted it, and the fitted nodes grouped by depth.
	parent      []int32
	near        []bool
	nearByDepth []int32
	nearStart   []int

	// refit state read by the parallel bodies (set before each run).
	x0, x1    []float64
	level     []int32
	bodyRefit func(lo, hi int)

	stack []int32
}

// Build (re)builds the tree over the triangles faces (3 vertex indices per
// triangle, into pos, 3 floats per vertex) with leaf boxes padded by margin,
// and fits it to pos. It keeps a copy of faces. It allocates; call it only
// when the topology changes.
func (b *BVH) Build(r Runner, pos []float64, faces []int32, margin float64) {
	b.Margin = margin
	b.faces = append(b.faces[:0], faces...)
	nt := len(faces) / 3
	b.nodes = b.nodes[:0]
	b.leaf = b.leaf[:0]
	b.byDepth = b.byDepth[:0]
	b.depthStart = b.depthStart[:0]
	b.parent = b.parent[:0]
	if b.bodyRefit == nil {
		b.bodyRefit = b.refitRange
	}
	if nt == 0 {
		return
	}
	cent := make([]dense.Vec3, nt)
	for t := range nt {
		for k := range 3 {
			c := 0.0
			for j := range 3 {
				c += pos[3*int(faces[3*t+j])+k]
			}
			cent[t][k] = c / 3
		}
	}
	perm := make([]int32, nt)
	for t := range perm {
		perm[t] = int32(t)
	}
	b.leaf = slices.Grow(b.leaf[:0], nt)[:nt]
	depth := make([]int32, 0, 2*nt)
	var build func(lo, hi int, d int32) int32
	build = func(lo, hi int, d int32) int32 {
		id := int32(len(b.nodes))
		b.nodes = append(b.nodes, bvhNode{Left: -1, Right: -1, Tri: -1})
		depth = append(depth, d)
		if hi-lo == 1 {
			b.nodes[id].Tri, b.nodes[id].MaxTri = perm[lo], perm[lo]
			b.leaf[perm[lo]] = id
			return id
		}
		box := EmptyAABB()
		for _, t := range perm[lo:hi] {
			box = box.Grow(cent[t])
		}
		axis := 0
		for k := 1; k < 3; k++ {
			if box.Hi[k]-box.Lo[k] > box.Hi[axis]-box.Lo[axis] {
				axis = k
			}
		}
		slices.SortFunc(perm[lo:hi], func(p, q int32) int {
			if c := cmp.Compare(cent[p][axis], cent[q][axis]); c != 0 {
				return c
			}
			return cmp.Compare(p, q)
		})
		mid := (lo + hi) / 2
		l := build(lo, mid, d+1)
		rr := build(mid, hi, d+1)
		b.nodes[id].Left, b.nodes[id].Right = l, rr
		b.nodes[id].MaxTri = max(b.nodes[l].MaxTri, b.nodes[rr].MaxTri)
		return id
	}
	build(0, nt, 0)
	maxD := int32(0)
	for _, d := range depth {
		maxD = max(maxD, d)
	}
	count := make([]int, maxD+2)
	for _, d := range depth {
		count[d+1]++
	}
	for d := 1; d < len(count); d++ {
		count[d] += count[d-1]
	}
	b.depthStart = append(b.depthStart, count...)
	b.byDepth = append(b.byDepth, make([]int32, len(b.nodes))...)
	fill := slices.Clone(count)
	for i, d := range depth {
		b.byDepth[fill[d]] = int32(i)
		fill[d]++
	}
	b.Refit(r, pos)
}

// Len returns the number of triangles in the tree.
func (b *BVH) Len() int { return len(b.faces) / 3 }

// Refit recomputes every box from positions pos (3 floats per vertex),
// leaves padded by Margin.
func (b *BVH) Refit(r Runner, pos []float64) { b.RefitSwept(r, pos, pos) }

// RefitSwept recomputes every box to hold each triangle at both x0 and x1
// (the box of its linear motion from x0 to x1), leaves padded by Margin:
// the candidate set of continuous collision detection over the step.
func (b *BVH) RefitSwept(r Runner, x0, x1 []float64) {
	b.x0, b.x1 = x0, x1
	for d := len(b.depthStart) - 2; d >= 0; d-- {
		b.level = b.byDepth[b.depthStart[d]:b.depthStart[d+1]]
		runFor(r, len(b.level), b.bodyRefit)
	}
	b.x0, b.x1, b.level = nil, nil, nil
}

// RefitSweptNear is RefitSwept for a rigidly moving body, limited to where
// the tree can meet queries inside region: ref is the tree fitted at the
// body's reference positions (Margin 0, built from the same triangles and
// positions as b, so of the same shape) and m its motion over the step, as
// for OverlappingSwept. Top down, a node whose box carried along m (padded
// by b.Margin) misses region keeps that box, which holds its subtree over
// the whole motion, and its descendants are not fitted: every query inside
// region stops at it. The other nodes are refitted exactly as RefitSwept
// fits them. The cost is that of the nodes near region, not of the tree: a
// finely meshed obstacle that cloth touches on one side. The boxes below a
// node that missed region are stale until the next refit.
func (b *BVH) RefitSweptNear(r Runner, x0, x1 []float64, ref *BVH, m *Sweep, region *AABB) {
	if len(b.nodes) == 0 {
		return
	}
	if len(b.parent) != len(b.nodes) {
		b.parent = slices.Grow(b.parent[:0], len(b.nodes))[:len(b.nodes)]
		b.parent[0] = -1
		for id, n := range b.nodes {
			if n.Left >= 0 {
				b.parent[n.Left], b.parent[n.Right] = int32(id), int32(id)
			}
		}
		b.near = make([]bool, len(b.nodes))
	}
	// Top down: the near nodes of each depth, in byDepth's order.
	b.nearByDepth = b.nearByDepth[:0]
	b.nearStart = append(b.nearStart[:0], 0)
	for d := 0; d+1 < len(b.depthStart); d++ {
		for _, id := range b.byDepth[b.depthStart[d]:b.depthStart[d+1]] {
			b.near[id] = false
			if p := b.parent[id]; p >= 0 && !b.near[p] {
				continue
			}
			if box := m.Box(&ref.nodes[id].Box, b.Margin); !box.Overlaps(region) {
				b.nodes[id].Box = box
				continue
			}
			b.near[id] = true
			b.nearByDepth = append(b.nearByDepth, id)
		}
		b.nearStart = append(b.nearStart, len(b.nearByDepth))
	}
	b.x0, b.x1 = x0, x1
	for d := len(b.nearStart) - 2; d >= 0; d-- {
		b.level = b.nearByDepth[b.nearStart[d]:b.nearStart[d+1]]
		runFor(r, len(b.level), b.bodyRefit)
	}
	b.x0, b.x1, b.level = nil, nil, nil
}

func (b *BVH) refitRange(lo, hi int) {
	for _, id := range b.level[lo:hi] {
		n := &b.nodes[id]
		if n.Left >= 0 {
			l, r := &b.nodes[n.Left].Box, &b.nodes[n.Right].Box
			for k := range 3 {
				n.Box.Lo[k], n.Box.Hi[k] = lower(l.Lo[k], r.Lo[k]), upper(l.Hi[k], r.Hi[k])
			}
			continue
		}
		// The corners at x0, then at x1, unrolled: a loop over the two
		// position slices cost several times the arithmetic.
		t := 3 * int(n.Tri)
		a, c, d := 3*int(b.faces[t]), 3*int(b.faces[t+1]), 3*int(b.faces[t+2])
		x0, x1 := b.x0, b.x1
		for k := range 3 {
			l, h := x0[a+k], x0[a+k]
			l, h = lower(l, x0[c+k]), upper(h, x0[c+k])
			l, h = lower(l, x0[d+k]), upper(h, x0[d+k])
			l, h = lower(l, x1[a+k]), upper(h, x1[a+k])
			l, h = lower(l, x1[c+k]), upper(h, x1[c+k])
			l, h = lower(l, x1[d+k]), upper(h, x1[d+k])
			n.Box.Lo[k], n.Box.Hi[k] = l-b.Margin, h+b.Margin
		}
	}
}

// lower is min(a, b) for the boxes of a refit, without the builtin's
// ordering of signed zeros (which no box comparison sees): NaN when either
// is NaN, so that a NaN coordinate makes its axis never apart, as Grow and
// Include do.
func lower(a, b float64) float64 {
	if b < a || b != b {
		return b
	}
	return a
}

// upper is max(a, b) as lower is min.
func upper(a, b float64) float64 {
	if b > a || b != b {
		return b
	}
	return a
}

func (b *BVH) shareVertex(s, t int32) bool {
	fs, ft := b.faces[3*s:3*s+3], b.faces[3*t:3*t+3]
	for _, u := range fs {
		if u == ft[0] || u == ft[1] || u == ft[2] {
			return true
		}
	}
	return false
}

// SelfPairs appends to dst[:0] every pair of triangles A < B of the tree
// whose padded boxes overlap and which share no vertex, sorted by (A, B).
func (b *BVH) SelfPairs(dst []TriPair) []TriPair {
	dst = dst[:0]
	if len(b.nodes) == 0 {
		return dst
	}
	// Each stack entry is a (node, node) pair; a == b means "all pairs
	// within the subtree".
	st := append(b.stack[:0], 0, 0)
	for len(st) > 0 {
		p, q := st[len(st)-2], st[len(st)-1]
		st = st[:len(st)-2]
		np, nq := &b.nodes[p], &b.nodes[q]
		if p == q {
			if np.Left >= 0 {
				st = append(st, np.Left, np.Left, np.Right, np.Right, np.Left, np.Right)
			}
			continue
		}
		if !np.Box.Overlaps(&nq.Box) {
			continue
		}
		pl, ql := np.Left < 0, nq.Left < 0
		switch {
		case pl && ql:
			s, t := np.Tri, nq.Tri
			if !b.shareVertex(s, t) {
				dst = append(dst, TriPair{min(s, t), max(s, t)})
			}
		case ql || (!pl && boxSize(&np.Box) >= boxSize(&nq.Box)):
			st = append(st, np.Left, q, np.Right, q)
		default:
			st = append(st, p, nq.Left, p, nq.Right)
		}
	}
	b.stack = st
	slices.SortFunc(dst, comparePairs)
	return dst
}

// OverlappingAfter appends to dst[:0] every triangle B > a whose padded box
// overlaps a's, in increasing order, including those sharing a vertex with
// a: for callers that exclude adjacency per feature pair (a vertex against a
// face not holding it, two edges sharing no vertex), which tests more than a
// triangle-level exclusion does. It only reads the tree, so calls for different
// triangles may run concurrently, each with its own dst and stack (scratch,
// returned for reuse); the pairs of the triangles of one block are found
// together by parallel callers without a shared sort.
func (b *BVH) OverlappingAfter(a int32, dst, stack []int32) ([]int32, []int32) {
	if len(b.nodes) == 0 {
		return dst[:0], stack
	}
	dst, stack, _ = b.overlapping(&b.nodes[b.leaf[a]].Box, a, nil, 0, dst, stack)
	return dst, stack
}

// OverlappingBox appends to dst[:0] every triangle whose padded box
// overlaps q, in increasing order: a query of another tree's triangle
// (LeafBox) against this one. Like OverlappingAfter it only reads the tree,
// with the caller's dst and stack; it also returns the number of boxes it
// tested.
func (b *BVH) OverlappingBox(q *AABB, dst, stack []int32) ([]int32, []int32, int) {
	return b.overlapping(q, -1, nil, 0, dst, stack)
}

// OverlappingSwept is OverlappingBox for a tree fitted at a rigid body's
// reference positions (with Margin 0) that moves by m over the step: every
// triangle whose box carried along m (Sweep.Box) and padded by margin
// overlaps q. Only the boxes the query tests are transformed (their number
// is returned): no refit.
func (b *BVH) OverlappingSwept(q *AABB, m *Sweep, margin float64, dst, stack []int32) ([]int32, []int32, int) {
	return b.overlapping(q, -1, m, margin, dst, stack)
}

// overlapping appends to dst[:0] every triangle B > after whose padded box
// (carried along m and padded by margin, when m is set) overlaps q, in
// increasing order, and the number of boxes tested.
func (b *BVH) overlapping(q *AABB, after int32, m *Sweep, margin float64, dst, stack []int32) ([]int32, []int32, int) {
	dst = dst[:0]
	if len(b.nodes) == 0 {
		return dst, stack, 0
	}
	tested := 0
	st := append(stack[:0], 0)
	for len(st) > 0 {
		n := &b.nodes[st[len(st)-1]]
		st = st[:len(st)-1]
		if n.MaxTri <= after {
			continue
		}
		tested++
		if m == nil {
			if !n.Box.Overlaps(q) {
				continue
			}
		} else if box := m.Box(&n.Box, margin); !box.Overlaps(q) {
			continue
		}
		if n.Left < 0 {
			dst = append(dst, n.Tri)
			continue
		}
		st = append(st, n.Left, n.Right)
	}
	slices.Sort(dst)
	return dst, st, tested
}

// Nodes returns the number of boxes in the tree (2 per triangle, less 1).
func (b *BVH) Nodes() int { return len(b.nodes) }

// LeafBox returns triangle t's padded box as last fitted.
func (b *BVH) LeafBox(t int32) *AABB { return &b.nodes[b.leaf[t]].Box }

// boxSize is the sum of a box's extents: which of two nodes to descend.
func boxSize(b *AABB) float64 {
	return (b.Hi[0] - b.Lo[0]) + (b.Hi[1] - b.Lo[1]) + (b.Hi[2] - b.Lo[2])
}

// maxQueryDepth bounds the tree depth the read-only queries' fixed stacks
// hold: the median split makes the depth ceil(log2(triangles)) + 1, and the
// OBJ reader's limit of 1<<22 triangles gives 23.
const maxQueryDepth = 62

// Nearest returns the triangle t with the smallest dist(t) of those whose
// leaf boxes lie within maxDist (Euclidean) of p, and that distance; -1 and
// maxDist when there is none. dist must be at least the distance from p to
// the triangle's box (a point-to-triangle distance is), so that the pruning
// of farther boxes is exact. Nearer children are descended first. It only
// reads the tree, so concurrent calls are safe; ties keep the first
// triangle met, a function of p and the tree only.
func (b *BVH) Nearest(p dense.Vec3, maxDist float64, dist func(tri int32) float64) (int32, float64) {
	best, bestD := int32(-1), maxDist
	if len(b.nodes) == 0 {
		return best, bestD
	}
	// The stack holds nodes with their squared box distances, compared with
	// bestD^2 so that no square root is taken per box.
	type entry struct {
		id int32
		d2 float64
	}
	var stack [2 * maxQueryDepth]entry
	st := append(stack[:0], entry{0, boxDistance2(&b.nodes[0].Box, p)})
	for len(st) > 0 {
		e := st[len(st)-1]
		st = st[:len(st)-1]
		if e.d2 > bestD*bestD {
			continue
		}
		n := &b.nodes[e.id]
		if n.Left < 0 {
			if d := dist(n.Tri); d < bestD || (best < 0 && d <= bestD) {
				best, bestD = n.Tri, d
			}
			continue
		}
		l := entry{n.Left, boxDistance2(&b.nodes[n.Left].Box, p)}
		r := entry{n.Right, boxDistance2(&b.nodes[n.Right].Box, p)}
		if l.d2 < r.d2 {
			l, r = r, l
		}
		st = append(st, l, r) // the nearer child r is popped first
	}
	return best, bestD
}

// boxDistance2 is the squared Euclidean distance from p to the closed box
// (0 inside).
func boxDistance2(b *AABB, p dense.Vec3) float64 {
	s := 0.0
	for k := range 3 {
		e := math.Max(b.Lo[k]-p[k], p[k]-b.Hi[k])
		if e > 0 {
			s += e * e
		}
	}
	return s
}

// Overlapping appends to dst[:0] the triangles whose leaf boxes meet box q,
// in the order the tree lists them (a function of q and the tree only). It
// only reads the tree, so concurrent calls are safe.
func (b *BVH) Overlapping(q *AABB, dst []int32) []int32 {
	dst = dst[:0]
	if len(b.nodes) == 0 {
		return dst
	}
	var stack [2 * maxQueryDepth]int32
	st := append(stack[:0], 0)
	for len(st) > 0 {
		n := &b.nodes[st[len(st)-1]]
		st = st[:len(st)-1]
		if !n.Box.Overlaps(q) {
			continue
		}
		if n.Left < 0 {
			dst = append(dst, n.Tri)
			continue
		}
		st = append(st, n.Right, n.Left)
	}
	return dst
}

// Bounds returns the box of the whole tree (its root's), empty without
// triangles.
func (b *BVH) Bounds() AABB {
	if len(b.nodes) == 0 {
		return EmptyAABB()
	}
	return b.nodes[0].Box
}
