package geom

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// mollerIntersect is Möller's interval test (1997), written independently
// of TrianglesIntersect for non-coplanar pairs: each triangle cuts the other's
// plane in a segment of the planes' common line, and the triangles meet when
// those segments overlap. margin is how far the configuration is from a
// change of answer (plane distances and interval overlap); the test skips
// pairs with a tiny margin, where floating point may decide either way.
func mollerIntersect(v, u [3]dense.Vec3) (hit bool, margin float64) {
	n1 := v[1].Sub(v[0]).Cross(v[2].Sub(v[0]))
	n2 := u[1].Sub(u[0]).Cross(u[2].Sub(u[0]))
	n1, n2 = n1.Scale(1/n1.Norm()), n2.Scale(1/n2.Norm())
	var dv, du [3]float64
	margin = math.Inf(1)
	for i := range 3 {
		dv[i] = n2.Dot(v[i].Sub(u[0]))
		du[i] = n1.Dot(u[i].Sub(v[0]))
		margin = math.Min(margin, math.Min(math.Abs(dv[i]), math.Abs(du[i])))
	}
	if (dv[0] > 0 && dv[1] > 0 && dv[2] > 0) || (dv[0] < 0 && dv[1] < 0 && dv[2] < 0) ||
		(du[0] > 0 && du[1] > 0 && du[2] > 0) || (du[0] < 0 && du[1] < 0 && du[2] < 0) {
		return false, margin
	}
	dir := n1.Cross(n2)
	interval := func(t [3]dense.Vec3, d [3]float64) (lo, hi float64) {
		// the lone vertex on its side of the plane
		k := 0
		switch {
		case (d[0] > 0) == (d[1] > 0):
			k = 2
		case (d[0] > 0) == (d[2] > 0):
			k = 1
		}
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, j := range []int{(k + 1) % 3, (k + 2) % 3} {
			p := t[k].Add(t[j].Sub(t[k]).Scale(d[k] / (d[k] - d[j])))
			x := dir.Dot(p)
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
		return lo, hi
	}
	l1, h1 := interval(v, dv)
	l2, h2 := interval(u, du)
	ov := math.Min(h1, h2) - math.Max(l1, l2)
	return ov >= 0, math.Min(margin, math.Abs(ov))
}

func randTri(r *rand.Rand, size float64) [3]dense.Vec3 {
	c := dense.Vec3{r.Float64(), r.Float64(), r.Float64()}
	var t [3]dense.Vec3
	for k := range t {
		t[k] = c.Add(dense.Vec3{size * (2*r.Float64() - 1), size * (2*r.Float64() - 1), size * (2*r.Float64() - 1)})
	}
	return t
}

func TestTrianglesIntersectRandomSoup(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	soup := make([][3]dense.Vec3, 300)
	for i := range soup {
		soup[i] = randTri(r, 0.25)
	}
	hits, misses, skipped := 0, 0, 0
	for i := range soup {
		for j := i + 1; j < len(soup); j++ {
			a, b := soup[i], soup[j]
			want, margin := mollerIntersect(a, b)
			if margin < 1e-9 {
				skipped++
				continue
			}
			got := TrianglesIntersect(a[0], a[1], a[2], b[0], b[1], b[2])
			if got != want {
				t.Fatalf("pair %d %d: got %v, Möller %v (margin %g)", i, j, got, want, margin)
			}
			if got2 := TrianglesIntersect(b[2], b[0], b[1], a[1], a[0], a[2]); got2 != got {
				t.Fatalf("pair %d %d: answer depends on order", i, j)
			}
			if want {
				hits++
			} else {
				misses++
			}
		}
	}
	t.Logf("%d intersecting, %d apart, %d skipped", hits, misses, skipped)
	if hits < 500 || misses < 500 {
		t.Fatalf("too few cases of one kind: %d hits, %d misses", hits, misses)
	}
}

// foldedSheet is an n x n grid in the unit square whose right half is
// rotated about the line x = 0.5 by angle (radians) and, but for the fold
// line, pushed down by drop, so that it can pass through the left half.
func foldedSheet(n int, angle, drop float64) (x []dense.Vec3, faces [][3]int) {
	for j := range n {
		for i := range n {
			u, v := float64(i)/float64(n-1), float64(j)/float64(n-1)
			p := dense.Vec3{u, v, 0}
			if u > 0.5 {
				d := u - 0.5
				p = dense.Vec3{0.5 + d*math.Cos(angle), v, d*math.Sin(angle) - drop}
			}
			x = append(x, p)
		}
	}
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			a, b, c, d := j*n+i, j*n+i+1, (j+1)*n+i, (j+1)*n+i+1
			faces = append(faces, [3]int{a, b, d}, [3]int{a, d, c})
		}
	}
	return x, faces
}

