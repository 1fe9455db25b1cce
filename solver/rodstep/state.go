// Package rodstep advances an assembly of Eulerian-on-Lagrangian rods by one
// time step (Sanchez-Banderas et al. 2020, "SB2020"): node assignment by
// sorting (sec. 4.1), the energies over consecutive non-EIL nodes (stretch eq.
// 2, bending eq. 4, gravity), EIL soft contact constraints, Eulerian anchor
// friction (Cirio et al. 2014), the crossings' shear (sec. 4.4,
// rod.CrossingShear), the segment kinetic energy (sec. 4.3), and the
// mixed statics-dynamics step (eq. 5-6) solved by Newton's method with line
// search on the implicit-Euler incremental potential
//
//	Phi(q) = sum_seg (1 + h alpha)/(2 h^2) (q - q^)^T M_seg (q - q^) + V(q),
//	q^ = q_n + h q'_n,
//
// whose stationarity is implicit Euler on EoL coordinates and static
// equilibrium on EIL coordinates (they carry no mass). The system keeps its
// meaning when nodes switch kind: an EIL node's Lagrangian coordinates are not
// unknowns, its x is interpolated (eq. 3).
//
// It works on gathered flat arrays and knows nothing of the ECS; the kernels
// come from package rod and the linear solves from package ldlt (sparse
// LDL^T) or, for large systems, package schwarz (conjugate gradients with
// the yarns as additive Schwarz subdomains; Settings.Linear, linear.go).
package rodstep

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/sparse"
)

// Rod is one strand's material and its nodes.
type Rod struct {
	Ks, Kb  float64 // stretch stiffness (N), bending stiffness (N m^2)
	Rho     float64 // kg/m
	Alpha   float64 // mass-proportional damping (1/s)
	RestSeg float64 // rest length of its Lagrangian segments (m)
	Length  float64 // rest length (m)
	Fixed   bool    // held in place: contributes no energy, its nodes are pinned
	Radius  float64 // m, the yarn's radius: its obstacle thickness and half its yarn contact distance (0: no contacts but the persistent ones)
	// Rest is the rest bend of a rod whose rest shape is curved; nil: straight
	// at rest (SB2020 eq. 4 as written).
	Rest     *rod.RestCurve
	Nodes    []int32 // its nodes; after Assign, sorted by u
	nonEIL   []int32 // the non-EIL nodes in order, after Assign
	sortBuf  []int
	kindBuf  []rod.Kind
	uBuf     []float64
	fixedBuf []bool
}

// Contact is a rod-rod sliding contact: node P of one rod and node Q of another
// share one position while both are non-EIL (SB2020 sec. 3.1, Cirio et al.
// 2014); when either is EIL they are tied by a soft zero-length spring of
// stiffness K (sec. 4.2). Normal points from Q's rod towards P's rod; each
// step's end turns it with the rods (followNormal).
//
// Gap (m) keeps the two rods that far apart along Normal: x_P = x_Q + Gap
// Normal, the spring's rest point likewise. A woven crossing joins its
// centrelines (Gap 0, as the paper's crossings); contacts found between
// stacked layers keep the separation they were found at, so the layers are
// not pulled into one plane.
type Contact struct {
	P, Q   int32
	Normal dense.Vec3
	Gap    float64
	K      float64
	// NormalForce is the force with which P's rod presses on Q's rod along
	// Normal, from the last step (negative: the rods pull each other).
	NormalForce float64
	Mu          float64 // Coulomb coefficient of its nodes' anchors
	// Cohesion (N) is added to the anchors' friction bound, which is
	// Cohesion + Mu max(NormalForce, 0).
	Cohesion float64
	// Shear (J) is the stiffness of the crossing's shear term
	// (rod.CrossingShear) while P and Q share their position; 0: none.
	// ShearCos0 is its rest cosine, taken from the crossing's chords at
	// the start of the first step that has the term (ShearRest then true).
	Shear     float64
	ShearCos0 float64
	ShearRest bool
	// Stitched: the two layers are sewn together here; the anchors hold
	// any force (they never slide).
	Stitched bool
}

