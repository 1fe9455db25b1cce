package developable

import (
	"fmt"

	"github.com/loomsim/loom/solver/ldlt"
)

// Scheme selects the time integrator of a Body.
type Scheme uint8

// Schemes (English & Bridson 2008 sec. 4).
const (
	FirstOrder Scheme = iota // fast projection of an implicit-Euler-like prediction (Goldenthal et al. 2007)
	BDF2                     // the paper's BDF2 projection; its first step is first order
)

// Params are a body's physical and solver settings.
type Params struct {
	Density   float64    // kg/m^2
	Bending   float64    // N m, k_b
	Damping   float64    // 1/s, mass-proportional
	Gravity   [3]float64 // m/s^2
	Dt        float64    // s
	Scheme    Scheme
	Tolerance float64 // largest scaled |C| after projection (relative in-plane error x 2)
	MaxIter   int     // projection steps per time step
}

// Body is one developable body's state and solvers: edge-midpoint
// positions X and velocities V (3 per edge) and the previous step's, for
// BDF2. A step is Predict, Project, then (after collision handling on the
// ghost mesh) EndStep.
type Body struct {
	Mesh        *Mesh
	Ghost       *Ghost
	Constraints *Constraints
	Bend        *Bending
	Mass        []float64 // per edge
	P           Params

	X, V       []float64
	xOld, vOld []float64 // x^n, v^n during a step
	xm1, vm1   []float64 // x^{n-1}, v^{n-1}
	steps      int

	// predictor factors of M + c dt^2 K, by c (1 first order, 4/9 BDF2).
	pred   map[float64]*ldlt.Factor
	hrows  []int
	hcols  []int
	hvals  []float64
	rhs    []float64 // E
	sol    []float64 // E
	LastIt ProjectStats
}

// NewBody builds a body on mesh m whose vertices start at positions x0 (3
// per vertex, assumed isometric to the rest shape) at rest.
func NewBody(m *Mesh, x0 []float64, p Params) (*Body, error) {
	if len(x0) != 3*m.NumVerts {
		return nil, fmt.Errorf("developable: %d position values for %d vertices", len(x0), m.NumVerts)
	}
	if !(p.Density > 0) || !(p.Dt > 0) || p.Bending < 0 || p.Damping < 0 || !(p.Tolerance > 0) || p.MaxIter < 1 {
		return nil, fmt.Errorf("developable: bad parameters %+v (density, dt, tolerance > 0; bending, damping >= 0; max iterations >= 1)", p)
	}
	b := &Body{Mesh: m, P: p, Mass: m.EdgeMasses(p.Density), Bend: NewBending(m, p.Bending), pred: map[float64]*ldlt.Factor{}}
	var err error
	if b.Ghost, err = NewGhost(m); err != nil {
		return nil, err
	}
	if b.Constraints, err = NewConstraints(m, b.Mass); err != nil {
		return nil, err
	}
	ne := m.NumEdges()
	b.X = m.Midpoints(x0)
	b.V = make([]float64, 3*ne)
	b.xOld, b.vOld = make([]float64, 3*ne), make([]float64, 3*ne)
	b.xm1, b.vm1 = make([]float64, 3*ne), make([]float64, 3*ne)
	b.rhs, b.sol = make([]float64, ne), make([]float64, ne)
	r, c, v := b.Bend.Hessian()
	b.hrows, b.hcols, b.hvals = r, c, v
	return b, nil
}

// bdf2 reports whether the current step uses the BDF2 formulas: the scheme
// asks for them and a previous step exists.
func (b *Body) bdf2() bool { return b.P.Scheme == BDF2 && b.steps > 0 }

// Predict computes the unconstrained prediction x0 into X from x^n, v^n
// (and x^{n-1}, v^{n-1} for BDF2) under gravity, mass damping and bending:
//
//	first order: x0 = x^n + dt v^n + dt^2 M^-1 F_a
//	BDF2:        x0 = 4/3 x^n - 1/3 x^{n-1} + 8/9 dt v^n - 2/9 dt v^{n-1} + 4/9 dt^2 M^-1 F_a
//
// (English & Bridson 2008, restated). The bending force -K x, linear in x
// with the constant Hessian K, is taken at x0 itself, so x0 solves
// (M + c dt^2 K) x0 = M y + c dt^2 (M g - alpha M v^n) with y the
// inertial part and c = 1 or 4/9: stable for any bending stiffness, and
// the factor of M + c dt^2 K is computed once per c. Damping -alpha M v^n
// is explicit.
func (b *Body) Predict() error {
	copy(b.xOld, b.X)
	copy(b.vOld, b.V)
	h := b.P.Dt
	c := 1.0
	ne := b.Mesh.NumEdges()
	y := b.X
	if b.bdf2() {
		c = 4.0 / 9
		for i := range y {
			y[i] = 4.0/3*b.xOld[i] - 1.0/3*b.xm1[i] + 8.0/9*h*b.vOld[i] - 2.0/9*h*b.vm1[i]
		}
	} else {
		for i := range y {
			y[i] = b.xOld[i] + h*b.vOld[i]
		}
	}
	f, err := b.predictor(c)
	if err != nil {
		return err
	}
	ch2 := c * h * h
	for k := range 3 {
		for e := range ne {
			m := b.Mass[e]
			b.rhs[e] = m*y[3*e+k] + ch2*m*(b.P.Gravity[k]-b.P.Damping*b.vOld[3*e+k])
		}
		f.Solve(b.rhs, b.sol)
		for e := range ne {
			b.X[3*e+k] = b.sol[e]
		}
	}
	return nil
}

