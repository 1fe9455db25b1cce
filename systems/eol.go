package systems

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/blockqp"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/qp"
	"github.com/loomsim/loom/solver/sparse"
)

// EOLCloth is Eulerian-on-Lagrangian cloth (Weidner 2018): cloth vertices on
// sharp features of obstacles (box edges and corners, wires, nail points)
// carry a material-space velocity Xdot besides their world velocity
// (components.EOL), and each step solves the QP of eq. 12 over the
// generalized velocities q' = (v of every vertex, Xdot of every EOL vertex)
// with the generalized inertia of eq. 8, the forces and stiffness mapped by
// eq. 9-10, the pins as equalities, the Lagrangian obstacle contacts as
// inequalities and the EOL constraints of sec. 5 (Alg. 2, errata Alg. 1 and
// sec. 3). Its systems are the step's conformal remeshing (Conformal), the
// solve (Solve) and the position update with lift-off and friction
// (Integrate).
type EOLCloth struct {
	state     *ClothState
	contact   *ObstacleContact
	set       model.EOLSettings
	solver    model.Solver
	gravity   dense.Vec3
	thickness float64
	friction  float64
	density   map[ecs.Entity]float64 // per body entity
	strainMax map[ecs.Entity]float64 // per body entity with strain limits: its largest principal strain

	eolF    *generic.Filter1[components.EOL]
	eolMap  generic.Map[components.EOL]
	eolGet  generic.Map1[components.EOL]
	obsF    *generic.Filter1[components.Obstacle]
	faceMap generic.Map1[components.Face]
	matMap  generic.Map1[components.Material]
	massMap generic.Map1[components.Mass]
	posMap  generic.Map1[components.Position]
	velMap  generic.Map1[components.Velocity]

	// Topology-derived (rebuilt when the topology version changes).
	topology     uint64
	dof          map[ecs.Entity]int32
	faces        [][3]int32     // the state's faces as triangles (refreshTopology)
	vfs          mesh.Incidence // vertex -> incident faces
	vfStart      []int32        // vfs.Start
	vfList       []int32        // vfs.Faces
	border       []bool
	corner       []bool
	borderNormal []dense.Vec2 // outward, material space, unit
	borders      borderWork   // holds borderNormal and corner

	// Gathered from the components (the solve and the integration read
	// these, never the components) and scattered back by advanceMaterial.
	// mat is per vertex (DOF order), components.Material: every vertex's at
	// the last topology change (materialOf), the EOL vertices' re-read at
	// every gather (gatherMaterial). faceU is per face (state.FaceEnts
	// order), components.Face.U: the EOL vertices' faces re-read at every
	// gather; nothing reads the other faces' entries.
	mat   []dense.Vec2
	faceU [][3]dense.Vec2

	// vertexF's buffers, one per caller that may run at the same time as
	// another (ConformalRemesh has its own).
	releaseF, solveF fScratch

	// Per step.
	obstacles   []components.Obstacle
	obstacleEnt []ecs.Entity
	obstacleIdx map[ecs.Entity]int32
	featStart   []int32 // index of each obstacle's first feature
	features    []geom.Feature
	ends        map[int32]conformal.EdgeEnds // the corners at the box edges' ends
	verts       []eolVertex                  // the EOL vertices, by DOF
	eolOf       []int32                      // per cloth vertex: index into verts, -1
	exclude     []bool
	rows        []eolRow
	qpSolver    *qp.Solver
	block       blockqp.Solver
	groups      []blockqp.Group
	groupOf     []int32 // per vertex, its group (see groupOrder)
	order       []int32 // per group, its vertex
	domains     []int   // the groups' sweep domains (blockqp.Problem.Domains)
	rcm         sparse.RCM
	dissect     sparse.Dissection
	vars        []int32
	brows       []blockqp.Row
	coefs       []float64 // the blockqp rows' coefficients, back to back
	coefAt      []int     // where each row's coefficients start in coefs
	warm        qp.Result
	lastActive  activeSet
	asm         eolAssembly
	stretch0    []float64 // materialStepLimit: the incident faces' stretch before the step
	lifted      []int     // EOLFriction: the EOL vertices (indices into verts) that lift off
	skip        []bool    // advanceMaterial: per EOL vertex, lifted
	faceMark    []bool    // advanceMaterial: per face, its material changed
	vertMark    []bool    // advanceMaterial: per vertex, a corner of a changed face
	faceList    []int32   // advanceMaterial: the marked faces, in order of marking
	vertList    []int32   // advanceMaterial: the marked vertices, in order of marking
	eqM, inM    qp.CSR
	beq, bin    []float64
	rhs         []float64
	m8          [225]float64

	// Self-contact: each body's stretches of the features (shieldHits),
	// rebuilt at the first call of step claimStep.
	claims    []featureClaim
	claimStep int
	claimed   bool

	soft softScratch // softContacts' buffers

	// Stats of the last step.
	LastQP QPStats
	// Soft counts the soft contacts (softContacts) since the last Measure.
	Soft int
	// FillTime is the eol-solve time spent assembling the generalized
	// system (eq. 8-10), QPTime the time solving it (eq. 12).
	FillTime, QPTime time.Duration
}

