package sizing

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// eigSym returns the eigenvalues l1 >= l2 of the symmetric 2x2 matrix m (its
// off-diagonal taken as the mean of m[0][1] and m[1][0]) and a unit
// eigenvector q of l1, in closed form.
func eigSym(m dense.Mat2) (l1, l2 float64, q dense.Vec2) {
	a, b, c := m[0][0], 0.5*(m[0][1]+m[1][0]), m[1][1]
	mean, h := 0.5*(a+c), 0.5*(a-c)
	d := math.Sqrt(h*h + b*b)
	if math.IsInf(d, 0) {
		d = math.Hypot(h, b)
	}
	l1, l2 = mean+d, mean-d
	if d == 0 {
		return l1, l2, dense.Vec2{1, 0}
	}
	// (M - l1 I) v = 0 for both choices; pick the one without cancellation.
	var v dense.Vec2
	if h >= 0 {
		v = dense.Vec2{h + d, b}
	} else {
		v = dense.Vec2{b, d - h}
	}
	n := math.Hypot(v[0], v[1])
	return l1, l2, dense.Vec2{v[0] / n, v[1] / n}
}

// fromEig returns l1 q q^T + l2 (1 - q q^T) for a unit q; it is exactly
// l1 I when l1 == l2.
func fromEig(l1, l2 float64, q dense.Vec2) dense.Mat2 {
	dl := l1 - l2
	off := dl * q[0] * q[1]
	return dense.Mat2{{l2 + dl*q[0]*q[0], off}, {off, l2 + dl*q[1]*q[1]}}
}

// posPart returns m with its eigenvalues replaced by their positive parts
// (the (.)^+ of eq. 8).
func posPart(m dense.Mat2) dense.Mat2 {
	a, b, c := m[0][0], 0.5*(m[0][1]+m[1][0]), m[1][1]
	if a*c >= b*b { // semidefinite: the sign of the diagonal decides
		if a >= 0 && c >= 0 {
			return m
		}
		if a <= 0 && c <= 0 {
			return dense.Mat2{}
		}
	}
	l1, l2, q := eigSym(m)
	if l2 >= 0 {
		return m
	}
	if l1 <= 0 {
		return dense.Mat2{}
	}
	return fromEig(l1, 0, q)
}

// Clamp applies eq. 11-13 to a symmetric tensor m: its eigenvalues are
// clamped to [lo, hi] = [l_max^-2, l_min^-2] and the smaller is raised to at
// least a2 = alpha_min^2 times the larger, keeping the eigenvectors. A tensor
// with a non-finite entry is mapped to hi I. It does not allocate.
func Clamp(m dense.Mat2, lo, hi, a2 float64) dense.Mat2 {
	if !finite4(m) {
		return dense.Mat2{{hi, 0}, {0, hi}}
	}
	l1, l2, q := eigSym(m)
	l1 = min(max(l1, lo), hi)
	l2 = min(max(l2, lo), hi)
	l2 = max(l2, a2*l1) // l1 >= l2 survives the monotone clamp, so l1 is the max
	return fromEig(l1, l2, q)
}

func finite4(m dense.Mat2) bool {
	s := m[0][0] + m[0][1] + m[1][0] + m[1][1]
	return !math.IsNaN(s) && !math.IsInf(s, 0)
}

// rotSym returns R m R^T for the rotation R = [[c, -s], [s, c]], symmetrised.
func rotSym(m dense.Mat2, c, s float64) dense.Mat2 {
	a, b, d := m[0][0], 0.5*(m[0][1]+m[1][0]), m[1][1]
	// R m = [[c a - s b, c b - s d], [s a + c b, s b + c d]]
	r00, r01 := c*a-s*b, c*b-s*d
	r10, r11 := s*a+c*b, s*b+c*d
	// (R m) R^T, R^T = [[c, s], [-s, c]]
	m00 := r00*c - r01*s
	m01 := r00*s + r01*c
	m11 := r10*s + r11*c
	return dense.Mat2{{m00, m01}, {m01, m11}}
}
