package scenes

import (
	"strings"
	"testing"

	"github.com/loomsim/loom/model"
)

// TestDevelopableModel: the body model and its settings resolve with their
// defaults, and what the developable pipeline cannot run is an error that
// names the field.
func TestDevelopableModel(t *testing.T) {
	s, err := Builtin("pinned-square")
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bodies[0]
	if m.Solver.Pipeline != model.Developable || b.Model != model.DevelopableBody || b.Developable == nil ||
		*b.Developable != (model.DevelopableSettings{Scheme: model.BDF2Projection, Tolerance: 5e-6, MaxIterations: 400}) {
		t.Fatalf("pipeline %v, body model %v, settings %+v", m.Solver.Pipeline, b.Model, b.Developable)
	}
	// The defaults, without the scene's settings.
	d, err := Builtin("pinned-square")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Set("bodies.0.developable", "null"); err != nil {
		t.Fatal(err)
	}
	if m, err := d.Model(); err != nil || *m.Bodies[0].Developable != (model.DevelopableSettings{Scheme: model.BDF2Projection, Tolerance: 1e-4, MaxIterations: 100}) {
		t.Fatalf("defaults: %v, %+v", err, m.Bodies[0].Developable)
	}
	// --set bodies.0.model=lagrangian alone runs it as Lagrangian cloth:
	// the developable settings stay, unused.
	if err := d.Set("bodies.0.developable.tolerance", "5e-6"); err != nil {
		t.Fatal(err)
	}
	if err := d.Set("bodies.0.model", "lagrangian"); err != nil {
		t.Fatal(err)
	}
	if m, err := d.Model(); err != nil || m.Solver.Pipeline == model.Developable || m.Bodies[0].Model != model.LagrangianBody || m.Bodies[0].Developable != nil {
		t.Fatalf("model lagrangian: %v, pipeline %v, body %v, settings %+v", err, m.Solver.Pipeline, m.Bodies[0].Model, m.Bodies[0].Developable)
	}
	if err := s.Set("bodies.0.developable.scheme", "first-order"); err != nil {
		t.Fatal(err)
	}
	if m, _ = s.Model(); m.Bodies[0].Developable.Scheme != model.FirstOrderProjection {
		t.Fatalf("scheme %v after --set first-order", m.Bodies[0].Developable.Scheme)
	}
	for _, c := range []struct {
		set  [][2]string
		want string
	}{
		{[][2]string{{"bodies.0.model", "paper"}}, "bodies[0].model: must be"},
		{[][2]string{{"bodies.0.model", "lagrangian"}, {"bodies.0.developable.tolerance", "-1"}}, "bodies[0].developable.tolerance"},
		{[][2]string{{"bodies.0.developable.scheme", "rk4"}}, "bodies[0].developable.scheme"},
		{[][2]string{{"bodies.0.developable.tolerance", "-1"}}, "bodies[0].developable.tolerance"},
		{[][2]string{{"bodies.0.strain_limits", `{"min": -0.1, "max": 0.1, "method": "jacobi"}`}}, "bodies[0].strain_limits: not supported with model"},
		{[][2]string{{"solver.mode", "lag-regular"}}, "solver.mode: must be"},
	} {
		s, _ := Builtin("pinned-square")
		var err error
		for _, kv := range c.set {
			if err = s.Set(kv[0], kv[1]); err != nil {
				break
			}
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.set, err, c.want)
		}
	}
	// Two bodies of different models.
	two, _ := Builtin("layers")
	if err := two.Set("bodies.1.model", "developable"); err == nil || !strings.Contains(err.Error(), "same model") {
		t.Errorf("mixed models: error %v", err)
	}
}
