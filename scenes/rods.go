package scenes

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/fabric"
)

// MaxRodNodes bounds Strand.Nodes at the longest strand run to the end of
// its steps on a 2-core, 23 GB machine: rod-hang with 262144 nodes. At
// 1048576 nodes (the earlier maximum) one step took 4.5 min of CPU time and
// 5.9 GB, and the second had not ended after 3 more minutes.
// scenes/README.md documents the same number (a cmd/loom test reads it).
const MaxRodNodes = 1 << 18

// MaxReleaseSteps bounds Rods.ReleaseSteps (beyond it a pulling contact is
// never released in any scene's run).
const MaxReleaseSteps = 1 << 20

// Rods holds a scene's rods (yarns): elastic strands simulated with
// Eulerian-on-Lagrangian nodes (Sanchez-Banderas et al. 2020).
type Rods struct {
	EIL      bool    `json:"eil"`      // allow EIL nodes (Sanchez-Banderas 2020); false = pure EoL, for comparison
	Friction float64 `json:"friction"` // Coulomb coefficient >= 0 at rod-rod sliding contacts
	// PairFriction is the Coulomb coefficient (>= 0) at the yarn pairs
	// pressed together during the run (non-persistent contacts, held apart
	// by penalties); 0/absent: none (SB2020's penalties are frictionless).
	PairFriction    float64    `json:"pair_friction"`
	ContactDistance float64    `json:"contact_distance"` // m, > 0: rod segments of different strands closer than this at load time get a sliding contact
	Strands         []Strand   `json:"strands"`          // at least one strand or fabric when rods is present
	Fabrics         []Fabric   `json:"fabrics"`          // yarn-level patches built from their patterns; may be empty/absent
	EdgeNodes       []EdgeNode `json:"edge_nodes"`       // may be empty/absent
	// ReleaseSteps is how many consecutive steps a sliding contact that is
	// not a woven crossing must pull its rods together before it is
	// removed, and an edge node placed at a box edge must hold its yarn
	// down; 0/absent: 50 (rods started straight pull at their contacts for
	// a few steps while they settle).
	ReleaseSteps int `json:"release_steps"`
	// ProjectBend makes Newton use the bend Hessian projected to positive
	// semi-definite (projected Newton) instead of the exact one: about 10x
	// the cost per bend element; it finishes runs with soft anchors where
	// exact Newton fails. Default false.
	ProjectBend bool `json:"project_bend"`
	// DegenerateRestart restarts a step whose Newton iterate slides an EoL
	// node within half the safety distance of its neighbour, with the node
	// EIL (rodstep.Settings.DegenerateRestart); default false.
	DegenerateRestart bool `json:"degenerate_restart"`
	// PredictContacts turns on the rod Newton's obstacle contact prediction
	// (rodstep.Settings.PredictContacts); default false.
	PredictContacts bool `json:"predict_contacts"`
	// Linear is the Newton systems' solver: "" or "auto" (direct below
	// rodstep.AutoLagged unknowns, lagged up to rodstep.AutoIterative,
	// iterative above), "direct" (sparse LDL^T), "lagged" (the last LDL^T
	// factor preconditioning conjugate gradients) or "iterative" (conjugate
	// gradients with the yarns' own submatrices as additive Schwarz
	// preconditioner).
	Linear string `json:"linear"`
}

// The values of Rods.Linear.
const (
	RodLinearAuto      = "auto"
	RodLinearDirect    = "direct"
	RodLinearIterative = "iterative"
	RodLinearLagged    = "lagged"
)

// Strand is one rod, initially straight from From to To at rest, or curved
// along Points.
type Strand struct {
	Name string     `json:"name"` // non-empty, unique among bodies, obstacles and strands, no whitespace (OBJ object name)
	From [3]float64 `json:"from"` // m, start point (absent with points)
	To   [3]float64 `json:"to"`   // m, end point (distinct from From): the strand is initially straight, at rest length |To-From|
	// Points, when given (at least 2), make a curved strand: the polyline
	// through them (or, with Spline, the Catmull-Rom spline through them),
	// resampled to Nodes nodes with equal chords; it is at rest in that shape
	// (its rest bend is its initial shape).
	Points   [][3]float64 `json:"points"`
	Spline   bool         `json:"spline"`
	Radius   float64      `json:"radius"`   // m, >= 0: yarn radius, for tube output; 0: none
	Nodes    int          `json:"nodes"`    // >= 2: Lagrangian nodes, evenly spaced in arc length (u = 0 ... length)
	Material RodMaterial  `json:"material"` // constitutive parameters
	Pins     []RodPin     `json:"pins"`     // may be empty/absent
	Fixed    bool         `json:"fixed"`    // the whole strand is held in place (e.g. the fixed grid of rod-incline)
}