// FrictionBound is the largest friction force the contact's anchors hold:
// Cohesion + Mu max(NormalForce, 0) (a pulling contact keeps only the
// cohesion), unbounded at a stitch.
func (c *Contact) FrictionBound() float64 {
	switch {
	case c.Stitched:
		return math.Inf(1)
	case c.Mu == 0: // the first step's unbounded normal force times 0
		return c.Cohesion
	}
	return c.Cohesion + c.Mu*max(c.NormalForce, 0)
}

// Edge holds node Node on the line A + s Dir (a sharp obstacle edge) by a stiff
// spring on the distance to the line, its u free to slide (SB2020 eq. 1)
// but for Coulomb friction (State.ObstacleMu) where the node has an anchor
// (Anchor[Node].Kf > 0): the yarn sliding over the edge, pressed on it by
// the spring's force.
type Edge struct {
	Node   int32
	A, Dir dense.Vec3 // Dir unit
	K      float64
}

// Obstacle is a shape rod nodes are kept out of by the penalty
// 1/2 K max(0, r - d)^2, d the signed distance, r the node's rod's radius,
// with lagged Coulomb friction (rodcontact.Friction, coefficient
// State.ObstacleMu).
type Obstacle struct {
	Shape  geom.Shape
	Offset dense.Vec3 // the shape's translation at the end of the step
}

// Distance returns the signed distance from p to the obstacle's surface and
// the outward unit normal there (geom.SignedDistance).
func (o *Obstacle) Distance(p dense.Vec3) (float64, dense.Vec3) {
	return geom.SignedDistance(&o.Shape, o.Offset, p)
}

// State is the gathered assembly. Per-node slices are indexed by node.
type State struct {
	X      []dense.Vec3 // positions at the start of the step
	V      []dense.Vec3
	U      []float64 // Eulerian coordinates (rest arc length)
	UDot   []float64
	Rod    []int32
	FixedU []bool       // Lagrangian nodes: u never changes
	Pinned []bool       // x prescribed (Target) at the end of the step
	Target []dense.Vec3 // prescribed x of pinned nodes
	Kind   []rod.Kind   // after Assign
	// ID is each node's identity across re-gathers (a caller that renumbers
	// the nodes when the topology changes keeps it); nil: the node index.
	// The yarn penalty's rest distances are remembered by it.
	ID []uint64
	// Anchor friction on the u of contact nodes (Kf = 0: none).
	Anchor []rod.Anchor

	Rods      []Rod
	Contacts  []Contact
	Edges     []Edge
	Obstacles []Obstacle
	// ObstacleK is the obstacles' penalty stiffness (N/m), ObstacleMu their
	// Coulomb coefficient.
	ObstacleK, ObstacleMu float64
	// PairMu is the Coulomb coefficient of the non-persistent yarn
	// contacts (the penalty pairs found during the run), lagged as the
	// obstacles' (lagPairFriction).
	PairMu float64

	Gravity dense.Vec3
	EIL     bool // allow EIL nodes (false: pure EoL)

	// Runner runs the force and Hessian fills in parallel (nil: serially).
	// Results are bitwise the same for any Runner.
	Runner sparse.Runner

	ws workspace
}

// NumNodes returns the number of nodes.
func (s *State) NumNodes() int { return len(s.X) }

// Assign sorts each rod's nodes by u and tags them Lagrangian, EoL or EIL
// (SB2020 sec. 4.1, d = 0.1 x the rest segment; with EIL disabled, d = 0 and
// every free node stays EoL). A node turning EIL -> EoL gets the interpolated
// position it had as EIL (its u is kept: the appendix's optimum for collinear
// segments), so the transition is continuous.
func (s *State) Assign() { s.assign(false) }