// eolVertex is an EOL vertex gathered for the step.
type eolVertex struct {
	ent     ecs.Entity
	v       int32 // DOF (vertex) index
	feature int32 // index into features
	comp    components.EOL
	F       dense.Mat32 // vertex deformation gradient (errata sec. 1)
	xdot    dense.Vec2  // Eulerian velocity at the start of the step
	xdotNew dense.Vec2
	flat    bool
	lifted  bool // it left its feature at the end of the step
	rowLo   int  // its rows in EOLCloth.rows
	rowHi   int
}

// eolRow is one constraint row L.v_V + E.Xdot_K = / >= Target of the step's
// QP; K < 0 for rows without Eulerian part (Lagrangian contact rows are
// separate).
type eolRow struct {
	V, K   int32
	L      dense.Vec3
	E      dense.Vec2
	Eq     bool
	Target float64
	Y      float64 // the solved multiplier
}

// NewEOLCloth returns the EOL cloth model for the gathered state with the
// solver settings sol (its EOL settings must be set); density gives each
// body entity's area density.
func NewEOLCloth(w *ecs.World, state *ClothState, contact *ObstacleContact, sol model.Solver, gravity dense.Vec3, density map[ecs.Entity]float64) *EOLCloth {
	return &EOLCloth{
		state: state, contact: contact, set: *sol.EOL, solver: sol, gravity: gravity, thickness: sol.Thickness, friction: sol.Friction, density: density,
		eolF:        generic.NewFilter1[components.EOL](),
		eolMap:      generic.NewMap[components.EOL](w.ECS),
		eolGet:      generic.NewMap1[components.EOL](w.ECS),
		obsF:        generic.NewFilter1[components.Obstacle](),
		faceMap:     generic.NewMap1[components.Face](w.ECS),
		matMap:      generic.NewMap1[components.Material](w.ECS),
		massMap:     generic.NewMap1[components.Mass](w.ECS),
		posMap:      generic.NewMap1[components.Position](w.ECS),
		velMap:      generic.NewMap1[components.Velocity](w.ECS),
		dof:         map[ecs.Entity]int32{},
		obstacleIdx: map[ecs.Entity]int32{},
	}
}

// Solve is the system that solves the step's QP (Weidner 2018 eq. 12).
func (c *EOLCloth) Solve() ecs.System { return EOLSolve{c} }

// Friction is the system that applies friction (sec. 7) and lifts EOL
// vertices off, on the solved velocities.
func (c *EOLCloth) Friction() ecs.System { return EOLFriction{c} }

// Integrate is the system that updates positions and material coordinates,
// takes the lifted vertices' EOL state and scatters the state.
func (c *EOLCloth) Integrate(w *ecs.World) ecs.System {
	return &EOLIntegrate{c: c, in: NewIntegrate(w, c.state)}
}

