// Package scenes defines loom's JSON scene format: the schema types, a strict
// loader with field-path error messages, `--set path=value` overrides, the
// cloth sheet builder and the built-in scenes (embedded JSON files).
//
// Conventions: SI units, z is up, angles in degrees. See README.md for the
// schema field by field.
package scenes

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode"

	"github.com/loomsim/loom/solver/fabric"
)

// MaxResolution bounds Body.Resolution at the largest sheet run to the
// end of its steps on a 2-core, 23 GB machine: drape at 512 (262144
// vertices) ran two steps in 105 s of CPU time with a peak of 4.0 GB; 1024
// would need about 17 GB by the memory estimate (memory.go), and at 4096
// (275 GB) a run ended in an out-of-memory crash before the estimate
// existed. scenes/README.md documents the same number (a cmd/loom test
// reads it).
const MaxResolution = 512

// MaxRemeshAsk bounds the faces a remeshed body's size_max can ask for:
// the remesher splits every edge longer than size_max, so a body of area A
// ends with at least A / (sqrt(3)/4 size_max^2) faces (equilateral
// triangles of side size_max), and a size_max that asks for more is an
// error before any memory is spent (a size_max of 1e-8 m would otherwise
// split for ever). It is the largest ask run to the end of its steps on a
// 2-core, 23 GB machine: sphere with size_max 4.2 mm (130918 faces asked)
// remeshed its 4 faces into 288006 at step 1 and ran two steps in 77 s of
// CPU time with a peak of 2.3 GB; at 2.2 mm (524288 asked) the first step
// had passed 7 GB and 100 s of CPU time when it was stopped.
const MaxRemeshAsk = 1 << 17

// MaxRemeshFaces stops a body's remeshing, with an error naming its remesh
// settings, once it has this many faces (the refinement criteria can ask
// for edges down to size_min anywhere): four times MaxRemeshAsk, as the
// remesher's meshes have about 2.2 times the faces asked (288006 for
// 130918).
const MaxRemeshFaces = 4 * MaxRemeshAsk

// Scene is a complete simulation set-up.
type Scene struct {
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Gravity     [3]float64 `json:"gravity"` // m/s^2, e.g. [0,0,-9.81]
	// InclineDeg, in [-90, 90] degrees, rotates gravity about the world x axis
	// (right-handed), which is equivalent to tilting the whole scene; see
	// GravityVector. Default 0.
	InclineDeg float64    `json:"incline_deg"`
	TimeStep   float64    `json:"dt"`       // s, > 0
	Duration   float64    `json:"duration"` // s, > 0, >= dt
	FrameRate  float64    `json:"fps"`      // output frames per second, > 0
	Solver     Solver     `json:"solver"`
	Bodies     []Body     `json:"bodies"`    // at least one body or rod strand in all
	Obstacles  []Obstacle `json:"obstacles"` // may be empty
	Rods       *Rods      `json:"rods"`      // nil when the scene has no rods
	Wind       *Wind      `json:"wind"`      // nil: still air

	source string // where the scene came from, prefixed to error messages
	files  assets // opens the files the scene refers to (nil: paths relative to the working directory)
	// geometries holds the fabrics' geometries of the last validation, by
	// Fabric.geometryKey, so that validating again (each --set, Model)
	// builds only the fabrics whose geometry changed.
	geometries map[string]*fabric.Fabric
}

// assets returns how the scene opens the files it refers to.
func (s *Scene) assets() assets {
	if s.files == nil {
		return dirAssets{dir: "."}
	}
	return s.files
}

// Solver holds the implicit integrator and contact settings.
type Solver struct {
	Tolerance     float64 `json:"tolerance"`         // PCG relative residual, in (0, 1)
	MaxIterations int     `json:"max_iterations"`    // >= 1
	Thickness     float64 `json:"contact_thickness"` // m, >= 0: cloth-obstacle contact offset
	Friction      float64 `json:"friction"`          // Coulomb coefficient >= 0
	Linear        string  `json:"linear"`            // unconstrained step's linear solver: "pcg" or "ldlt"
	// Preconditioner is PCG's preconditioner: "amg" (or "", the default) or
	// "block-jacobi".
	Preconditioner string `json:"preconditioner"`
	// ContactSolver solves steps with contacts: "" or "qp" (the convex QP
	// solver) or "filter" (active set on filtered PCG).
	ContactSolver string `json:"contact_solver"`
	// Mode picks the cloth pipeline: "" (Lagrangian, as the bodies say),
	// "eol" (Eulerian-on-Lagrangian cloth, Weidner 2018, with EOL settings),
	// or one of the Lagrangian variants Weidner 2018 sec. 7 compares against:
	// "lag-regular" (static regular mesh: the bodies' remesh settings are
	// ignored), "lag-irregular" (the same mesh with its interior vertices
	// moved by up to 30% of the grid spacing), "lag-nonconformal"
	// (adaptive remeshing, ARCSim: the bodies' remesh settings) and
	// "lag-conformal" (the conformal preprocessing of sec. 6.1 and then the
	// adaptive remesher, with Lagrangian vertices on the features; needs
	// solver.eol). Lagrangian cloth meets sharp features with
	// the averaged normals of sec. 5.1.
	Mode string `json:"mode"`
	// EOL holds the EOL cloth settings; required in modes "eol" and
	// "lag-conformal". The other Lagrangian modes use only its min_edge, for
	// bend_angle_at_feature.
	EOL *EOL `json:"eol"`
	// SelfContact turns on cloth self- and cloth-cloth collision (null:
	// off).
	SelfContact *SelfContact `json:"self_contact"`
}

