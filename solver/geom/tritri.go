package geom

import (
	"math"
	"math/big"

	"github.com/loomsim/loom/solver/dense"
)

// This file holds the exact triangle-triangle intersection test behind the
// self-intersection count of a frame's stats, built on orientation signs:
// a floating-point determinant whose sign is certified by Shewchuk's static
// error bound, recomputed in exact rational arithmetic when the bound cannot
// certify it. No tolerance decides any answer.

// orient3d returns the sign of det[a-d; b-d; c-d] (Shewchuk's orient3d: > 0
// when d lies below the plane of a, b, c seen with a, b, c counter-clockwise),
// exact for any finite input.
func orient3d(a, b, c, d dense.Vec3) int {
	adx, ady, adz := a[0]-d[0], a[1]-d[1], a[2]-d[2]
	bdx, bdy, bdz := b[0]-d[0], b[1]-d[1], b[2]-d[2]
	cdx, cdy, cdz := c[0]-d[0], c[1]-d[1], c[2]-d[2]
	bdxcdy, cdxbdy := bdx*cdy, cdx*bdy
	cdxady, adxcdy := cdx*ady, adx*cdy
	adxbdy, bdxady := adx*bdy, bdx*ady
	det := adz*(bdxcdy-cdxbdy) + bdz*(cdxady-adxcdy) + cdz*(adxbdy-bdxady)
	perm := (math.Abs(bdxcdy)+math.Abs(cdxbdy))*math.Abs(adz) +
		(math.Abs(cdxady)+math.Abs(adxcdy))*math.Abs(bdz) +
		(math.Abs(adxbdy)+math.Abs(bdxady))*math.Abs(cdz)
	const errBound = (7 + 56*epsilon) * epsilon // Shewchuk's o3derrboundA
	if det > errBound*perm {
		return 1
	}
	if -det > errBound*perm {
		return -1
	}
	for k := range 3 {
		// four points in one axis-aligned plane (a flat sheet in a
		// coordinate plane): a zero column, the determinant is 0
		if a[k] == d[k] && b[k] == d[k] && c[k] == d[k] {
			return 0
		}
	}
	return orient3dExact(a, b, c, d)
}

// epsilon is half the float64 machine epsilon (Shewchuk's epsilon).
const epsilon = 1.0 / (1 << 53)

// orient3dExact computes orient3d's determinant in integers: every
// coordinate is an integer multiple of 2^emin (the smallest exponent of a
// coordinate's last mantissa bit), so scaling by 2^-emin makes all of them
// integers, and the determinant's sign is that of the integer one.
func orient3dExact(a, b, c, d dense.Vec3) int {
	var x [4][3]big.Int
	v := make([]float64, 0, 12)
	out := make([]*big.Int, 0, 12)
	for k, p := range [4]dense.Vec3{a, b, c, d} {
		for j := range 3 {
			v, out = append(v, p[j]), append(out, &x[k][j])
		}
	}
	scaleToIntegers(v, out)
	var m [3][3]big.Int
	for k := range 3 {
		for j := range 3 {
			m[k][j].Sub(&x[k][j], &x[3][j])
		}
	}
	var det, t, u big.Int
	for k := range 3 {
		// cofactor expansion along the third column
		i, j := (k+1)%3, (k+2)%3
		t.Mul(&m[i][0], &m[j][1])
		u.Mul(&m[j][0], &m[i][1])
		t.Sub(&t, &u)
		t.Mul(&t, &m[k][2])
		det.Add(&det, &t)
	}
	return det.Sign()
}

// orient2d returns the sign of det[a-c; b-c] (> 0 when a, b, c turn
// counter-clockwise), exact for any finite input.
func orient2d(a, b, c [2]float64) int {
	l, r := (a[0]-c[0])*(b[1]-c[1]), (a[1]-c[1])*(b[0]-c[0])
	det := l - r
	const errBound = (3 + 16*epsilon) * epsilon // Shewchuk's ccwerrboundA
	if b := errBound * (math.Abs(l) + math.Abs(r)); det > b {
		return 1
	} else if -det > b {
		return -1
	}
	if (a[0] == c[0] && b[0] == c[0]) || (a[1] == c[1] && b[1] == c[1]) {
		return 0 // on one axis-aligned line (a row of a flat grid)
	}
	return orient2dExact(a, b, c)
}

// orient2dExact computes orient2d's determinant in integers, as
// orient3dExact does.
func orient2dExact(a, b, c [2]float64) int {
	var x [3][2]big.Int
	scaleToIntegers([]float64{a[0], a[1], b[0], b[1], c[0], c[1]}, []*big.Int{&x[0][0], &x[0][1], &x[1][0], &x[1][1], &x[2][0], &x[2][1]})
	var p, q big.Int
	p.Sub(&x[0][0], &x[2][0])
	q.Sub(&x[1][1], &x[2][1])
	p.Mul(&p, &q)
	var r, s big.Int
	r.Sub(&x[0][1], &x[2][1])
	s.Sub(&x[1][0], &x[2][0])
	r.Mul(&r, &s)
	return p.Cmp(&r)
}