func sharesVertex(f, g [3]int) bool {
	for _, a := range f {
		for _, b := range g {
			if a == b {
				return true
			}
		}
	}
	return false
}

func TestTrianglesIntersectFoldedSheet(t *testing.T) {
	for _, c := range []struct {
		angle, drop float64
		some        bool
	}{{0, 0, false}, {math.Pi - 0.3, 0, false}, {math.Pi - 0.3, 0.1, true}, {2.5, 0.15, true}, {2.5, 0.9, false}} {
		x, faces := foldedSheet(9, c.angle, c.drop)
		count, checked := 0, 0
		for i := range faces {
			for j := i + 1; j < len(faces); j++ {
				f, g := faces[i], faces[j]
				if sharesVertex(f, g) {
					continue
				}
				got := TrianglesIntersect(x[f[0]], x[f[1]], x[f[2]], x[g[0]], x[g[1]], x[g[2]])
				if got {
					count++
				}
				a, b := [3]dense.Vec3{x[f[0]], x[f[1]], x[f[2]]}, [3]dense.Vec3{x[g[0]], x[g[1]], x[g[2]]}
				n1 := a[1].Sub(a[0]).Cross(a[2].Sub(a[0]))
				n2 := b[1].Sub(b[0]).Cross(b[2].Sub(b[0]))
				if n1.Cross(n2).Norm() < 1e-9*n1.Norm()*n2.Norm() {
					if got {
						t.Errorf("fold %v: parallel non-adjacent faces %d %d reported intersecting", c, i, j)
					}
					continue
				}
				if want, margin := mollerIntersect(a, b); margin > 1e-9 {
					checked++
					if got != want {
						t.Errorf("fold %v: faces %d %d: got %v, Möller %v", c, i, j, got, want)
					}
				}
			}
		}
		t.Logf("fold %v: %d intersecting pairs, %d checked against Möller", c, count, checked)
		if (count > 0) != c.some {
			t.Errorf("fold %v: %d intersecting pairs", c, count)
		}
	}
}

func TestTrianglesIntersectTouchingAndCoplanar(t *testing.T) {
	v := func(x, y, z float64) dense.Vec3 { return dense.Vec3{x, y, z} }
	a0, a1, a2 := v(0, 0, 0), v(1, 0, 0), v(0, 1, 0)
	for _, c := range []struct {
		name   string
		b      [3]dense.Vec3
		expect bool
	}{
		{"vertex on face", [3]dense.Vec3{v(0.2, 0.2, 0), v(0.3, 0.2, 1), v(0.2, 0.3, 1)}, true},
		{"vertex just above face", [3]dense.Vec3{v(0.2, 0.2, 1e-300), v(0.3, 0.2, 1), v(0.2, 0.3, 1)}, false},
		{"edge through face", [3]dense.Vec3{v(0.2, 0.2, -1), v(0.2, 0.2, 1), v(2, 2, 0)}, true},
		{"edge on edge", [3]dense.Vec3{v(0.5, -1, 0), v(0.5, 1, 0), v(0.5, 0, 1)}, true},
		{"edge crossing edge in plane", [3]dense.Vec3{v(0.5, -0.5, 0), v(0.5, 0.2, 0), v(0.5, 0, 1)}, true},
		{"edge missing by ulp", [3]dense.Vec3{v(1.0000000000000002, -1, 0), v(1.0000000000000002, 1, 0), v(1.0000000000000002, 0, 1)}, false},
		{"coplanar overlap", [3]dense.Vec3{v(0.1, 0.1, 0), v(2, 0.1, 0), v(0.1, 2, 0)}, true},
		{"coplanar inside", [3]dense.Vec3{v(0.1, 0.1, 0), v(0.2, 0.1, 0), v(0.1, 0.2, 0)}, true},
		{"coplanar apart", [3]dense.Vec3{v(0.6, 0.6, 0), v(2, 0.6, 0), v(0.6, 2, 0)}, false},
		{"coplanar touching", [3]dense.Vec3{v(0.5, 0.5, 0), v(2, 0.5, 0), v(0.5, 2, 0)}, true},
		{"parallel planes", [3]dense.Vec3{v(0, 0, 1e-12), v(1, 0, 1e-12), v(0, 1, 1e-12)}, false},
	} {
		if got := TrianglesIntersect(a0, a1, a2, c.b[0], c.b[1], c.b[2]); got != c.expect {
			t.Errorf("%s: got %v", c.name, got)
		}
		if got := TrianglesIntersect(c.b[0], c.b[1], c.b[2], a0, a1, a2); got != c.expect {
			t.Errorf("%s swapped: got %v", c.name, got)
		}
	}
}