// SelfContact holds the settings of cloth self- and cloth-cloth collision
// (solver/selfcontact: Bridson et al. 2002 repulsions, CCD impulses and
// impact zones).
type SelfContact struct {
	Thickness float64 `json:"thickness"` // m, > 0: proximities closer than this are repelled
	Friction  float64 `json:"friction"`  // Coulomb coefficient >= 0 between cloth layers
}

// Cloth pipelines (Solver.Mode).
const (
	ModeLagrangian   = ""
	ModeEOL          = "eol"
	ModeRegular      = "lag-regular"
	ModeIrregular    = "lag-irregular"
	ModeNonConformal = "lag-nonconformal"
	ModeConformal    = "lag-conformal"
)

// EOL are the settings of Eulerian-on-Lagrangian cloth (Weidner 2018).
type EOL struct {
	// MinEdge (m) is the conformal preprocessing's collapse threshold
	// (sec. 6.1: 1% of the cloth length).
	MinEdge float64 `json:"min_edge"`
	// MinAngle (degrees): a face with a smaller material-space angle next to
	// a conformal vertex is ill-conditioned and gets split (sec. 6.1).
	MinAngle float64 `json:"min_angle"`
	// BorderAngle (degrees): no conformal edge meets the cloth border at a
	// smaller angle (sec. 6.1).
	BorderAngle float64 `json:"border_angle"`
	// FlatAngle (degrees): an EOL vertex whose incident faces' normals all lie
	// within this angle is locally flat and gets equality constraints
	// (errata Alg. 1).
	FlatAngle float64 `json:"flat_angle"`
	// Reach (m): a cloth edge passing within this distance of a sharp
	// feature (or inside the obstacle there) touches it.
	Reach float64 `json:"reach"`
	// QPDomains is the number of domains the QP's Gauss-Seidel sweeps go
	// through at once (blockqp.Problem.Domains, cut by sparse.Dissect); 0
	// takes DefaultQPDomains, 1 sweeps sequentially. The sweep order, and so
	// the QP's answer within its tolerance, depends on it, never on the
	// worker count.
	QPDomains int `json:"qp_domains"`
}

// DefaultQPDomains is EOL.QPDomains' default: two, one for each core of the
// 2-core machines loom targets; every further cut adds a separator that is
// swept on one core (edge: 8% of the groups for one cut).
const DefaultQPDomains = 2

// MaxQPDomains bounds EOL.QPDomains.
const MaxQPDomains = 64

// Contact solvers.
const (
	ContactQP     = "qp"
	ContactFilter = "filter"
)

// PCG's preconditioners.
const (
	PrecondAMG         = "amg"
	PrecondBlockJacobi = "block-jacobi"
)

// Linear solvers for the unconstrained implicit step.
const (
	LinearPCG  = "pcg"
	LinearLDLT = "ldlt"
)

// Body is one rectangular cloth sheet.
type Body struct {
	Name        string     `json:"name"`        // non-empty, unique, no whitespace
	Size        [2]float64 `json:"size"`        // m, extent along local x and y, > 0
	Resolution  int        `json:"resolution"`  // vertices along the longer side, >= 2
	Position    [3]float64 `json:"position"`    // world position of the sheet's centre
	Orientation [3]float64 `json:"orientation"` // degrees about world x, then y, then z (R = Rz*Ry*Rx)
	Material    Material   `json:"material"`
	Pins        []Pin      `json:"pins"`
	// Triangulation of each grid cell: "" or "alternating" (two triangles,
	// diagonal alternating in a checkerboard) or "cross" (four triangles
	// around a vertex added at the cell centre).
	Triangulation string        `json:"triangulation"`
	Remesh        *Remesh       `json:"remesh"`        // nil: the mesh stays fixed
	StrainLimits  *StrainLimits `json:"strain_limits"` // nil: no strain limiting
	// InitialStretch deforms the sheet's initial world positions (not its
	// rest shape); nil: none.
	InitialStretch *InitialStretch `json:"initial_stretch"`
	// Tube sews the sheet's right edge (local x = size[0]) to its left edge
	// (x = 0) with a seam, and starts it as a prism of perimeter size[0]
	// around the local y axis (see BuildSheet): a skirt or a sleeve.
	Tube bool `json:"tube"`
	// Panels cuts a tube into this many equal panels around its
	// circumference, separate pieces of cloth in material space (panel p's
	// material coordinates are shifted by p cell widths along x) joined by
	// seams: a garment sewn from flat panels. 0 or 1: one panel sewn to
	// itself. Tubes only; the number of grid cells around must be a multiple.
	Panels int `json:"panels"`
	// Model is the body's discretization: "" or "lagrangian" (vertices,
	// membrane and hinges) or "developable" (English & Bridson 2008,
	// see developable.go).
	Model       string       `json:"model"`
	Developable *Developable `json:"developable"` // developable settings; nil: the defaults
}

