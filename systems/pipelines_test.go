package systems

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestPipelines pins each pipeline's systems, in order, for scenes that
// exercise every optional stage; a change to a pipeline must change this
// list in the same commit.
func TestPipelines(t *testing.T) {
	lagrangian := []string{"pin-release", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "integrate", "advance-clock"}
	cases := []struct {
		scene string
		sets  [][2]string
		want  []string
	}{
		{"drape", nil, lagrangian},
		{"sphere", nil, []string{"pin-release", "remesh", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "self-collision", "integrate", "advance-clock"}},
		{"flag", nil, []string{"pin-release", "remesh", "derived-data", "scripted-motion", "collision", "force-fill", "wind", "implicit-solve", "contact-response", "strain-limit", "integrate", "advance-clock"}},
		{"edge", nil, []string{"pin-release", "conformal-remesh", "derived-data", "scripted-motion", "eol-assign", "collision", "force-fill", "eol-solve", "eol-friction", "eol-integrate", "advance-clock"}},
		{"edge", [][2]string{{"solver.mode", "lag-conformal"}}, []string{"pin-release", "conformal-remesh", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "integrate", "advance-clock"}},
		{"edge", [][2]string{{"solver.mode", "lag-regular"}}, []string{"pin-release", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "self-collision", "integrate", "advance-clock"}},
		{"edge", [][2]string{{"solver.mode", "lag-nonconformal"}}, []string{"pin-release", "remesh", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "self-collision", "integrate", "advance-clock"}},
		{"drape", [][2]string{{"solver.self_contact", `{"thickness": 0.004, "friction": 0.3}`}}, []string{"pin-release", "derived-data", "scripted-motion", "collision", "self-proximity", "force-fill", "implicit-solve", "contact-response", "self-collision", "integrate", "advance-clock"}},
		{"flag", [][2]string{{"solver.self_contact", `{"thickness": 0.004, "friction": 0}`}}, []string{"pin-release", "remesh", "derived-data", "scripted-motion", "collision", "self-proximity", "force-fill", "wind", "implicit-solve", "contact-response", "strain-limit", "self-collision", "integrate", "advance-clock"}},
		{"edge", [][2]string{{"solver.self_contact", `{"thickness": 0.004, "friction": 0.3}`}}, []string{"pin-release", "conformal-remesh", "derived-data", "scripted-motion", "eol-assign", "collision", "force-fill", "eol-solve", "eol-friction", "self-collision", "eol-integrate", "advance-clock"}},
		{"edge", [][2]string{{"solver.mode", "lag-conformal"}, {"solver.self_contact", `{"thickness": 0.004, "friction": 0.3}`}}, []string{"pin-release", "conformal-remesh", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "self-collision", "integrate", "advance-clock"}},
		{"pinned-square", nil, []string{"pin-release", "derived-data", "scripted-motion", "developable-predict", "developable-project", "ghost-collision", "ghost-correction", "advance-clock"}},
		{"pinned-square", [][2]string{{"bodies.0.model", "lagrangian"}}, []string{"pin-release", "derived-data", "scripted-motion", "collision", "force-fill", "implicit-solve", "contact-response", "integrate", "advance-clock"}},
		{"rod-hang", nil, []string{"scripted-motion", "rod-gather", "rod-newton", "rod-contact-removal", "rod-edges", "advance-clock"}},
	}
	for _, c := range cases {
		sim := build(t, load(t, c.scene, c.sets...), 1)
		var got []string
		for _, s := range sim.Scheduler.Systems() {
			got = append(got, s.Name())
			if want := kebab(reflect.Indirect(reflect.ValueOf(s)).Type().Name()); s.Name() != want {
				t.Errorf("%s %v: system %T is named %q, want its type name in kebab case %q", c.scene, c.sets, s, s.Name(), want)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s %v: pipeline\n %v\nwant\n %v", c.scene, c.sets, got, c.want)
		}
	}
}

// kebab turns a Go type name into kebab case: EOLAssign -> eol-assign.
func kebab(name string) string {
	r := []rune(name)
	var sb strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1])) {
			sb.WriteByte('-')
		}
		sb.WriteRune(unicode.ToLower(c))
	}
	return sb.String()
}

func TestKebab(t *testing.T) {
	for in, want := range map[string]string{"EOLAssign": "eol-assign", "DerivedData": "derived-data", "Wind": "wind", "RodContactRemoval": "rod-contact-removal", "EOLSolve": "eol-solve"} {
		if got := kebab(in); got != want {
			t.Errorf("kebab(%q) = %q, want %q", in, got, want)
		}
	}
}