// RodMaterial holds a strand's constitutive parameters.
type RodMaterial struct {
	StretchStiffness float64 `json:"stretch_stiffness"` // N, > 0 (k_s of Sanchez-Banderas eq. 2)
	BendingStiffness float64 `json:"bending_stiffness"` // N m^2, >= 0 (k_b of eq. 4)
	LinearDensity    float64 `json:"linear_density"`    // kg/m, > 0
	Damping          float64 `json:"damping"`           // 1/s, >= 0, mass-proportional
}

// RodPin constrains one strand node.
type RodPin struct {
	Node   int     `json:"node"`   // node index, negative counts from the end (-1 = last); in range; no duplicates within a strand
	Motion *Motion `json:"motion"` // nil: fixed in place
}

// EdgeNode places an Eulerian-on-Lagrangian node on a strand where it rests
// on a sharp edge (e.g. a table's top edge).
type EdgeNode struct {
	Strand string     `json:"strand"` // name of an existing strand
	U      float64    `json:"u"`      // in (0, 1): fraction of the strand's rest length where the EoL edge node is created
	A      [3]float64 `json:"a"`      // the sharp edge's end points (distinct)
	B      [3]float64 `json:"b"`
}

// GravityVector returns Gravity rotated about the world +x axis by InclineDeg
// (right-handed): for gravity [0, 0, -g] and incline θ it is
// [0, g sin θ, -g cos θ]. Exact for multiples of 90 degrees.
func (s *Scene) GravityVector() [3]float64 {
	sn, c := sincosDeg(s.InclineDeg)
	g := s.Gravity
	return [3]float64{g[0], c*g[1] - sn*g[2], sn*g[1] + c*g[2]}
}

