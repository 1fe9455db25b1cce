package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
)

// edgeSets is a coarse EDGE (Weidner 2018 sec. 7) whose pull starts at
// t = 0.15 s, once the cloth has landed on the box (after about 0.1 s).
var edgeSets = [][2]string{
	{"bodies.0.resolution", "16"},
	{"bodies.0.remesh.size_min", "0.02"},
	{"bodies.0.remesh.size_max", "0.08"},
	{"bodies.0.pins.0.motion.start", "0.15"},
	{"bodies.0.pins.1.motion.start", "0.15"},
}

// featureLine is an edge feature along y, at (x, z).
type featureLine struct{ x, z float64 }

// The box edge of EDGE that the cloth hangs over: along y at x = 0.3175,
// z = -0.049, moved out by the contact thickness along both face normals.
var edgeLine = featureLine{0.3175 - 0.002, -0.049 + 0.002}

// The ridge of edge-wedge's 60-degree wedge, at the same place as EDGE's box
// edge, between the top face (normal +z) and a face 60 degrees below it
// (normal (-sin 60, 0, -cos 60)): the point the contact thickness from both
// faces' planes lies thickness / sin 30 = 0.004 m out along their bisector
// (-cos 30, 0, sin 30).
var wedgeLine = featureLine{0.3175 - 0.004*math.Sqrt(3)/2, -0.049 + 0.004*0.5}

// TestEOLEdge runs the coarse EDGE and checks the paper's claims for EOL
// cloth: the vertices on the box edge are EOL vertices lying exactly on it;
// the material slides through them (their material coordinates move by
// about the distance the corners are pulled) rather than the cloth locking
// and stretching; the bend stays on the feature; nothing penetrates the box
// by more than 0.1 mm; and every EOL vertex's faces agree on its material
// coordinate.
func TestEOLEdge(t *testing.T) { checkEdgeSlides(t, "edge", edgeLine) }

// TestEOLEdgeWedge is TestEOLEdge over a 60-degree wedge mesh (edge-wedge):
// its ridge is a sharp feature of the mesh (geom.MarkSharpEdges), the EOL
// vertices lie exactly on it, moved out for the 60-degree angle
// (geom.EdgeOffset), and the material slides over it as over the box edge.
func TestEOLEdgeWedge(t *testing.T) { checkEdgeSlides(t, "edge-wedge", wedgeLine) }

// TestEOLMeshFeatureAngle: a mesh obstacle's feature_angle reaches the EOL
// system's features. edge-wedge's prism has a ridge with normals 120 degrees
// apart, lengthwise edges at 129 and 111 degrees (its other corners, 51 and 69
// degrees inside) and six end-cap edges at 90: all nine are edge features at
// the default 30 degrees, with the prism's six corners (three of them meet
// at each), the three lengthwise ones at 100 (no corners: one meets each
// vertex), none at 130.
func TestEOLMeshFeatureAngle(t *testing.T) {
	for _, c := range []struct {
		angle          string
		edges, corners int
	}{{"0", 9, 6}, {"100", 3, 0}, {"130", 0, 0}} {
		sim := build(t, load(t, "edge-wedge", [2]string{"obstacles.0.feature_angle", c.angle}), 1)
		sim.EOL.loadObstacles(sim.World)
		edges, corners := 0, 0
		for _, f := range sim.EOL.features {
			switch f.Kind {
			case components.FeatureEdge:
				edges++
			case components.FeatureCorner:
				corners++
			}
		}
		if edges != c.edges || corners != c.corners {
			t.Errorf("feature_angle %s: %d edges and %d corners, want %d and %d", c.angle, edges, corners, c.edges, c.corners)
		}
	}
}

