package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

// The hand-built box edge: the box fills x > 0, z < 0; its top face (normal n1 = +z)
// and side face (normal n2 = -x) meet in the edge along y. The cloth has material
// coordinates (u, v); its top part lies at (u, v, 0) for u >= 0 and its hanging part at
// (0, v, u) for u <= 0, so the conformal polyline is u = 0 and an EOL vertex sits at
// material (0, v).
var (
	boxN1   = dense.Vec3{0, 0, 1}
	boxN2   = dense.Vec3{-1, 0, 0}
	fTop    = dense.Mat32{{1, 0}, {0, 1}, {0, 0}} // d/du = e_x, d/dv = e_y
	fHang   = dense.Mat32{{0, 0}, {0, 1}, {1, 0}} // d/du = e_z, d/dv = e_y
	nTop    = dense.Vec3{0, 0, 1}
	nHang   = dense.Vec3{-1, 0, 0}
	flatTol = 0.1 // radians
)

// drapedVertexF is the vertex deformation gradient of the draped EOL vertex: the
// crossing direction bends halfway, d/du = (e_x + e_z)/sqrt 2.
func drapedVertexF(t *testing.T) dense.Mat32 {
	F, ok := VertexF([]dense.Mat32{fTop, fHang}, []float64{1, 1})
	if !ok {
		t.Fatal("VertexF failed")
	}
	r := 1 / math.Sqrt2
	if d := frob32(F.Sub(dense.Mat32{{r, 0}, {0, 1}, {r, 0}})); d > 1e-15 {
		t.Fatalf("draped vertex F = %v", F)
	}
	return F
}

