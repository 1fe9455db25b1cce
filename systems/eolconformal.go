package systems

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/remesh"
)

// ConformalRemesh is the collision and conformal-remeshing stage of an EOL
// step (Weidner 2018 Alg. 1 lines 2-3): it finds where cloth edges cross
// sharp edges (box edges, wires) and where cloth faces touch points (nails),
// inserts conformal vertices there and runs the preprocessing of sec. 6.1
// (solver/conformal), writes the mesh back as entities (keeping those of
// surviving vertices and faces), and gives the new conformal vertices their
// EOL component with the velocity split of eq. 13 (sec. 6.2).
type ConformalRemesh struct {
	c      *EOLCloth
	rm     *BodyRemesher
	params conformal.Params
	lag    bool // conformal Lagrangian cloth: no EOL DOFs (Weidner 2018 sec. 7 "LAG conformal")
	detect detectScratch
	states []eolAssignment // by node, conformalStates' results for assign
	// The buffers of the border normals of the mesh before (body) and after
	// (conformalStates) the conformal remesh.
	oldBorder, newBorder borderWork
	// conformalStates' faces around each node of the new mesh.
	nodeFaces mesh.Incidence
	// body's scratch: the nodes of the body's EOL vertices on their feature
	eolNodes []eolNode
	// vertexF's buffers for body's side task, nodeF's for conformalStates
	// (each runs on a pool worker, at the same time as other work).
	sideF, statesF fScratch

	bad []bool // crossingHits' result, by hit
	// separate's copies of the new mesh's positions, before and after
	saved, moved []dense.Vec3

	Inserted int // conformal nodes inserted, since the last Measure
	// Splits, Flips and Collapses count the mesh operations of the
	// preprocessing and the adaptive remeshing that a step kept, since the
	// last Measure.
	Splits, Flips, Collapses int
	// Dropped counts the hits dropped because their node would have
	// crossed other cloth (crossingHits), Skipped the bodies' passes left
	// out and Unadapted their adaptive remeshing undone because they
	// crossed it, since the last Measure.
	Dropped, Skipped, Unadapted int
	// DetectTime is the time spent finding contacts with sharp features
	// (collision detection), part of the system's time.
	DetectTime time.Duration
}

// Conformal returns the system; rm holds the bodies whose meshes it edits.
// With lagrangian set it builds the conformal mesh but keeps every vertex
// Lagrangian (the "LAG conformal" comparison of Weidner 2018 sec. 7): its
// conformal vertices keep an EOL component only to mark their feature, with
// no Eulerian velocity, and lose it when they move further than reach from
// the feature.
func (c *EOLCloth) Conformal(rm *BodyRemesher, lagrangian bool) *ConformalRemesh {
	e := c.set
	return &ConformalRemesh{c: c, rm: rm, lag: lagrangian, params: conformal.Params{
		MinEdge: e.MinEdge, MinAngle: e.MinAngle * math.Pi / 180, BorderAngle: e.BorderAngle * math.Pi / 180, MaxIter: 20}}
}

func (e *ConformalRemesh) Name() string { return "conformal-remesh" }

func (e *ConformalRemesh) Step(w *ecs.World) error {
	c := e.c
	if err := c.gather(w); err != nil {
		return err
	}
	for bi := range e.rm.bodies {
		if err := e.body(w, &e.rm.bodies[bi]); err != nil {
			return fmt.Errorf("body %q: %w", e.rm.bodies[bi].mesh.Name, err)
		}
	}
	return nil
}