// Length returns the strand's rest length: |To - From|, or the length of its
// resampled curve.
func (st *Strand) Length() float64 {
	if len(st.Points) > 0 {
		pts := st.curve()
		if pts == nil {
			return 0
		}
		return fabric.ArcLength(pts)
	}
	dx, dy, dz := st.To[0]-st.From[0], st.To[1]-st.From[1], st.To[2]-st.From[2]
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// splineSamples is the number of samples per span of a spline strand before
// resampling.
const splineSamples = 32

// curve returns a curved strand's Nodes nodes (nil if Points or Nodes are
// invalid).
func (st *Strand) curve() []dense.Vec3 {
	pts := make([]dense.Vec3, len(st.Points))
	for k, p := range st.Points {
		pts[k] = p
	}
	if st.Spline {
		pts = fabric.CatmullRom(pts, splineSamples)
	}
	out, err := fabric.Resample(pts, st.Nodes)
	if err != nil {
		return nil
	}
	return out
}

// NodePositions returns the Nodes initial node positions: evenly spaced from
// From (node 0) to To (node Nodes-1), both exact, or along the curve of
// Points with equal chords. It returns nil when Nodes < 2.
func (st *Strand) NodePositions() [][3]float64 {
	n := st.Nodes
	if n < 2 {
		return nil
	}
	if len(st.Points) > 0 {
		c := st.curve()
		if c == nil {
			return nil
		}
		out := make([][3]float64, n)
		for k, p := range c {
			out[k] = p
		}
		return out
	}
	out := make([][3]float64, n)
	for i := range n {
		t := float64(i) / float64(n-1)
		for k := range 3 {
			out[i][k] = (1-t)*st.From[k] + t*st.To[k]
		}
	}
	out[n-1] = st.To
	return out
}

// PinNode resolves a node index as written in a RodPin (negative counts from
// the end: -1 is the last node) to a node index in [0, Nodes). It returns -1
// when k is out of range (never for a pin of a validated scene).
func (st *Strand) PinNode(k int) int {
	i, ok := normIndex(k, st.Nodes)
	if !ok {
		return -1
	}
	return i
}

func validateRods(v *validator, r *Rods, p string, names map[string]string) {
	v.nonNegative(p+".friction", r.Friction)
	v.nonNegative(p+".pair_friction", r.PairFriction)
	v.positive(p+".contact_distance", r.ContactDistance)
	if r.ReleaseSteps < 0 || r.ReleaseSteps > MaxReleaseSteps {
		v.fail(p+".release_steps", "must be in 0..%d (0: the default, 50), got %d", MaxReleaseSteps, r.ReleaseSteps)
	}
	switch r.Linear {
	case "", RodLinearAuto, RodLinearDirect, RodLinearIterative, RodLinearLagged:
	default:
		v.fail(p+".linear", "must be %q, %q, %q or %q, got %q", RodLinearAuto, RodLinearDirect, RodLinearIterative, RodLinearLagged, r.Linear)
	}
	if len(r.Strands) == 0 && len(r.Fabrics) == 0 {
		v.fail(p+".strands", "at least one strand or fabric is required when rods is present")
	}
	strands := map[string]bool{}
	for si := range r.Strands {
		st := &r.Strands[si]
		validateStrand(v, st, fmt.Sprintf("%s.strands[%d]", p, si), names)
		strands[st.Name] = true
	}
	for fi := range r.Fabrics {
		validateFabric(v, &r.Fabrics[fi], fmt.Sprintf("%s.fabrics[%d]", p, fi), names)
	}
	for ei := range r.EdgeNodes {
		e := &r.EdgeNodes[ei]
		ep := fmt.Sprintf("%s.edge_nodes[%d]", p, ei)
		switch {
		case e.Strand == "":
			v.fail(ep+".strand", "must name a strand, got an empty name")
		case !strands[e.Strand]:
			v.fail(ep+".strand", "no strand named %q in rods.strands", e.Strand)
		}
		if !(e.U > 0 && e.U < 1) {
			v.fail(ep+".u", "must be in (0, 1), got %v", e.U)
		}
		if e.A == e.B {
			v.fail(ep+".b", "edge end points a and b must be distinct, both are %s", fmtVec(e.A[:]))
		}
	}
}

func validateStrand(v *validator, st *Strand, p string, names map[string]string) {
	validateName(v, p+".name", st.Name, names)
	nodesOK := st.Nodes >= 2 && st.Nodes <= MaxRodNodes
	if !nodesOK {
		v.fail(p+".nodes", "must be in [2, %d], got %d", MaxRodNodes, st.Nodes)
	}
	v.nonNegative(p+".radius", st.Radius)
	switch {
	case len(st.Points) > 0:
		if st.From != ([3]float64{}) || st.To != ([3]float64{}) {
			v.fail(p+".points", "give either points or from/to, not both")
		}
		if len(st.Points) < 2 {
			v.fail(p+".points", "a curved strand needs at least 2 points, got %d", len(st.Points))
		} else if nodesOK && st.curve() == nil {
			v.fail(p+".points", "the curve through the points has no length (or is not finite)")
		}
	case st.Spline:
		v.fail(p+".spline", "needs points")
	case st.From == st.To:
		v.fail(p+".to", "must be distinct from from, both are %s", fmtVec(st.From[:]))
	}

	m := &st.Material
	mp := p + ".material"
	v.positive(mp+".stretch_stiffness", m.StretchStiffness)
	v.nonNegative(mp+".bending_stiffness", m.BendingStiffness)
	v.positive(mp+".linear_density", m.LinearDensity)
	v.nonNegative(mp+".damping", m.Damping)

	seen := map[int]int{}
	for k, pin := range st.Pins {
		pp := fmt.Sprintf("%s.pins[%d]", p, k)
		if nodesOK {
			if i, ok := normIndex(pin.Node, st.Nodes); !ok {
				v.fail(pp+".node", "index %d out of range for a strand with %d nodes (valid: %d..%d)", pin.Node, st.Nodes, -st.Nodes, st.Nodes-1)
			} else if prev, dup := seen[i]; dup {
				v.fail(pp+".node", "node %d is already pinned by %s.pins[%d]", i, p, prev)
			} else {
				seen[i] = k
			}
		}
		if pin.Motion != nil {
			validateMotion(v, pin.Motion, pp+".motion")
			if pin.Motion.Rotates() && pin.Motion.Pivot == nil {
				v.fail(pp+".motion.pivot", "required when a rod pin's motion rotates")
			}
		}
	}
}
