package selfcontact

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Runner runs body over [0, n) in disjoint chunks, possibly concurrently.
// *ecs.Pool and sparse.Serial satisfy it; nil runs serially.
type Runner = geom.Runner

// Params are the contact settings of a step.
type Params struct {
	// Thickness is the distance (m) below which proximities are repelled.
	Thickness float64
	// KinematicThickness is that distance for the pairs with kinematic
	// geometry (an obstacle's contact layer; 0: Thickness).
	KinematicThickness float64
	// Friction is the Coulomb coefficient mu >= 0.
	Friction float64
	// CollisionIterations is the number of CCD impulse sweeps before the
	// impact zones (0 = 4; negative: none, straight to the zones).
	CollisionIterations int
	// Fold, when set, holds a label per cloth vertex (-1: none). A
	// proximity pair whose two sides (the vertex and the face, or the two
	// edges) each hold a vertex of the same label is not repelled: the
	// caller's constraints hold the vertices of a label where they are, and
	// the pair's nearness is the cloth's own sharp bend there (EOL vertices
	// on one feature, Weidner 2018), not a contact between layers. CCD
	// still checks such pairs.
	Fold []int32
	// NoRepulsions skips the repulsions (step 1): for a step whose solve
	// held the proximities as constraints already (Proximities).
	NoRepulsions bool
	// KinematicOnly leaves the cloth's pairs with itself out: only pairs
	// with kinematic geometry are repelled and kept from crossing (cloth
	// self-contact off, obstacles on).
	KinematicOnly bool
}

// Tolerance is the distance within which continuous collision detection
// reports an impact: a small fraction of the thickness.
func (p Params) Tolerance() float64 { return 1e-3 * p.Thickness }

// Stats counts what a Solve did.
type Stats struct {
	Proximities int // vertex-face and edge-edge pairs within the thickness
	Repelled    int // those that needed an impulse
	Impacts     int // impacts found by CCD, over all iterations
	Iterations  int // CCD passes
	Zones       int // impact zones at the end (0 if none were needed)
	ZoneVerts   int // vertices in impact zones
	Unresolved  int // zones whose fixed vertices disagree in velocity
}

// prim kinds
const (
	kindVF = 0
	kindEE = 1
)

// prim is a vertex-face (I vertex, J face) or edge-edge (I, J edges) pair.
type prim struct {
	Kind uint8
	I, J int32
}

// slot is a hit of a pass: the pair's four vertices and its impact (the
// proximity pass stores the distance in Imp.T).
type slot struct {
	V    [4]int32
	Imp  geom.Impact
	Kind uint8 // the prim's
}

// blockTris is the number of triangles per block of a pass: blocks are
// fixed (not per worker), each fills its own hit list, and the lists are
// read in block order, so the hits come in the same order for any Runner.
const blockTris = 64

// block is one block's scratch and hits.
type block struct {
	tris, stack []int32
	kin         []int32 // the kinematic triangles met, numbered as in faces
	tested      []int   // per kinematic body, the boxes its queries tested in the pass
	prims       []prim
	hits        []slot
}

// Kinematic is geometry with prescribed motion that the cloth must not
// cross: obstacles. Its vertices have infinite mass and move linearly at V
// over the step; its triangles are tested against the cloth's (vertex-face
// both ways and edge-edge), never against each other. Any triangulated
// obstacle fits: a box's 12 triangles, a tessellated sphere, a mesh.
type Kinematic struct {
	X, V  []float64 // positions at the start of the step and velocities, 3 per vertex
	Faces []int32   // triangles, 3 indices into X per triangle
	// Apart, when not nil (one per vertex), marks the vertices of bodies
	// that the caller has shown to stay farther than the kinematic
	// thickness plus the collision tolerance from every cloth point over
	// the whole step: such a body, all of its vertices marked, can make no
	// proximity and no impact, so it is left out of the Solve and its
	// positions and velocities do not matter (a certificate, not a
	// change of result).
	Apart []bool
}

// Solver holds the topology and the buffers reused across steps.
type Solver struct {
	// nv vertices in all: the cloth's nc, then the kinematic ones; faces
	// likewise, the cloth's first (ncf triangles).
	nv, nc, ncf int
	faces       []int32
	edges       [][2]int32
	faceEdge    [][3]int32
	// The lowest-numbered face holding each vertex and each edge: a
	// vertex-face or edge-edge pair is taken only from the triangle pair of
	// its owners, so each is tested once without sorting out duplicates.
	vertOwner []int32
	edgeOwner []int32

	// bvh holds the cloth's triangles; each kinematic body has its own
	// tree (kinBody). A pass queries each cloth triangle against all.
	bvh    geom.BVH
	kin    []kinBody
	kp     []float64 // every vertex's position at SetTopology: the kinematic bodies' reference frame
	blocks []block

	// state read by the parallel bodies during a Solve.
	x0      []float64
	fold    []int32 // Params.Fold of the Solve
	kinOnly bool    // Params.KinematicOnly
	tol     float64
	thick   float64
	kthick  float64
	test    func(pr prim, sl *slot) bool // the pass's narrow phase
	proxFn  func(pr prim, sl *slot) bool
	ccdFn   func(pr prim, sl *slot) bool
	blockFn func(lo, hi int)

	// The cloth's and the kinematic vertices' positions, velocities and
	// inverse masses, one array each (the cloth's are copied in and the
	// velocities back).
	xa, va, ima []float64

	x1 []float64
	// active marks the vertices a CCD pass must look at: all in the first
	// pass; later, those whose velocity changed in the last pass or that
	// were in one of its impacts. A pair of inactive vertices has the same
	// motion as in the last pass, which found no impact for it, so the pass
	// skips it with the same (empty) result.
	active []bool
	vPrev  []float64
	parent []int32
	zoneV  []float64 // per root: momentum sum (3), mass, fixed velocity sum (3), fixed count
	fits   []affineFit
	fitOf  []int32 // per root: index into fits
	body   []int32 // per vertex: its kinematic body's lowest vertex (itself for cloth)
}