func TestOrient3dExactOnNearDegenerate(t *testing.T) {
	// d on the plane of a, b, c up to rounding of its coordinates: the
	// filtered sign must agree with the exact one.
	r := rand.New(rand.NewSource(3))
	for range 2000 {
		a := dense.Vec3{r.Float64(), r.Float64(), r.Float64()}
		b := dense.Vec3{r.Float64(), r.Float64(), r.Float64()}
		c := dense.Vec3{r.Float64(), r.Float64(), r.Float64()}
		s, u := r.Float64(), r.Float64()
		d := a.Add(b.Sub(a).Scale(s)).Add(c.Sub(a).Scale(u))
		if got, want := orient3d(a, b, c, d), orient3dExact(a, b, c, d); got != want {
			t.Fatalf("orient3d %d, exact %d", got, want)
		}
	}
}

// ratOrient3d is orient3d's determinant in rational arithmetic.
func ratOrient3d(a, b, c, d dense.Vec3) int {
	var m [3][3]big.Rat
	for k, p := range [3]dense.Vec3{a, b, c} {
		for j := range 3 {
			var x, y big.Rat
			x.SetFloat64(p[j])
			y.SetFloat64(d[j])
			m[k][j].Sub(&x, &y)
		}
	}
	var det, t big.Rat
	det.Mul(&m[0][0], new(big.Rat).Sub(new(big.Rat).Mul(&m[1][1], &m[2][2]), new(big.Rat).Mul(&m[1][2], &m[2][1])))
	t.Mul(&m[0][1], new(big.Rat).Sub(new(big.Rat).Mul(&m[1][0], &m[2][2]), new(big.Rat).Mul(&m[1][2], &m[2][0])))
	det.Sub(&det, &t)
	t.Mul(&m[0][2], new(big.Rat).Sub(new(big.Rat).Mul(&m[1][0], &m[2][1]), new(big.Rat).Mul(&m[1][1], &m[2][0])))
	det.Add(&det, &t)
	return det.Sign()
}

func TestOrient3dExactAgainstRationals(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	coord := func() float64 {
		switch r.Intn(4) {
		case 0:
			return 0
		case 1:
			return math.Ldexp(r.Float64()-0.5, r.Intn(80)-40)
		default:
			return float64(r.Intn(5)-2) * 0.1
		}
	}
	for range 5000 {
		var p [4]dense.Vec3
		for k := range p {
			p[k] = dense.Vec3{coord(), coord(), coord()}
		}
		if got, want := orient3dExact(p[0], p[1], p[2], p[3]), ratOrient3d(p[0], p[1], p[2], p[3]); got != want {
			t.Fatalf("%v: integer %d, rational %d", p, got, want)
		}
		if got, want := orient3d(p[0], p[1], p[2], p[3]), ratOrient3d(p[0], p[1], p[2], p[3]); got != want {
			t.Fatalf("%v: filtered %d, rational %d", p, got, want)
		}
	}
}

func TestOrient2dAgainstRationals(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	coord := func() float64 {
		if r.Intn(3) == 0 {
			return math.Ldexp(r.Float64()-0.5, r.Intn(80)-40)
		}
		return float64(r.Intn(5)-2) * 0.1
	}
	for range 5000 {
		var p [3][2]float64
		for k := range p {
			p[k] = [2]float64{coord(), coord()}
		}
		var x [6]big.Rat
		for k, v := range [6]float64{p[0][0], p[0][1], p[1][0], p[1][1], p[2][0], p[2][1]} {
			x[k].SetFloat64(v)
		}
		l := new(big.Rat).Mul(new(big.Rat).Sub(&x[0], &x[4]), new(big.Rat).Sub(&x[3], &x[5]))
		rr := new(big.Rat).Mul(new(big.Rat).Sub(&x[1], &x[5]), new(big.Rat).Sub(&x[2], &x[4]))
		want := l.Cmp(rr)
		if got := orient2d(p[0], p[1], p[2]); got != want {
			t.Fatalf("%v: orient2d %d, rational %d", p, got, want)
		}
		if got := orient2dExact(p[0], p[1], p[2]); got != want {
			t.Fatalf("%v: orient2dExact %d, rational %d", p, got, want)
		}
	}
}