// InitialStretch is the Narain 2012 Fig. 7 deformation: local x is scaled by
// a factor that goes linearly from Bottom (local y = 0) to Top (local y =
// size[1]), and the sheet is displaced along its normal by
// Wrinkle * sin(2 pi 7 X/size[0]) sin(2 pi 5 Y/size[1]) so that compressed
// regions can buckle out of plane.
type InitialStretch struct {
	Bottom  float64 `json:"bottom"`  // > 0
	Top     float64 `json:"top"`     // > 0
	Wrinkle float64 `json:"wrinkle"` // m
}

// Triangulations of a sheet's grid cells.
const (
	Alternating = "alternating"
	Cross       = "cross"
)

// Remesh holds a body's adaptive remeshing parameters (Narain et al. 2012
// sec. 4): the sizing-field criteria of eq. 10 and the geometric bounds of
// eq. 11-13.
type Remesh struct {
	Every             int     `json:"every"`              // steps between remeshing passes, >= 1
	SizeMin           float64 `json:"size_min"`           // m, l_min > 0
	SizeMax           float64 `json:"size_max"`           // m, l_max >= l_min
	AspectMin         float64 `json:"aspect_min"`         // alpha_min in (0, 1]; 1 = isotropic
	RefineAngle       float64 `json:"refine_angle"`       // Delta n_max > 0: largest normal change across an edge
	RefineCompression float64 `json:"refine_compression"` // c_max > 0
	RefineVelocity    float64 `json:"refine_velocity"`    // m/s, Delta v_max > 0
}

// StrainLimits bounds a body's principal strains (Narain et al. 2012 sec. 5).
type StrainLimits struct {
	Min    float64 `json:"min"`    // in (-1, 0]
	Max    float64 `json:"max"`    // >= 0
	Method string  `json:"method"` // "augmented-lagrangian" or "jacobi"
}

// Strain-limiting methods.
const (
	StrainAugmentedLagrangian = "augmented-lagrangian"
	StrainJacobi              = "jacobi"
)

// Wind is a uniform air flow acting on cloth faces: a pressure on the
// relative normal velocity and a drag on the tangential one.
type Wind struct {
	Velocity [3]float64 `json:"velocity"` // m/s
	Density  float64    `json:"density"`  // kg/m^3, >= 0: normal force rho A |v_n| v_n
	Drag     float64    `json:"drag"`     // kg/(m^2 s), >= 0: tangential force c A v_t
}

// Material holds the cloth's constitutive parameters.
type Material struct {
	Density          float64 `json:"density"`           // kg/m^2, > 0
	StretchStiffness float64 `json:"stretch_stiffness"` // N/m, >= 0: membrane Lamé lambda
	ShearStiffness   float64 `json:"shear_stiffness"`   // N/m, > 0: membrane Lamé mu
	BendingStiffness float64 `json:"bending_stiffness"` // N*m, >= 0
	MassDamping      float64 `json:"mass_damping"`      // 1/s, >= 0 (Rayleigh alpha)
	StiffnessDamping float64 `json:"stiffness_damping"` // s, >= 0 (Rayleigh beta)
}

// Pin constrains one sheet vertex.
type Pin struct {
	At      [2]int  `json:"at"`      // grid index (i along local x, j along local y); negative counts from the end
	Motion  *Motion `json:"motion"`  // nil: fixed in place
	Release float64 `json:"release"` // s, >= 0: the pin lets go at this time; 0 = held for the whole run
}

