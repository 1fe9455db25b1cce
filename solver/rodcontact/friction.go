package rodcontact

import "github.com/loomsim/loom/solver/dense"

// Friction returns the lagged Coulomb friction potential of a penalty
// contact (the smoothed, lagged friction of Li et al. 2020, IPC, sec. 5):
// for the slide y = |T dx| within the step, T = I - n n^T on the contact
// normal n of the step's start, and the normal force N of the step's start,
//
//	D = mu N f0(y),  f0(y) = y^2/eps - y^3/(3 eps^2) + eps/3 (y < eps), y (y >= eps),
//
// so the friction force -grad D has magnitude mu N beyond the slide eps and
// fades to zero with it (static friction as a stiff spring of stiffness
// about 2 mu N / eps). Its gradient in dx is mu N f1(y)/y T dx and its
// Hessian mu N (f1/y T + (f1' - f1/y)/y^2 T dx dx^T T), which is positive
// semidefinite (the coefficient along T dx is f1' >= 0). It writes g and H
// (row-major 3 x 3) and returns D.
func Friction(muN, eps float64, n, dx dense.Vec3, g *[3]float64, H *[9]float64) float64 {
	t := dx.Sub(n.Scale(n.Dot(dx)))
	y := t.Norm()
	var f0, f1y, c float64 // f0(y), f1(y)/y, (f1' - f1/y)/y^2
	if y < eps {
		f0 = y*y/eps - y*y*y/(3*eps*eps) + eps/3
		f1y = 2/eps - y/(eps*eps)
		c = -1 / (eps * eps * y)
		if y == 0 {
			c = 0
		}
	} else {
		f0, f1y, c = y, 1/y, -1/(y*y*y)
	}
	for a := 0; a < 3; a++ {
		g[a] = muN * f1y * t[a]
		for b := 0; b < 3; b++ {
			tab := -n[a] * n[b]
			if a == b {
				tab++
			}
			H[3*a+b] = muN * (f1y*tab + c*t[a]*t[b])
		}
	}
	return muN * f0
}