// Assign is the system, run before collision detection, that gathers the EOL
// vertices and keeps them out of the Lagrangian obstacle contacts.
func (c *EOLCloth) Assign() ecs.System { return EOLAssign{c} }

// EOLAssign gathers the step's EOL vertices and makes Lagrangian those that
// also touch another obstacle (EOLCloth.Assign).
type EOLAssign struct{ c *EOLCloth }

// Name implements ecs.System.
func (m EOLAssign) Name() string { return "eol-assign" }

// Step implements ecs.System.
func (m EOLAssign) Step(w *ecs.World) error {
	if err := m.c.gather(w); err != nil {
		return err
	}
	if m.c.releaseCrowded(w) {
		return m.c.gather(w)
	}
	return nil
}

// releaseCrowded makes Lagrangian every EOL vertex that also touches another
// obstacle (within the contact layer and a half): EOL handles the contact of
// cloth with one rigid feature, and like the paper's implementation (sec.
// 8.1) loom defaults to Lagrangian handling for anything else. The vertex
// keeps the world velocity of its material (eq. 2). It reports whether any
// vertex was released.
func (c *EOLCloth) releaseCrowded(w *ecs.World) bool {
	s := c.state
	var out []int
	for k := range c.verts {
		ev := &c.verts[k]
		own := c.features[ev.feature].Obstacle
		x := vec(s.X, ev.v)
		for j := range c.obstacles {
			if int32(j) == own {
				continue
			}
			if d, _ := geom.SignedDistance(&c.obstacles[j].Shape, c.obstacles[j].Offset, x); d < 1.5*c.thickness {
				out = append(out, k)
				break
			}
		}
	}
	for _, k := range out {
		ev := &c.verts[k]
		F, _, err := c.vertexF(ev.v, &c.releaseF)
		if err != nil {
			continue // no usable faces: leave it to the solve to report
		}
		v := eol.LiftOffVelocity(vec(s.V, ev.v), ev.xdot, F)
		copy(s.V[3*ev.v:3*ev.v+3], v[:])
		*c.velMap.Get(ev.ent) = components.Velocity(v)
		c.eolGet.Remove(ev.ent)
	}
	return len(out) > 0
}

// EOLSolve assembles and solves the step's QP (EOLCloth.Solve).
type EOLSolve struct{ c *EOLCloth }

// Name implements ecs.System.
func (s EOLSolve) Name() string { return "eol-solve" }

// Step implements ecs.System.
func (s EOLSolve) Step(w *ecs.World) error { return s.c.solve(w) }

// refreshTopology rebuilds the vertex-face adjacency and the border data.
func (c *EOLCloth) refreshTopology(w *ecs.World) {
	s := c.state
	if c.topology == w.TopologyVersion() && c.dof != nil && len(c.border) == s.NumVerts() {
		return
	}
	c.topology = w.TopologyVersion()
	n := s.NumVerts()
	clear(c.dof)
	for i, e := range s.Verts {
		c.dof[e] = int32(i)
	}
	c.faces = c.faces[:0]
	for f := 0; 3*f < len(s.Faces); f++ {
		c.faces = append(c.faces, [3]int32{s.Faces[3*f], s.Faces[3*f+1], s.Faces[3*f+2]})
	}
	c.vfs.Build(c.faces, nil, n)
	c.vfStart, c.vfList = c.vfs.Start, c.vfs.Faces
	c.borderNormal, c.corner = c.borders.borderNormals(c.faces, c.materialOf(w), nil, n)
	c.border = append(c.border[:0], make([]bool, n)...)
	for i, b := range c.borderNormal {
		c.border[i] = b != (dense.Vec2{})
	}
}

// material returns vertex v's material coordinate (gathered).
func (c *EOLCloth) material(v int32) dense.Vec2 {
	return c.mat[v]
}

