// Package model holds loom's resolved, immutable Model of a scene: what the
// systems simulate, with every setting typed (enums, not strings), every
// default applied and every derived quantity (the gravity actually
// simulated, the bodies' meshes, the obstacles' unit normals) computed once.
// It is MuJoCo's mjModel to the World's mjData: package scenes validates a
// scene file and resolves it into a Model; package systems spawns entities
// from it and assembles the pipeline; nothing changes it afterwards.
// It holds plain data and the few enum names; it knows neither the scene
// format nor the ECS.
package model

import (
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Model is a resolved scene.
type Model struct {
	Name          string
	Dt            float64    // s, the time step
	Steps         int        // steps the scene's duration takes
	StepsPerFrame int        // steps between output frames
	Gravity       dense.Vec3 // m/s^2, the field simulated (the scene's gravity rotated by its incline)
	Solver        Solver
	Bodies        []Body
	Obstacles     []Obstacle
	Rods          *Rods // nil without rods
	Wind          *Wind // nil: still air
}

// Pipeline names which cloth pipeline a model runs (scene field
// solver.mode); see systems/pipelines.go for the lists.
type Pipeline uint8

// Cloth pipelines.
const (
	// Lagrangian cloth on the bodies' meshes, remeshed where a body asks
	// for it (Narain 2012): solver.mode "" or "lag-nonconformal".
	Lagrangian Pipeline = iota
	// LagrangianFixed is Lagrangian cloth whose bodies' remesh settings are
	// ignored (solver.mode "lag-regular", "lag-irregular").
	LagrangianFixed
	// EOL is Eulerian-on-Lagrangian cloth (Weidner 2018, "eol").
	EOL
	// Conformal is Lagrangian cloth on a conformally preprocessed and
	// adaptively remeshed mesh with Lagrangian vertices on the sharp
	// features (Weidner 2018 sec. 7, "lag-conformal").
	Conformal
	// Developable is developable cloth (English & Bridson 2008): every
	// body has model DevelopableBody.
	Developable
)

// BodyModel is a cloth body's discretization (scene field bodies[i].model).
type BodyModel uint8

// Body models.
const (
	LagrangianBody  BodyModel = iota // vertices, membrane and hinges
	DevelopableBody                  // nonconforming, inextensible (English & Bridson 2008)
)

// DevelopableScheme is a developable body's time integrator.
type DevelopableScheme uint8

// Developable schemes (English & Bridson 2008 sec. 4).
const (
	FirstOrderProjection DevelopableScheme = iota // fast projection (Goldenthal et al. 2007)
	BDF2Projection                                // the paper's BDF2; first step first order
)

// DevelopableSettings are a developable body's solver settings.
type DevelopableSettings struct {
	Scheme        DevelopableScheme
	Tolerance     float64 // largest relative constraint violation after projection
	MaxIterations int     // projection steps per time step
}

// LinearSolver is the unconstrained implicit step's linear solver.
type LinearSolver uint8

// Linear solvers.
const (
	PCG  LinearSolver = iota // block-Jacobi preconditioned CG
	LDLT                     // sparse LDL^T with AMD ordering
)

// Preconditioner is the preconditioner of the implicit step's PCG.
type Preconditioner uint8

// Preconditioners.
const (
	BlockJacobi Preconditioner = iota // inverse 3x3 diagonal blocks
	AMG                               // smoothed-aggregation AMG V-cycle (solver/amg)
)

// ContactSolver solves steps with contact rows.
type ContactSolver uint8

// Contact solvers.
const (
	ContactQP     ContactSolver = iota // the convex QP solver (ADMM + polish; blockqp for EOL)
	ContactFilter                      // active set on Baraff-Witkin filtered PCG
)

// Solver holds the integrator and contact settings.
type Solver struct {
	Pipeline      Pipeline
	Tolerance     float64 // PCG relative residual
	MaxIterations int
	Thickness     float64 // m, the contact layer kept between cloth and obstacles
	Friction      float64 // Coulomb coefficient
	Linear        LinearSolver
	Precond       Preconditioner // PCG's preconditioner (implicit step, contact filter)
	Contact       ContactSolver
	// EOL holds the EOL settings: set for the EOL and Conformal pipelines,
	// and, for bend_angle_at_feature, in the others when the scene gives
	// them; nil otherwise.
	EOL *EOLSettings
	// SelfContact holds the cloth self-collision settings; nil: off.
	SelfContact *SelfContact
}

// SelfContact are the settings of cloth self- and cloth-cloth collision.
type SelfContact struct {
	Thickness float64 // m, > 0
	Friction  float64 // Coulomb coefficient >= 0
}

// EOLSettings are the settings of Eulerian-on-Lagrangian cloth (Weidner
// 2018); angles in degrees.
type EOLSettings struct {
	MinEdge     float64 // m, conformal preprocessing's collapse threshold (sec. 6.1)
	MinAngle    float64 // smallest material-space angle next to a conformal vertex (sec. 6.1)
	BorderAngle float64 // smallest angle between a conformal edge and the border (sec. 6.1)
	FlatAngle   float64 // an EOL vertex whose faces' normals lie within it is flat (errata Alg. 1)
	Reach       float64 // m, a cloth edge this close to a sharp feature touches it
	QPDomains   int     // >= 1: domains of the QP's Gauss-Seidel sweeps (default applied)
}

// Material holds a cloth body's constitutive parameters.
type Material struct {
	Density          float64 // kg/m^2
	StretchStiffness float64 // N/m, membrane Lamé lambda
	ShearStiffness   float64 // N/m, membrane Lamé mu
	BendingStiffness float64 // N m
	MassDamping      float64 // 1/s, Rayleigh alpha
	StiffnessDamping float64 // s, Rayleigh beta
}

// Motion is a prescribed kinematic trajectory: a displacement from the
// initial pose and a rotation about a pivot (given by the motion's owner:
// Pin.Pivot, Obstacle.Pivot, RodPin.Pivot), with their time derivatives. A
// point x of the initial pose is at pivot + Offset(t) + Rotation(t) (x -
// pivot), moving at VelocityAt(t) + AngularVelocityAt(t) x (x(t) - pivot -
// Offset(t)).
type Motion interface {
	Offset(t float64) [3]float64
	VelocityAt(t float64) [3]float64
	// Rotates reports whether Rotation is ever other than the identity;
	// when false, Rotation and AngularVelocityAt need not be called.
	Rotates() bool
	Rotation(t float64) [3][3]float64
	AngularVelocityAt(t float64) [3]float64 // rad/s, world frame
}

// Pose returns the image at time t of initial point x under motion m about
// pivot: pivot + Offset(t) + Rotation(t) (x - pivot); x + Offset(t) (the
// same bits as before rotations existed) when m does not rotate.
func Pose(m Motion, pivot, x dense.Vec3, t float64) dense.Vec3 {
	off := dense.Vec3(m.Offset(t))
	if !m.Rotates() {
		return x.Add(off)
	}
	return pivot.Add(off).Add(dense.Mat3(m.Rotation(t)).MulVec(x.Sub(pivot)))
}

// Pin holds a body's vertex on its initial position moved by Motion about
// Pivot (nil Motion: fixed) until Release (s; 0: never).
type Pin struct {
	Vertex  int32
	Motion  Motion
	Pivot   dense.Vec3 // the rotation's pivot (the sheet's position unless the motion sets one)
	Release float64
}

// Body is one cloth body: its triangle mesh with ARCSim's two levels of
// points (world-space vertices; a material coordinate per face corner, so
// that a seam vertex has one per panel), its material and options.
type Body struct {
	Name       string
	NX, NY     int             // grid vertices along local x and y
	Rest       [][2]float64    // per vertex, its material coordinate (the first face's, at a seam)
	Pos        [][3]float64    // per vertex, its initial world position
	Faces      [][3]int32      // CCW in material space
	FaceU      [][3][2]float64 // per face corner, its material coordinate
	Hinges     [][4]int32      // interior edges [x0 x1 x2 x3] (see scenes.Sheet)
	HingeFaces [][2]int32      // the two faces of each hinge
	Material   Material
	Pins       []Pin
	// Remesh is nil when the mesh stays fixed (and for every body of the
	// LagrangianFixed pipeline). In the EOL and Conformal pipelines, which
	// remesh every body, a body without remesh settings has the zero value.
	Remesh       *Remesh
	StrainLimits *StrainLimits // nil: none
	Model        BodyModel
	Developable  *DevelopableSettings // set for DevelopableBody
}

// Remesh holds a body's adaptive remeshing parameters (Narain et al. 2012
// sec. 4: eq. 10-13).
type Remesh struct {
	Every             int     // steps between passes
	SizeMin, SizeMax  float64 // m
	AspectMin         float64
	RefineAngle       float64
	RefineCompression float64
	RefineVelocity    float64 // m/s
	// MaxFaces bounds the body's faces: a remeshing pass whose sizing field
	// asks for more stops there, and the step fails with an error naming
	// the settings, rather than splitting until memory runs out.
	MaxFaces int
}

// StrainMethod is a strain-limiting method.
type StrainMethod uint8

// Strain-limiting methods (Narain et al. 2012 sec. 5).
const (
	AugmentedLagrangian StrainMethod = iota
	Jacobi
)

// StrainLimits bounds a body's principal strains.
type StrainLimits struct {
	Min, Max float64
	Method   StrainMethod
}

// Obstacle is a rigid, kinematic collision shape at its initial pose.
type Obstacle struct {
	Name        string
	Kind        geom.ShapeKind // a Point is a nail tip: a sharp point feature (Weidner 2018 errata sec. 3)
	Center      dense.Vec3     // sphere, box centre; a point of a plane; a nail tip
	Normal      dense.Vec3     // plane, point: unit
	Radius      float64        // sphere, capsule
	HalfExtents dense.Vec3     // box, along its own axes
	A, B        dense.Vec3     // capsule segment
	// Rotated turns the shape by Rotation about its centre (a capsule's
	// midpoint) at the initial pose; false: as given, Rotation unused.
	Rotated  bool
	Rotation dense.Mat3
	Motion   Motion        // nil: static
	Pivot    dense.Vec3    // Motion's rotation pivot (the centre unless the motion sets one)
	Mesh     *MeshObstacle // Kind geom.Mesh only: its triangles and vertex positions
}

// MeshObstacle is a triangle-mesh obstacle's surface at its initial pose
// before Rotation (which turns it about the obstacle's Center): one frame
// for a rigid mesh, or a deforming mesh's frames, all of one topology, shown
// at FPS frames per second and blended linearly in between.
type MeshObstacle struct {
	Faces  [][3]int32     // counter-clockwise seen from outside
	Frames [][][3]float64 // per frame, the vertex positions
	FPS    float64        // frames per second; 0 with a single frame
	Loop   bool           // after the last frame, blend back to the first and repeat; false: hold the last
	// FeatureAngle (radians; 0: geom.DefaultFeatureAngle) selects a rigid
	// mesh's sharp features (geom.MeshSurface.MarkSharpEdges).
	FeatureAngle float64
}

// FramePositions returns frame k's positions, 3 floats per vertex (a new
// slice).
func (m *MeshObstacle) FramePositions(k int) []float64 {
	out := make([]float64, 0, 3*len(m.Frames[k]))
	for _, p := range m.Frames[k] {
		out = append(out, p[:]...)
	}
	return out
}

// FlatFaces returns the triangles, 3 indices each (a new slice).
func (m *MeshObstacle) FlatFaces() []int32 {
	out := make([]int32, 0, 3*len(m.Faces))
	for _, f := range m.Faces {
		out = append(out, f[:]...)
	}
	return out
}

// Wind is a uniform air flow acting on cloth faces.
type Wind struct {
	Velocity dense.Vec3 // m/s
	Density  float64    // kg/m^3: normal force rho A |v_n| v_n
	Drag     float64    // kg/(m^2 s): tangential force c A v_t
}

// Rods holds a scene's rods (Sanchez-Banderas et al. 2020).
type Rods struct {
	EIL             bool    // allow EIL nodes
	Friction        float64 // Coulomb coefficient at rod-rod contacts
	ContactDistance float64 // m: segments of different strands this close at load time get a sliding contact
	// ReleaseSteps is how many consecutive steps a contact that is not a
	// woven crossing must pull its rods together before it is removed
	// (SB2020 sec. 5 removes it at the first pull), and an edge node placed
	// at an obstacle's edge must hold its yarn down; 0: the default, 50.
	ReleaseSteps int
	// PairFriction is the Coulomb coefficient of the yarn pairs pressed
	// together during the run (the non-persistent contacts' penalties).
	PairFriction float64
	ProjectBend  bool // projected Newton on the bend Hessian
	// DegenerateRestart: rodstep.Settings.DegenerateRestart.
	DegenerateRestart bool
	// PredictContacts: rodstep.Settings.PredictContacts.
	PredictContacts bool
	Linear          RodLinear
	Strands         []Strand
	EdgeNodes       []EdgeNode
	// Crossings are the persistent contacts of the fabrics' patterns
	// (SB2020 sec. 5: intra-fabric contacts from the pattern's topology).
	Crossings []Crossing
}

// RodLinear is the rod Newton systems' solver.
type RodLinear uint8

const (
	RodAuto      RodLinear = iota // direct for small systems, iterative for large
	RodDirect                     // sparse LDL^T
	RodIterative                  // conjugate gradients, yarn additive Schwarz preconditioner
	RodLagged                     // sparse LDL^T kept as conjugate gradients' preconditioner
)

// Crossing is a sliding contact between strand A at arc length UA and strand
// B at arc length UB, Normal (unit) pointing from B's side towards A's.
type Crossing struct {
	A, B   int
	UA, UB float64
	Normal dense.Vec3
	Mu     float64 // Coulomb coefficient of its anchors (the fabric's own friction)
	// Cohesion (N) is added to the anchors' friction bound mu N.
	Cohesion float64
	// Shear (J) is the stiffness of the crossing's shear term
	// (rod.CrossingShear); 0: none.
	Shear float64
	// Persistent: the yarns interlace here (a woven crossing), so a pulling
	// normal force does not release the contact.
	Persistent bool
}

// Strand is one rod, at rest along its initial polyline.
type Strand struct {
	Name     string
	Pos      [][3]float64 // initial node positions, evenly spaced in arc length
	Length   float64      // m, rest length
	Material RodMaterial
	Pins     []RodPin
	Fixed    bool // the whole strand is held in place
	// RestCurved: the rest bend is the initial shape (rod.RestCurve);
	// false: straight at rest.
	RestCurved bool
	// Relax: the rest lengths and the rest curve are measured on the
	// polyline as built, its contact nodes included (a fabric's yarn;
	// systems.relaxRest), so the strand starts at rest.
	Relax  bool
	Radius float64 // m, yarn radius (drawing and tubes only); 0: none given
	// Fabric is 1 + the index of the fabric the strand belongs to, 0 for
	// none: strands of one fabric get contacts with each other only from
	// Crossings, not from proximity at load.
	Fabric int
	// Stitched are arc-length intervals [u0, u1] of the strand sewn to the
	// layer it lies on: a contact found by proximity at load with its
	// point on the strand inside one is a stitch (persistent and sticking).
	Stitched [][2]float64
}

// RodMaterial holds a strand's constitutive parameters.
type RodMaterial struct {
	StretchStiffness float64 // N, k_s of Sanchez-Banderas eq. 2
	BendingStiffness float64 // N m^2, k_b of eq. 4
	LinearDensity    float64 // kg/m
	Damping          float64 // 1/s, mass-proportional
}

// RodPin holds strand node Node (resolved: 0 <= Node < len(Pos)) on its
// initial position plus Motion's offset.
type RodPin struct {
	Node   int
	Motion Motion
	Pivot  dense.Vec3 // Motion's rotation pivot
}

// EdgeNode places an EoL node on strand Strand (an index into Rods.Strands)
// at arc-length fraction U, resting on the sharp edge A-B.
type EdgeNode struct {
	Strand int
	U      float64
	A, B   dense.Vec3
}
