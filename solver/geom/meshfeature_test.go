package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// prismMesh extrudes the convex polygon poly (x, z pairs, counter-clockwise
// with x right and z up) along y from y0 to y1: a closed mesh, its caps
// fanned from the first corner.
func prismMesh(poly [][2]float64, y0, y1 float64) ([]float64, []int32) {
	n := int32(len(poly))
	var pos []float64
	for _, y := range []float64{y0, y1} {
		for _, p := range poly {
			pos = append(pos, p[0], y, p[1])
		}
	}
	var faces []int32
	for i := int32(1); i+1 < n; i++ {
		faces = append(faces, 0, i, i+1, n, n+i+1, n+i) // the y0 cap faces -y, the y1 cap +y
	}
	for i := range n {
		j := (i + 1) % n
		faces = append(faces, i, n+j, j, i, n+i, n+j)
	}
	return pos, faces
}

// planeGap returns the distance from p to the plane of triangle t of the
// mesh (pos, faces), positive on the side its winding faces, computed from
// the corners alone.
func planeGap(pos []float64, faces []int32, t int, p dense.Vec3) float64 {
	v := func(k int) dense.Vec3 { i := faces[3*t+k]; return dense.Vec3(pos[3*i : 3*i+3]) }
	n := v(1).Sub(v(0)).Cross(v(2).Sub(v(0)))
	return p.Sub(v(0)).Dot(n) / n.Norm()
}

// faceOf returns the triangle of the mesh whose unit normal is n.
func faceOf(t *testing.T, pos []float64, faces []int32, n dense.Vec3) int {
	for f := range len(faces) / 3 {
		v := func(k int) dense.Vec3 { i := faces[3*f+k]; return dense.Vec3(pos[3*i : 3*i+3]) }
		m := v(1).Sub(v(0)).Cross(v(2).Sub(v(0)))
		if near(m.Scale(1/m.Norm()), n, 1e-12) {
			return f
		}
	}
	t.Fatalf("no face with normal %v", n)
	return -1
}

// checkOffset checks that edge feature f lies at distance th from the
// planes of both its faces (found by their normals), along its whole
// length: in the contact layer of both faces (Weidner 2018 sec. 5).
//
// A corner feature must lie at distance th from the planes of its three
// faces.
func checkOffset(t *testing.T, pos []float64, faces []int32, f *Feature, th float64) {
	t.Helper()
	if f.Kind == FeatureCorner {
		for _, n := range f.N {
			tri := faceOf(t, pos, faces, n)
			if g := planeGap(pos, faces, tri, f.P0); math.Abs(g-th) > 1e-12 {
				t.Fatalf("corner %d: %g from the plane of face %d (normal %v), want %g", f.ID, g, tri, n, th)
			}
		}
		return
	}
	for _, n := range f.N[:2] {
		tri := faceOf(t, pos, faces, n)
		for _, u := range []float64{0, 0.5, 1} {
			if g := planeGap(pos, faces, tri, f.At(u*f.Length)); math.Abs(g-th) > 1e-12 {
				t.Fatalf("edge %d at %g: %g from the plane of face %d (normal %v), want %g", f.ID, u, g, tri, n, th)
			}
		}
	}
}

// TestMeshFeaturesCube: a cube mesh's 12 edges (not its 6 face diagonals)
// are its features, the same lines with the same normals as the box
// obstacle's edges of AppendFeatures, moved out alike.
func TestMeshFeaturesCube(t *testing.T) {
	const th = 0.01
	pos, faces := cubeMesh()
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.MarkSharpEdges(DefaultFeatureAngle); n != 12 {
		t.Fatalf("%d sharp edges, want 12", n)
	}
	off, vel := dense.Vec3{0.5, -0.25, 1}, dense.Vec3{1, 2, 3}
	fs := AppendFeatures(nil, &Shape{Kind: Mesh, Mesh: m}, off, vel, 3, th)
	box := AppendFeatures(nil, &Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}}, off, vel, 3, th)
	if len(fs) != 20 {
		t.Fatalf("%d features, want 12 edges and 8 corners", len(fs))
	}
	for i := range fs {
		f := &fs[i]
		if f.Kind != box[i].Kind || f.Wire || f.ID != int32(i) || f.Obstacle != 3 || f.Vel != vel || f.Kind == FeatureEdge && f.Length != 2 {
			t.Fatalf("feature %d: %+v", i, *f)
		}
		checkOffset(t, addOffset(pos, off), faces, f, th)
	}
	matchBox(t, fs, box, 0)
	// Turned alike about their common centre, the origin, they still match.
	R := rotXYZ(0.3, -0.7, 1.1)
	fs = AppendFeatures(nil, &Shape{Kind: Mesh, Mesh: m, Rotated: true, R: R}, off, vel, 3, th)
	box = AppendFeatures(nil, &Shape{Kind: Box, HalfExtents: dense.Vec3{1, 1, 1}, Rotated: true, R: R}, off, vel, 3, th)
	matchBox(t, fs, box, 1e-14)
}