// scaleToIntegers sets out[i] to v[i] / 2^emin, an integer, where emin is
// the smallest exponent of the last mantissa bit over the non-zero v.
func scaleToIntegers(v []float64, out []*big.Int) {
	mant := make([]int64, len(v))
	exp := make([]int, len(v))
	emin := math.MaxInt
	for i, x := range v {
		f, e := math.Frexp(x)
		mant[i], exp[i] = int64(f*(1<<53)), e-53
		if mant[i] != 0 {
			emin = min(emin, exp[i])
		}
	}
	for i := range v {
		out[i].SetInt64(mant[i])
		if mant[i] != 0 {
			out[i].Lsh(out[i], uint(exp[i]-emin))
		}
	}
}

// TrianglesIntersect reports whether the closed triangles a0a1a2 and b0b1b2
// share a point (touching counts). Non-coplanar triangles meet exactly when
// an edge of one meets the other (the ends of their common segment lie on
// edges); coplanar ones are tested in the plane. Every decision is an exact
// orientation sign. Degenerate (zero-area) triangles are not supported.
func TrianglesIntersect(a0, a1, a2, b0, b1, b2 dense.Vec3) bool {
	// Signs of b's corners against a's plane and of a's against b's: all
	// strictly on one side means no intersection.
	sb := [3]int{orient3d(a0, a1, a2, b0), orient3d(a0, a1, a2, b1), orient3d(a0, a1, a2, b2)}
	if oneSide(sb) {
		return false
	}
	if sb == [3]int{} {
		return coplanarIntersect(a0, a1, a2, b0, b1, b2)
	}
	sa := [3]int{orient3d(b0, b1, b2, a0), orient3d(b0, b1, b2, a1), orient3d(b0, b1, b2, a2)}
	if oneSide(sa) {
		return false
	}
	a, b := [3]dense.Vec3{a0, a1, a2}, [3]dense.Vec3{b0, b1, b2}
	for k := range 3 {
		if edgeMeetsTriangle(a[k], a[(k+1)%3], sa[k], sa[(k+1)%3], b0, b1, b2) ||
			edgeMeetsTriangle(b[k], b[(k+1)%3], sb[k], sb[(k+1)%3], a0, a1, a2) {
			return true
		}
	}
	return false
}

func oneSide(s [3]int) bool {
	return (s[0] > 0 && s[1] > 0 && s[2] > 0) || (s[0] < 0 && s[1] < 0 && s[2] < 0)
}

// edgeMeetsTriangle reports whether segment pq, whose ends have orientations
// sp, sq against the plane of abc, meets the closed triangle abc at a point
// where it crosses or touches the plane. A segment lying in the plane
// (sp = sq = 0) reports false: in a non-coplanar pair its meeting points are
// found by the edges that leave the plane from its ends.
func edgeMeetsTriangle(p, q dense.Vec3, sp, sq int, a, b, c dense.Vec3) bool {
	if sp*sq > 0 || (sp == 0 && sq == 0) {
		return false
	}
	// The line pq pierces the plane at one point, inside the segment; it is
	// in the closed triangle when the line passes no edge on opposite sides.
	s1, s2, s3 := orient3d(p, q, a, b), orient3d(p, q, b, c), orient3d(p, q, c, a)
	return !((s1 > 0 || s2 > 0 || s3 > 0) && (s1 < 0 || s2 < 0 || s3 < 0))
}

// coplanarIntersect tests coplanar triangles in the coordinate plane that
// their normal is most aligned with (a projection that keeps orientations).
func coplanarIntersect(a0, a1, a2, b0, b1, b2 dense.Vec3) bool {
	n := a1.Sub(a0).Cross(a2.Sub(a0))
	ax := 2
	if math.Abs(n[0]) >= math.Abs(n[1]) && math.Abs(n[0]) >= math.Abs(n[2]) {
		ax = 0
	} else if math.Abs(n[1]) >= math.Abs(n[2]) {
		ax = 1
	}
	i, j := (ax+1)%3, (ax+2)%3
	p := func(v dense.Vec3) [2]float64 { return [2]float64{v[i], v[j]} }
	a := [3][2]float64{p(a0), p(a1), p(a2)}
	b := [3][2]float64{p(b0), p(b1), p(b2)}
	for k := range 3 {
		for l := range 3 {
			if segments2DMeet(a[k], a[(k+1)%3], b[l], b[(l+1)%3]) {
				return true
			}
		}
	}
	return inTriangle2D(a[0], b) || inTriangle2D(b[0], a)
}

// segments2DMeet reports whether the closed segments pq and rs share a point.
func segments2DMeet(p, q, r, s [2]float64) bool {
	o1, o2 := orient2d(p, q, r), orient2d(p, q, s)
	o3, o4 := orient2d(r, s, p), orient2d(r, s, q)
	if o1*o2 < 0 && o3*o4 < 0 {
		return true
	}
	on := func(o int, a, b, x [2]float64) bool { // x collinear with ab: within it?
		return o == 0 && math.Min(a[0], b[0]) <= x[0] && x[0] <= math.Max(a[0], b[0]) &&
			math.Min(a[1], b[1]) <= x[1] && x[1] <= math.Max(a[1], b[1])
	}
	return on(o1, p, q, r) || on(o2, p, q, s) || on(o3, r, s, p) || on(o4, r, s, q)
}

// inTriangle2D reports whether x lies in the closed triangle t.
func inTriangle2D(x [2]float64, t [3][2]float64) bool {
	s1, s2, s3 := orient2d(t[0], t[1], x), orient2d(t[1], t[2], x), orient2d(t[2], t[0], x)
	return !((s1 > 0 || s2 > 0 || s3 > 0) && (s1 < 0 || s2 < 0 || s3 < 0))
}