// assign is Assign; with keepEIL, a node that is EIL stays EIL (a restart
// of the step only adds EIL nodes, which keeps consecutive non-EIL nodes at
// least the safety distance apart: their gaps only merge).
func (s *State) assign(keepEIL bool) {
	s.ws.size(len(s.X))
	if len(s.Kind) != len(s.X) {
		s.Kind = make([]rod.Kind, len(s.X))
		for i := range s.Kind {
			s.Kind[i] = rod.EoL
			if s.FixedU[i] {
				s.Kind[i] = rod.Lagrangian
			}
		}
	}
	for r := range s.Rods {
		R := &s.Rods[r]
		n := len(R.Nodes)
		if cap(R.sortBuf) < n {
			R.sortBuf, R.kindBuf = make([]int, n), make([]rod.Kind, n)
			R.uBuf, R.fixedBuf = make([]float64, n), make([]bool, n)
		}
		R.sortBuf, R.kindBuf, R.uBuf, R.fixedBuf = R.sortBuf[:n], R.kindBuf[:n], R.uBuf[:n], R.fixedBuf[:n]
		for k, i := range R.Nodes {
			R.uBuf[k], R.fixedBuf[k] = s.U[i], s.FixedU[i]
		}
		d := 0.0
		if s.EIL {
			d = R.SafetyDistance()
		}
		rod.AssignNodes(R.uBuf, R.fixedBuf, d, R.sortBuf, R.kindBuf)
		sorted := s.ws.nodeBuf[:0]
		for _, k := range R.sortBuf {
			sorted = append(sorted, R.Nodes[k])
		}
		kinds := s.ws.kindBuf[:0]
		for _, j := range R.sortBuf {
			kd := R.kindBuf[j]
			if keepEIL && s.Kind[R.Nodes[j]] == rod.EIL {
				kd = rod.EIL
			}
			kinds = append(kinds, kd)
		}
		copy(R.Nodes, sorted)
		s.ws.nodeBuf, s.ws.kindBuf = sorted, kinds
		// Transitions: EIL -> EoL takes the interpolated position.
		R.nonEIL = R.nonEIL[:0]
		for k, i := range R.Nodes {
			if kinds[k] != rod.EIL {
				R.nonEIL = append(R.nonEIL, i)
			}
		}
		for k := range kinds {
			// An EIL node needs a non-EIL node on each side to interpolate
			// from; one that slid onto or past an end stays EoL (contact
			// removal takes it away after the step).
			if _, _, ok := s.neighbours(R, k, kinds); kinds[k] == rod.EIL && !ok {
				kinds[k] = rod.EoL
			}
		}
		R.nonEIL = R.nonEIL[:0]
		for k, i := range R.Nodes {
			if kinds[k] != rod.EIL {
				R.nonEIL = append(R.nonEIL, i)
			}
		}
		for k, i := range R.Nodes {
			a, c, ok := s.neighbours(R, k, kinds)
			if s.Kind[i] == rod.EIL && kinds[k] != rod.EIL && ok {
				s.X[i] = rod.Interpolate(s.X[a], s.X[c], s.U[a], s.U[c], s.U[i])
			}
			s.Kind[i] = kinds[k]
			s.ws.interpA[i], s.ws.interpC[i] = a, c
		}
	}
}

// SafetyDistance is the node assignment's least material distance between
// consecutive non-EIL nodes: 0.1 x the rest segment, as in SB2020 sec. 4.1.
func (R *Rod) SafetyDistance() float64 { return 0.1 * R.RestSeg }

// neighbours returns the non-EIL nodes before and after position k of R's
// sorted nodes.
func (s *State) neighbours(R *Rod, k int, kinds []rod.Kind) (a, c int32, ok bool) {
	a, c = -1, -1
	for j := k - 1; j >= 0; j-- {
		if kinds[j] != rod.EIL {
			a = R.Nodes[j]
			break
		}
	}
	for j := k + 1; j < len(R.Nodes); j++ {
		if kinds[j] != rod.EIL {
			c = R.Nodes[j]
			break
		}
	}
	return a, c, a >= 0 && c >= 0
}