// matchBox checks that every feature in fs is one of box's of its kind,
// within tol: an edge the same line segment (either way round) with the
// same normals, a corner the same point with the same three normals in any
// order.
func matchBox(t *testing.T, fs, box []Feature, tol float64) {
	t.Helper()
	e := tol + 1e-15
	for i := range fs {
		f := &fs[i]
		found := false
		for j := range box {
			b := &box[j]
			var same bool
			switch {
			case f.Kind != b.Kind:
			case f.Kind == FeatureCorner:
				same = near(f.P0, b.P0, e)
				for _, n := range f.N {
					same = same && (near(n, b.N[0], tol) || near(n, b.N[1], tol) || near(n, b.N[2], tol))
				}
			default:
				same = near(f.N[0], b.N[0], tol) && near(f.N[1], b.N[1], tol) || near(f.N[0], b.N[1], tol) && near(f.N[1], b.N[0], tol)
				same = same && (near(f.At(0), b.At(0), e) && near(f.At(2), b.At(2), e) || near(f.At(0), b.At(2), e) && near(f.At(2), b.At(0), e))
			}
			found = found || same
		}
		if !found {
			t.Fatalf("mesh feature %d (kind %d at %v, normals %v) is no box feature", i, f.Kind, f.P0, f.N)
		}
	}
}

func addOffset(pos []float64, off dense.Vec3) []float64 {
	out := make([]float64, len(pos))
	for i, x := range pos {
		out[i] = x + off[i%3]
	}
	return out
}

// TestMeshFeaturesWedge: a prism whose cross-section has a 60-degree corner
// (a wedge) and one with two 135-degree corners (a chamfered square). Their
// ridges are features with both faces' normals; moved out by EdgeOffset they
// lie the thickness from both faces' planes (the box rule thickness (n0 +
// n1) would put the 60-degree ridge half that far, the 135-degree edges
// 1.71 times as far); and a feature angle above the 135-degree edges' 45
// degrees drops them.
func TestMeshFeaturesWedge(t *testing.T) {
	const th = 0.002
	s60 := math.Sqrt(3) / 2
	for _, tc := range []struct {
		name   string
		poly   [][2]float64
		ridges int     // the lengthwise edges of the given interior angle
		cosN   float64 // n0.n1 at them
		all    int     // all sharp edges at the default angle
		above  int     // sharp edges at a feature angle of 50 degrees
		// corners at the default angle and at 50 degrees: every end of a
		// lengthwise sharp edge (three planes meet there)
		corners, cornersAbove int
	}{
		{"60", [][2]float64{{0, 0}, {0.5, -s60}, {1.2, 0}}, 1, -0.5, 9, 9, 6, 6},
		{"135", [][2]float64{{0, 0}, {1, 0}, {1, 0.7}, {0.7, 1}, {0, 1}}, 2, math.Sqrt2 / 2, 15, 13, 10, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pos, faces := prismMesh(tc.poly, -0.25, 1.25)
			m, err := NewMeshSurface(nil, pos, faces)
			if err != nil {
				t.Fatal(err)
			}
			if n := m.MarkSharpEdges(DefaultFeatureAngle); n != tc.all {
				t.Fatalf("%d sharp edges, want %d", n, tc.all)
			}
			fs := AppendFeatures(nil, &Shape{Kind: Mesh, Mesh: m}, dense.Vec3{}, dense.Vec3{}, 0, th)
			ridges, corners := 0, 0
			for i := range fs {
				f := &fs[i]
				checkOffset(t, pos, faces, f, th)
				if f.Kind == FeatureCorner {
					corners++
					continue
				}
				if math.Abs(f.N[0].Dot(f.N[1])-tc.cosN) < 1e-12 {
					ridges++
					if math.Abs(math.Abs(f.Dir[1])-1) > 1e-15 || f.Length != 1.5 {
						t.Fatalf("ridge %d: dir %v length %g, want along y, 1.5", i, f.Dir, f.Length)
					}
				}
			}
			if ridges != tc.ridges {
				t.Fatalf("%d edges with n0.n1 = %g, want %d", ridges, tc.cosN, tc.ridges)
			}
			if corners != tc.corners {
				t.Fatalf("%d corners, want %d", corners, tc.corners)
			}
			if n := m.MarkSharpEdges(50 * math.Pi / 180); n != tc.above || len(m.corners) != tc.cornersAbove {
				t.Fatalf("at 50 degrees: %d sharp edges and %d corners, want %d and %d", n, len(m.corners), tc.above, tc.cornersAbove)
			}
		})
	}
}

