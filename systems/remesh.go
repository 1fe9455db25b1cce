package systems

import (
	"fmt"
	"math"
	"slices"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/remesh"
	"github.com/loomsim/loom/solver/sizing"
)

// Remesh is the adaptive anisotropic remeshing stage of Narain et al. 2012
// (sec. 4), run every k steps for each body with remesh settings. It gathers
// the body into a remesh.Mesh, computes the sizing field (eq. 4-13, with the
// obstacles' nearest points for eq. 9), remeshes (Algorithm 1), and then
// writes the result back as entities: surviving vertices and faces keep their
// entities, new ones are created, removed ones are deleted, and the hinges
// (the interior edges) are rebuilt, reusing the body's hinge entities.
// Masses are re-lumped from the new faces.
// Afterwards vertices that the split placement moved into an obstacle are
// moved back towards where they came from (sec. 4, "Handling
// interpenetrations", applied per vertex).
//
// Seams (sec. 3) come through the faces: a vertex entity is a node, each
// face carries its corners' material coordinates, and the remesher's verts
// are the distinct (node, coordinate) pairs, so the two sides of a seam are
// split and collapsed together and the hinges across it stay flat at rest.
// The gather, remeshing and write-back are BodyRemesher's, which the
// conformal stage of EOL cloth (ConformalRemesh) shares.
type Remesh struct {
	bodies *BodyRemesher

	// Stats since the last Measure. Unadapted counts the passes left out
	// because they would have crossed other cloth (BodyRemesher.apart).
	Splits, Flips, Collapses, Unadapted int
	// Edge sizes (eq. 1) after the last pass: with several remeshed bodies,
	// the smallest minimum, the largest median and the largest maximum.
	SizeMin, SizeMedian, SizeMax float64
}

// BodyRemesher remeshes the bodies registered with AddBody: it gathers a
// body's entities into a remesh.Mesh, remeshes it with the sizing field, and
// writes the result back as entities (see Remesh). It is the machinery of
// the Remesh system and of ConformalRemesh.
type BodyRemesher struct {
	thickness float64
	bodies    []remeshBody

	obsF      *generic.Filter1[components.Obstacle]
	vel       generic.Map1[components.Velocity]
	faces     generic.Map1[components.Face]
	pinned    generic.Map[components.Pinned]
	vertMap   generic.Map5[components.Position, components.Velocity, components.Mass, components.Material, components.Member]
	hingeMap  generic.Map1[components.Hinge]
	sizingWS  sizing.Workspace
	obstacles []components.Obstacle
	// apart is the cloth's state when cloth self-contact is on: a pass
	// that would put a body through other cloth or deeper into an
	// obstacle is changed or left out (crossWork); nil: off.
	apart *ClothState
	cross crossWork
}

type remeshBody struct {
	entity   ecs.Entity
	mesh     *BodyMesh
	faceEnts []ecs.Entity // parallel to mesh.Faces
	set      model.Remesh
	density  float64
	lame     elastic.Lame
	kb       float64
	remesher remesh.Remesher
	memo     restMemo
	// The hinge entities, parallel to memo.hinges; each write-back gives
	// them the new hinges in order, creating or removing them at the end.
	hingeEnts []ecs.Entity
	hingeB    mesh.HingeBuilder
	// spare holds the memo before the current one, whose lists (but for
	// the faces, which are also mesh.Faces) the next write-back reuses.
	spare restMemo
	wb    writeBackScratch
	// gatheredU is the face entities' corner coordinates as the last
	// gather read them, parallel to faceEnts.
	gatheredU [][3]dense.Vec2
	// valid is set once a write-back has made the body's mesh an output of
	// the remesher or of conformal.Preprocess, whose connectivity is valid
	// (remesh.Remesher.RemeshValid): gather rebuilds that mesh until the
	// next write-back, with new per-node state only.
	valid bool
}