// nodeKKT returns the smallest singular value, relative to the largest, of the KKT
// matrix [M A^T; A 0] of one EOL vertex with the node-lumped generalized inertia
// M = m J^T J = m [I, -F; -F^T, F^T F] (eq. 8 lumped to a node, J of eq. 4) and the
// constraint rows A treated as active equalities. With no rows it is that of M alone.
func nodeKKT(F dense.Mat32, rows []Row) float64 {
	const m = 0.7
	n := 5 + len(rows)
	K := mat.NewDense(n, n, nil)
	var M mat.Dense
	M.Mul(nodeJ(F).T(), nodeJ(F))
	M.Scale(m, &M)
	for i := 0; i < 5; i++ {
		for j := 0; j < 5; j++ {
			K.Set(i, j, M.At(i, j))
		}
	}
	for r, row := range rows {
		a := []float64{row.L[0], row.L[1], row.L[2], row.E[0], row.E[1]}
		for j, v := range a {
			K.Set(5+r, j, v)
			K.Set(j, 5+r, v)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(K, mat.SVDNone) {
		panic("SVD failed")
	}
	s := svd.Values(nil)
	return s[len(s)-1] / s[0]
}

// admits reports whether the vertex velocity (xd, Xd) satisfies every row.
func admits(rows []Row, xd dense.Vec3, Xd dense.Vec2) bool {
	for _, r := range rows {
		v := r.L.Dot(xd) + r.E[0]*Xd[0] + r.E[1]*Xd[1]
		if r.Eq && math.Abs(v) > 1e-12 || !r.Eq && v < -1e-12 {
			return false
		}
	}
	return true
}

const singularTol, regularTol = 1e-12, 1e-3

// TestEdgeRowsInteriorDraped: an interior EOL vertex on the box edge with the cloth
// draped over it (not locally flat): two Lagrangian inequalities along the box normals
// and the Eulerian equality along the averaged material tangent tbar = (0, 1) of the
// conformal edges. Together with the lumped inertia they leave no null space, while M
// alone has the 2-dimensional null space of cancelling motions, and either kind of row
// alone leaves one cancelling direction free.
func TestEdgeRowsInteriorDraped(t *testing.T) {
	F := drapedVertexF(t)
	if LocallyFlat([]dense.Vec3{nTop, nTop, nHang, nHang}, flatTol) {
		t.Fatal("a vertex folded by 90 degrees reported locally flat")
	}
	tbar, ok := MaterialTangent(dense.Vec2{0, 0.2}, dense.Vec2{0, -0.3})
	if !ok || tbar != (dense.Vec2{0, 1}) {
		t.Fatalf("tbar = %v, %v", tbar, ok)
	}
	rows := AppendEdgeRows(nil, boxN1, boxN2, false, tbar)
	want := []Row{{L: boxN1}, {L: boxN2}, {E: tbar, Eq: true}}
	if len(rows) != len(want) {
		t.Fatalf("rows = %v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Fatalf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	// Lift-off and sliding along the edge are admitted, entering the box is not.
	if !admits(rows, dense.Vec3{-1, 0, 1}, dense.Vec2{}) || !admits(rows, dense.Vec3{0, 1, 0}, dense.Vec2{}) {
		t.Fatal("lift-off or sliding along the edge rejected")
	}
	if admits(rows, dense.Vec3{1, 0, 0}, dense.Vec2{}) || admits(rows, dense.Vec3{0, 0, -1}, dense.Vec2{}) {
		t.Fatal("motion into the box admitted")
	}
	// Material sliding across the edge (Xdot across, xdot = 0) is what EOL is for.
	if !admits(rows, dense.Vec3{}, dense.Vec2{1, 0}) {
		t.Fatal("Eulerian sliding over the edge rejected")
	}
	// No cancelling motion xdot = F Xdot is admitted.
	rng := rand.New(rand.NewSource(30))
	for k := 0; k < 100; k++ {
		Xd := randVec2(rng)
		if admits(rows, F.MulVec(Xd), Xd) {
			t.Fatalf("cancelling motion Xdot = %v admitted", Xd)
		}
	}
	if s := nodeKKT(F, nil); s > singularTol {
		t.Fatalf("M alone: relative smallest singular value %g, want singular", s)
	}
	if s := nodeKKT(F, rows); s < regularTol {
		t.Fatalf("M with the edge rows: relative smallest singular value %g, want regular", s)
	}
	if s := nodeKKT(F, rows[:2]); s > singularTol {
		t.Fatalf("M with only the Lagrangian rows: %g, want singular (sliding along the edge)", s)
	}
	if s := nodeKKT(F, rows[2:]); s > singularTol {
		t.Fatalf("M with only the Eulerian row: %g, want singular (sliding across the edge)", s)
	}
}

// TestEdgeRowsBorderDraped: a cloth-border vertex on the box edge. The border crosses
// the edge along the material direction d = (1, 0.3); the Eulerian row uses the border
// normal bbar, so material may slide along the border but not out through it, and the
// rows still leave no null space.
func TestEdgeRowsBorderDraped(t *testing.T) {
	F := drapedVertexF(t)
	d := dense.Vec2{1, 0.3}
	bbar, ok := BorderNormal(d, dense.Vec2{-2 * d[0], -2 * d[1]})
	if !ok {
		t.Fatal("BorderNormal failed")
	}
	if dot := bbar[0]*d[0] + bbar[1]*d[1]; math.Abs(dot) > 1e-15 || math.Abs(math.Hypot(bbar[0], bbar[1])-1) > 1e-15 {
		t.Fatalf("bbar = %v is not a unit normal of the border %v", bbar, d)
	}
	rows := AppendEdgeRows(nil, boxN1, boxN2, false, bbar)
	if rows[2] != (Row{E: bbar, Eq: true}) || rows[0].Eq || rows[1].Eq {
		t.Fatalf("rows = %+v", rows)
	}
	if !admits(rows, dense.Vec3{}, d) {
		t.Fatal("sliding along the border rejected")
	}
	if admits(rows, dense.Vec3{}, dense.Vec2{-d[1], d[0]}) {
		t.Fatal("sliding out through the border admitted")
	}
	if s := nodeKKT(F, rows); s < regularTol {
		t.Fatalf("border edge rows: relative smallest singular value %g, want regular", s)
	}
}

// TestEdgeRowsLocallyFlat (errata sec. 2 and Alg. 1): the cloth lies flat on the top
// face and an EOL vertex sits on the edge. The cancelling motion that slides the mesh
// toward the box, Xdot = (-1, 0) with xdot = F Xdot = -e_x, satisfies the inequality
// rows of Alg. 2 (n1.xdot = 0, n2.xdot = 1 > 0): a one-sided null space of the
// inertia along which the vertex can drift. The equalities used when the vertex is
// locally flat remove it.
func TestEdgeRowsLocallyFlat(t *testing.T) {
	F := fTop
	if !LocallyFlat([]dense.Vec3{nTop, nTop, {0.01, 0, 1}}, flatTol) {
		t.Fatal("a flat vertex reported not flat")
	}
	tbar := dense.Vec2{0, 1}
	Xd := dense.Vec2{-1, 0}
	xd := F.MulVec(Xd)
	ineq := AppendEdgeRows(nil, boxN1, boxN2, false, tbar)
	if !admits(ineq, xd, Xd) {
		t.Fatal("inequality rows should admit the one-sided cancelling motion")
	}
	eq := AppendEdgeRows(nil, boxN1, boxN2, true, tbar)
	if !eq[0].Eq || !eq[1].Eq || !eq[2].Eq || eq[0].L != boxN1 || eq[1].L != boxN2 {
		t.Fatalf("flat rows = %+v", eq)
	}
	if admits(eq, xd, Xd) {
		t.Fatal("flat equality rows admitted the cancelling motion")
	}
	if s := nodeKKT(F, eq); s < regularTol {
		t.Fatalf("flat rows: relative smallest singular value %g, want regular", s)
	}
}

// TestCornerRows: a box filling x > 0, y > 0, z < 0 has the corner at the origin with
// normals +z, -x, -y. The rows are three inequalities, no Eulerian row: leaving the
// corner is admitted, entering the box is not, and any Eulerian velocity (the material
// sliding over the corner) is free unless the vertex is on the cloth border, where
// BorderRow keeps the material from sliding out through the border.
func TestCornerRows(t *testing.T) {
	n1, n2, n3 := dense.Vec3{0, 0, 1}, dense.Vec3{-1, 0, 0}, dense.Vec3{0, -1, 0}
	rows := AppendCornerRows(make([]Row, 0, 4), n1, n2, n3)
	want := []Row{{L: n1}, {L: n2}, {L: n3}}
	if len(rows) != 3 {
		t.Fatalf("rows = %+v", rows)
	}
	for i := range want {
		if rows[i] != want[i] {
			t.Fatalf("row %d = %+v, want %+v", i, rows[i], want[i])
		}
	}
	if !admits(rows, dense.Vec3{-1, -1, 1}, dense.Vec2{}) {
		t.Fatal("lift-off rejected")
	}
	for _, in := range []dense.Vec3{{1, 0, 0}, {0, 1, 0}, {0, 0, -1}} {
		if admits(rows, in, dense.Vec2{}) {
			t.Fatalf("motion %v into the box admitted", in)
		}
	}
	rng := rand.New(rand.NewSource(31))
	for k := 0; k < 20; k++ {
		if !admits(rows, dense.Vec3{}, randVec2(rng)) {
			t.Fatal("Eulerian sliding over the corner rejected")
		}
	}
	b := dense.Vec2{0, 1}
	rows = append(rows, BorderRow(b))
	if rows[3] != (Row{E: b, Eq: true}) {
		t.Fatalf("border row = %+v", rows[3])
	}
	if !admits(rows, dense.Vec3{}, dense.Vec2{1, 0}) || admits(rows, dense.Vec3{}, dense.Vec2{0, 1}) {
		t.Fatal("border row does not confine the material to slide along the border")
	}
}

// TestPointRows (errata sec. 3): one inequality along the point normal and two
// equalities along an orthonormal tangent pair, no Eulerian row. The cloth over the
// point is tangent to the plane normal to n, so every cancelling motion F Xdot lies in
// that plane and the two equalities remove it: with the normal row inactive the KKT
// system is regular, without rows M is singular.
func TestPointRows(t *testing.T) {
	rng := rand.New(rand.NewSource(32))
	for k := 0; k < 100; k++ {
		n := randVec3(rng).Scale(0.1 + 3*rng.Float64())
		rows, ok := AppendPointRows(nil, n)
		if !ok || len(rows) != 3 {
			t.Fatalf("case %d: rows = %+v, %v", k, rows, ok)
		}
		u := n.Scale(1 / n.Norm())
		if rows[0].Eq || rows[0].L.Sub(u).Norm() > 1e-15 || !rows[1].Eq || !rows[2].Eq {
			t.Fatalf("case %d: rows = %+v", k, rows)
		}
		t1, t2 := rows[1].L, rows[2].L
		if math.Abs(t1.Norm()-1) > 1e-15 || math.Abs(t2.Norm()-1) > 1e-15 || math.Abs(t1.Dot(t2)) > 1e-15 || math.Abs(t1.Dot(u)) > 1e-15 || math.Abs(t2.Dot(u)) > 1e-15 {
			t.Fatalf("case %d: tangents %v %v not orthonormal to %v", k, t1, t2, u)
		}
		for _, r := range rows {
			if r.E != (dense.Vec2{}) {
				t.Fatalf("case %d: Eulerian coefficients %v", k, r.E)
			}
		}
		if !admits(rows, u.Scale(2), randVec2(rng)) || admits(rows, u.Scale(-1), dense.Vec2{}) || admits(rows, t1.Add(u), dense.Vec2{}) {
			t.Fatalf("case %d: rows admit the wrong motions", k)
		}
		// Cloth tangent to the plane normal to n, arbitrarily stretched.
		F := dense.Outer32(t1, randVec2(rng)).Add(dense.Outer32(t2, randVec2(rng)))
		if s := nodeKKT(F, nil); s > singularTol {
			t.Fatalf("case %d: M alone: %g, want singular", k, s)
		}
		if s := nodeKKT(F, rows[1:]); s < 1e-8 {
			t.Fatalf("case %d: M with the tangent equalities: %g, want regular", k, s)
		}
	}
	if rows, ok := AppendPointRows(nil, dense.Vec3{}); ok || len(rows) != 0 {
		t.Fatal("zero normal accepted")
	}
}

func TestLocallyFlatThreshold(t *testing.T) {
	rng := rand.New(rand.NewSource(33))
	for k := 0; k < 100; k++ {
		a := randVec3(rng)
		th := rng.Float64() * 3
		b := axisAngle(dense.Perp(a.Scale(1/a.Norm())), th).MulVec(a).Scale(0.5 + rng.Float64())
		ns := []dense.Vec3{a, a.Scale(2), b}
		if got := LocallyFlat(ns, th*(1+1e-9)); !got {
			t.Fatalf("case %d: normals %g apart not flat within %g", k, th, th*(1+1e-9))
		}
		if got := LocallyFlat(ns, th*(1-1e-9)); got {
			t.Fatalf("case %d: normals %g apart flat within %g", k, th, th*(1-1e-9))
		}
	}
	if !LocallyFlat(nil, 0) || !LocallyFlat([]dense.Vec3{{1, 0, 0}}, 0) {
		t.Fatal("fewer than two normals are flat")
	}
}

// TestMaterialTangent: the two conformal edges at an interior vertex point to either
// side, nearly opposite; their plain sum e1 + e2 is then nearly perpendicular to the
// polyline, while the oriented average e1/|e1| - e2/|e2| follows it whatever the edge
// lengths.
func TestMaterialTangent(t *testing.T) {
	e1, e2 := dense.Vec2{3, 0.3}, dense.Vec2{-0.5, 0.05}
	got, ok := MaterialTangent(e1, e2)
	if !ok || math.Abs(got[0]-1) > 1e-15 || math.Abs(got[1]) > 1e-15 {
		t.Fatalf("MaterialTangent(%v, %v) = %v, %v; want (1, 0)", e1, e2, got, ok)
	}
	// Swapping the edges flips the sign only.
	sw, _ := MaterialTangent(e2, e1)
	if sw != (dense.Vec2{-got[0], -got[1]}) {
		t.Fatalf("swapped: %v", sw)
	}
	// One conformal edge (end of the polyline).
	got, ok = MaterialTangent(dense.Vec2{0, -4}, dense.Vec2{})
	if !ok || got != (dense.Vec2{0, -1}) {
		t.Fatalf("one edge: %v, %v", got, ok)
	}
	if _, ok := MaterialTangent(dense.Vec2{}, dense.Vec2{}); ok {
		t.Fatal("no edges accepted")
	}
	if _, ok := MaterialTangent(dense.Vec2{1, 1}, dense.Vec2{2, 2}); ok {
		t.Fatal("a polyline doubling back accepted")
	}
}