// TestMeshCorners: a corner is where exactly three sharp convex edges and
// three planes meet. A square pyramid's apex (four planes) is none, its base
// corners are; on an L-shaped prism, the two ends of the reflex (concave)
// lengthwise edge are none, the other ten vertices are. Every corner lies
// the thickness from its three planes.
func TestMeshCorners(t *testing.T) {
	const th = 0.004
	pyramid := []float64{0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 0.5, 0.8}
	pf := []int32{0, 2, 1, 0, 3, 2, 0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4}
	lpos, lf := prismMesh([][2]float64{{0, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 2}, {0, 2}}, 0, 1)
	for _, tc := range []struct {
		name    string
		pos     []float64
		faces   []int32
		sharp   int
		corners []int32 // the corner vertices
	}{
		{"pyramid", pyramid, pf, 8, []int32{0, 1, 2, 3}},
		{"L prism", lpos, lf, 17, []int32{0, 1, 2, 4, 5, 6, 7, 8, 10, 11}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMeshSurface(nil, tc.pos, tc.faces)
			if err != nil {
				t.Fatal(err)
			}
			if n := m.MarkSharpEdges(DefaultFeatureAngle); n != tc.sharp {
				t.Fatalf("%d sharp edges, want %d", n, tc.sharp)
			}
			var got []int32
			for _, c := range m.corners {
				got = append(got, c.V)
			}
			if !slices.Equal(got, tc.corners) {
				t.Fatalf("corners at vertices %v, want %v", got, tc.corners)
			}
			fs := AppendFeatures(nil, &Shape{Kind: Mesh, Mesh: m}, dense.Vec3{}, dense.Vec3{}, 0, th)[tc.sharp:]
			for j, f := range fs {
				v := tc.corners[j]
				for _, n := range f.N {
					if g := f.P0.Sub(dense.Vec3(tc.pos[3*v : 3*v+3])).Dot(n); math.Abs(g-th) > 1e-15 {
						t.Fatalf("corner at vertex %d: %g from the plane with normal %v, want %g", v, g, n, th)
					}
				}
			}
		})
	}
}

// TestCornerOffset: CornerOffset's point lies the thickness from three
// planes through the origin (random independent normals, and an acute
// corner), and is thickness (n0 + n1 + n2) for a box's normals.
func TestCornerOffset(t *testing.T) {
	const th = 0.002
	rng := rand.New(rand.NewPCG(7, 7))
	unit := func() dense.Vec3 {
		v := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		return v.Scale(1 / v.Norm())
	}
	for k := range 200 {
		n := [3]dense.Vec3{unit(), unit(), unit()}
		if k == 0 {
			n = [3]dense.Vec3{{0, 0, 1}, {0.99, 0, 0.141}, {0, 0.99, 0.141}}
			for i := range n {
				n[i] = n[i].Scale(1 / n[i].Norm())
			}
		}
		if math.Abs(n[0].Dot(n[1].Cross(n[2]))) < 0.05 {
			continue
		}
		d := CornerOffset(n[0], n[1], n[2], th)
		for i := range n {
			if g := d.Dot(n[i]); math.Abs(g-th) > 1e-14 {
				t.Fatalf("normals %v: offset %v is %g from plane %d, want %g", n, d, g, i, th)
			}
		}
	}
	x, y, z := dense.Vec3{1, 0, 0}, dense.Vec3{0, -1, 0}, dense.Vec3{0, 0, 1}
	if d := CornerOffset(x, y, z, th); d != x.Add(y).Add(z).Scale(th) {
		t.Fatalf("box corner: %v", d)
	}
}