// Obstacle is a rigid, kinematic collision shape.
type Obstacle struct {
	Name        string     `json:"name"`         // non-empty, unique
	Type        string     `json:"type"`         // "plane" | "sphere" | "box" | "capsule" | "point" | "mesh"
	Center      [3]float64 `json:"center"`       // sphere, box (centre), plane (a point on it), point (the tip), mesh (where the file's origin goes)
	Normal      [3]float64 `json:"normal"`       // plane, point (the nail's outward axis): non-zero, normalized by the loader
	Radius      float64    `json:"radius"`       // sphere, capsule: > 0
	HalfExtents [3]float64 `json:"half_extents"` // box only: > 0 each (along the box's own axes)
	A           [3]float64 `json:"a"`            // capsule segment end point
	B           [3]float64 `json:"b"`            // capsule segment end point (distinct from a)
	// Orientation turns a box about its centre, a capsule's segment about its
	// midpoint, a mesh about its center: degrees about world x, then y, then
	// z (R = Rz*Ry*Rx, as a body's orientation). Box, capsule and mesh only;
	// zero: as given.
	Orientation [3]float64 `json:"orientation"`
	Motion      *Motion    `json:"motion"` // nil: static
	// A mesh obstacle's surface: an OBJ file (OBJ) or a sequence of them
	// (Sequence), exactly one; paths are relative to the scene file's
	// directory. The file's point p is placed at center + scale p, turned by
	// orientation about center.
	OBJ      string        `json:"obj"`
	Sequence *MeshSequence `json:"sequence"`
	Scale    float64       `json:"scale"` // mesh only: > 0; 0 (absent): 1
	// FeatureAngle (degrees, mesh only, in (0, 180)): a rigid closed mesh's
	// convex edges whose two faces' normals differ by more are sharp
	// features, where EOL cloth gets Eulerian vertices (Weidner 2018 sec.
	// 5); 0 (absent): 30, so a cube's edges count and a smooth sphere
	// mesh's do not.
	FeatureAngle float64 `json:"feature_angle"`
}

// MeshSequence is a deforming mesh obstacle: OBJ files of one topology
// (the same vertices, in the same order, and the same faces) shown at FPS
// frames per second, the positions blended linearly between frames.
type MeshSequence struct {
	// Files is the frames' path pattern with one integer verb (fmt), e.g.
	// "walk/frame%03d.obj": frames 0 to Count-1.
	Files string  `json:"files"`
	Count int     `json:"count"` // >= 2
	FPS   float64 `json:"fps"`   // > 0
	// Loop: after the last frame the mesh blends back to the first over
	// one frame interval and repeats; false: it holds the last frame.
	Loop bool `json:"loop"`
}

// Obstacle types.
const (
	Plane   = "plane"
	Sphere  = "sphere"
	Box     = "box"
	Capsule = "capsule"
	Point   = "point" // a nail tip: a sharp point feature (Weidner 2018 errata sec. 3)
	Mesh    = "mesh"  // a triangle mesh from OBJ files
)

// FieldError is a validation or decoding error attached to one field.
type FieldError struct {
	Source string // file name or built-in name; may be empty
	Field  string // field path in scene syntax, e.g. "bodies[0].material.density"; empty for the whole document
	Reason string // e.g. "must be > 0, got -1"
}

func (e *FieldError) Error() string {
	var sb strings.Builder
	if e.Source != "" {
		sb.WriteString(e.Source)
		sb.WriteString(": ")
	}
	if e.Field != "" {
		sb.WriteString(e.Field)
		sb.WriteString(": ")
	}
	sb.WriteString(e.Reason)
	return sb.String()
}

// Source returns where the scene was loaded from ("" if built in code).
func (s *Scene) Source() string { return s.source }

// StepsPerFrame is the number of time steps between written frames:
// round(1/(fps*dt)), at least 1.
func (s *Scene) StepsPerFrame() int {
	n := int(math.Round(1 / (s.FrameRate * s.TimeStep)))
	return max(n, 1)
}

// NumSteps is the number of time steps to cover Duration: round(duration/dt), at least 1.
func (s *Scene) NumSteps() int {
	n := int(math.Round(s.Duration / s.TimeStep))
	return max(n, 1)
}

type validator struct {
	source string
	errs   []error
	// geometries are fabric geometries built before (Scene.geometries),
	// built those of this validation, by Fabric.geometryKey.
	geometries, built map[string]*fabric.Fabric
}

func (v *validator) fail(field, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Source: v.source, Field: field, Reason: fmt.Sprintf(format, args...)})
}

func (v *validator) positive(field string, x float64) {
	if !(x > 0) {
		v.fail(field, "must be > 0, got %v", x)
	}
}

func (v *validator) nonNegative(field string, x float64) {
	if !(x >= 0) {
		v.fail(field, "must be >= 0, got %v", x)
	}
}

func (v *validator) zero3(field, typ string, x [3]float64) {
	if x != ([3]float64{}) {
		v.fail(field, "not used by a %s obstacle; remove it (got %v)", typ, fmtVec(x[:]))
	}
}