// restMemo is what a body's last write-back computed the rest states of its
// faces and hinges from, and those rest states. Remeshing changes a mesh
// locally, so most faces and hinges of the next write-back are surviving
// faces, and hinges between them, whose corners kept their material
// coordinates; their rest states are the same function of the same inputs,
// and faceRestOf and hingeRestOf return them instead of recomputing them.
type restMemo struct {
	faces      [][3]int32      // the faces (nodes) of that write-back
	faceU      [][3]dense.Vec2 // their corners' material coordinates
	faceRest   []elastic.MembraneRest
	hinges     [][4]int32 // mesh.HingesWithFaces of faces
	hingeFaces [][2]int32
	hingeRest  []elastic.HingeRest
	// first[f] lists the hinges whose first face is f, -1 padded.
	first [][3]int32
}

// oldFace returns the face of the memo's mesh that face fi of a new mesh
// with corner coordinates faceU, which out maps onto the memo's mesh, was,
// when it had the same corner coordinates then (so that
// elastic.NewMembraneRest would compute the same rest state, faceRest[o], bit
// for bit), or -1.
func (m *restMemo) oldFace(fi int, faceU [][3]dense.Vec2, out remesh.Result) int32 {
	o := out.FaceOld[fi]
	if o < 0 || int(o) >= len(m.faceU) || !sameBits2(faceU[fi], m.faceU[o]) {
		return -1
	}
	return o
}

// sameNodes reports whether face o of the memo's mesh is over nodes f (of a
// new mesh that out maps onto the memo's mesh) renumbered by out.NodeOld.
func (m *restMemo) sameNodes(f [3]int32, o int32, out remesh.Result) bool {
	return sameNodes(f[:], m.faces[o][:], out)
}

// hingeRestOf returns the remembered rest state of a hinge h of a new mesh,
// which out maps onto the memo's mesh, when the memo holds a hinge whose
// inputs to hingeRestFromFaces are those of h renumbered by out.NodeOld (so
// that it would compute the same rest state bit for bit). oa and ob are
// oldFace of h's two faces, or -1 where that face is not over the same nodes
// (sameNodes).
func (m *restMemo) hingeRestOf(h [4]int32, oa, ob int32, out remesh.Result) (elastic.HingeRest, bool) {
	if oa < 0 || ob < 0 {
		return elastic.HingeRest{}, false
	}
	for _, j := range m.first[oa] {
		if j < 0 {
			break
		}
		if m.hingeFaces[j][1] == ob && sameNodes(h[:], m.hinges[j][:], out) {
			return m.hingeRest[j], true
		}
	}
	return elastic.HingeRest{}, false
}

// sameNodes reports whether nodes, of a new mesh that out maps onto an old
// one, are the old mesh's nodes old renumbered by out.NodeOld.
func sameNodes(nodes, old []int32, out remesh.Result) bool {
	for k, n := range nodes {
		if out.NodeOld[n] != old[k] {
			return false
		}
	}
	return true
}

// set makes the memo hold the rest states of a write-back.
func (m *restMemo) set(faces [][3]int32, faceU [][3]dense.Vec2, faceRest []elastic.MembraneRest,
	hinges [][4]int32, hingeFaces [][2]int32, hingeRest []elastic.HingeRest) {
	m.faces, m.faceU, m.faceRest, m.hinges, m.hingeFaces, m.hingeRest = faces, faceU, faceRest, hinges, hingeFaces, hingeRest
	m.first = slices.Grow(m.first[:0], len(faces))[:len(faces)]
	for f := range m.first {
		m.first[f] = [3]int32{-1, -1, -1}
	}
	for j, hf := range hingeFaces {
		l := &m.first[hf[0]]
		for k := range l {
			if l[k] < 0 {
				l[k] = int32(j)
				break
			}
		}
	}
}

// sameBits2 reports whether a and b hold the same bits.
func sameBits2(a, b [3]dense.Vec2) bool {
	for k := range a {
		for c := range 2 {
			if math.Float64bits(a[k][c]) != math.Float64bits(b[k][c]) {
				return false
			}
		}
	}
	return true
}

// NewRemesh returns the remeshing system for the bodies of b.
func NewRemesh(b *BodyRemesher) *Remesh { return &Remesh{bodies: b} }

