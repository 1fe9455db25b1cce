// Package components holds loom's component types: plain data, one small
// struct or named value per component, no behaviour. Each component type is one
// column of its archetype in the ECS (structure of arrays).
package components

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/geom"
)

// Position is a cloth vertex's world position x (m).
type Position dense.Vec3

// Velocity is a cloth vertex's world velocity (m/s).
type Velocity dense.Vec3

// Mass is a vertex's lumped mass (kg): a third of the material-space area times
// density of each incident face.
type Mass float64

// Material is a vertex's material-space (rest) coordinate X in R2 (m). A
// vertex on a seam has one material coordinate per panel (see Face.U); this
// is the one of the first face, in face order, that lists it.
type Material dense.Vec2

// Member ties a vertex to its body and gives its index within the body, the
// order in which output files list it.
type Member struct {
	Body  ecs.Entity
	Index int32
}

// Pinned marks a vertex whose position is scripted: Anchor moved by motion
// Script (an index into the scripts resource; -1 means fixed) about Pivot
// (model.Pose). A positive Release is the time (s) at which the pin lets go.
type Pinned struct {
	Anchor  dense.Vec3
	Script  int32
	Release float64
	Pivot   dense.Vec3
}

// Body describes one cloth sheet.
type Body struct {
	Name   string
	NX, NY int
}

// Face is a triangle of a body, its vertices counter-clockwise in material
// space, with the material coordinates of its corners, its
// corotated-membrane rest state (computed from U) and Lamé parameters. The
// vertices are world-space nodes; U is ARCSim's vert level (Narain et al.
// 2012 sec. 3): faces of different panels that meet at a seam vertex see it
// at different material coordinates.
type Face struct {
	Body ecs.Entity
	V    [3]ecs.Entity
	U    [3]dense.Vec2
	Rest elastic.MembraneRest
	Lame elastic.Lame
}

// Hinge is a bending element: the edge V[0]-V[1] shared by the faces
// (V[0],V[1],V[2]) and (V[1],V[0],V[3]).
type Hinge struct {
	V         [4]ecs.Entity
	Rest      elastic.HingeRest
	Stiffness float64 // N*m
}

// ObstacleKind names an obstacle's shape (solver/geom).
type ObstacleKind = geom.ShapeKind

// Obstacle shapes.
const (
	Plane   = geom.Plane
	Sphere  = geom.Sphere
	Box     = geom.Box
	Capsule = geom.Capsule
	Point   = geom.Point // a nail tip (Center) with its outward axis (Normal)
	Mesh    = geom.Mesh  // a triangle mesh (Shape.Mesh) turned about Center
)

// Obstacle is a kinematic collision shape. Its current pose is the Shape (its
// data at the initial pose, turned by its current rotation Shape.R about its
// RotationCenter when Shape.Rotated) translated by Offset; Vel is the
// current velocity of its rotation centre and Omega its angular velocity, so
// that its point at p moves at geom.PointVelocity(Vel, Omega, centre, p).
// A mesh obstacle's Shape.Mesh points to its surface (vertices, triangles,
// BVH), which the copies that systems gather share; for a deforming mesh
// ScriptedMotion moves its vertices (Sequence), and nothing else writes it.
type Obstacle struct {
	Name string
	geom.Shape
	Script int32      // motion script index, -1 when static
	Offset dense.Vec3 // current translation of the rotation centre from the initial pose
	Vel    dense.Vec3 // current velocity of the rotation centre
	Omega  dense.Vec3 // current angular velocity (rad/s); zero unless the motion rotates
	Rest   dense.Mat3 // the rotation at the initial pose (identity when not Rotated)
	Pivot  dense.Vec3 // the motion's rotation pivot at the initial pose
	// Sequence indexes the deforming mesh sequences (Scripts.Sequences)
	// that move Shape.Mesh's vertices; -1 for every other obstacle.
	Sequence int32
}

// FeatureKind names the kind of sharp feature an EOL vertex lies on
// (solver/geom).
type FeatureKind = geom.FeatureKind