// TestMeshFeaturesSmooth: a sphere meshed to 1 mm on a 0.5 m radius has no
// sharp edge at the default feature angle.
func TestMeshFeaturesSmooth(t *testing.T) {
	p, faces, _, _ := ShapeMesh(&Shape{Kind: Sphere, Radius: 0.5}, 1e-3)
	var pos []float64
	for _, x := range p {
		pos = append(pos, x[:]...)
	}
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	if n := m.MarkSharpEdges(DefaultFeatureAngle); n != 0 {
		t.Fatalf("%d sharp edges on a smooth sphere mesh", n)
	}
}

// TestMeshFeaturesConvexOnly: on a coarse torus, whose inner side has
// concave edges, an edge above the feature angle is marked exactly when it
// is convex, told apart by the surface's distance (Closest) from a point
// eps out along its faces' bisector: eps at a convex edge, less at a
// concave one (the faces bend towards the point). An open mesh has none.
func TestMeshFeaturesConvexOnly(t *testing.T) {
	pos, faces := torusMesh(1, 0.4, 8, 6)
	m, err := NewMeshSurface(nil, pos, faces)
	if err != nil {
		t.Fatal(err)
	}
	const angle = 10 * math.Pi / 180
	n := m.MarkSharpEdges(angle)
	marked := map[[2]int32]bool{}
	for _, h := range m.sharp {
		a, b := m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]
		marked[[2]int32{min(a, b), max(a, b)}] = true
	}
	convex, concave := 0, 0
	for h, o := range m.twin {
		if o < int32(h) {
			continue
		}
		n0, n1 := m.faceN[h/3], m.faceN[o/3]
		if math.Acos(math.Min(1, n0.Dot(n1))) <= angle {
			continue
		}
		a, b := m.Faces[h], m.Faces[3*(h/3)+(h+1)%3]
		mid := m.vertex(a).Add(m.vertex(b)).Scale(0.5)
		bis := n0.Add(n1)
		const eps = 1e-3
		d := m.Closest(mid.Add(bis.Scale(eps / bis.Norm()))).Distance
		isConvex := math.Abs(d-eps) < 1e-9
		if isConvex {
			convex++
		} else {
			concave++
		}
		if marked[[2]int32{min(a, b), max(a, b)}] != isConvex {
			t.Fatalf("edge %d-%d: marked %v, distance %g at %g out (convex: %v)", a, b, !isConvex, d, eps, isConvex)
		}
	}
	if n != convex || concave == 0 {
		t.Fatalf("%d marked, %d convex and %d concave edges above the angle", n, convex, concave)
	}
	open, err := NewMeshSurface(nil, pos, faces[:len(faces)-3])
	if err != nil {
		t.Fatal(err)
	}
	if n := open.MarkSharpEdges(angle); n != 0 {
		t.Fatalf("open mesh: %d sharp edges", n)
	}
}

// TestEdgeOffset: EdgeOffset's point lies the thickness from both planes
// through the origin with normals theta apart, for angles up to 170 degrees;
// at a right angle it is thickness (n0 + n1) exactly.
func TestEdgeOffset(t *testing.T) {
	const th = 0.003
	for deg := 10.0; deg <= 170; deg += 5 {
		a := deg * math.Pi / 180
		n0, n1 := dense.Vec3{0, 0, 1}, dense.Vec3{math.Sin(a), 0, math.Cos(a)}
		d := EdgeOffset(n0, n1, th)
		if math.Abs(d.Dot(n0)-th) > 1e-15 || math.Abs(d.Dot(n1)-th) > 1e-15 || d[1] != 0 {
			t.Fatalf("%g degrees: offset %v is %g and %g from the planes, want %g", deg, d, d.Dot(n0), d.Dot(n1), th)
		}
	}
	n0, n1 := dense.Vec3{0, 1, 0}, dense.Vec3{0, 0, -1}
	if d := EdgeOffset(n0, n1, th); d != n0.Add(n1).Scale(th) {
		t.Fatalf("right angle: %v", d)
	}
}