func fmtVec(x []float64) string {
	parts := make([]string, len(x))
	for i, c := range x {
		parts[i] = fmt.Sprint(c)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Validate checks every rule of the schema and returns all violations joined
// (errors.Join); each is a *FieldError naming the field and the reason.
func (s *Scene) Validate() error {
	v := &validator{source: s.source, geometries: s.geometries, built: map[string]*fabric.Fabric{}}
	checkFinite(v, reflect.ValueOf(s).Elem(), "")

	v.positive("dt", s.TimeStep)
	v.positive("duration", s.Duration)
	if s.TimeStep > 0 && s.Duration > 0 && s.TimeStep > s.Duration {
		v.fail("dt", "must be <= duration (%v), got %v", s.Duration, s.TimeStep)
	}
	v.positive("fps", s.FrameRate)
	if !(s.InclineDeg >= -90 && s.InclineDeg <= 90) {
		v.fail("incline_deg", "must be in [-90, 90], got %v", s.InclineDeg)
	}

	if !(s.Solver.Tolerance > 0 && s.Solver.Tolerance < 1) {
		v.fail("solver.tolerance", "must be in (0, 1), got %v", s.Solver.Tolerance)
	}
	if s.Solver.MaxIterations < 1 {
		v.fail("solver.max_iterations", "must be >= 1, got %d", s.Solver.MaxIterations)
	}
	v.nonNegative("solver.contact_thickness", s.Solver.Thickness)
	v.nonNegative("solver.friction", s.Solver.Friction)
	if s.Solver.Linear != LinearPCG && s.Solver.Linear != LinearLDLT {
		v.fail("solver.linear", "must be %q or %q, got %q", LinearPCG, LinearLDLT, s.Solver.Linear)
	}
	switch s.Solver.Preconditioner {
	case "", PrecondAMG, PrecondBlockJacobi:
	default:
		v.fail("solver.preconditioner", "must be %q or %q, got %q", PrecondAMG, PrecondBlockJacobi, s.Solver.Preconditioner)
	}
	switch s.Solver.ContactSolver {
	case "", ContactQP, ContactFilter:
	default:
		v.fail("solver.contact_solver", "must be %q or %q, got %q", ContactQP, ContactFilter, s.Solver.ContactSolver)
	}
	validateMode(v, &s.Solver)
	if sc := s.Solver.SelfContact; sc != nil {
		v.positive("solver.self_contact.thickness", sc.Thickness)
		v.nonNegative("solver.self_contact.friction", sc.Friction)
	}
	if len(s.Bodies) == 0 && (s.Rods == nil || len(s.Rods.Strands)+len(s.Rods.Fabrics) == 0) {
		v.fail("bodies", "at least one body or rod strand (or fabric) is required")
	}
	names := map[string]string{} // name -> field path of first use
	for bi := range s.Bodies {
		validateBody(v, &s.Bodies[bi], fmt.Sprintf("bodies[%d]", bi), names)
	}
	for oi := range s.Obstacles {
		validateObstacle(v, &s.Obstacles[oi], fmt.Sprintf("obstacles[%d]", oi), names)
	}
	if s.Rods != nil {
		validateRods(v, s.Rods, "rods", names)
	}
	if w := s.Wind; w != nil {
		v.nonNegative("wind.density", w.Density)
		v.nonNegative("wind.drag", w.Drag)
	}
	validatePipeline(v, s)
	validateDevelopable(v, s)
	s.geometries = v.built
	return errors.Join(v.errs...)
}

// validatePipeline rejects settings that the pipeline of solver.mode has no
// stage for, rather than ignoring them: strain limits in the conformal
// pipeline, and an LDL^T linear solver where only the EOL QP solves.
func validatePipeline(v *validator, s *Scene) {
	if s.Solver.Mode != ModeEOL && s.Solver.Mode != ModeConformal {
		return
	}
	for bi := range s.Bodies {
		if s.Bodies[bi].StrainLimits != nil && s.Solver.Mode == ModeConformal {
			v.fail(fmt.Sprintf("bodies[%d].strain_limits", bi), "not supported in solver.mode %q (its pipeline has no strain-limiting stage); remove it, or use mode \"\" or %q", s.Solver.Mode, ModeNonConformal)
		}
	}
	if s.Solver.Mode == ModeEOL && s.Solver.Linear == LinearLDLT {
		v.fail("solver.linear", "%q is not used in solver.mode %q (every EOL step solves the QP of Weidner 2018 eq. 12); use %q", LinearLDLT, ModeEOL, LinearPCG)
	}
}

func validateName(v *validator, field, name string, names map[string]string) {
	switch {
	case name == "":
		v.fail(field, "must be non-empty")
		return
	case strings.IndexFunc(name, unicode.IsSpace) >= 0:
		v.fail(field, "must not contain whitespace, got %q", name)
	}
	if prev, ok := names[name]; ok {
		v.fail(field, "duplicate name %q (already used by %s)", name, strings.TrimSuffix(prev, ".name"))
		return
	}
	names[name] = field
}

func validateBody(v *validator, b *Body, p string, names map[string]string) {
	validateName(v, p+".name", b.Name, names)
	for k := range 2 {
		v.positive(fmt.Sprintf("%s.size[%d]", p, k), b.Size[k])
	}
	gridOK := true
	if b.Resolution < 2 || b.Resolution > MaxResolution {
		v.fail(p+".resolution", "must be in [2, %d], got %d", MaxResolution, b.Resolution)
		gridOK = false
	}
	if !(b.Size[0] > 0 && b.Size[1] > 0) || math.IsInf(b.Size[0], 0) || math.IsInf(b.Size[1], 0) {
		gridOK = false
	}

	m := &b.Material
	mp := p + ".material"
	v.positive(mp+".density", m.Density)
	v.nonNegative(mp+".stretch_stiffness", m.StretchStiffness)
	v.positive(mp+".shear_stiffness", m.ShearStiffness)
	v.nonNegative(mp+".bending_stiffness", m.BendingStiffness)
	v.nonNegative(mp+".mass_damping", m.MassDamping)
	v.nonNegative(mp+".stiffness_damping", m.StiffnessDamping)

	var nx, ny int
	if gridOK {
		nx, ny = b.Grid()
	}
	seen := map[[2]int]int{}
	for k, pin := range b.Pins {
		pp := fmt.Sprintf("%s.pins[%d]", p, k)
		if gridOK {
			i, ok := normIndex(pin.At[0], nx)
			if !ok {
				v.fail(pp+".at[0]", "index %d out of range for a grid with %d vertices along x (valid: %d..%d)", pin.At[0], nx, -nx, nx-1)
			}
			j, okj := normIndex(pin.At[1], ny)
			if !okj {
				v.fail(pp+".at[1]", "index %d out of range for a grid with %d vertices along y (valid: %d..%d)", pin.At[1], ny, -ny, ny-1)
			}
			if ok && b.Tube && nx > 1 {
				i %= nx - 1 // column nx-1 is column 0 on the seam
			}
			if ok && okj {
				if prev, dup := seen[[2]int{i, j}]; dup {
					v.fail(pp+".at", "vertex (%d,%d) is already pinned by %s.pins[%d]", i, j, p, prev)
				} else {
					seen[[2]int{i, j}] = k
				}
			}
		}
		if pin.Motion != nil {
			validateMotion(v, pin.Motion, pp+".motion")
		}
		v.nonNegative(pp+".release", pin.Release)
	}
	switch b.Triangulation {
	case "", Alternating, Cross:
	default:
		v.fail(p+".triangulation", "must be %q or %q, got %q", Alternating, Cross, b.Triangulation)
	}
	if r := b.Remesh; r != nil {
		rp := p + ".remesh"
		if r.Every < 1 {
			v.fail(rp+".every", "must be >= 1, got %d", r.Every)
		}
		v.positive(rp+".size_min", r.SizeMin)
		if !(r.SizeMax >= r.SizeMin) {
			v.fail(rp+".size_max", "must be >= size_min (%v), got %v", r.SizeMin, r.SizeMax)
		} else if area := b.Size[0] * b.Size[1]; r.SizeMax > 0 && area/(math.Sqrt(3)/4*r.SizeMax*r.SizeMax) > MaxRemeshAsk {
			v.fail(rp+".size_max", "%v m asks for at least %.3g faces on the %v m^2 body (edges no longer than size_max); at most %d", r.SizeMax, area/(math.Sqrt(3)/4*r.SizeMax*r.SizeMax), area, MaxRemeshAsk)
		}
		if !(r.AspectMin > 0 && r.AspectMin <= 1) {
			v.fail(rp+".aspect_min", "must be in (0, 1], got %v", r.AspectMin)
		}
		v.positive(rp+".refine_angle", r.RefineAngle)
		v.positive(rp+".refine_compression", r.RefineCompression)
		v.positive(rp+".refine_velocity", r.RefineVelocity)
	}
	if b.Panels < 0 || (b.Panels > 1 && !b.Tube) {
		v.fail(p+".panels", "must be 0 or 1, or >= 2 on a tube, got %d (tube %v)", b.Panels, b.Tube)
	} else if b.Panels > 1 && gridOK && (nx-1)%b.Panels != 0 {
		v.fail(p+".panels", "the %d grid cells around the tube are not a multiple of %d panels", nx-1, b.Panels)
	}
	if b.Tube {
		if gridOK && nx < 4 {
			v.fail(p+".tube", "a tube needs at least 4 grid vertices around (along size[0]), got %d; raise resolution or size[0]", nx)
		}
		if b.InitialStretch != nil {
			v.fail(p+".initial_stretch", "not supported on a tube; remove it or set tube to false")
		}
	}
	if is := b.InitialStretch; is != nil {
		v.positive(p+".initial_stretch.bottom", is.Bottom)
		v.positive(p+".initial_stretch.top", is.Top)
	}
	if sl := b.StrainLimits; sl != nil {
		sp := p + ".strain_limits"
		if !(sl.Min > -1 && sl.Min <= 0) {
			v.fail(sp+".min", "must be in (-1, 0], got %v", sl.Min)
		}
		v.nonNegative(sp+".max", sl.Max)
		if sl.Method != StrainAugmentedLagrangian && sl.Method != StrainJacobi {
			v.fail(sp+".method", "must be %q or %q, got %q", StrainAugmentedLagrangian, StrainJacobi, sl.Method)
		}
	}
}

// normIndex maps a Python-style index into [0, n).
func normIndex(i, n int) (int, bool) {
	if i < 0 {
		i += n
	}
	return i, i >= 0 && i < n
}

func validateMotion(v *validator, m *Motion, p string) {
	velForm := m.Velocity != nil || m.AngularVelocity != nil
	switch {
	case m.Velocity != nil && len(m.Keyframes) > 0:
		v.fail(p, "set exactly one of velocity or keyframes, got both")
	case m.AngularVelocity != nil && len(m.Keyframes) > 0:
		v.fail(p+".angular_velocity", "only used with the velocity form; give keyframes an orientation instead")
	case !velForm && len(m.Keyframes) == 0:
		v.fail(p, "set exactly one of velocity (and/or angular_velocity) or keyframes, got neither")
	case velForm:
		if m.Interpolation != "" {
			v.fail(p+".interpolation", "only used with keyframes; remove it for velocity (got %q)", m.Interpolation)
		}
		v.nonNegative(p+".start", m.Start)
		if m.Stop != 0 && !(m.Stop > m.Start) {
			v.fail(p+".stop", "must be 0 (forever) or > start (%v), got %v", m.Start, m.Stop)
		}
	default:
		if m.Interpolation != "" && m.Interpolation != InterpLinear && m.Interpolation != InterpCatmullRom {
			v.fail(p+".interpolation", "must be %q or %q, got %q", InterpLinear, InterpCatmullRom, m.Interpolation)
		}
		if m.Start != 0 {
			v.fail(p+".start", "only used with velocity; remove it for keyframes (got %v)", m.Start)
		}
		if m.Stop != 0 {
			v.fail(p+".stop", "only used with velocity; remove it for keyframes (got %v)", m.Stop)
		}
		if len(m.Keyframes) < 2 {
			v.fail(p+".keyframes", "need at least 2 keys, got %d", len(m.Keyframes))
		}
		for k := 1; k < len(m.Keyframes); k++ {
			if !(m.Keyframes[k].T > m.Keyframes[k-1].T) {
				v.fail(fmt.Sprintf("%s.keyframes[%d].t", p, k), "times must be strictly increasing, got %v after %v", m.Keyframes[k].T, m.Keyframes[k-1].T)
			}
		}
	}
	if m.Pivot != nil && !m.Rotates() {
		v.fail(p+".pivot", "only used with a rotating motion (angular_velocity or keyframe orientations); remove it (got %s)", fmtVec(m.Pivot[:]))
	}
}

func validateObstacle(v *validator, o *Obstacle, p string, names map[string]string) {
	if o.Name == "" {
		v.fail(p+".name", "must be non-empty")
	} else if prev, ok := names[o.Name]; ok {
		v.fail(p+".name", "duplicate name %q (already used by %s)", o.Name, strings.TrimSuffix(prev, ".name"))
	} else {
		names[o.Name] = p + ".name"
	}
	if o.Type != Mesh {
		if o.OBJ != "" {
			v.fail(p+".obj", "not used by a %s obstacle; remove it (got %q)", o.Type, o.OBJ)
		}
		if o.Sequence != nil {
			v.fail(p+".sequence", "not used by a %s obstacle; remove it", o.Type)
		}
		if o.Scale != 0 {
			v.fail(p+".scale", "not used by a %s obstacle; remove it (got %v)", o.Type, o.Scale)
		}
		if o.FeatureAngle != 0 {
			v.fail(p+".feature_angle", "not used by a %s obstacle; remove it (got %v)", o.Type, o.FeatureAngle)
		}
	}
	switch o.Type {
	case Plane:
		v.zero3(p+".orientation", o.Type, o.Orientation)
		if o.Normal == ([3]float64{}) {
			v.fail(p+".normal", "must be non-zero for a plane")
		}
		if o.Radius != 0 {
			v.fail(p+".radius", "not used by a plane obstacle; remove it (got %v)", o.Radius)
		}
		v.zero3(p+".half_extents", o.Type, o.HalfExtents)
		v.zero3(p+".a", o.Type, o.A)
		v.zero3(p+".b", o.Type, o.B)
	case Sphere:
		v.zero3(p+".orientation", o.Type, o.Orientation)
		v.positive(p+".radius", o.Radius)
		v.zero3(p+".normal", o.Type, o.Normal)
		v.zero3(p+".half_extents", o.Type, o.HalfExtents)
		v.zero3(p+".a", o.Type, o.A)
		v.zero3(p+".b", o.Type, o.B)
	case Box:
		for k := range 3 {
			v.positive(fmt.Sprintf("%s.half_extents[%d]", p, k), o.HalfExtents[k])
		}
		if o.Radius != 0 {
			v.fail(p+".radius", "not used by a box obstacle; remove it (got %v)", o.Radius)
		}
		v.zero3(p+".normal", o.Type, o.Normal)
		v.zero3(p+".a", o.Type, o.A)
		v.zero3(p+".b", o.Type, o.B)
	case Capsule:
		v.positive(p+".radius", o.Radius)
		if o.A == o.B {
			v.fail(p+".b", "capsule end points a and b must be distinct, both are %s", fmtVec(o.A[:]))
		}
		v.zero3(p+".center", o.Type, o.Center)
		v.zero3(p+".normal", o.Type, o.Normal)
		v.zero3(p+".half_extents", o.Type, o.HalfExtents)
	case Point:
		v.zero3(p+".orientation", o.Type, o.Orientation)
		if o.Normal == ([3]float64{}) {
			v.fail(p+".normal", "must be non-zero for a point")
		}
		if o.Radius != 0 {
			v.fail(p+".radius", "not used by a point obstacle; remove it (got %v)", o.Radius)
		}
		v.zero3(p+".half_extents", o.Type, o.HalfExtents)
		v.zero3(p+".a", o.Type, o.A)
		v.zero3(p+".b", o.Type, o.B)
	case Mesh:
		validateMeshObstacle(v, o, p)
	case "":
		v.fail(p+".type", "missing; must be one of plane, sphere, box, capsule, point, mesh")
	default:
		v.fail(p+".type", "must be one of plane, sphere, box, capsule, point, mesh, got %q", o.Type)
	}
	if o.Motion != nil {
		validateMotion(v, o.Motion, p+".motion")
	}
}

// checkFinite reports every NaN or Inf float reachable from val.
func checkFinite(v *validator, val reflect.Value, path string) {
	switch val.Kind() {
	case reflect.Float64:
		if f := val.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			v.fail(path, "must be finite, got %v", f)
		}
	case reflect.Pointer:
		if !val.IsNil() {
			checkFinite(v, val.Elem(), path)
		}
	case reflect.Array, reflect.Slice:
		for i := range val.Len() {
			checkFinite(v, val.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Struct:
		t := val.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			checkFinite(v, val.Field(i), joinPath(path, jsonName(f)))
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// jsonName returns the JSON key of a struct field.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "" {
		return f.Name
	}
	return tag
}

// normalize applies the loader's canonicalisations (plane normals to unit
// length). Call only on a valid scene.
func (s *Scene) normalize() {
	for i := range s.Obstacles {
		o := &s.Obstacles[i]
		if o.Type == Plane || o.Type == Point {
			n := math.Sqrt(o.Normal[0]*o.Normal[0] + o.Normal[1]*o.Normal[1] + o.Normal[2]*o.Normal[2])
			if n > 0 {
				for k := range 3 {
					o.Normal[k] /= n
				}
			}
		}
	}
}

// validateMode checks solver.mode and the EOL settings it needs.
func validateMode(v *validator, s *Solver) {
	switch s.Mode {
	case ModeLagrangian, ModeRegular, ModeIrregular, ModeNonConformal:
	case ModeEOL, ModeConformal:
		if s.EOL == nil {
			v.fail("solver.eol", "required in mode %q", s.Mode)
			return
		}
	default:
		v.fail("solver.mode", "must be one of \"\", %q, %q, %q, %q, %q, got %q", ModeEOL, ModeRegular, ModeIrregular, ModeNonConformal, ModeConformal, s.Mode)
		return
	}
	e := s.EOL
	if e == nil {
		return
	}
	v.positive("solver.eol.min_edge", e.MinEdge)
	if !(e.MinAngle > 0 && e.MinAngle < 60) {
		v.fail("solver.eol.min_angle", "must be in (0, 60) degrees, got %v", e.MinAngle)
	}
	if !(e.BorderAngle >= 0 && e.BorderAngle < 90) {
		v.fail("solver.eol.border_angle", "must be in [0, 90) degrees, got %v", e.BorderAngle)
	}
	if !(e.FlatAngle >= 0 && e.FlatAngle < 90) {
		v.fail("solver.eol.flat_angle", "must be in [0, 90) degrees, got %v", e.FlatAngle)
	}
	v.positive("solver.eol.reach", e.Reach)
	if e.QPDomains < 0 || e.QPDomains > MaxQPDomains {
		v.fail("solver.eol.qp_domains", "must be in [0, %d], got %d", MaxQPDomains, e.QPDomains)
	}
}