// kinBody is a kinematic body (a connected set of kinematic triangles) and
// the BVHs over its triangles. Its motion is fixed over a Solve, so its
// tree bvh is fitted once per pass kind (refit). When the body moves
// rigidly - its positions an affine map of its reference ones kp, as a
// rigid pose and its linearised step are - the queries may instead carry
// the boxes of ref, fitted once at kp, along the motion (geom.Sweep): no
// refit of its (often many, for a finely meshed round obstacle) triangles.
type kinBody struct {
	bvh, ref geom.BVH
	tris     []int32 // its triangles' indices in faces, increasing
	verts    []int32 // its vertices
	frame    geom.AffineFrame
	fitA     dense.Mat3 // the affine fit of the last proximity pass's x0 (refit)
	fitB     dense.Vec3
	fitDev   float64
	trySweep bool // the Solve tries the sweep (refit)
	sweep    geom.Sweep
	swept    bool    // the queries carry the tree's kp boxes along sweep
	margin   float64 // the pass's margin, for swept queries
	apart    bool    // the Solve leaves it out (Kinematic.Apart)
}

// sweepHysteresis: a body whose queries refit switches to the sweep when
// the last pass tested fewer than 1/sweepHysteresis of its boxes (the
// sweep's transformed boxes are looser, and its queries test more), one
// that sweeps to the refit when they tested as many as it has.
const sweepHysteresis = 4

// SetTopology (re)builds the edge list and the BVH for nv cloth vertices
// and the triangles faces (3 per triangle) at positions x0, and the
// kinematic geometry k (k.V unused). Call it when the topology changes.
func (s *Solver) SetTopology(r Runner, nv int, faces []int32, x0 []float64, k Kinematic) error {
	if len(faces)%3 != 0 || len(k.Faces)%3 != 0 {
		return fmt.Errorf("selfcontact: %d cloth and %d kinematic face indices, not multiples of 3", len(faces), len(k.Faces))
	}
	for _, v := range faces {
		if v < 0 || int(v) >= nv {
			return fmt.Errorf("selfcontact: face vertex %d out of range [0,%d)", v, nv)
		}
	}
	nk := len(k.X) / 3
	for _, v := range k.Faces {
		if v < 0 || int(v) >= nk {
			return fmt.Errorf("selfcontact: kinematic face vertex %d out of range [0,%d)", v, nk)
		}
	}
	if len(x0) != 3*nv || len(k.X) != 3*nk {
		return fmt.Errorf("selfcontact: %d position floats for %d vertices, %d kinematic", len(x0), nv, len(k.X))
	}
	s.nc, s.ncf = nv, len(faces)/3
	nv += nk
	s.xa = append(append(s.xa[:0], x0...), k.X...)
	x0 = s.xa
	faces = append(s.faces[:0], faces...)
	for _, v := range k.Faces {
		faces = append(faces, v+int32(s.nc))
	}
	s.faces = faces
	s.nv = nv
	nt := len(faces) / 3
	type he struct {
		a, b int32
		f    int32
		k    int8
	}
	hes := make([]he, 0, 3*nt)
	for f := range nt {
		for k := range 3 {
			a, b := faces[3*f+k], faces[3*f+(k+1)%3]
			hes = append(hes, he{min(a, b), max(a, b), int32(f), int8(k)})
		}
	}
	slices.SortFunc(hes, func(p, q he) int {
		if c := cmp.Compare(p.a, q.a); c != 0 {
			return c
		}
		return cmp.Compare(p.b, q.b)
	})
	s.edges = s.edges[:0]
	s.faceEdge = slices.Grow(s.faceEdge[:0], nt)[:nt]
	for i, h := range hes {
		if i == 0 || h.a != hes[i-1].a || h.b != hes[i-1].b {
			s.edges = append(s.edges, [2]int32{h.a, h.b})
		}
		s.faceEdge[h.f][h.k] = int32(len(s.edges) - 1)
	}
	s.vertOwner = slices.Grow(s.vertOwner[:0], nv)[:nv]
	for i := range s.vertOwner {
		s.vertOwner[i] = -1
	}
	for i := len(faces) - 1; i >= 0; i-- {
		s.vertOwner[faces[i]] = int32(i / 3)
	}
	s.edgeOwner = slices.Grow(s.edgeOwner[:0], len(s.edges))[:len(s.edges)]
	for i := range s.edgeOwner {
		s.edgeOwner[i] = -1
	}
	for f := nt - 1; f >= 0; f-- {
		for _, e := range s.faceEdge[f] {
			s.edgeOwner[e] = int32(f)
		}
	}
	s.bvh.Build(r, x0, faces[:3*s.ncf], 0)
	nb := (s.ncf + blockTris - 1) / blockTris // blocks of cloth triangles
	s.blocks = slices.Grow(s.blocks[:0], nb)[:nb]
	s.proxFn = s.proxTest
	s.ccdFn = s.ccdTest
	s.blockFn = s.blockRange
	s.parent = slices.Grow(s.parent[:0], nv)[:nv]
	s.zoneV = slices.Grow(s.zoneV[:0], 8*nv)[:8*nv]
	s.x1 = slices.Grow(s.x1[:0], 3*nv)[:3*nv]
	s.va = slices.Grow(s.va[:0], 3*nv)[:3*nv]
	s.ima = slices.Grow(s.ima[:0], nv)[:nv]
	// The kinematic bodies: connected components of the kinematic triangles,
	// each named by its lowest vertex.
	s.body = slices.Grow(s.body[:0], nv)[:nv]
	for i := range s.body {
		s.body[i] = int32(i)
	}
	root := func(i int32) int32 {
		for s.body[i] != i {
			s.body[i] = s.body[s.body[i]]
			i = s.body[i]
		}
		return i
	}
	for f := s.ncf; f < nt; f++ {
		for k := 1; k < 3; k++ {
			a, b := root(faces[3*f]), root(faces[3*f+k])
			s.body[max(a, b)] = min(a, b)
		}
	}
	for i := range int32(nv) {
		s.body[i] = root(i)
	}
	s.buildKinematic(r)
	return nil
}

