package scenes

import (
	"fmt"

	"github.com/loomsim/loom/model"
)

// Body models (Body.Model).
const (
	ModelLagrangian  = "lagrangian"
	ModelDevelopable = "developable"
)

// Developable holds a developable body's solver settings (English &
// Bridson 2008). Zero fields take the defaults below.
type Developable struct {
	// Scheme is "bdf2" (the default: the paper's BDF2 projection) or
	// "first-order" (fast projection, Goldenthal et al. 2007).
	Scheme string `json:"scheme"`
	// Tolerance is the largest relative constraint violation the
	// projection leaves (|x_i - x_j|^2 / d^2 - 1 for a face's midpoints);
	// default 1e-4, as in the paper's pinned square.
	Tolerance float64 `json:"tolerance"`
	// MaxIterations bounds the projection steps per time step (default
	// 100); not converging within them stops the run with an error.
	MaxIterations int `json:"max_iterations"`
}

// Developable schemes.
const (
	SchemeBDF2       = "bdf2"
	SchemeFirstOrder = "first-order"
)

// Developable defaults.
const (
	DefaultDevelopableTolerance     = 1e-4
	DefaultDevelopableMaxIterations = 100
)

// developable reports whether the scene's bodies are developable.
func (s *Scene) developable() bool {
	return len(s.Bodies) > 0 && s.Bodies[0].Model == ModelDevelopable
}

// developableModel resolves a body's model and developable settings.
func developableModel(b *Body) (model.BodyModel, *model.DevelopableSettings) {
	if b.Model != ModelDevelopable {
		return model.LagrangianBody, nil
	}
	d := model.DevelopableSettings{Tolerance: DefaultDevelopableTolerance, MaxIterations: DefaultDevelopableMaxIterations, Scheme: model.BDF2Projection}
	if c := b.Developable; c != nil {
		if c.Scheme == SchemeFirstOrder {
			d.Scheme = model.FirstOrderProjection
		}
		if c.Tolerance != 0 {
			d.Tolerance = c.Tolerance
		}
		if c.MaxIterations != 0 {
			d.MaxIterations = c.MaxIterations
		}
	}
	return model.DevelopableBody, &d
}

// validateDevelopable checks the bodies' models and rejects what the
// developable pipeline has no stage for: bodies of both models in one
// scene, a solver.mode other than "", wind, remeshing,
// strain limits and initial stretch (a developable body starts isometric
// to its rest shape). A tube is a developable body like a sheet: its seam
// edges are interior edges of the nonconforming mesh.
func validateDevelopable(v *validator, s *Scene) {
	for bi := range s.Bodies {
		b := &s.Bodies[bi]
		p := fmt.Sprintf("bodies[%d]", bi)
		switch b.Model {
		case "", ModelLagrangian, ModelDevelopable:
		default:
			v.fail(p+".model", "must be \"\", %q or %q, got %q", ModelLagrangian, ModelDevelopable, b.Model)
			continue
		}
		if (b.Model == ModelDevelopable) != s.developable() {
			v.fail(p+".model", "%q: every body of a scene must have the same model (bodies[0] is %q)", b.Model, s.Bodies[0].Model)
		}
		// A body of another model may keep its developable settings,
		// checked and unused (as a developable body's stretch stiffness),
		// so that --set bodies.N.model=lagrangian runs the scene as
		// Lagrangian cloth.
		if d := b.Developable; d != nil {
			if d.Scheme != "" && d.Scheme != SchemeBDF2 && d.Scheme != SchemeFirstOrder {
				v.fail(p+".developable.scheme", "must be %q or %q, got %q", SchemeBDF2, SchemeFirstOrder, d.Scheme)
			}
			if !(d.Tolerance >= 0 && d.Tolerance < 1) {
				v.fail(p+".developable.tolerance", "must be in [0, 1) (0: %g), got %v", DefaultDevelopableTolerance, d.Tolerance)
			}
			if d.MaxIterations < 0 {
				v.fail(p+".developable.max_iterations", "must be >= 0 (0: %d), got %d", DefaultDevelopableMaxIterations, d.MaxIterations)
			}
		}
		if b.Model != ModelDevelopable {
			continue
		}
		unsupported := func(field string, set bool) {
			if set {
				v.fail(p+"."+field, "not supported with model %q (its pipeline has no stage for it)", ModelDevelopable)
			}
		}
		unsupported("remesh", b.Remesh != nil)
		unsupported("strain_limits", b.StrainLimits != nil)
		unsupported("initial_stretch", b.InitialStretch != nil)
	}
	if !s.developable() {
		return
	}
	if s.Solver.Mode != ModeLagrangian {
		v.fail("solver.mode", "must be \"\" with developable bodies, got %q", s.Solver.Mode)
	}
	if s.Wind != nil {
		v.fail("wind", "not supported with developable bodies")
	}
}