// NewBodyRemesher returns a remesher without bodies (AddBody registers
// them); thickness is the contact layer the interpenetration repair keeps
// clear.
func NewBodyRemesher(w *ecs.World, thickness float64) *BodyRemesher {
	return &BodyRemesher{
		thickness: thickness,
		obsF:      generic.NewFilter1[components.Obstacle](),
		vel:       generic.NewMap1[components.Velocity](w.ECS),
		faces:     generic.NewMap1[components.Face](w.ECS),
		pinned:    generic.NewMap[components.Pinned](w.ECS),
		vertMap:   generic.NewMap5[components.Position, components.Velocity, components.Mass, components.Material, components.Member](w.ECS),
		hingeMap:  generic.NewMap1[components.Hinge](w.ECS),
	}
}

// AddBody registers a body for remeshing; faceEnts lists its face entities in
// the order of mesh.Faces, and hingeEnts its hinge entities in the order of
// solver/mesh.HingesWithFaces of mesh.Faces.
func (r *BodyRemesher) AddBody(body ecs.Entity, mesh *BodyMesh, faceEnts, hingeEnts []ecs.Entity, set model.Remesh, mat model.Material) {
	r.bodies = append(r.bodies, remeshBody{entity: body, mesh: mesh, faceEnts: faceEnts, hingeEnts: hingeEnts, set: set, density: mat.Density,
		lame: elastic.Lame{Mu: mat.ShearStiffness, Lambda: mat.StretchStiffness}, kb: mat.BendingStiffness})
}

// Name implements ecs.System.
func (r *Remesh) Name() string { return "remesh" }

// Step implements ecs.System.
func (r *Remesh) Step(w *ecs.World) error {
	step := ecs.Resource[ecs.Clock](w).Step
	r.bodies.loadObstacles(w)
	changed := false
	first := true
	for bi := range r.bodies.bodies {
		b := &r.bodies.bodies[bi]
		if step%b.set.Every != 0 {
			continue
		}
		res, kept, err := r.bodies.remeshBody(w, b)
		if err != nil {
			return fmt.Errorf("body %q: %w", b.mesh.Name, err)
		}
		if !kept {
			r.Unadapted++
			continue
		}
		r.Splits += res.Splits
		r.Flips += res.Flips
		r.Collapses += res.Collapses
		if first {
			r.SizeMin, r.SizeMedian, r.SizeMax = res.MinSize, res.MedianSize, res.MaxSize
			first = false
		} else {
			r.SizeMin = math.Min(r.SizeMin, res.MinSize)
			r.SizeMax = math.Max(r.SizeMax, res.MaxSize)
			r.SizeMedian = math.Max(r.SizeMedian, res.MedianSize)
		}
		changed = true
	}
	if changed {
		w.BumpTopology()
	}
	return nil
}

// loadObstacles gathers the obstacles at their current pose.
func (r *BodyRemesher) loadObstacles(w *ecs.World) {
	r.obstacles = r.obstacles[:0]
	q := r.obsF.Query(w.ECS)
	for q.Next() {
		r.obstacles = append(r.obstacles, *q.Get())
	}
}

// gather builds the remesh.Mesh of body b from its entities: the vertex
// entities are the nodes, and the verts are the distinct (node, material
// coordinate) pairs of the faces' corners (materialVerts), so a seam node
// gets one vert per side. The faces' nodes are the body's mesh.Faces, which
// build and each write-back keep equal to the Member indices of the face
// entities' vertices; their corners' coordinates, which the EOL system
// moves, come from the entities.
func (r *BodyRemesher) gather(b *remeshBody) *remesh.Mesh {
	bm := b.mesh
	n := len(bm.Verts)
	m := &remesh.Mesh{X: make([]dense.Vec3, n), V: make([]dense.Vec3, n), Locked: make([]bool, n)}
	for i, e := range bm.Verts {
		x, v, _, _, _ := r.vertMap.Get(e)
		m.X[i], m.V[i] = dense.Vec3(*x), dense.Vec3(*v)
		m.Locked[i] = r.pinned.Has(e)
	}
	nodeFaces := slices.Clone(bm.Faces)
	faceU := make([][3]dense.Vec2, len(b.faceEnts))
	for fi, e := range b.faceEnts {
		faceU[fi] = r.faces.Get(e).U
	}
	b.gatheredU = faceU
	if u, ok := singlePanelVerts(nodeFaces, faceU, n); ok {
		m.U, m.Node, m.F = u, identityNodes(n), nodeFaces
	} else {
		m.U, m.Node, m.F = materialVerts(nodeFaces, faceU)
	}
	return m
}