// buildKinematic groups the kinematic triangles into bodies (by s.body, in
// the order of their first triangles) and builds each body's tree and
// affine frame at the reference positions kp (the current xa).
func (s *Solver) buildKinematic(r Runner) {
	s.kp = append(s.kp[:0], s.xa...)
	s.kin = s.kin[:0]
	of := make([]int32, s.nv) // body index of each body's lowest vertex
	for i := range of {
		of[i] = -1
	}
	var faces [][]int32
	for t := s.ncf; t < len(s.faces)/3; t++ {
		f := s.faces[3*t : 3*t+3]
		b := s.body[f[0]]
		if of[b] < 0 {
			of[b] = int32(len(s.kin))
			s.kin = append(s.kin, kinBody{})
			faces = append(faces, nil)
		}
		i := of[b]
		s.kin[i].tris = append(s.kin[i].tris, int32(t))
		faces[i] = append(faces[i], f...)
	}
	for v := s.nc; v < s.nv; v++ {
		if i := of[s.body[v]]; i >= 0 {
			s.kin[i].verts = append(s.kin[i].verts, int32(v))
		}
	}
	for i := range s.kin {
		kb := &s.kin[i]
		kb.bvh.Build(r, s.kp, faces[i], 0)
		kb.frame = geom.NewAffineFrame(s.kp, kb.verts)
		if kb.frame.Ok() {
			kb.ref.Build(r, s.kp, faces[i], 0)
		}
	}
}

// Solve corrects the cloth velocities v (3 per vertex, in place) so that
// x0 + h v is reached without crossings from x0, of the cloth with itself
// and with the kinematic geometry k moving by h k.V, and proximities closer
// than p.Thickness at x0 are repelled. invMass is each cloth vertex's
// inverse mass (0: fixed, never moved by an impulse). The topology is the
// last SetTopology's (k with as many vertices and the same triangles); the
// start must be intersection-free for the guarantee to hold.
func (s *Solver) Solve(r Runner, x0, v, invMass []float64, h float64, p Params, k Kinematic) (Stats, error) {
	var st Stats
	if len(x0) != 3*s.nc || len(v) != 3*s.nc || len(invMass) != s.nc {
		return st, fmt.Errorf("selfcontact: %d positions, %d velocities, %d inverse masses for %d vertices", len(x0), len(v), len(invMass), s.nc)
	}
	if nk := s.nv - s.nc; len(k.X) != 3*nk || len(k.V) != 3*nk || (k.Apart != nil && len(k.Apart) != nk) {
		return st, fmt.Errorf("selfcontact: %d kinematic positions, %d velocities, %d apart marks for %d vertices", len(k.X), len(k.V), len(k.Apart), nk)
	}
	if p.KinematicThickness == 0 {
		p.KinematicThickness = p.Thickness
	}
	if !(p.Thickness > 0) || !(p.KinematicThickness > 0) || !(p.Friction >= 0) || !(h > 0) {
		return st, errors.New("selfcontact: thicknesses and h must be > 0 and friction >= 0")
	}
	if p.Fold != nil && len(p.Fold) != s.nc {
		return st, fmt.Errorf("selfcontact: %d fold labels for %d vertices", len(p.Fold), s.nc)
	}
	if len(s.faces) == 0 {
		return st, nil
	}
	allApart := true
	for i := range s.kin {
		kb := &s.kin[i]
		kb.apart = k.Apart != nil
		for _, u := range kb.verts {
			if !kb.apart {
				break
			}
			kb.apart = k.Apart[int(u)-s.nc]
		}
		allApart = allApart && kb.apart
	}
	if p.KinematicOnly && allApart {
		return st, nil // no pair can meet: v stays as it is
	}
	iters := p.CollisionIterations
	if iters == 0 {
		iters = 4
	}
	iters = max(iters, 0)
	cv := v
	x0 = append(append(s.xa[:0], x0...), k.X...)
	v = append(append(s.va[:0], v...), k.V...)
	copy(s.ima, invMass)
	clear(s.ima[s.nc:]) // kinematic: infinite mass
	invMass = s.ima
	defer copy(cv, v)
	s.x0, s.thick, s.kthick, s.fold, s.kinOnly = x0, p.Thickness, p.KinematicThickness, p.Fold, p.KinematicOnly
	s.tol = p.Tolerance()

	// 1. Repulsions at x0 (Bridson 2002 sec. 7.2).
	s.refit(r, x0, x0, 0.5*max(p.Thickness, p.KinematicThickness), true)
	s.run(r, s.proxFn)
	for b := range s.blocks {
		if p.NoRepulsions {
			break
		}
		for i := range s.blocks[b].hits {
			sl := &s.blocks[b].hits[i]
			st.Proximities++
			// The proximity pass stores thickness - distance in T.
			if applyImpulse(v, invMass, sl, 0.1*sl.Imp.T/h, p.Friction) {
				st.Repelled++
			}
		}
	}

	// 2. Collisions by CCD, then 3. impact zones.
	for i := range s.parent {
		s.parent[i] = -1 // not in a zone
	}
	zones := iters == 0
	s.active = slices.Grow(s.active[:0], s.nv)[:s.nv]
	s.vPrev = slices.Grow(s.vPrev[:0], 3*s.nv)[:3*s.nv]
	for i := range s.active {
		s.active[i] = true
	}
	for pass := 0; ; pass++ {
		for i := range s.x1 {
			s.x1[i] = x0[i] + h*v[i]
		}
		copy(s.vPrev, v)
		s.refit(r, x0, s.x1, 0.5*s.tol, pass == 0)
		s.run(r, s.ccdFn)
		st.Iterations++
		n := 0
		for b := range s.blocks {
			for i := range s.blocks[b].hits {
				sl := &s.blocks[b].hits[i]
				if zones && s.sameZone(sl) {
					continue
				}
				n++
				if !zones {
					_ = applyImpulse(v, invMass, sl, s.tol/h, p.Friction)
				} else {
					for _, a := range sl.V {
						for _, b := range sl.V {
							s.union(a, b)
						}
					}
				}
			}
		}
		st.Impacts += n
		if n == 0 {
			break
		}
		for i := range s.active {
			s.active[i] = false
		}
		for b := range s.blocks {
			for i := range s.blocks[b].hits {
				for _, a := range s.blocks[b].hits[i].V {
					s.active[a] = true
				}
			}
		}
		if pass+1 >= iters {
			zones = true
		}
		if zones && pass+1 > iters {
			s.mergeBodies()
			st.Unresolved = s.rigidify(v, invMass)
		}
		for i := range s.active {
			if v[3*i] != s.vPrev[3*i] || v[3*i+1] != s.vPrev[3*i+1] || v[3*i+2] != s.vPrev[3*i+2] {
				s.active[i] = true
			}
		}
		if pass > iters+s.nv+1 {
			return st, fmt.Errorf("selfcontact: impact zones did not converge in %d passes", pass)
		}
	}
	if zones {
		for i := range s.parent {
			if s.parent[i] >= 0 {
				st.ZoneVerts++
				if s.parent[i] == int32(i) {
					st.Zones++
				}
			}
		}
	}
	s.x0, s.fold = nil, nil
	return st, nil
}