// materialOf gathers every vertex's material coordinate into c.mat (its
// storage reused) and returns it.
func (c *EOLCloth) materialOf(w *ecs.World) []dense.Vec2 {
	s := c.state
	c.mat = resize(c.mat, s.NumVerts())
	for i, e := range s.Verts {
		c.mat[i] = dense.Vec2(*c.matMap.Get(e))
	}
	return c.mat
}

// gatherMaterial reads, from the components, the material coordinates of
// the EOL vertices (into c.mat) and their faces' corners' material
// coordinates (into c.faceU, sized to the state's faces): all that the
// solve and the integration read of them. It runs on the system's
// goroutine at every gather, after the EOL vertices are gathered.
func (c *EOLCloth) gatherMaterial() {
	s := c.state
	c.mat = resize(c.mat, s.NumVerts())
	c.faceU = resize(c.faceU, len(s.FaceEnts))
	for k := range c.verts {
		ev := &c.verts[k]
		c.mat[ev.v] = dense.Vec2(*c.matMap.Get(ev.ent))
		for _, f := range c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]] {
			c.faceU[f] = c.faceMap.Get(s.FaceEnts[f]).U
		}
	}
}

// loadObstacles gathers the obstacles at their current pose and their sharp
// features.
func (c *EOLCloth) loadObstacles(w *ecs.World) {
	c.obstacles, c.obstacleEnt, c.featStart, c.features = c.obstacles[:0], c.obstacleEnt[:0], c.featStart[:0], c.features[:0]
	clear(c.obstacleIdx)
	q := c.obsF.Query(w.ECS)
	for q.Next() {
		c.obstacleIdx[q.Entity()] = int32(len(c.obstacles))
		c.obstacles = append(c.obstacles, *q.Get())
		c.obstacleEnt = append(c.obstacleEnt, q.Entity())
	}
	for i := range c.obstacles {
		c.featStart = append(c.featStart, int32(len(c.features)))
		c.features = geom.AppendMovingFeatures(c.features, &c.obstacles[i].Shape, c.obstacles[i].Offset, c.obstacles[i].Vel, c.obstacles[i].Omega, int32(i), c.thickness)
	}
	c.ends = featureEnds(c.ends, c.features)
}

// featureOf returns the index into features of an EOL vertex's feature.
func (c *EOLCloth) featureOf(e *components.EOL) (int32, error) {
	oi, ok := c.obstacleIdx[e.Obstacle]
	if !ok {
		return 0, fmt.Errorf("EOL vertex on a removed obstacle")
	}
	k := c.featStart[oi] + e.Feature
	end := int32(len(c.features))
	if int(oi)+1 < len(c.featStart) {
		end = c.featStart[oi+1]
	}
	if e.Feature < 0 || k >= end {
		return 0, fmt.Errorf("EOL vertex on feature %d of obstacle %q, which has %d", e.Feature, c.obstacles[oi].Name, end-c.featStart[oi])
	}
	return k, nil
}

// gather collects the EOL vertices of the step (after DerivedData) and marks
// them excluded from the Lagrangian contacts.
func (c *EOLCloth) gather(w *ecs.World) error {
	s := c.state
	c.refreshTopology(w)
	c.loadObstacles(w)
	n := s.NumVerts()
	c.eolOf = resizeI32(c.eolOf, n)
	for i := range c.eolOf {
		c.eolOf[i] = -1
	}
	c.exclude = append(c.exclude[:0], make([]bool, n)...)
	c.verts = c.verts[:0]
	q := c.eolF.Query(w.ECS)
	for q.Next() {
		e := q.Entity()
		i, ok := c.dof[e]
		if !ok {
			q.Close()
			return fmt.Errorf("EOL component on an entity that is not a cloth vertex")
		}
		comp := *q.Get()
		k, err := c.featureOf(&comp)
		if err != nil {
			q.Close()
			return err
		}
		c.verts = append(c.verts, eolVertex{ent: e, v: i, feature: k, comp: comp, xdot: comp.XDot})
	}
	sort.Slice(c.verts, func(a, b int) bool { return c.verts[a].v < c.verts[b].v })
	for k := range c.verts {
		c.eolOf[c.verts[k].v] = int32(k)
		c.exclude[c.verts[k].v] = true
	}
	c.gatherMaterial()
	return nil
}