// singlePanelVerts returns, when every one of the n vertices is a corner of
// some face and has the same material coordinate in all its faces (a body
// without seams), each vertex's coordinate: then materialVerts would give
// vert i on vertex i with that coordinate and the faces unchanged, and this
// finds so without its map. ok is false otherwise (the caller then uses
// materialVerts). Coordinates compare with ==, as materialVerts' map keys
// do, and the first corner's is kept.
func singlePanelVerts(faces [][3]int32, faceU [][3]dense.Vec2, n int) (u []dense.Vec2, ok bool) {
	u = make([]dense.Vec2, n)
	seen := make([]bool, n)
	left := n
	for fi, f := range faces {
		for k, v := range f {
			switch {
			case !seen[v]:
				seen[v], u[v] = true, faceU[fi][k]
				left--
			case u[v] != faceU[fi][k]:
				return nil, false
			}
		}
	}
	return u, left == 0
}

// identityNodes returns 0, 1, ..., n-1.
func identityNodes(n int) []int32 {
	node := make([]int32, n)
	for i := range node {
		node[i] = int32(i)
	}
	return node
}

// obstacleData returns, per node, the nearest obstacle point and its normal
// (sizing eq. 9).
func (r *BodyRemesher) obstacleData(m *remesh.Mesh, rng float64) sizing.Obstacles {
	if len(r.obstacles) == 0 {
		return sizing.Obstacles{}
	}
	n := len(m.X)
	obs := sizing.Obstacles{Point: make([]dense.Vec3, n), Normal: make([]dense.Vec3, n), Has: make([]bool, n), Range: rng}
	for i, x := range m.X {
		best := math.Inf(1)
		for j := range r.obstacles {
			d, nrm := geom.SignedDistance(&r.obstacles[j].Shape, r.obstacles[j].Offset, x)
			if d < best {
				best = d
				obs.Point[i] = x.Sub(nrm.Scale(d))
				obs.Normal[i] = nrm
				obs.Has[i] = true
			}
		}
	}
	return obs
}

// remeshBody runs one remeshing pass on body b and writes it back; with
// cloth self-contact, a pass that would cross other cloth or let an
// obstacle reach deeper through the cloth (worse) is left out, and kept is
// false.
func (r *BodyRemesher) remeshBody(w *ecs.World, b *remeshBody) (remesh.Result, bool, error) {
	old := r.gather(b)
	nm, out, err := r.remeshMesh(w, b, old, b.valid, true)
	if err != nil {
		return remesh.Result{}, false, err
	}
	if r.apart != nil && r.worse(w.Pool, b.entity, old, nm) {
		return remesh.Result{}, false, nil
	}
	if err := r.writeBack(w, b, nm, out, nil); err != nil {
		return remesh.Result{}, false, err
	}
	return out, true, nil
}

// remeshMesh computes the sizing field of mesh old of body b, remeshes it
// and repairs the split vertices that landed inside obstacles. valid says
// that old's connectivity is known valid (an output of the remesher or of
// conformal.Preprocess), so that the remesher need not validate it again
// (remesh.Remesher.RemeshValid); sizes asks for the result's edge size
// statistics.
func (r *BodyRemesher) remeshMesh(w *ecs.World, b *remeshBody, old *remesh.Mesh, valid, sizes bool) (*remesh.Mesh, remesh.Result, error) {
	set := b.set
	M := make([]dense.Mat2, len(old.U))
	p := sizing.Params{RefineAngle: set.RefineAngle, RefineCompression: set.RefineCompression, RefineVelocity: set.RefineVelocity,
		SizeMin: set.SizeMin, SizeMax: set.SizeMax, AspectMin: set.AspectMin}
	if err := r.sizingWS.Compute(old, r.obstacleData(old, set.SizeMax), p, w.Pool, M); err != nil {
		return nil, remesh.Result{}, fmt.Errorf("sizing field: %w", err)
	}
	rp := remesh.DefaultParams()
	rp.AspectMin = set.AspectMin
	rp.NoSizes = !sizes
	rp.MaxFaces = set.MaxFaces
	remeshFn := b.remesher.Remesh
	if valid {
		remeshFn = b.remesher.RemeshValid
	}
	nm, out, err := remeshFn(old, M, rp)
	if err != nil {
		return nil, remesh.Result{}, err
	}
	if out.Truncated {
		return nil, remesh.Result{}, truncatedError(nm, rp, set)
	}
	r.repairPenetrations(nm, old, out)
	return nm, out, nil
}