// body detects, inserts and preprocesses one body.
func (e *ConformalRemesh) body(w *ecs.World, b *remeshBody) error {
	c := e.c
	old := e.rm.gather(b)
	n := len(old.X)
	feature := make([]int32, n)
	t := make([]float64, n)
	old.NExtra = 2
	old.Extra = make([]float64, 2*n)
	anyEOL := false
	e.eolNodes = e.eolNodes[:0]
	for i, ent := range b.mesh.Verts {
		feature[i] = -1
		v, ok := c.dof[ent]
		if !ok {
			return fmt.Errorf("vertex %d is not gathered", i)
		}
		k := c.eolOf[v]
		if k < 0 {
			continue
		}
		anyEOL = true
		ev := &c.verts[k]
		if f := &c.features[ev.feature]; e.lag && old.X[i].Sub(f.Project(old.X[i])).Norm() > c.set.Reach {
			continue // a conformal Lagrangian vertex that left its feature
		}
		feature[i], t[i] = ev.feature, ev.comp.T
		e.eolNodes = append(e.eolNodes, eolNode{node: int32(i), ev: k})
	}
	// At once: the contacts with sharp features, which read the nodes'
	// positions and features only, and the nodes' locks and velocities.
	var hits []conformal.Hit
	err := concurrently(w.Pool, func() error {
		t0 := time.Now()
		hits = c.shieldHits(ecs.Resource[ecs.Clock](w).Step, b.entity, c.detect(old, feature, &e.detect))
		e.DetectTime += time.Since(t0)
		return nil
	}, func() error {
		// Cloth corners stay Lagrangian (sec. 3): no hit may snap to one.
		_, corner := e.oldBorder.borderNormals(old.F, old.U, old.Node, n)
		for i, k := range corner {
			old.Locked[i] = old.Locked[i] || k
		}
		for _, en := range e.eolNodes {
			i, ev := en.node, &c.verts[en.ev]
			F, _, err := c.vertexF(ev.v, &e.sideF)
			if err != nil {
				return err
			}
			// The remesher interpolates world velocities (sec. 6.2 cases
			// 1-3).
			old.V[i] = eol.LiftOffVelocity(old.V[i], ev.comp.XDot, F)
			old.Extra[2*i], old.Extra[2*i+1] = ev.comp.XDot[0], ev.comp.XDot[1]
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(hits) == 0 && !anyEOL {
		return nil
	}
	point := make([]bool, n)
	for i, f := range feature {
		point[i] = f >= 0 && c.features[f].Kind != components.FeatureEdge
	}
	preprocess := conformal.Preprocess
	if b.valid {
		preprocess = conformal.PreprocessValid
	}
	feats := conformal.Features{Feature: feature, T: t, Point: point, Ends: c.ends}
	before, depth := 0, 0.0 // with self-contact: the crossings of the step's mesh, the obstacles' reach through it
	if e.rm.apart != nil {
		before = e.rm.crossings(w.Pool, b.entity, old, nil, nil)
		if e.lag {
			e.rm.loadObstacles(w)
			depth = e.rm.obstacleDepth(old)
		}
	}
	nm, res, err := preprocess(old, feats, hits, e.params)
	for err == nil && e.rm.apart != nil && e.rm.crossings(w.Pool, b.entity, nm, nil, nil) > before {
		// With cloth self-contact, no hit may put its node through other
		// cloth (crossingHits); each pass drops at least one hit. Crossed
		// by the cleanup alone (a collapse onto a conformal node moves
		// the surface of its faces), the body keeps its mesh this step.
		var n int
		if e.bad, n = e.crossingHits(w.Pool, b.entity, nm, &res, e.bad); n == 0 {
			e.Skipped++
			return nil
		}
		kept := hits[:0]
		for k, h := range hits {
			if !e.bad[k] {
				kept = append(kept, h)
			}
		}
		e.Dropped += len(hits) - len(kept)
		hits = kept
		nm, res, err = preprocess(old, feats, hits, e.params)
	}
	if err != nil {
		return fmt.Errorf("conformal preprocessing: %w", err)
	}
	if e.rm.apart != nil && e.lag && e.rm.obstacleDepth(nm) > depth+depthTolerance*e.rm.thickness {
		// The cleanup's collapses onto conformal nodes move the surface
		// of their faces, with no regard for the obstacles' edges: where
		// that let an edge reach deeper through the cloth (0.68 mm, the
		// lower sheet of edge-layers in the conformal Lagrangian
		// pipeline, sliding off the box), the fail-safe could not undo
		// it and the next steps drove it deeper; the body keeps its mesh
		// this step. Not with EOL vertices, which must be put back on
		// their features every step (wire with this rule and no
		// self-contact: 3-7 mm through the wire).
		e.Skipped++
		return nil
	}
	e.Inserted += res.Inserted
	due := b.set.Every > 0 && ecs.Resource[ecs.Clock](w).Step%b.set.Every == 0
	if !due && res.Inserted == 0 && res.Collapses == 0 && res.Splits == 0 && res.Flips == 0 {
		return nil
	}
	if due {
		pre, preRes := nm, res
		preRes.HitNode = slices.Clone(res.HitNode) // adapt renumbers them in place
		if nm, err = e.adapt(w, b, nm, &res); err != nil {
			return err
		}
		if e.rm.apart != nil && e.rm.worse(w.Pool, b.entity, pre, nm) {
			// The remesher's flips and collapses change the surface
			// (a flip across the cloth's bend over the feature cuts
			// its corner) with no regard for other cloth or the
			// obstacles' edges; where that crossed other cloth or let
			// an obstacle reach deeper through the cloth (5 mm, the
			// lower sheet of edge-layers in the conformal Lagrangian
			// pipeline), this step keeps the preprocessed mesh.
			nm, res = pre, preRes
			e.Unadapted++
		}
	}
	if !e.lag {
		e.separate(w, b, nm, &res)
	}
	e.Splits += res.Result.Splits
	e.Flips += res.Result.Flips
	e.Collapses += res.Result.Collapses
	// The conformal nodes' EOL states are computed while the mesh is
	// written back.
	if err := e.rm.writeBack(w, b, nm, res.Result, func() error { return e.conformalStates(nm, &res) }); err != nil {
		return err
	}
	e.assign(b, &res)
	w.BumpTopology()
	return nil
}

// separate moves the free nodes of the faces of nm that a round obstacle
// reaches into back out (BodyRemesher.separateRound): with EOL vertices the
// step must take the preprocessed mesh, which is never left out for the
// obstacles' sake. The conformal nodes and the pinned ones stay. With cloth
// self-contact, a separation that would cross other cloth or the body itself
// is undone (the fail-safe starts from a state free of crossings).
func (e *ConformalRemesh) separate(w *ecs.World, b *remeshBody, nm *remesh.Mesh, res *conformal.Result) {
	e.rm.loadObstacles(w)
	fixed := func(i int32) bool { return res.Feature[i] >= 0 || nm.Locked[i] }
	if e.rm.apart == nil {
		e.rm.separateRound(nm, fixed)
		return
	}
	e.saved = append(e.saved[:0], nm.X...)
	if e.rm.separateRound(nm, fixed) == 0 {
		return
	}
	after := e.rm.crossings(w.Pool, b.entity, nm, nil, nil)
	e.moved = append(e.moved[:0], nm.X...)
	copy(nm.X, e.saved)
	if after <= e.rm.crossings(w.Pool, b.entity, nm, nil, nil) {
		copy(nm.X, e.moved)
	}
}

// adapt runs the adaptive remesher (Narain 2012) on the preprocessed mesh nm
// with its conformal edges preserved and conformal nodes locked (Weidner
// 2018 sec. 6), returns the remeshed mesh and composes its result with the
// preprocessing's so that res maps it onto the step's input mesh.
func (e *ConformalRemesh) adapt(w *ecs.World, b *remeshBody, nm *remesh.Mesh, res *conformal.Result) (*remesh.Mesh, error) {
	e.rm.loadObstacles(w)
	if nm.Locked == nil {
		nm.Locked = make([]bool, len(nm.X))
	}
	nm.LockedClearance = e.params.MinEdge
	for i, f := range res.Feature {
		if f < 0 {
			continue
		}
		nm.Locked[i] = true
	}
	// The conformal edges, each once (an interior edge is in two faces), in
	// increasing order of their node pairs.
	nm.Preserved = nm.Preserved[:0]
	for _, t := range nm.F {
		for k := range 3 {
			a, c := nm.Node[t[k]], nm.Node[t[(k+1)%3]]
			if res.Feature[a] >= 0 && res.Feature[c] >= 0 && res.Features.Edge(a, c) {
				nm.Preserved = append(nm.Preserved, [2]int32{min(a, c), max(a, c)})
			}
		}
	}
	slices.SortFunc(nm.Preserved, func(p, q [2]int32) int {
		if p[0] != q[0] {
			return cmp.Compare(p[0], q[0])
		}
		return cmp.Compare(p[1], q[1])
	})
	nm.Preserved = slices.Compact(nm.Preserved)
	am, ar, err := e.rm.remeshMesh(w, b, nm, true, false)
	if err != nil {
		return nil, fmt.Errorf("adaptive remeshing after conformal preprocessing: %w", err)
	}
	composeResult(res, ar)
	return am, nil
}

// composeResult makes res (input -> preprocessed mesh) map the remeshed
// mesh onto the input by composing it with ar (preprocessed -> remeshed):
// the maps, the sources, the per-node features and the nodes of the hits.
func composeResult(res *conformal.Result, ar remesh.Result) {
	old := res.Result
	var out remesh.Result
	out.Splits, out.Flips, out.Collapses = old.Splits+ar.Splits, old.Flips+ar.Flips, old.Collapses+ar.Collapses
	through := func(m []int32, next []int32) []int32 {
		o := make([]int32, len(next))
		for i, k := range next {
			o[i] = -1
			if k >= 0 {
				o[i] = m[k]
			}
		}
		return o
	}
	out.NodeOld = through(old.NodeOld, ar.NodeOld)
	out.VertOld = through(old.VertOld, ar.VertOld)
	out.FaceOld = through(old.FaceOld, ar.FaceOld)
	out.SrcStart = append(make([]int32, 0, len(ar.NodeOld)+1), 0)
	out.Src = make([]remesh.Source, 0, len(ar.Src))
	for i := range ar.NodeOld {
		// Node i's input nodes, their weights summed in order of
		// appearance, then sorted by node.
		first := len(out.Src)
		for _, s := range ar.Sources(i) {
			for _, s2 := range old.Sources(int(s.Node)) {
				k := first
				for k < len(out.Src) && out.Src[k].Node != s2.Node {
					k++
				}
				if k == len(out.Src) {
					out.Src = append(out.Src, remesh.Source{Node: s2.Node})
				}
				out.Src[k].W += s.W * s2.W
			}
		}
		slices.SortFunc(out.Src[first:], func(a, b remesh.Source) int { return cmp.Compare(a.Node, b.Node) })
		out.SrcStart = append(out.SrcStart, int32(len(out.Src)))
	}
	feat := conformal.Features{Feature: make([]int32, len(ar.NodeOld)), T: make([]float64, len(ar.NodeOld)), Point: make([]bool, len(ar.NodeOld)), Ends: res.Ends}
	newOf := make([]int32, len(res.Feature))
	for i := range newOf {
		newOf[i] = -1
	}
	for i, k := range ar.NodeOld {
		feat.Feature[i] = -1
		if k >= 0 {
			feat.Feature[i], feat.T[i], feat.Point[i] = res.Feature[k], res.T[k], res.Point[k]
			newOf[k] = int32(i)
		}
	}
	for k, n := range res.HitNode {
		if n >= 0 {
			res.HitNode[k] = newOf[n]
		}
	}
	res.Result, res.Features = out, feat
}

// eolNode is a node whose vertex is EOL vertex ev (an index into
// EOLCloth.verts).
type eolNode struct{ node, ev int32 }

// eolAssignment is what assign gives a conformal node's vertex: its
// Lagrangian velocity and its EOL component.
type eolAssignment struct {
	vel  components.Velocity
	comp components.EOL
}

// conformalStates computes, for mesh nm made by a conformal pass with result
// res, what assign gives each conformal node (e.states, by node), from the
// mesh alone, so that it can run while the mesh is written back: survivors
// and vertices split off conformal edges keep their (interpolated) Eulerian
// velocity, with the Lagrangian velocity from eq. 2; vertices made
// conformal by a hit get the split of eq. 13 (sec. 6.2).
func (e *ConformalRemesh) conformalStates(nm *remesh.Mesh, res *conformal.Result) error {
	c := e.c
	var fresh []bool // the nodes made by a hit; nil: none
	for k, node := range res.HitNode {
		if node >= 0 && res.HitOutcome[k] == conformal.HitInserted {
			if fresh == nil {
				fresh = make([]bool, len(nm.X))
			}
			fresh[node] = true
		}
	}
	e.nodeFaces.Build(nm.F, nm.Node, len(nm.X))
	var bn []dense.Vec2 // read at fresh nodes only
	if fresh != nil {
		bn, _ = e.newBorder.borderNormalsAt(nm.F, nm.U, nm.Node, len(nm.X), fresh)
	}
	e.states = resize(e.states, len(nm.X))
	for i, fi := range res.Feature {
		if fi < 0 {
			continue
		}
		f := &c.features[fi]
		F, ok := nodeF(nm, e.nodeFaces.Of(i), int32(i), &e.statesF)
		if !ok {
			return fmt.Errorf("conformal vertex %d has no non-degenerate face", i)
		}
		vw := nm.V[i]
		xdot := dense.Vec2{nm.Extra[2*i], nm.Extra[2*i+1]}
		xd := vw.Add(F.MulVec(xdot))
		if e.lag {
			// A conformal Lagrangian vertex: on the feature, but with
			// Lagrangian DOFs only.
			xd, xdot = vw, dense.Vec2{}
		} else if fresh != nil && fresh[i] {
			var eq []dense.Vec2
			switch {
			case bn[i] != (dense.Vec2{}):
				eq = append(eq, bn[i])
			case f.Kind == components.FeatureEdge:
				eq = append(eq, featureTangent(F, f.Dir))
			}
			var err error
			if xd, xdot, err = eol.TransferVelocity(vw, F, eq); err != nil {
				return fmt.Errorf("velocity transfer at new EOL vertex %d: %w", i, err)
			}
		}
		e.states[i] = eolAssignment{vel: components.Velocity(xd),
			comp: components.EOL{Obstacle: c.obstacleEnt[f.Obstacle], Feature: f.ID, Kind: f.Kind, T: res.T[i], XDot: xdot}}
	}
	return nil
}

// assign gives the body's conformal vertices, after the write-back of the
// conformal pass with result res, their EOL components and Lagrangian
// velocities (e.states, from conformalStates), and takes the EOL
// component from the others.
func (e *ConformalRemesh) assign(b *remeshBody, res *conformal.Result) {
	c := e.c
	for i, ent := range b.mesh.Verts {
		has := c.eolMap.Has(ent)
		if res.Feature[i] < 0 {
			if has {
				c.eolGet.Remove(ent)
			}
			continue
		}
		st := &e.states[i]
		*e.rm.vel.Get(ent) = st.vel
		if has {
			*c.eolGet.Get(ent) = st.comp
		} else {
			c.eolGet.Assign(ent, &st.comp)
		}
	}
}

// featureTangent is the material direction that F maps onto the feature
// direction d: t-bar of Alg. 2 for a vertex whose conformal edges are not yet
// known.
func featureTangent(F dense.Mat32, d dense.Vec3) dense.Vec2 {
	G := F.TMul(F)
	Gi, ok := G.Inverse()
	if !ok {
		return dense.Vec2{1, 0}
	}
	t := Gi.MulVec(dense.Vec2{F.Col(0).Dot(d), F.Col(1).Dot(d)})
	l := math.Hypot(t[0], t[1])
	return dense.Vec2{t[0] / l, t[1] / l}
}

// borderWork holds the buffers of borderNormals; the slices it returns are
// valid until its next use.
type borderWork struct {
	inc        mesh.Incidence
	out, first []dense.Vec2
	corner     []bool
}

// borderNormals returns, for a mesh of faces over verts with material
// coordinates u, each node's outward unit border normal in material space
// (the mean of its border edges' normals; zero for interior nodes) and
// whether it is a cloth corner (its border edges turn by more than 30
// degrees). node maps verts to nodes; nil means the identity.
func (bw *borderWork) borderNormals(faces [][3]int32, u []dense.Vec2, node []int32, nodes int) ([]dense.Vec2, []bool) {
	return bw.borderNormalsAt(faces, u, node, nodes, nil)
}

// borderNormalsAt is borderNormals at the nodes that at marks (at every node
// when at is nil): it skips the edges of other nodes, whose entries stay zero
// and false.
func (bw *borderWork) borderNormalsAt(faces [][3]int32, u []dense.Vec2, node []int32, nodes int, at []bool) ([]dense.Vec2, []bool) {
	nodeOf := func(v int32) int32 {
		if node == nil {
			return v
		}
		return node[v]
	}
	// The directed face edges a->b, listed per vert a: a->b is a border
	// edge when b->a is not among them.
	bw.inc.Build(faces, nil, len(u))
	out, first, corner := resize(bw.out, nodes), resize(bw.first, nodes), resize(bw.corner, nodes)
	clear(out)
	clear(first)
	clear(corner)
	bw.out, bw.first, bw.corner = out, first, corner
	for _, t := range faces {
		for k := range 3 {
			a, b := t[k], t[(k+1)%3]
			if at != nil && !at[nodeOf(a)] && !at[nodeOf(b)] || bw.inc.HasEdge(b, a) {
				continue
			}
			// Counter-clockwise faces: the outward normal of border edge
			// a->b is its direction turned clockwise.
			d := u[b].Sub(u[a])
			l := math.Hypot(d[0], d[1])
			nrm := dense.Vec2{d[1] / l, -d[0] / l}
			for _, v := range [2]int32{nodeOf(a), nodeOf(b)} {
				if at != nil && !at[v] {
					continue
				}
				if out[v] == (dense.Vec2{}) {
					first[v] = nrm
				} else if first[v][0]*nrm[0]+first[v][1]*nrm[1] < math.Cos(math.Pi/6) {
					corner[v] = true
				}
				out[v][0] += nrm[0]
				out[v][1] += nrm[1]
			}
		}
	}
	for i, o := range out {
		if l := math.Hypot(o[0], o[1]); l > 0 {
			out[i] = dense.Vec2{o[0] / l, o[1] / l}
		}
	}
	return out, corner
}

// nodeF is the vertex deformation gradient (errata sec. 1) of node i of m,
// over all its faces fs weighted by their material angles at it; sc is the
// caller's scratch.
func nodeF(m *remesh.Mesh, fs []int32, i int32, sc *fScratch) (dense.Mat32, bool) {
	Fs, ws := sc.Fs[:0], sc.ws[:0]
	for _, f := range fs {
		var x [3]dense.Vec3
		var u [3]dense.Vec2
		corner := 0
		for k, v := range m.F[f] {
			x[k], u[k] = m.X[m.Node[v]], m.U[v]
			if m.Node[v] == i {
				corner = k
			}
		}
		F, ok := eol.FaceF(x, u)
		if !ok {
			continue
		}
		Fs = append(Fs, F)
		ws = append(ws, cornerAngle(u, corner))
	}
	sc.Fs, sc.ws = Fs, ws
	return eol.VertexF(Fs, ws)
}