// predictor returns the factor of M + c dt^2 K.
func (b *Body) predictor(c float64) (*ldlt.Factor, error) {
	if f := b.pred[c]; f != nil {
		return f, nil
	}
	ne := b.Mesh.NumEdges()
	s := c * b.P.Dt * b.P.Dt
	rows := append([]int(nil), b.hrows...)
	cols := append([]int(nil), b.hcols...)
	vals := make([]float64, len(b.hvals), len(b.hvals)+ne)
	for i, v := range b.hvals {
		vals[i] = s * v
	}
	for e := range ne {
		rows, cols, vals = append(rows, e), append(cols, e), append(vals, b.Mass[e])
	}
	a, err := ldlt.FromTriplets(ne, rows, cols, vals)
	if err != nil {
		return nil, fmt.Errorf("developable: M + dt^2 K: %w", err)
	}
	sym, err := ldlt.Analyze(a, ldlt.AMD)
	if err != nil {
		return nil, fmt.Errorf("developable: M + dt^2 K: %w", err)
	}
	f, err := sym.Factor(a, nil)
	if err != nil {
		return nil, fmt.Errorf("developable: M + dt^2 K: %w", err)
	}
	b.pred[c] = f
	return f, nil
}

// Project projects the prediction onto the constraints (pins as given to
// SetPins) and sets the velocities: v^{n+1} = (x^{n+1} - x^n)/dt, or
// (3 x^{n+1} - 4 x^n + x^{n-1})/(2 dt) for BDF2.
func (b *Body) Project() error {
	return b.velocities(b.Constraints.Project(b.X, b.P.Tolerance, b.P.MaxIter))
}

// ProjectUntil is Project paused once the largest scaled |C| is at most
// pause (Constraints.ProjectUntil; LastIt.Paused says whether it did);
// Resume finishes it exactly as Project would have.
func (b *Body) ProjectUntil(pause float64) error {
	return b.velocities(b.Constraints.ProjectUntil(b.X, b.P.Tolerance, pause, b.P.MaxIter))
}

// Resume finishes the projection ProjectUntil paused; LastIt counts the
// steps since the pause.
func (b *Body) Resume() error {
	return b.velocities(b.Constraints.Resume(b.X, b.P.Tolerance, b.P.MaxIter))
}

// velocities records a projection's stats and, if it succeeded, sets the
// velocities of the step's scheme from the projected positions.
func (b *Body) velocities(st ProjectStats, err error) error {
	b.LastIt = st
	if err != nil {
		return err
	}
	h := b.P.Dt
	if b.bdf2() {
		for i := range b.V {
			b.V[i] = (3*b.X[i] - 4*b.xOld[i] + b.xm1[i]) / (2 * h)
		}
	} else {
		for i := range b.V {
			b.V[i] = (b.X[i] - b.xOld[i]) / h
		}
	}
	return nil
}

// VelocityScale is d v^{n+1} / d x^{n+1} of the current step's scheme: 1/dt,
// or 3/(2 dt) for BDF2. A position correction after the projection changes
// the velocity by it.
func (b *Body) VelocityScale() float64 {
	if b.bdf2() {
		return 1.5 / b.P.Dt
	}
	return 1 / b.P.Dt
}

// Correct applies the ghost mesh's collision response xc (3 per vertex)
// through Ghost.Correct, with the velocity change of the step's scheme.
func (b *Body) Correct(xc []float64) {
	b.Ghost.Correct(b.X, b.V, xc, b.VelocityScale())
}

// Residual returns the largest scaled constraint value at the current X.
func (b *Body) Residual() float64 {
	return b.Constraints.Eval(b.X, b.Constraints.c)
}

// EndStep closes the step: x^n, v^n become the previous step's.
func (b *Body) EndStep() {
	b.xm1, b.xOld = b.xOld, b.xm1
	b.vm1, b.vOld = b.vOld, b.vm1
	b.steps++
}

// KineticEnergy returns 1/2 v^T M v (J).
func (b *Body) KineticEnergy() float64 {
	e := 0.0
	for i, v := range b.V {
		e += b.Mass[i/3] * v * v
	}
	return 0.5 * e
}

// GravityEnergy returns -sum m_e g . x_e (J, zero at the origin).
func (b *Body) GravityEnergy() float64 {
	e := 0.0
	for i, x := range b.X {
		e -= b.Mass[i/3] * b.P.Gravity[i%3] * x
	}
	return e
}