// truncatedError says which bound a remeshing pass hit with edges still
// longer than the sizing field asks (remesh.Result.Truncated): the face
// limit or the split passes.
func truncatedError(nm *remesh.Mesh, rp remesh.Params, set model.Remesh) error {
	if rp.MaxFaces > 0 && len(nm.F) >= rp.MaxFaces {
		return fmt.Errorf("remeshing stopped at %d faces, the limit for one body, with edges still longer than the sizing field asks (size_min %v m, refine_angle %v, refine_compression %v, refine_velocity %v m/s): raise remesh.size_min or the refine settings", len(nm.F), set.SizeMin, set.RefineAngle, set.RefineCompression, set.RefineVelocity)
	}
	return fmt.Errorf("remeshing stopped after %d split passes with edges still longer than the sizing field asks (size_min %v m, size_max %v m): raise remesh.size_min", rp.MaxPasses, set.SizeMin, set.SizeMax)
}

// repairPenetrations moves each vertex created by a split that lies inside
// an obstacle's contact layer back along its placement displacement towards
// the point it was interpolated from (where the old, penetration-free mesh
// had it), and, if that point is inside too, out along the obstacle normal.
func (r *BodyRemesher) repairPenetrations(nm, old *remesh.Mesh, out remesh.Result) {
	if len(r.obstacles) == 0 {
		return
	}
	for i, o := range out.NodeOld {
		if o >= 0 {
			continue
		}
		var from dense.Vec3
		for _, src := range out.Sources(i) {
			from = from.Add(old.X[src.Node].Scale(src.W))
		}
		for j := range r.obstacles {
			ob := &r.obstacles[j]
			if d, _ := geom.SignedDistance(&ob.Shape, ob.Offset, nm.X[i]); d >= r.thickness {
				continue
			}
			// Bisect on the segment from the interpolated point to the
			// placed one for the farthest point that is clear.
			lo, hi := 0.0, 1.0
			if d, _ := geom.SignedDistance(&ob.Shape, ob.Offset, from); d >= r.thickness {
				for range 30 {
					mid := (lo + hi) / 2
					if d, _ := geom.SignedDistance(&ob.Shape, ob.Offset, from.Add(nm.X[i].Sub(from).Scale(mid))); d >= r.thickness {
						lo = mid
					} else {
						hi = mid
					}
				}
				nm.X[i] = from.Add(nm.X[i].Sub(from).Scale(lo))
				continue
			}
			d, nrm := geom.SignedDistance(&ob.Shape, ob.Offset, from)
			nm.X[i] = from.Add(nrm.Scale(r.thickness - d))
		}
	}
}

// writeBackScratch is writeBack's per-body scratch.
type writeBackScratch struct {
	mass  []float64    // per new node
	uOf   []dense.Vec2 // per new node, its first vert's coordinate
	hasU  []bool
	kept  []int32 // per new face, the memo face it was over the same nodes, or -1
	keep  []bool  // per old node
	keepF []bool  // per old face
}