// refit fits the trees to the motion x0 -> x1 with leaf boxes padded by
// margin: the cloth's, and the kinematic ones when kin is set (the first
// fit of a pass kind; the kinematic vertices keep their motion over a
// Solve). A fit of a motion (x1 not x0) follows one at rest at the same x0
// (the proximity pass of the Solve) and reuses its affine fit of x0.
func (s *Solver) refit(r Runner, x0, x1 []float64, margin float64, kin bool) {
	s.bvh.Margin = margin
	s.bvh.RefitSwept(r, x0, x1)
	if !kin {
		return
	}
	for i := range s.kin {
		kb := &s.kin[i]
		if kb.apart {
			continue
		}
		// The sweep transforms every box a query tests; a refit fits
		// every box once (of a rigid body, only the boxes near the
		// cloth: RefitSweptNear). At the first fit of a Solve (at rest:
		// x1 is x0), the last pass's queries choose for the Solve: the
		// sweep while they tested fewer boxes than the tree has (fewer
		// than a sweepHysteresis-th of them, when they refit). Either
		// holds every candidate, so the choice changes no result.
		if &x1[0] == &x0[0] {
			tested := 0
			for b := range s.blocks {
				if t := s.blocks[b].tested; i < len(t) {
					tested += t[i]
				}
			}
			limit := kb.bvh.Nodes()
			if !kb.swept {
				limit /= sweepHysteresis
			}
			kb.trySweep = tested < limit
			if kb.frame.Ok() {
				kb.fitA, kb.fitB, kb.fitDev = kb.frame.Fit(s.kp, x0, kb.verts)
			}
		}
		kb.swept = false
		kb.bvh.Margin = margin
		if kb.frame.Ok() {
			A0, B0, d0 := kb.fitA, kb.fitB, kb.fitDev
			A1, B1, d1 := A0, B0, d0
			if &x1[0] != &x0[0] {
				A1, B1, d1 = kb.frame.Fit(s.kp, x1, kb.verts)
			}
			// A deviation (NaN included) beyond the margin is not a
			// rigid motion: refitting the whole tree is then the
			// broad phase.
			if dev := max(d0, d1); dev <= margin {
				kb.sweep = geom.Sweep{A0: A0, A1: A1, B0: B0, B1: B1}
				kb.sweep.Prepare()
				// Twice the fitted deviation, and the rounding of the
				// box transform (relative 1e-12 of the coordinates).
				root := kb.ref.Bounds()
				w := kb.sweep.Box(&root, 0)
				scale := max(math.Abs(w.Lo[0]), math.Abs(w.Lo[1]), math.Abs(w.Lo[2]), math.Abs(w.Hi[0]), math.Abs(w.Hi[1]), math.Abs(w.Hi[2]))
				kb.sweep.Pad = 2*dev + 1e-12*(1+scale)
				if kb.trySweep {
					kb.swept, kb.margin = true, margin
				} else {
					// The cloth's queries all lie in its root box.
					region := s.bvh.Bounds()
					kb.bvh.RefitSweptNear(r, x0, x1, &kb.ref, &kb.sweep, &region)
				}
				continue
			}
		}
		kb.bvh.RefitSwept(r, x0, x1)
	}
}

// run runs a pass: for every triangle pair the BVH reports, the narrow
// phase test on each of its prims, in parallel over blocks of triangles;
// each block keeps its hits in order.
func (s *Solver) run(r Runner, test func(pr prim, sl *slot) bool) {
	s.test = test
	if r == nil {
		s.blockFn(0, len(s.blocks))
	} else {
		r.For(len(s.blocks), s.blockFn)
	}
	s.test = nil
}

