package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// eolShort coarsens an EOL scene for CI: the remesher's sizes are scaled up
// (fewer faces, the QP is the cost) and the run is cut to the given time.
func eolShort(t *testing.T, name string, duration, sizeMin, sizeMax float64) *scenes.Scene {
	t.Helper()
	sc, err := scenes.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	b := &sc.Bodies[0]
	b.Resolution = min(b.Resolution, 16)
	if b.Remesh != nil {
		b.Remesh.SizeMin = max(b.Remesh.SizeMin, sizeMin)
		b.Remesh.SizeMax = max(b.Remesh.SizeMax, sizeMax)
	}
	sc.Duration = min(sc.Duration, duration)
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// eolRun steps a scene through its duration and checks what every EOL scene
// must show: no step fails, finite positions, EOL vertices at some step, and
// no vertex more than 0.1 mm inside an obstacle (the stats' measure). It
// returns the sim for scene-specific checks.
func eolRun(t *testing.T, sc *scenes.Scene) *Sim {
	t.Helper()
	sim := build(t, sc, 2)
	n := sc.NumSteps()
	worst, eolMax, facesMax := 0.0, 0, 0
	steps(t, sim, n, func(i int) {
		st := sim.Measure()
		worst = math.Max(worst, st.MaxPenetration)
		facesMax = max(facesMax, st.Faces)
		if st.EOLVertices != nil {
			eolMax = max(eolMax, *st.EOLVertices)
		}
		for k, x := range sim.State.X {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("step %d: coordinate %d is %v", i, k, x)
			}
		}
	})
	t.Logf("%s: %d steps, up to %d faces and %d EOL vertices, max penetration %.3g mm", sc.Name, n, facesMax, eolMax, 1e3*worst)
	if eolMax == 0 {
		t.Errorf("no EOL vertex at any step")
	}
	if worst > 1e-4 {
		t.Errorf("max penetration %.3g mm > 0.1 mm", 1e3*worst)
	}
	return sim
}

// TestEOLScenes runs short, coarse forms of the Weidner 2018 sec. 7 scenes
// (the full ones take minutes): each must run without error, create EOL
// vertices and keep the cloth out of the obstacles.
func TestEOLScenes(t *testing.T) {
	cases := []struct {
		name     string
		duration float64 // s, -short; twice that otherwise
		sizeMin  float64 // m, remesh size_min at least
		sizeMax  float64 // m, remesh size_max at least
	}{
		{"edge", 0.3, 0.06, 0.12},
		{"wire", 0.3, 0.06, 0.12},
		{"nails", 0.3, 0.06, 0.12},
		{"jaws", 0.3, 0.06, 0.12},
		{"push", 0.5, 0.08, 0.15},
		{"throw", 0.6, 0.08, 0.15},
		{"lo-res", 0.6, 0, 0},
		{"friction", 0.3, 0.04, 0.1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := c.duration
			if !testing.Short() {
				d *= 2
			}
			eolRun(t, eolShort(t, c.name, d, c.sizeMin, c.sizeMax))
		})
	}
}