// Sharp features (Weidner 2018 sec. 5, errata sec. 3).
const (
	FeatureEdge   = geom.FeatureEdge   // a box edge or a wire
	FeatureCorner = geom.FeatureCorner // a box's or a mesh's trihedral corner
	FeaturePoint  = geom.FeaturePoint  // a nail tip
)

// EOL marks an Eulerian-on-Lagrangian cloth vertex (Weidner 2018 sec. 3): a
// vertex on sharp feature Feature of obstacle Obstacle whose material
// coordinate (components.Material and its faces' U) moves with the Eulerian
// velocity XDot, while Velocity holds its Lagrangian velocity. T is its
// position along an edge feature (m from the edge's first end).
type EOL struct {
	Obstacle ecs.Entity
	Feature  int32
	Kind     FeatureKind
	T        float64
	XDot     dense.Vec2
}

// Contact is a cloth vertex touching an obstacle during the current step.
type Contact struct {
	Vertex   ecs.Entity
	Obstacle ecs.Entity
	Normal   dense.Vec3 // unit, pointing out of the obstacle
	Gap      float64    // signed distance from the obstacle surface minus the contact thickness (m)
	Impulse  float64    // normal impulse of the step (N s): the QP multiplier of its row, >= 0
}

// Strand is one rod (a yarn) of the scene.
type Strand struct {
	Name string
}

// RodNode is a node of a rod: its Eulerian coordinate U (rest arc length), its
// kind (rod.Lagrangian, rod.EoL, rod.EIL as a uint8), whether U is fixed
// (Lagrangian discretization points), and, for contact nodes, the anchor of
// its Eulerian friction spring (Cirio et al. 2014; Kf = 0: none) with its
// stick/slide state (rod.Anchor.Slip: 0 sticking, +-1 sliding towards +-u),
// kept here so that it survives the rebuilds of the gathered rod arrays.
type RodNode struct {
	Strand     ecs.Entity
	U, UDot    float64
	Kind       uint8
	FixedU     bool
	AnchorU    float64
	AnchorKf   float64
	AnchorSlip int8
}

// RodContact is a rod-rod sliding contact between nodes P and Q of two
// strands (Sanchez-Banderas 2020 sec. 3.1): they share one position while both
// are non-EIL, and are tied by a stiff spring of stiffness K otherwise. Normal
// points from Q's strand towards P's; NormalForce is P's push on Q along it.
type RodContact struct {
	P, Q   ecs.Entity
	Normal dense.Vec3
	// Gap (m) is the separation along Normal the contact keeps between its
	// rods (rodstep.Contact.Gap): 0 at a woven crossing, the load-time
	// distance between stacked layers.
	Gap         float64
	K           float64
	NormalForce float64
	Pulling     int // consecutive steps with a pulling (negative) normal force
	// Mu is the Coulomb coefficient of the contact's anchor friction.
	Mu float64
	// Cohesion (N) is added to the friction bound: |f| <= Cohesion + Mu N.
	Cohesion float64
	// Shear (J) is the stiffness of the crossing's shear term
	// (rod.CrossingShear), ShearCos0 its rest cosine once ShearRest (set by
	// the first step that has the term); Shear 0: none.
	Shear     float64
	ShearCos0 float64
	ShearRest bool
	// Persistent marks a crossing of a woven fabric's pattern: its yarns
	// interlace, so a pulling normal force does not release it (only a node
	// leaving its rod does).
	Persistent bool
	// Stitched marks a contact of two layers sewn together
	// (model.Strand.Stitched): persistent, and its anchors never slide.
	Stitched bool
}

// RodEdge holds rod node Node on a sharp edge A + s Dir (Sanchez-Banderas 2020
// eq. 1) by a spring of stiffness K on its distance to the line.
type RodEdge struct {
	Node   ecs.Entity
	A, Dir dense.Vec3
	K      float64
	// Auto marks an edge node placed by the rod-edges stage where a yarn
	// wraps a box edge; Out is then the edge's outward bisector and Lifting
	// the steps in a row the spring has held the yarn down.
	Auto    bool
	Out     dense.Vec3
	Lifting int
}