func (s *Solver) blockRange(lo, hi int) {
	nt := int32(s.ncf)
	for b := lo; b < hi; b++ {
		blk := &s.blocks[b]
		blk.hits = blk.hits[:0]
		blk.tested = slices.Grow(blk.tested[:0], len(s.kin))[:len(s.kin)]
		clear(blk.tested)
		for ta := int32(b * blockTris); ta < min(int32(b+1)*blockTris, nt); ta++ {
			if !s.kinOnly {
				blk.tris, blk.stack = s.bvh.OverlappingAfter(ta, blk.tris, blk.stack)
				s.testPairs(blk, ta, blk.tris)
			}
			// Kinematic triangles only pair with the cloth's.
			q := s.bvh.LeafBox(ta)
			blk.kin = blk.kin[:0]
			for i := range s.kin {
				kb := &s.kin[i]
				if kb.apart {
					continue
				}
				var n int
				if kb.swept {
					blk.tris, blk.stack, n = kb.ref.OverlappingSwept(q, &kb.sweep, kb.margin, blk.tris, blk.stack)
				} else {
					blk.tris, blk.stack, n = kb.bvh.OverlappingBox(q, blk.tris, blk.stack)
				}
				blk.tested[i] += n
				for _, t := range blk.tris {
					blk.kin = append(blk.kin, kb.tris[t])
				}
			}
			if len(s.kin) > 1 {
				slices.Sort(blk.kin)
			}
			s.testPairs(blk, ta, blk.kin)
		}
	}
}

// testPairs runs the pass's narrow phase on the prims of cloth triangle ta
// with each triangle of tbs (increasing), appending the hits to blk.hits.
func (s *Solver) testPairs(blk *block, ta int32, tbs []int32) {
	for _, tb := range tbs {
		blk.prims = s.pairPrims(blk.prims[:0], ta, tb)
		for _, pr := range blk.prims {
			blk.hits = append(blk.hits, slot{})
			if !s.test(pr, &blk.hits[len(blk.hits)-1]) {
				blk.hits = blk.hits[:len(blk.hits)-1]
			}
		}
	}
}

// pairPrims appends to dst the vertex-face pairs (the vertex not in the
// face) and edge-edge pairs (no shared vertex) of triangles ta < tb that
// they own (vertOwner, edgeOwner), so that each is tested once, from the
// triangle pair of its owners, which the BVH reports whenever the pair can
// be close, since each owner's box holds the vertex or edge. Triangles
// sharing a vertex are paired too: in a tight fold a vertex can cross a face
// of its own one-ring. The order is fixed: deterministic.
func (s *Solver) pairPrims(dst []prim, ta, tb int32) []prim {
	fa, fb := s.faces[3*ta:3*ta+3], s.faces[3*tb:3*tb+3]
	for k := range 3 {
		if u := fa[k]; s.vertOwner[u] == ta && u != fb[0] && u != fb[1] && u != fb[2] {
			dst = append(dst, prim{kindVF, u, tb})
		}
		if u := fb[k]; s.vertOwner[u] == tb && u != fa[0] && u != fa[1] && u != fa[2] {
			dst = append(dst, prim{kindVF, u, ta})
		}
	}
	for _, ea := range s.faceEdge[ta] {
		if s.edgeOwner[ea] != ta {
			continue
		}
		a := s.edges[ea]
		for _, eb := range s.faceEdge[tb] {
			if b := s.edges[eb]; s.edgeOwner[eb] == tb && a[0] != b[0] && a[0] != b[1] && a[1] != b[0] && a[1] != b[1] {
				dst = append(dst, prim{kindEE, ea, eb})
			}
		}
	}
	return dst
}

func (s *Solver) primVerts(pr prim) [4]int32 {
	if pr.Kind == kindVF {
		f := s.faces[3*pr.J : 3*pr.J+3]
		return [4]int32{pr.I, f[0], f[1], f[2]}
	}
	a, b := s.edges[pr.I], s.edges[pr.J]
	return [4]int32{a[0], a[1], b[0], b[1]}
}

func vec(x []float64, i int32) dense.Vec3 {
	return dense.Vec3{x[3*i], x[3*i+1], x[3*i+2]}
}

