package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/geom"
)

// TestPotentialUsesSimulatedGravity checks potential_energy's gravity part
// against the field actually simulated: with the scene tilted by 90 degrees,
// gravity [0, 0, -9.81] becomes [0, 9.81, 0], so the energy is m g y summed
// over the vertices, not m g z.
func TestPotentialUsesSimulatedGravity(t *testing.T) {
	sim := build(t, load(t, "drape", [2]string{"incline_deg", "90"}, [2]string{"bodies.0.resolution", "8"}), 1)
	st := sim.Measure()
	var want, unrotated float64
	q := generic.NewFilter3[components.Position, components.Mass, components.Member]().Query(sim.World.ECS)
	for q.Next() {
		x, m, _ := q.Get()
		want -= float64(*m) * 9.81 * x[1]
		unrotated += float64(*m) * 9.81 * x[2]
	}
	got := st.Potential - st.ElasticEnergy
	if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("gravity potential %g J, want %g J (-sum m g.x with the tilted g); unrotated gravity would give %g J", got, want, unrotated)
	}
	if math.Abs(want-unrotated) < 1e-3 {
		t.Fatalf("test scene does not tell the two fields apart (%g vs %g J)", want, unrotated)
	}
}

// TestMaxPenetrationSeesFacePoke places obstacles under the middle of a face
// of the 4-triangle sheet of `sphere` (flat at z = 0.5, remeshing off), so
// that every vertex is far outside them while a sphere cap or a box's top
// pokes through the face: the vertex measure reads 0, the surface measure
// the depth through the face.
func TestMaxPenetrationSeesFacePoke(t *testing.T) {
	for _, c := range []struct {
		name string
		sets [][2]string
		want float64
	}{
		{"sphere 8 mm", [][2]string{{"obstacles.0.center", "[0, -0.25, 0.408]"}}, 0.008},
		{"box 10 mm", [][2]string{{"obstacles.0", `{"name": "box", "type": "box", "center": [0, -0.25, 0.41], "half_extents": [0.1, 0.08, 0.1]}`}}, 0.01},
		{"sphere below", [][2]string{{"obstacles.0.center", "[0, -0.25, 0.39]"}}, 0},
	} {
		sets := append([][2]string{{"bodies.0.remesh", "null"}, {"obstacles.0.motion", "null"}}, c.sets...)
		sim := build(t, load(t, "sphere", sets...), 1)
		st := sim.Measure()
		if st.MaxVertexPen != 0 {
			t.Errorf("%s: a vertex is %g m inside", c.name, st.MaxVertexPen)
		}
		if math.Abs(st.MaxPenetration-c.want) > 1e-9 {
			t.Errorf("%s: max_penetration %.6g m, want %.6g m", c.name, st.MaxPenetration, c.want)
		}
	}
}

// TestSelfIntersections checks self_intersections on scenes: zero while
// drape swings down (its sheet does not reach itself), positive once
// crumple's folds have passed through each other with its self-contact
// turned off and zero with it on, and equal to a brute-force count over
// every face pair sharing no vertex.
func TestSelfIntersections(t *testing.T) {
	drape := build(t, load(t, "drape", [2]string{"bodies.0.resolution", "20"}), 2)
	steps(t, drape, 60, func(i int) {
		if (i+1)%10 == 0 {
			if n := drape.Measure().SelfIntersect; n != 0 {
				t.Fatalf("drape step %d: %d self-intersections", i, n)
			}
		}
	})
	// brute counts the intersecting face pairs sharing no vertex, over all
	// pairs.
	brute := func(st *ClothState) int {
		n := 0
		nf := len(st.Faces) / 3
		for e := range nf {
			f := st.Faces[3*e : 3*e+3]
			for g := e + 1; g < nf; g++ {
				h := st.Faces[3*g : 3*g+3]
				if !shareVertex(f, h) && geom.TrianglesIntersect(vec(st.X, f[0]), vec(st.X, f[1]), vec(st.X, f[2]), vec(st.X, h[0]), vec(st.X, h[1]), vec(st.X, h[2])) {
					n++
				}
			}
		}
		return n
	}
	for _, self := range []string{"null", `{"thickness": 0.004, "friction": 0.3}`} {
		crumple := build(t, load(t, "crumple", [2]string{"bodies.0.pins.0.at", "[10, 10]"}, [2]string{"bodies.0.resolution", "20"},
			[2]string{"solver.self_contact", self}), 2)
		steps(t, crumple, 100, nil)
		got, want := crumple.Measure().SelfIntersect, brute(crumple.State)
		t.Logf("crumple (20 x 20, self_contact %s) after 0.5 s: %d self-intersections", self, got)
		if got != want {
			t.Errorf("self_contact %s: self_intersections %d, brute force over all pairs %d", self, got, want)
		}
		if self == "null" && got == 0 {
			t.Errorf("crumple without self-contact has no self-intersection after its folds fell through each other")
		}
		if self != "null" && got != 0 {
			t.Errorf("crumple with self-contact: %d self-intersections", got)
		}
	}
}

func shareVertex(f, g []int32) bool {
	for _, a := range f {
		if a == g[0] || a == g[1] || a == g[2] {
			return true
		}
	}
	return false
}

// TestEOLRemeshStats: an EOL body is remeshed (conformal preprocessing and
// the adaptive remesher, every step in edge), so its records carry
// remesh_splits, remesh_flips and remesh_collapses like a Lagrangian
// remeshed body's (they were null): over edge's first 0.3 s at the tests'
// coarse sizes, splits and collapses both happen.
func TestEOLRemeshStats(t *testing.T) {
	sim := build(t, eolShort(t, "edge", 0.3, 0.06, 0.12), 2)
	splits, flips, collapses := 0, 0, 0
	steps(t, sim, 60, func(i int) {
		st := sim.Measure()
		if st.RemeshSplits == nil || st.RemeshFlips == nil || st.RemeshCollapses == nil {
			t.Fatalf("step %d: remesh stats missing for an EOL body", i)
		}
		splits, flips, collapses = splits+*st.RemeshSplits, flips+*st.RemeshFlips, collapses+*st.RemeshCollapses
	})
	t.Logf("60 steps: %d splits, %d flips, %d collapses", splits, flips, collapses)
	if splits == 0 || collapses == 0 {
		t.Errorf("60 remeshed steps: %d splits and %d collapses, want both > 0", splits, collapses)
	}
}