// excluded returns the EOL vertices of the last gather, by DOF: the
// obstacle contacts leave them to the EOL constraints.
func (c *EOLCloth) excluded() []bool { return c.exclude }

func resizeI32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

// faceX returns face f's world positions and material coordinates.
func (c *EOLCloth) faceX(f int) (x [3]dense.Vec3, u [3]dense.Vec2) {
	s := c.state
	for k := range 3 {
		x[k] = vec(s.X, s.Faces[3*f+k])
	}
	return x, c.faceU[f]
}

// fScratch holds the per-face buffers of vertexF and nodeF, grown as needed
// and never shrunk. Callers that may run at the same time (pool tasks) each
// own one.
type fScratch struct {
	Fs []dense.Mat32
	ws []float64
	ns []dense.Vec3
}

// vertexF computes an EOL vertex's deformation gradient by the errata's
// rotation / stretch averaging over all its faces, weighted by their
// incident material-space angles, and whether it is locally flat (errata
// Alg. 1). It reads the gathered arrays only; sc is the caller's scratch.
func (c *EOLCloth) vertexF(v int32, sc *fScratch) (dense.Mat32, bool, error) {
	Fs, ws, ns := sc.Fs[:0], sc.ws[:0], sc.ns[:0]
	for _, f := range c.vfList[c.vfStart[v]:c.vfStart[v+1]] {
		x, u := c.faceX(int(f))
		F, ok := eol.FaceF(x, u)
		if !ok {
			continue
		}
		corner := 0
		for j := range 3 {
			if c.state.Faces[3*int(f)+j] == v {
				corner = j
			}
		}
		Fs = append(Fs, F)
		ws = append(ws, cornerAngle(u, corner))
		nrm := x[1].Sub(x[0]).Cross(x[2].Sub(x[0]))
		ns = append(ns, nrm.Scale(1/nrm.Norm()))
	}
	sc.Fs, sc.ws, sc.ns = Fs, ws, ns
	flat := eol.LocallyFlat(ns, c.set.FlatAngle*math.Pi/180)
	F, ok := eol.VertexF(Fs, ws)
	if !ok {
		return F, flat, fmt.Errorf("EOL vertex %d has no non-degenerate face", v)
	}
	return F, flat, nil
}

// materialTangent is t-bar of Alg. 2: the average material direction of the
// vertex's conformal edges (to neighbours on the same feature); with fewer
// than two, the material direction that F maps onto the feature's line.
func (c *EOLCloth) materialTangent(ev *eolVertex) dense.Vec2 {
	s := c.state
	var nb []int32
	for _, f := range c.vfList[c.vfStart[ev.v]:c.vfStart[ev.v+1]] {
		for j := range 3 {
			o := s.Faces[3*int(f)+j]
			if o == ev.v || c.eolOf[o] < 0 || c.verts[c.eolOf[o]].feature != ev.feature {
				continue
			}
			dup := false
			for _, b := range nb {
				dup = dup || b == o
			}
			if !dup {
				nb = append(nb, o)
			}
		}
	}
	if len(nb) == 2 {
		u := c.material(ev.v)
		if t, ok := eol.MaterialTangent(c.material(nb[0]).Sub(u), c.material(nb[1]).Sub(u)); ok {
			return t
		}
	}
	return featureTangent(ev.F, c.features[ev.feature].Dir)
}

// cornerAngle is the interior angle (radians) of material triangle u at its
// corner k: the weight of the face in a vertex deformation gradient (errata
// eq. 6-7).
func cornerAngle(u [3]dense.Vec2, k int) float64 {
	a, b := u[(k+1)%3].Sub(u[k]), u[(k+2)%3].Sub(u[k])
	return math.Atan2(math.Abs(a[0]*b[1]-a[1]*b[0]), a[0]*b[0]+a[1]*b[1])
}