// proxTest: the distance at x0 of pair pr; a hit when closer than the
// thickness (the kinematic one for a pair with kinematic vertices), with
// the thickness less the distance in Imp.T.
func (s *Solver) proxTest(pr prim, sl *slot) bool {
	sl.V, sl.Kind = s.primVerts(pr), pr.Kind
	if s.fold != nil && s.folded(pr.Kind, &sl.V) {
		return false
	}
	th := s.thick
	if nc := int32(s.nc); sl.V[0] >= nc || sl.V[1] >= nc || sl.V[2] >= nc || sl.V[3] >= nc {
		th = s.kthick
	}
	var p [4]dense.Vec3
	for k := range 4 {
		p[k] = vec(s.x0, sl.V[k])
	}
	// Separated boxes (the vertex's or first edge's against the other's)
	// along an axis by more than the thickness: the coplanar neighbours of a
	// flat sheet stop here, which the plane test below cannot reject.
	if boxesApart(&p, &p, pr.Kind == kindEE, th*(1+1e-9)) {
		return false
	}
	// The distance to the face's plane (the edges' lines) bounds the
	// distance from below: most other candidates stop here.
	var n dense.Vec3
	var r1 dense.Vec3
	if pr.Kind == kindVF {
		n, r1 = p[2].Sub(p[1]).Cross(p[3].Sub(p[1])), p[0].Sub(p[1])
	} else {
		n, r1 = p[1].Sub(p[0]).Cross(p[3].Sub(p[2])), p[2].Sub(p[0])
	}
	if math.Abs(n.Dot(r1)) >= th*n.Norm() {
		return false
	}
	var d float64
	var w [4]float64
	if pr.Kind == kindVF {
		b, dd := geom.PointTriangleClosest(p[0], p[1], p[2], p[3])
		d, w = dd, [4]float64{1, -b[0], -b[1], -b[2]}
	} else {
		a, u, dd := geom.EdgeEdgeClosest(p[0], p[1], p[2], p[3])
		d, w = dd, [4]float64{1 - a, a, -(1 - u), -u}
	}
	if !(d < th) {
		return false
	}
	var rel dense.Vec3
	for k := range 4 {
		rel = rel.Add(p[k].Scale(w[k]))
	}
	if rn := rel.Norm(); rn > 1e-9*th {
		n = rel.Scale(1 / rn)
	} else {
		// Touching: the plane normal, of the face or of the two edges.
		if pr.Kind == kindVF {
			n = p[2].Sub(p[1]).Cross(p[3].Sub(p[1]))
		} else {
			n = p[1].Sub(p[0]).Cross(p[3].Sub(p[2]))
		}
		nn := n.Norm()
		if !(nn > 0) {
			return false
		}
		n = n.Scale(1 / nn)
	}
	sl.Imp = geom.Impact{T: th - d, W: w, N: n}
	return true
}

// folded reports whether the pair's two sides (vertex v[0] and face v[1:],
// or edges v[:2] and v[2:]) each hold a vertex of one Fold label.
func (s *Solver) folded(kind uint8, v *[4]int32) bool {
	label := func(i int32) int32 {
		if int(i) < len(s.fold) {
			return s.fold[i]
		}
		return -1 // kinematic
	}
	a := v[:1]
	if kind == kindEE {
		a = v[:2]
	}
	for _, i := range a {
		g := label(i)
		if g < 0 {
			continue
		}
		for _, j := range v[len(a):] {
			if label(j) == g {
				return true
			}
		}
	}
	return false
}

// ccdTest: CCD over x0 -> x1 of pair pr.
func (s *Solver) ccdTest(pr prim, sl *slot) bool {
	sl.V = s.primVerts(pr)
	if a := s.active; !a[sl.V[0]] && !a[sl.V[1]] && !a[sl.V[2]] && !a[sl.V[3]] {
		return false
	}
	var x, x1, d [4]dense.Vec3
	for k := range 4 {
		x[k] = vec(s.x0, sl.V[k])
		x1[k] = vec(s.x1, sl.V[k])
		d[k] = x1[k].Sub(x[k])
	}
	ee := pr.Kind == kindEE
	// The CCD reports an impact only where the primitives come within tol
	// (geom.proximityAt): swept boxes apart by more than that (2 tol, for
	// the rounding of x0 + t d), or a start distance larger than tol plus
	// the most the motion can close it, rule one out.
	if boxesApart(&x, &x1, ee, 2*s.tol) || s.farApart(&x, &d, ee) {
		return false
	}
	var hit bool
	if pr.Kind == kindVF {
		sl.Imp, hit = geom.VertexFaceCCD(&x, &d, s.tol)
	} else {
		sl.Imp, hit = geom.EdgeEdgeCCD(&x, &d, s.tol)
	}
	return hit
}

// boxesApart reports whether the box of the first primitive (vertex p[0],
// or edge p[0] p[1]) at a and b is more than margin away, along some axis,
// from the box of the second (face p[1..3] or edge p[2] p[3]) at a and b.
func boxesApart(a, b *[4]dense.Vec3, edge bool, margin float64) bool {
	for k := range 3 {
		lo, hi := min(a[2][k], a[3][k], b[2][k], b[3][k]), max(a[2][k], a[3][k], b[2][k], b[3][k])
		plo, phi := min(a[0][k], b[0][k]), max(a[0][k], b[0][k])
		if edge {
			plo, phi = min(plo, a[1][k], b[1][k]), max(phi, a[1][k], b[1][k])
		} else {
			lo, hi = min(lo, a[1][k], b[1][k]), max(hi, a[1][k], b[1][k])
		}
		if plo > hi+margin || phi < lo-margin {
			return true
		}
	}
	return false
}

// farApart reports whether the pair's distance stays above 2 tol over the
// motion x + t d, t in [0, 1]. Relative to the first point's motion d[0],
// the closest points of the pair close in by at most m = |d1 - d0| plus the
// largest |dk - d0| of the second primitive (each is a convex combination of
// its points), so the distance at t is at least its start value minus t m.
// The start distance is bounded from below by the distance to the face's
// plane (the edges' lines) first and computed only where that is not
// enough.
func (s *Solver) farApart(x, d *[4]dense.Vec3, edge bool) bool {
	var m float64
	if edge {
		m = d[1].Sub(d[0]).Norm() + max(d[2].Sub(d[0]).Norm(), d[3].Sub(d[0]).Norm())
	} else {
		m = max(d[1].Sub(d[0]).Norm(), d[2].Sub(d[0]).Norm(), d[3].Sub(d[0]).Norm())
	}
	need := 2*s.tol + m
	var n, r dense.Vec3
	if edge {
		n, r = x[1].Sub(x[0]).Cross(x[3].Sub(x[2])), x[2].Sub(x[0])
	} else {
		n, r = x[2].Sub(x[1]).Cross(x[3].Sub(x[1])), x[0].Sub(x[1])
	}
	if math.Abs(n.Dot(r)) > need*n.Norm() {
		return true
	}
	var dist float64
	if edge {
		_, _, dist = geom.EdgeEdgeClosest(x[0], x[1], x[2], x[3])
	} else {
		_, dist = geom.PointTriangleClosest(x[0], x[1], x[2], x[3])
	}
	return dist > need
}