// checkEdgeSlides runs a coarse EDGE-like scene (edgeSets) whose cloth hangs
// over the edge feature at line and checks the claims of TestEOLEdge.
func checkEdgeSlides(t *testing.T, name string, line featureLine) {
	sc := load(t, name, edgeSets...)
	sim := build(t, sc, 2)
	eolF := generic.NewFilter1[components.EOL]()
	mat := generic.NewMap1[components.Material](sim.World.ECS)
	pos := generic.NewMap1[components.Position](sim.World.ECS)
	meanU := func() (float64, int) {
		var sum float64
		n := 0
		q := eolF.Query(sim.World.ECS)
		for q.Next() {
			sum += mat.Get(q.Entity())[0]
			n++
		}
		if n == 0 {
			return 0, 0
		}
		return sum / float64(n), n
	}
	n := 120
	var u0 float64
	maxStrain := 0.0
	steps(t, sim, n, func(i int) {
		st := sim.Measure()
		if st.MaxVertexPen > 1e-4 {
			t.Fatalf("step %d: penetration %.3g m", i, st.MaxVertexPen)
		}
		if i == 29 { // t = 0.15 s: the pull starts
			var k int
			if u0, k = meanU(); k == 0 {
				t.Fatalf("no EOL vertices after the cloth landed on the edge")
			}
		}
		if i >= 29 {
			maxStrain = math.Max(maxStrain, st.MaxStrain)
		}
		q := eolF.Query(sim.World.ECS)
		for q.Next() {
			e := q.Get()
			x := pos.Get(q.Entity())
			if e.Kind != components.FeatureEdge || math.Hypot(x[0]-line.x, x[2]-line.z) > 1e-9 {
				q.Close()
				t.Fatalf("step %d: EOL vertex at %v (kind %d), not on the edge feature", i, *x, e.Kind)
			}
		}
	})
	u1, k := meanU()
	pull := 0.1 * (float64(n)*sc.TimeStep - 0.15)
	t.Logf("%d EOL vertices; their mean material x moved %.4f m while the corners moved %.4f m; max strain %.3f", k, u0-u1, pull, maxStrain)
	if k == 0 {
		t.Fatal("no EOL vertices at the end")
	}
	// The cloth slides over the edge: the material at the edge comes from
	// further out on the overhang by (nearly) the pulled distance; the rest
	// of the pull is the cloth's stretch, a few percent of 0.7 m.
	if u0-u1 < 0.6*pull {
		t.Errorf("material slid %.4f m over the edge for a %.4f m pull: locking", u0-u1, pull)
	}

	// Every face agrees on each EOL vertex's material coordinate, and the
	// faces across each conformal edge meet at a sharp bend.
	st := sim.State
	ec := sim.EOL
	faces := generic.NewMap1[components.Face](sim.World.ECS)
	for f := range st.FaceRest {
		face := faces.Get(st.FaceEnts[f])
		for j, v := range face.V {
			if ec.eolMap.Has(v) && dense.Vec2(*mat.Get(v)) != face.U[j] {
				t.Fatalf("face %d sees EOL vertex at U %v, its material is %v", f, face.U[j], *mat.Get(v))
			}
		}
	}
	a, ok := bendAngleAtFeature(sim.World, st, sc.Solver.Thickness, 3*sc.Solver.EOL.MinEdge)
	t.Logf("bend angle at the edge %.1f deg", a)
	if !ok || a < 30 {
		t.Errorf("bend angle %.1f deg (ok %v): the cloth does not bend over the edge", a, ok)
	}
}

// TestEOLConstraintsHold checks the solved step against the EOL rules
// (Alg. 2, errata Alg. 1): every equality row holds, every inequality row
// holds with a non-negative multiplier that is zero unless the row is tight,
// and each edge vertex has its two Lagrangian rows and one Eulerian row.
func TestEOLConstraintsHold(t *testing.T) {
	sim := build(t, load(t, "edge", edgeSets...), 1)
	ec := sim.EOL
	checked := 0
	steps(t, sim, 45, func(i int) {
		s := ec.state
		for k := range ec.verts {
			ev := &ec.verts[k]
			if ec.lifts(ev) {
				continue
			}
			rows := ec.rows[ev.rowLo:ev.rowHi]
			if len(rows) != 3 {
				t.Fatalf("step %d: edge EOL vertex %d has %d rows, want 3", i, ev.v, len(rows))
			}
			for _, r := range rows {
				got := r.L.Dot(vec(s.VNew, ev.v)) + r.E[0]*ev.xdotNew[0] + r.E[1]*ev.xdotNew[1]
				scale := 1 + math.Abs(r.Target)
				switch {
				case r.Eq && math.Abs(got-r.Target) > 1e-6*scale:
					t.Fatalf("step %d: equality row of vertex %d: %g, want %g", i, ev.v, got, r.Target)
				case !r.Eq && (got < r.Target-1e-6*scale || r.Y < -1e-9 || (r.Y > 1e-9 && got > r.Target+1e-4*scale)):
					t.Fatalf("step %d: inequality row of vertex %d: %g >= %g with multiplier %g", i, ev.v, got, r.Target, r.Y)
				}
			}
			checked++
		}
	})
	if checked == 0 {
		t.Fatal("no EOL vertex was checked")
	}
}
