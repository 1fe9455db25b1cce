// Package conformal implements the conformal preprocessing of Weidner,
// Piddington, Levin and Sueda 2018 ("Eulerian-on-Lagrangian Cloth
// Simulation"), sec. 6.1: before the adaptive remesher runs, cloth nodes are
// inserted where the cloth touches sharp obstacle features (box edges, box
// corners, nails), the nodes of each edge feature are joined into a chain of
// conformal edges, and the faces around conformal nodes are cleaned up by
// collapses and splits until no edge there is too short and no triangle
// ill-conditioned (or no rule applies any more). It owns that mesh surgery
// only; the velocity transfer of sec. 6.2 stays with the caller, who puts the
// world velocity of the material into Mesh.V and the Eulerian velocity dX/dt
// into Mesh.Extra, so that the linear interpolation done here is cases 1-3 of
// sec. 6.2, and who solves eq. 13 (case 4) for the nodes that Result.HitNode
// names. It works on a flat remesh.Mesh and knows nothing of the ECS.
package conformal

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
)

// Features is the conformal state of the nodes of a mesh.
type Features struct {
	// Feature[i] is -1 when node i is not conformal, otherwise the id of the
	// sharp feature it lies on.
	Feature []int32
	// T[i] is the arc parameter of node i along its edge feature; the nodes
	// of an edge feature are chained in increasing T. Unused (and set to 0 in
	// a Result) for non-conformal nodes and point features.
	T []float64
	// Point[i] reports that node i's feature is a point (a box corner, a
	// nail) rather than an edge. A point node has conformal edges only as
	// the end of an edge feature's chain (see Ends). nil means every feature
	// is an edge feature.
	Point []bool
	// Ends gives, per edge feature id, the point features at its ends (a
	// box edge's two corners). A live node on such a corner ends the edge's
	// chain: the chain is joined to it by a conformal edge, so that the
	// conformal edges of a box's edges meet at its corner node (Weidner 2018
	// sec. 6.1, Fig. 2) rather than stopping short of it. nil: no ends.
	Ends map[int32]EdgeEnds
}

// EdgeEnds are the point features at the two ends of an edge feature and
// their parameters along it: Start at T0 (<= 0), End at T1 (>= the edge's
// length). -1: no point feature at that end.
type EdgeEnds struct {
	Start, End int32
	T0, T1     float64
}

// Edge reports whether an edge between nodes a and b is conformal: both lie
// on one edge feature, or one lies on an edge feature and the other on a
// point feature at that edge's end.
func (c Features) Edge(a, b int32) bool {
	pa, pb := c.Point != nil && c.Point[a], c.Point != nil && c.Point[b]
	_, ok := chainPair(c.Feature[a], c.Feature[b], pa, pb, c.Ends)
	return ok
}

// chainPair reports whether nodes on features fa and fb (point features
// when pa, pb) are joined by a conformal edge, and the edge feature whose
// chain that edge belongs to.
func chainPair(fa, fb int32, pa, pb bool, ends map[int32]EdgeEnds) (int32, bool) {
	switch {
	case fa < 0 || fb < 0 || (pa && pb):
		return -1, false
	case !pa && !pb:
		return fa, fa == fb
	case pa:
		fa, fb = fb, fa
	}
	e, ok := ends[fa]
	return fa, ok && (e.Start == fb || e.End == fb)
}

// Hit asks for a conformal node where the cloth touches a feature: either on
// the mesh edge between nodes A and B at parameter S in (0, 1) from A (Face
// = -1), or inside face Face at barycentric coordinates Bary (of the face's
// verts in the order of Mesh.F).
type Hit struct {
	A, B int32
	S    float64
	Face int32
	Bary [3]float64
	// X is the world position the node takes, on the feature.
	X       dense.Vec3
	Feature int32
	T       float64
	// Point marks a point feature (corner, nail) rather than an edge.
	Point bool
}

// Params controls Preprocess. Lengths are material-space lengths, angles
// radians.
type Params struct {
	// MinEdge is the collapse threshold (the paper uses 1% of the cloth
	// length); a free node closer than this to a hit is absorbed by the
	// hit's new node.
	MinEdge float64
	// MinAngle: a face with a material-space angle below it is
	// ill-conditioned.
	MinAngle float64
	// BorderAngle: no conformal edge made from a hit may meet the cloth
	// border at a smaller angle.
	BorderAngle float64
	// MaxIter caps the cleanup iterations; <= 0 means 64.
	MaxIter int
}