// maxImpulseGain bounds the velocity change a repulsion or an impact
// impulse gives any one vertex, as a multiple of the change of the pair's
// relative velocity.
//
// The impulse distributed by inverse mass changes vertex k's velocity by
// w_k m_k^-1 / sum_j w_j^2 m_j^-1 times the relative change: at most 1 when
// the masses are equal (sum_j w_j^2 >= 1 for both kinds of pair), but 1/w_k
// when k is the pair's only movable vertex (the others pinned, kinematic or
// EOL vertices): wire's cloth beside its EOL vertices got 3-4 m/s from a
// pair approaching at 0.3 m/s, which stretched a face threefold in one step
// (max_strain 2.05-2.58), and at a coarse resolution with self-contact the
// impact impulses reached 11-345 m/s. A repulsion only keeps the cloth apart
// softly; an impact that a bounded impulse leaves goes to the impact zones
// (Bridson 2002 sec. 7.4), which handle fixed vertices as a whole.
const maxImpulseGain = 1

// applyImpulse raises the pair's relative normal velocity n . sum W_i v_i
// to at least target with an impulse distributed by inverse mass, and
// reduces the relative tangential velocity by at most mu times the normal
// change (Bridson 2002 secs. 7.1-7.3). The impulse is scaled down so that
// no vertex's velocity changes by more than maxImpulseGain times the
// pair's relative change.
func applyImpulse(v, invMass []float64, sl *slot, target, mu float64) bool {
	w, n := sl.Imp.W, sl.Imp.N
	wm := 0.0
	var vr dense.Vec3
	for k := range 4 {
		wm += w[k] * w[k] * invMass[sl.V[k]]
		vr = vr.Add(vec(v, sl.V[k]).Scale(w[k]))
	}
	if !(wm > 0) {
		return false
	}
	vn := vr.Dot(n)
	dvn := target - vn
	if !(dvn > 0) {
		return false
	}
	dv := n.Scale(dvn)
	if mu > 0 {
		vt := vr.Sub(n.Scale(vn))
		if tn := vt.Norm(); tn > 0 {
			dv = dv.Sub(vt.Scale(min(1, mu*dvn/tn)))
		}
	}
	g := 0.0
	for k := range 4 {
		g = max(g, math.Abs(w[k]*invMass[sl.V[k]]/wm))
	}
	if g > maxImpulseGain {
		dv = dv.Scale(maxImpulseGain / g)
	}
	for k := range 4 {
		c := w[k] * invMass[sl.V[k]] / wm
		i := 3 * sl.V[k]
		v[i] += c * dv[0]
		v[i+1] += c * dv[1]
		v[i+2] += c * dv[2]
	}
	return true
}

func (s *Solver) find(i int32) int32 {
	if s.parent[i] < 0 {
		s.parent[i] = i
		return i
	}
	for s.parent[i] != i {
		s.parent[i] = s.parent[s.parent[i]]
		i = s.parent[i]
	}
	return i
}

// union merges the zones of a and b; the smaller root index wins, so the
// zones do not depend on the order of the merges.
func (s *Solver) union(a, b int32) {
	ra, rb := s.find(a), s.find(b)
	if ra < rb {
		s.parent[rb] = ra
	} else if rb < ra {
		s.parent[ra] = rb
	}
}

func (s *Solver) sameZone(sl *slot) bool {
	if s.parent[sl.V[0]] < 0 {
		return false
	}
	r := s.find(sl.V[0])
	for _, u := range sl.V[1:] {
		if s.parent[u] < 0 || s.find(u) != r {
			return false
		}
	}
	return true
}

// mergeBodies adds to a zone the whole kinematic body of each kinematic
// vertex in it: the zone then moves with the body's motion, which its
// vertices determine (an impact alone names one to three of them).
func (s *Solver) mergeBodies() {
	for i := int32(s.nc); i < int32(s.nv); i++ {
		if s.parent[i] >= 0 {
			s.union(i, s.body[i])
		}
	}
	for i := int32(s.nc); i < int32(s.nv); i++ {
		if s.parent[s.body[i]] >= 0 {
			s.union(i, s.body[i])
		}
	}
}

