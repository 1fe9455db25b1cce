package eol

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Row is one velocity constraint on an EOL vertex: L.xdot + E.Xdot = 0 when Eq, and
// L.xdot + E.Xdot >= 0 otherwise (Weidner 2018 eq. 12, one row of A_eq or A_ineq
// restricted to the vertex's 5 DOFs).
type Row struct {
	L  dense.Vec3 // coefficients of the Lagrangian velocity xdot
	E  dense.Vec2 // coefficients of the Eulerian velocity Xdot
	Eq bool
}

// AppendCornerRows appends the constraints of an EOL vertex on a box corner with face
// normals n1, n2, n3 (Weidner 2018 sec. 5.2 and Alg. 2; errata sec. 3): n_k.xdot >= 0 for
// each k, so the vertex may leave the corner but not enter the box, and no Eulerian row:
// the Eulerian velocity is what lets the cloth slide over the corner. A cloth-border
// vertex additionally gets BorderRow.
func AppendCornerRows(dst []Row, n1, n2, n3 dense.Vec3) []Row {
	return append(dst, Row{L: n1}, Row{L: n2}, Row{L: n3})
}

// AppendEdgeRows appends the constraints of an EOL vertex on a box edge with face
// normals n1, n2 (Weidner 2018 sec. 5.2 and Alg. 2; errata sec. 2 and Alg. 1):
//
//   - n1.xdot >= 0 and n2.xdot >= 0, so the vertex can slide along the edge and lift
//     off; equalities instead when the vertex is locally flat (see LocallyFlat), where
//     an inequality leaves a one-sided null space along which the vertex drifts;
//   - dir.Xdot = 0, which removes the Eulerian direction that would duplicate the
//     Lagrangian motion along the edge, so that motion along the edge is carried by xdot.
//
// dir is chosen by the caller: for a vertex on the cloth border, the material-space
// border normal bbar (BorderNormal of the two border edges), which keeps the material
// inside its border; for an interior vertex, the averaged material tangent tbar of its
// two conformal edges (MaterialTangent).
func AppendEdgeRows(dst []Row, n1, n2 dense.Vec3, flat bool, dir dense.Vec2) []Row {
	return append(dst, Row{L: n1, Eq: flat}, Row{L: n2, Eq: flat}, Row{E: dir, Eq: true})
}

// AppendPointRows appends the constraints of an EOL vertex on a point feature (a nail
// tip) with normal n (Weidner errata sec. 3): n.xdot >= 0 and t.xdot = 0 for two unit
// vectors t orthogonal to n and to each other, so the vertex can only lift off along n
// while the material slides over the point through Xdot; no Eulerian row. The rows use
// n normalized. A zero n appends nothing and returns false.
func AppendPointRows(dst []Row, n dense.Vec3) ([]Row, bool) {
	nn := n.Norm()
	if !(nn > 0) || math.IsInf(nn, 0) {
		return dst, false
	}
	u := n.Scale(1 / nn)
	t1 := dense.Perp(u)
	t2 := u.Cross(t1)
	return append(dst, Row{L: u}, Row{L: t1, Eq: true}, Row{L: t2, Eq: true}), true
}

// BorderRow is the Eulerian constraint b.Xdot = 0 of an EOL vertex on the cloth border
// (Weidner 2018 sec. 3 and Alg. 2): border vertices are Eulerian only along the border,
// so the material cannot slide out through it. b is the material-space border normal
// (BorderNormal). AppendEdgeRows already takes it as its dir; this row is for border
// vertices on corner and point features, whose rules have no Eulerian row.
func BorderRow(b dense.Vec2) Row { return Row{E: b, Eq: true} }

// LocallyFlat reports whether no two of the normals of the faces incident to a vertex
// differ by more than maxAngle radians (Weidner errata sec. 2, the test of Alg. 1).
// Angles are atan2(|a x b|, a.b), accurate for nearly parallel normals; the normals
// need not be unit, and a zero normal counts as parallel to every other.
func LocallyFlat(normals []dense.Vec3, maxAngle float64) bool {
	for i := range normals {
		for j := i + 1; j < len(normals); j++ {
			a, b := normals[i], normals[j]
			if math.Atan2(a.Cross(b).Norm(), a.Dot(b)) > maxAngle {
				return false
			}
		}
	}
	return true
}

// MaterialTangent returns the averaged material-space tangent tbar of a vertex on a
// conformal polyline (Weidner 2018 sec. 5.2, the Eulerian constraint of an interior edge
// vertex): e1 and e2 are the material-space edges from the vertex to its two
// neighbours along the polyline, which point in roughly opposite directions, so the
// consistently oriented average is the unit vector along e1/|e1| - e2/|e2|. A vertex at
// the end of the polyline has one edge: pass e2 = 0 and the result is e1/|e1|. It
// returns false when both edges are zero or the two directions cancel (the polyline
// doubles back on itself).
func MaterialTangent(e1, e2 dense.Vec2) (dense.Vec2, bool) {
	var t dense.Vec2
	if n := math.Hypot(e1[0], e1[1]); n > 0 {
		t = dense.Vec2{e1[0] / n, e1[1] / n}
	}
	if n := math.Hypot(e2[0], e2[1]); n > 0 {
		t = dense.Vec2{t[0] - e2[0]/n, t[1] - e2[1]/n}
	}
	n := math.Hypot(t[0], t[1])
	if !(n > 1e-12) {
		return dense.Vec2{}, false
	}
	return dense.Vec2{t[0] / n, t[1] / n}, true
}

// BorderNormal returns the material-space normal bbar of the cloth border at a border
// vertex (Weidner 2018 sec. 5.2): the averaged border tangent MaterialTangent(e1, e2) of
// the two border edges e1, e2 leaving the vertex, turned by 90 degrees. Its sign does not
// matter for the equality bbar.Xdot = 0. It returns false where MaterialTangent does.
func BorderNormal(e1, e2 dense.Vec2) (dense.Vec2, bool) {
	t, ok := MaterialTangent(e1, e2)
	return dense.Vec2{-t[1], t[0]}, ok
}