// writeBack turns the remeshed body nm, an output of the remesher or of
// conformal.Preprocess, into entities. side, when not nil, runs on the
// world's pool concurrently with the hinges' rest states, before any entity
// is written; it must not touch the world.
func (r *BodyRemesher) writeBack(w *ecs.World, b *remeshBody, nm *remesh.Mesh, out remesh.Result, side func() error) error {
	n := len(nm.X)
	s := &b.wb
	// The new faces over nodes, their corners' material coordinates and
	// rest shapes, and the lumped masses.
	faces := make([][3]int32, len(nm.F))
	faceU := resize(b.spare.faceU, len(nm.F))
	rests := resize(b.spare.faceRest, len(nm.F))
	s.kept = resize(s.kept, len(nm.F))
	s.mass = resize(s.mass, n)
	clear(s.mass)
	for fi, f := range nm.F {
		faces[fi] = [3]int32{nm.Node[f[0]], nm.Node[f[1]], nm.Node[f[2]]}
		faceU[fi] = [3]dense.Vec2{nm.U[f[0]], nm.U[f[1]], nm.U[f[2]]}
		o := b.memo.oldFace(fi, faceU, out)
		if o >= 0 {
			rests[fi] = b.memo.faceRest[o]
			if !b.memo.sameNodes(faces[fi], o, out) {
				o = -1
			}
		} else {
			var err error
			if rests[fi], err = elastic.NewMembraneRest(nm.U[f[0]], nm.U[f[1]], nm.U[f[2]]); err != nil {
				return fmt.Errorf("remeshed face %d: %w", fi, err)
			}
		}
		s.kept[fi] = o
		for _, v := range f {
			s.mass[nm.Node[v]] += b.density * rests[fi].Area / 3
		}
	}

	// The hinges with their rest states and the side task at once, on the
	// pool; then the entities of the nodes and faces, on this goroutine,
	// the only one that touches the World.
	var hinges [][4]int32
	var hingeFaces [][2]int32
	var hingeRests []elastic.HingeRest
	tasks := []func() error{
		func() (err error) {
			hinges, hingeFaces, hingeRests, err = b.hingeRests(faces, faceU, n, out)
			return err
		},
	}
	if side != nil {
		tasks = append(tasks, side)
	}
	if err := concurrently(w.Pool, tasks...); err != nil {
		return err
	}
	verts, faceEnts, err := r.writeNodesFaces(w, b, nm, out, faces, faceU, rests)
	if err != nil {
		return err
	}

	// The body's hinge entities take the new hinges in order (so that, with
	// one body, the hinges' storage order is the order of the list, as if
	// they had all been created anew).
	for hi, h := range hinges {
		c := components.Hinge{V: [4]ecs.Entity{verts[h[0]], verts[h[1]], verts[h[2]], verts[h[3]]}, Rest: hingeRests[hi], Stiffness: b.kb}
		if hi < len(b.hingeEnts) {
			*r.hingeMap.Get(b.hingeEnts[hi]) = c
			continue
		}
		b.hingeEnts = append(b.hingeEnts, r.hingeMap.NewWith(&c))
	}
	// Surplus entities go from the end, so that no other hinge moves in
	// the storage.
	for hi := len(b.hingeEnts) - 1; hi >= len(hinges); hi-- {
		w.ECS.RemoveEntity(b.hingeEnts[hi])
	}
	b.hingeEnts = b.hingeEnts[:len(hinges)]
	b.spare = b.memo
	b.spare.faces = nil
	b.memo.set(faces, faceU, rests, hinges, hingeFaces, hingeRests)

	bm := b.mesh
	bm.Verts, bm.Faces = verts, faces
	bm.U, bm.UFaces = vec2s(nm.U), nm.F
	b.faceEnts = faceEnts
	b.valid = true
	return nil
}