// rigidify gives every free vertex of a zone the zone's velocity: its
// momentum over its mass, or the fixed vertices' velocity when it holds
// any. Fixed vertices that all share one velocity (static or translating
// pins and obstacles) give it to the zone; ones that do not but whose
// velocities are an affine function v = A x + b of their start positions
// (the linearised motion of a turning obstacle: v = vc + omega x (x - c))
// give the zone that function: every zone vertex then moves by the affine
// map x -> x + h (A x + b), invertible for small h |A|, which keeps the zone
// free of crossings as a translation does. It returns the number of zones
// whose fixed vertices fit neither (for which the guarantee does not hold;
// they take the fixed vertices' mean velocity).
func (s *Solver) rigidify(v, invMass []float64) int {
	z := s.zoneV
	clear(z)
	for i := range int32(s.nv) {
		if s.parent[i] < 0 {
			continue
		}
		r := 8 * s.find(i)
		vi := vec(v, i)
		if invMass[i] == 0 {
			z[r+4] += vi[0]
			z[r+5] += vi[1]
			z[r+6] += vi[2]
			z[r+7]++
			continue
		}
		m := 1 / invMass[i]
		z[r] += m * vi[0]
		z[r+1] += m * vi[1]
		z[r+2] += m * vi[2]
		z[r+3] += m
	}
	for i := range s.nv {
		r := 8 * i
		if s.parent[i] != int32(i) {
			continue
		}
		if c := z[r+7]; c > 0 {
			z[r], z[r+1], z[r+2] = z[r+4]/c, z[r+5]/c, z[r+6]/c
		} else {
			m := z[r+3]
			z[r], z[r+1], z[r+2] = z[r]/m, z[r+1]/m, z[r+2]/m
		}
	}
	// Zones whose fixed vertices disagree: z[r+7] = -1, fitted below.
	mixed := false
	for i := range int32(s.nv) {
		if s.parent[i] < 0 || invMass[i] != 0 {
			continue
		}
		r := 8 * s.find(i)
		if z[r+7] > 0 && !sameVel(vec(v, i), dense.Vec3{z[r], z[r+1], z[r+2]}) {
			z[r+7] = -1
			mixed = true
		}
	}
	unresolved := 0
	if mixed {
		unresolved = s.fitAffine(v, invMass)
	}
	for i := range int32(s.nv) {
		if s.parent[i] < 0 || invMass[i] == 0 {
			continue
		}
		root := s.find(i)
		r := 8 * root
		if z[r+7] == -2 {
			g := s.fits[s.fitOf[root]].g
			q := vec(s.x0, i).Sub(vec(s.x0, root))
			for c := range 3 {
				v[3*i+int32(c)] = g[0][c]*q[0] + g[1][c]*q[1] + g[2][c]*q[2] + g[3][c]
			}
			continue
		}
		v[3*i], v[3*i+1], v[3*i+2] = z[r], z[r+1], z[r+2]
	}
	return unresolved
}

func sameVel(a, b dense.Vec3) bool {
	return a.Sub(b).Norm() <= 1e-12*(1+a.Norm())
}

// affineFit is the least-squares fit v = G^T [x - x_root; 1] of a zone's
// fixed vertices' velocities: M = sum q q^T, B = sum q v^T, M G = B.
type affineFit struct {
	m [4][4]float64
	b [4][3]float64
	g [4][3]float64
}

// fitAffine fits the mixed zones (z[r+7] == -1): those whose fixed vertices
// fit an affine velocity to rounding get z[r+7] = -2 and their fit in
// s.fits; it returns the number of the others.
func (s *Solver) fitAffine(v, invMass []float64) int {
	z := s.zoneV
	s.fits = s.fits[:0]
	s.fitOf = slices.Grow(s.fitOf[:0], s.nv)[:s.nv]
	for i := range s.nv {
		if s.parent[i] == int32(i) && z[8*i+7] == -1 {
			s.fitOf[i] = int32(len(s.fits))
			s.fits = append(s.fits, affineFit{})
		}
	}
	fixedOf := func(i int32) (*affineFit, [4]float64, bool) {
		if s.parent[i] < 0 || invMass[i] != 0 {
			return nil, [4]float64{}, false
		}
		root := s.find(i)
		if z[8*root+7] != -1 {
			return nil, [4]float64{}, false
		}
		d := vec(s.x0, i).Sub(vec(s.x0, root))
		return &s.fits[s.fitOf[root]], [4]float64{d[0], d[1], d[2], 1}, true
	}
	for i := range int32(s.nv) {
		f, q, ok := fixedOf(i)
		if !ok {
			continue
		}
		vi := vec(v, i)
		for a := range 4 {
			for b := range 4 {
				f.m[a][b] += q[a] * q[b]
			}
			for c := range 3 {
				f.b[a][c] += q[a] * vi[c]
			}
		}
	}
	ok := make([]bool, len(s.fits))
	for k := range s.fits {
		ok[k] = solve4(&s.fits[k])
	}
	for i := range int32(s.nv) {
		f, q, isFixed := fixedOf(i)
		if !isFixed {
			continue
		}
		k := s.fitOf[s.find(i)]
		if !ok[k] {
			continue
		}
		var fv dense.Vec3
		for c := range 3 {
			fv[c] = f.g[0][c]*q[0] + f.g[1][c]*q[1] + f.g[2][c]*q[2] + f.g[3][c]
		}
		if vi := vec(v, i); fv.Sub(vi).Norm() > 1e-9*(1+vi.Norm()) {
			ok[k] = false
		}
	}
	unresolved := 0
	for i := range s.nv {
		if s.parent[i] == int32(i) && z[8*i+7] == -1 {
			if ok[s.fitOf[i]] {
				z[8*i+7] = -2
			} else {
				unresolved++
			}
		}
	}
	return unresolved
}

// solve4 solves f.m g = f.b by Gaussian elimination with partial pivoting
// into f.g; false when m is (numerically) singular: fewer than four fixed
// vertices off one plane.
func solve4(f *affineFit) bool {
	m, b := f.m, f.b
	scale := 0.0
	for a := range 4 {
		scale = max(scale, math.Abs(m[a][a]))
	}
	for col := range 4 {
		piv := col
		for r := col + 1; r < 4; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if !(math.Abs(m[piv][col]) > 1e-12*scale) {
			return false
		}
		m[col], m[piv] = m[piv], m[col]
		b[col], b[piv] = b[piv], b[col]
		for r := col + 1; r < 4; r++ {
			l := m[r][col] / m[col][col]
			for c := col; c < 4; c++ {
				m[r][c] -= l * m[col][c]
			}
			for c := range 3 {
				b[r][c] -= l * b[col][c]
			}
		}
	}
	for row := 3; row >= 0; row-- {
		for c := range 3 {
			x := b[row][c]
			for k := row + 1; k < 4; k++ {
				x -= m[row][k] * f.g[k][c]
			}
			f.g[row][c] = x / m[row][row]
		}
	}
	return true
}