// DefaultParams returns the paper's collapse threshold, 1% of clothLength,
// MinAngle 10 degrees, BorderAngle 20 degrees and MaxIter 64.
func DefaultParams(clothLength float64) Params {
	return Params{MinEdge: 0.01 * clothLength, MinAngle: 10 * math.Pi / 180, BorderAngle: 20 * math.Pi / 180, MaxIter: 64}
}

// Outcome says what became of a hit.
type Outcome uint8

const (
	// HitInserted: a new node split the edge or face at the hit.
	HitInserted Outcome = iota
	// HitDuplicate: a node of the same feature (existing, or made by an
	// earlier hit) lies within MinEdge; nothing was done.
	HitDuplicate
	// HitBlocked: the nearest node within MinEdge is locked or conformal on
	// another feature (or a node of another feature lies exactly at the
	// hit's S on its edge), so the hit is not inserted.
	HitBlocked
	// HitBorderAngle: the hit's conformal edge would meet the cloth border at
	// an angle below Params.BorderAngle (sec. 6.1, last paragraph).
	HitBorderAngle
)

func (o Outcome) String() string {
	switch o {
	case HitInserted:
		return "inserted"
	case HitDuplicate:
		return "duplicate"
	case HitBlocked:
		return "blocked"
	case HitBorderAngle:
		return "border-angle"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Result describes what Preprocess did and maps the new mesh onto the old.
//
// The embedded remesh.Result follows the remesher's conventions: NodeOld,
// VertOld and FaceOld map new entities to input ones (-1 when created),
// Sources gives each new node as a linear combination of input nodes (V and
// Extra of a created node are exactly that combination; so is X, except for
// nodes made by a hit, which take the hit's X). Surviving nodes keep X, V,
// Extra and Locked bit for bit. M and the size statistics are not filled.
// Splits counts cleanup splits, Collapses cleanup collapses and Flips the
// flips that joined conformal nodes.
type Result struct {
	remesh.Result
	// Features per output node.
	Features
	// HitNode[k] is the output node carrying hit k (the inserted
	// node, or for a duplicate the node of the same feature it fell on), or
	// -1 when the hit was skipped or its node was later collapsed onto a
	// neighbour on the same feature. The caller applies eq. 13 to inserted
	// nodes.
	HitNode    []int32
	HitOutcome []Outcome
	// Inserted counts the hits inserted.
	Inserted int
	// Gaps are pairs of output nodes, consecutive along an edge feature, that
	// share no mesh edge and could not be joined by one flip.
	Gaps [][2]int32
	// Iterations is the number of cleanup iterations run; Converged reports
	// that the last one changed nothing.
	Iterations int
	Converged  bool
	// IllShaped counts the faces touching a conformal node that still have a
	// material angle below MinAngle (the paper: "it may not be possible to
	// remove all ill-conditioned triangles"; typically faces stretched behind
	// a sliding chain, which the remesher refines). Short counts the
	// edges touching a conformal node still shorter than MinEdge (a collapse
	// was not allowed: locked, border or cross-feature ends, or it would have
	// inverted a face).
	IllShaped, Short int
}

// Preprocess runs the conformal preprocessing of Weidner 2018 sec. 6.1 on m
// (not modified) with the per-node conformal state c and the new contacts
// hits, and returns the new mesh. m must be a valid single-panel mesh (one
// vert per node).
//
//  1. Insertion. Hits are taken in order of (Feature, T, index). A hit
//     within MinEdge (material distance) of a node of its own feature is a
//     duplicate (a hit on the border of an interior node only within
//     MinEdge/2: the cleanup collapses a farther one onto it), and so is any hit of a point feature that already has a
//     node (a point touches the cloth at one node); among hits of one
//     feature, hits on the border are kept before interior ones. Along each edge feature, a hit whose conformal
//     edge to its neighbour in T would meet the border at an angle below
//     BorderAngle is dropped (the border hit itself when it is the border
//     end). A kept hit within MinEdge of a locked node or a node of another
//     feature is blocked. Otherwise the edge is split at S, or the face at
//     Bary (at the projection onto an edge, splitting that edge, when the
//     point is within MinEdge/4 of it); the new node interpolates U, V and
//     Extra linearly and takes X, Feature, T and Point from the hit; a free
//     node within MinEdge of it is collapsed onto it at once when the
//     cleanup's collapse rules allow (rather than being moved onto the
//     feature in world space alone, which would strain its faces).
//  2. Connection. The nodes of each edge feature, sorted by T, are joined:
//     consecutive nodes that share no edge but are the opposite corners of
//     two adjacent faces get that (non-conformal) edge flipped when both new
//     faces are counter-clockwise in material space; others are reported in
//     Result.Gaps. A chain whose edge feature ends at a point feature with a
//     node (a box corner, Features.Ends) is joined to that node the same
//     way, so the conformal edges of a box's edges meet at its corner; a
//     split of such an edge makes a node on the edge feature.
//  3. Cleanup, repeated over the faces incident to a conformal node until an
//     iteration changes nothing (or MaxIter): (a) non-conformal edges
//     shorter than MinEdge are collapsed, toward the conformal end when
//     there is one (the conformal node keeps X and U), never between nodes of
//     two different features; (b) conformal edges shorter than MinEdge are
//     collapsed in either direction, keeping a border or corner end; (c) a
//     face with a material angle below MinAngle is treated as the paper's
//     split-then-collapse intends, made local so that it cannot be undone by
//     the next face's cleanup: a needle whose shortest edge is below
//     2*MinEdge has that edge collapsed (by the rules of (a) and (b)); a cap
//     whose opposite vert lies within 2*MinEdge of its longest edge has that
//     edge split at the foot of the vert and the new node collapsed with the
//     vert at once (the new node is conformal on the edge's feature when the
//     edge is conformal; with neither conformal the new node goes, which
//     flips the edge), if that leaves better faces; otherwise the paper's
//     edge (one conformal vert: the opposite edge; two: the edge between
//     them; three: the non-conformal edge) is split at its midpoint when it
//     is the face's longest and at least 4*MinEdge long. Faces stretched
//     behind a sliding chain (a small angle opposite a conformal edge) are
//     left to the remesher: splitting the conformal edge would halve their
//     small angle. See fixIll.
//
// Collapses never remove a locked node, a cloth corner, a point node (box
// corner or nail), or a conformal node on the border, nor a conformal node
// onto anything but a neighbour along its chain (which may be the corner
// node at its edge's end). A non-conformal border node is removed only by a collapse along a
// straight border edge onto a conformal node: the brief said border nodes are
// never removed, but a conformal border node sliding along the border must be
// able to pass them. Every collapse keeps each face counter-clockwise with
// positive area and passes the link condition, so the mesh stays manifold.
// The work per cleanup iteration is proportional to the faces near conformal
// nodes; loading and writing the mesh is linear in its size, once a call.
func Preprocess(m *remesh.Mesh, c Features, hits []Hit, p Params) (*remesh.Mesh, Result, error) {
	return preprocess(m, c, hits, p, true)
}

// PreprocessValid is Preprocess for a mesh m whose connectivity is known to
// be valid: m is the output of Preprocess or of remesh.Remesher (which keep
// a valid mesh valid), and the caller has changed at most its per-node
// state (X, V, Extra) and Locked. It checks m's shape
// (remesh.Mesh.CheckShape) but not what only a change of connectivity could
// break, which Preprocess validates (remesh.Mesh.Validate).
func PreprocessValid(m *remesh.Mesh, c Features, hits []Hit, p Params) (*remesh.Mesh, Result, error) {
	return preprocess(m, c, hits, p, false)
}

// preprocess is Preprocess, validating m in full when validate is set and
// otherwise as PreprocessValid does.
func preprocess(m *remesh.Mesh, c Features, hits []Hit, p Params, validate bool) (*remesh.Mesh, Result, error) {
	if err := checkParams(p); err != nil {
		return nil, Result{}, err
	}
	if p.MaxIter <= 0 {
		p.MaxIter = 64
	}
	check := m.Validate
	if !validate {
		check = m.CheckShape
	}
	if err := check(); err != nil {
		return nil, Result{}, fmt.Errorf("conformal: %w", err)
	}
	if len(m.U) != len(m.X) {
		return nil, Result{}, fmt.Errorf("conformal: mesh has %d verts on %d nodes; want one vert per node (single panel, no seams)", len(m.U), len(m.X))
	}
	if err := checkFeatures(c, len(m.X)); err != nil {
		return nil, Result{}, err
	}
	w := load(m, c, p)
	hs, err := w.checkHits(hits)
	if err != nil {
		return nil, Result{}, err
	}
	out := hitOut{node: make([]int32, len(hits)), outcome: make([]Outcome, len(hits))}
	if err := w.insertHits(hits, hs, &out); err != nil {
		return nil, Result{}, err
	}
	w.tracking = false
	gaps := w.connect()
	iters, conv := w.clean()
	mesh, res := w.output(m)
	res.HitOutcome = out.outcome
	res.HitNode = make([]int32, len(hits))
	for k := range hits {
		res.HitNode[k] = -1
		if v := out.node[k]; v >= 0 && w.alive[v] {
			res.HitNode[k] = w.nodeNew[v]
		}
		switch out.outcome[k] {
		case HitInserted:
			res.Inserted++
		}
	}
	for _, g := range gaps {
		if w.alive[g[0]] && w.alive[g[1]] && !w.live.Adjacent(g[0], g[1]) {
			res.Gaps = append(res.Gaps, [2]int32{w.nodeNew[g[0]], w.nodeNew[g[1]]})
		}
	}
	res.Iterations, res.Converged = iters, conv
	res.IllShaped, res.Short = w.quality()
	return mesh, res, nil
}

func checkParams(p Params) error {
	if !(p.MinEdge > 0) || math.IsInf(p.MinEdge, 0) {
		return fmt.Errorf("conformal: Params.MinEdge = %v, want finite > 0", p.MinEdge)
	}
	if !(p.MinAngle >= 0 && p.MinAngle < math.Pi/3) {
		return fmt.Errorf("conformal: Params.MinAngle = %v, want in [0, pi/3) radians", p.MinAngle)
	}
	if !(p.BorderAngle >= 0 && p.BorderAngle <= math.Pi/2) {
		return fmt.Errorf("conformal: Params.BorderAngle = %v, want in [0, pi/2] radians", p.BorderAngle)
	}
	return nil
}

func checkFeatures(c Features, nn int) error {
	if len(c.Feature) != nn {
		return fmt.Errorf("conformal: len(Features.Feature) = %d, want one per node (%d)", len(c.Feature), nn)
	}
	if len(c.T) != nn {
		return fmt.Errorf("conformal: len(Features.T) = %d, want one per node (%d)", len(c.T), nn)
	}
	if c.Point != nil && len(c.Point) != nn {
		return fmt.Errorf("conformal: len(Features.Point) = %d, want 0 or one per node (%d)", len(c.Point), nn)
	}
	kind := map[int32]bool{}
	for n, f := range c.Feature {
		if f < -1 {
			return fmt.Errorf("conformal: node %d: Feature = %d, want -1 or a feature id >= 0", n, f)
		}
		if f < 0 {
			continue
		}
		if !finite(c.T[n]) {
			return fmt.Errorf("conformal: node %d: T = %v is not finite", n, c.T[n])
		}
		pt := c.Point != nil && c.Point[n]
		if k, ok := kind[f]; ok && k != pt {
			return fmt.Errorf("conformal: feature %d is a point feature at some nodes and an edge feature at others (node %d)", f, n)
		}
		kind[f] = pt
	}
	for f, e := range c.Ends {
		if f < 0 || e.Start < -1 || e.End < -1 || !finite(e.T0) || !finite(e.T1) || !(e.T0 < e.T1) {
			return fmt.Errorf("conformal: Ends[%d] = %+v: want a feature id >= 0, end ids >= -1 and finite T0 < T1", f, e)
		}
		for _, p := range [2]int32{e.Start, e.End} {
			if k, ok := kind[p]; ok && !k {
				return fmt.Errorf("conformal: Ends[%d]: feature %d is an edge feature at some nodes, not a point", f, p)
			}
		}
	}
	return nil
}

// hitSite is what checkHits learns about a hit from the input mesh.
type hitSite struct {
	a, b   int32      // edge hit: input verts, a < b
	s      float64    // parameter from a
	face   int32      // input face holding the edge (edge hit) or the hit's face
	u      dense.Vec2 // material point
	border bool       // edge hit on a border edge
	tan    dense.Vec2 // its border direction
}

// checkHits validates the hits against the input mesh (before any change)
// and locates them.
func (w *work) checkHits(hits []Hit) ([]hitSite, error) {
	hs := make([]hitSite, len(hits))
	kind := map[int32]bool{}
	for _, v := range w.conf {
		kind[w.feat[v]] = w.point[v]
	}
	nn := int32(len(w.vertOf))
	for k, h := range hits {
		if h.Feature < 0 {
			return nil, fmt.Errorf("conformal: hit %d: Feature = %d, want >= 0", k, h.Feature)
		}
		if !finite(h.T) {
			return nil, fmt.Errorf("conformal: hit %d: T = %v is not finite", k, h.T)
		}
		if !finite(h.X[0]) || !finite(h.X[1]) || !finite(h.X[2]) {
			return nil, fmt.Errorf("conformal: hit %d: X = %v is not finite", k, h.X)
		}
		if pt, ok := kind[h.Feature]; ok && pt != h.Point {
			return nil, fmt.Errorf("conformal: hit %d: feature %d is both a point and an edge feature", k, h.Feature)
		}
		kind[h.Feature] = h.Point
		s := &hs[k]
		if h.Face < 0 {
			if h.Face != -1 {
				return nil, fmt.Errorf("conformal: hit %d: Face = %d, want -1 (edge hit) or a face index", k, h.Face)
			}
			if h.A < 0 || h.A >= nn || h.B < 0 || h.B >= nn || h.A == h.B {
				return nil, fmt.Errorf("conformal: hit %d: edge nodes (%d, %d) invalid for %d nodes", k, h.A, h.B, nn)
			}
			if !(h.S > 0 && h.S < 1) {
				return nil, fmt.Errorf("conformal: hit %d: S = %v, want in (0, 1)", k, h.S)
			}
			a, b, t := w.vertOf[h.A], w.vertOf[h.B], h.S
			if a > b {
				a, b, t = b, a, 1-h.S
			}
			fab, fba := w.live.FaceWith(a, b), w.live.FaceWith(b, a)
			if fab < 0 && fba < 0 {
				return nil, fmt.Errorf("conformal: hit %d: nodes %d and %d share no mesh edge", k, h.A, h.B)
			}
			s.a, s.b, s.s = a, b, t
			s.face = fab
			if fab < 0 {
				s.face = fba
			}
			s.u = lerp2(w.u[a], w.u[b], t)
			s.border = fab < 0 || fba < 0
			s.tan = w.u[b].Sub(w.u[a])
			continue
		}
		if int(h.Face) >= w.nF0 {
			return nil, fmt.Errorf("conformal: hit %d: Face = %d out of range [0,%d)", k, h.Face, w.nF0)
		}
		var sum float64
		for i, x := range h.Bary {
			if !finite(x) || x < -1e-9 || x > 1+1e-9 {
				return nil, fmt.Errorf("conformal: hit %d: Bary[%d] = %v, want in [0, 1]", k, i, x)
			}
			sum += x
		}
		if math.Abs(sum-1) > 1e-9 {
			return nil, fmt.Errorf("conformal: hit %d: Bary %v sums to %v, want 1", k, h.Bary, sum)
		}
		t := w.live.F[h.Face]
		s.a, s.b = -1, -1
		s.face = h.Face
		for i := 0; i < 3; i++ {
			s.u[0] += h.Bary[i] * w.u[t[i]][0]
			s.u[1] += h.Bary[i] * w.u[t[i]][1]
		}
	}
	return hs, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func lerp2(a, b dense.Vec2, s float64) dense.Vec2 {
	return dense.Vec2{a[0] + s*(b[0]-a[0]), a[1] + s*(b[1]-a[1])}
}

func dist2(a, b dense.Vec2) float64 {
	d0, d1 := a[0]-b[0], a[1]-b[1]
	return math.Sqrt(d0*d0 + d1*d1)
}

func cross2(a, b dense.Vec2) float64 { return a[0]*b[1] - a[1]*b[0] }

func dot2(a, b dense.Vec2) float64 { return a[0]*b[0] + a[1]*b[1] }

// area2 is twice the signed area of (a, b, c).
func area2(a, b, c dense.Vec2) float64 { return cross2(b.Sub(a), c.Sub(a)) }

// wellFormed reports whether (a, b, c) is counter-clockwise and not
// degenerate to rounding.
func wellFormed(a, b, c dense.Vec2) bool {
	e0, e1, e2 := b.Sub(a), c.Sub(b), a.Sub(c)
	l := dot2(e0, e0) + dot2(e1, e1) + dot2(e2, e2)
	return area2(a, b, c) > 1e-12*l
}

// angleAt is the angle at p of the triangle (p, q, r).
func angleAt(p, q, r dense.Vec2) float64 {
	e1, e2 := q.Sub(p), r.Sub(p)
	return math.Atan2(math.Abs(cross2(e1, e2)), dot2(e1, e2))
}

func minAngle(a, b, c dense.Vec2) float64 {
	return min(angleAt(a, b, c), angleAt(b, c, a), angleAt(c, a, b))
}

// sortSources sorts by node and merges equal nodes.
func sortSources(s []remesh.Source) []remesh.Source {
	slices.SortStableFunc(s, func(x, y remesh.Source) int { return int(x.Node) - int(y.Node) })
	out := s[:0]
	for _, t := range s {
		if n := len(out); n > 0 && out[n-1].Node == t.Node {
			out[n-1].W += t.W
			continue
		}
		out = append(out, t)
	}
	return out
}