// writeNodesFaces gives the nodes and faces of the remeshed body nm their
// entities, with faces and faceU the new faces over nodes and their
// corners' coordinates and rests their rest shapes (and b.wb.mass the
// nodes' masses): surviving nodes and faces keep theirs, new ones are
// created and the others removed. It returns the entities of nm's nodes
// and of its faces.
func (r *BodyRemesher) writeNodesFaces(w *ecs.World, b *remeshBody, nm *remesh.Mesh, out remesh.Result,
	faces [][3]int32, faceU [][3]dense.Vec2, rests []elastic.MembraneRest) ([]ecs.Entity, []ecs.Entity, error) {
	bm, s := b.mesh, &b.wb
	n := len(nm.X)
	// Each node's representative material coordinate (components.Material):
	// that of its first vert.
	s.uOf, s.hasU = resize(s.uOf, n), resize(s.hasU, n)
	clear(s.hasU)
	for v, node := range nm.Node {
		if !s.hasU[node] {
			s.uOf[node], s.hasU[node] = nm.U[v], true
		}
	}

	// Nodes: keep, create, remove.
	s.keep = resize(s.keep, len(bm.Verts))
	clear(s.keep)
	verts := make([]ecs.Entity, n)
	for i, o := range out.NodeOld {
		x, v := components.Position(nm.X[i]), components.Velocity(nm.V[i])
		u, m := components.Material(s.uOf[i]), components.Mass(s.mass[i])
		mem := components.Member{Body: b.entity, Index: int32(i)}
		if o >= 0 {
			e := bm.Verts[o]
			s.keep[o] = true
			verts[i] = e
			pe, ve, me, ue, be := r.vertMap.Get(e)
			*pe, *ve, *me, *ue, *be = x, v, m, u, mem
			continue
		}
		verts[i] = r.vertMap.NewWith(&x, &v, &m, &u, &mem)
	}
	for o, e := range bm.Verts {
		if !s.keep[o] {
			if r.pinned.Has(e) {
				return nil, nil, fmt.Errorf("remeshing removed pinned vertex %d", o)
			}
			w.ECS.RemoveEntity(e)
		}
	}

	// Faces: keep unchanged triples, create the rest.
	s.keepF = resize(s.keepF, len(b.faceEnts))
	clear(s.keepF)
	faceEnts := make([]ecs.Entity, len(faces))
	for fi, f := range faces {
		V := [3]ecs.Entity{verts[f[0]], verts[f[1]], verts[f[2]]}
		if o := out.FaceOld[fi]; o >= 0 {
			// Same verts, so the same material coordinates and rest shape.
			s.keepF[o] = true
			faceEnts[fi] = b.faceEnts[o]
			// The entity holds the vertices of the input's nodes
			// bm.Faces[o] and the coordinates gather read: it changes
			// only where nodes were renumbered or coordinates differ.
			if sameNodes(f[:], bm.Faces[o][:], out) && sameBits2(faceU[fi], b.gatheredU[o]) {
				continue
			}
			fc := r.faces.Get(faceEnts[fi])
			fc.V, fc.U = V, faceU[fi]
			continue
		}
		faceEnts[fi] = r.faces.NewWith(&components.Face{Body: b.entity, V: V, U: faceU[fi], Rest: rests[fi], Lame: b.lame})
	}
	for o, e := range b.faceEnts {
		if !s.keepF[o] {
			w.ECS.RemoveEntity(e)
		}
	}
	return verts, faceEnts, nil
}

// hingeRests returns the hinges of the new faces of body b (over its n
// nodes, with corner coordinates faceU), which out maps onto the input
// mesh: the interior edges in world space (seam edges included), with their
// faces and seam-aware flat rest states (remembered where the memo has
// them; b.wb.kept gives each face's memo face). It touches no entity.
func (b *remeshBody) hingeRests(faces [][3]int32, faceU [][3]dense.Vec2, n int, out remesh.Result) ([][4]int32, [][2]int32, []elastic.HingeRest, error) {
	hinges, hingeFaces := b.hingeB.Append(b.spare.hinges[:0], b.spare.hingeFaces[:0], faces, n)
	rests := resize(b.spare.hingeRest, len(hinges))
	kept := b.wb.kept
	for hi, h := range hinges {
		fa, fb := hingeFaces[hi][0], hingeFaces[hi][1]
		rest, ok := b.memo.hingeRestOf(h, kept[fa], kept[fb], out)
		if !ok {
			var err error
			if rest, err = hingeRestFromFaces(h, faces[fa], faces[fb], faceU[fa], faceU[fb]); err != nil {
				return nil, nil, nil, fmt.Errorf("remeshed hinge %d: %w", hi, err)
			}
		}
		rests[hi] = rest
	}
	return hinges, hingeFaces, rests, nil
}
