package rod

import "github.com/loomsim/loom/solver/dense"

// StretchEnergy returns SB2020 eq. 2 for the segment between consecutive non-EIL
// nodes a, b (u_a < u_b):
//
//	V_s = 1/2 k_s du (l/du - 1)^2 = k_s (l - du)^2 / (2 du),   l = |x_b - x_a|, du = u_b - u_a.
//
// du must be positive (AssignNodes keeps it >= d).
func StretchEnergy(ks float64, xa, xb dense.Vec3, ua, ub float64) float64 {
	du := ub - ua
	r := xb.Sub(xa).Norm() - du
	return 0.5 * ks * r * r / du
}

// StretchGradHess returns V_s (StretchEnergy) and writes its exact gradient g and
// Hessian H (row-major 8x8) with respect to q = (x_a, x_b, u_a, u_b). With
// t = (x_b - x_a)/l:
//
//	dV/dl = k_s (l/du - 1),  dV/d du = k_s/2 (1 - l^2/du^2),
//	d2V/dl2 = k_s/du,  d2V/dl d du = -k_s l/du^2,  d2V/d du2 = k_s l^2/du^3,
//	dl/dx_b = t,  d2l/dx_b2 = (I - t t^T)/l.
//
// V_s is not differentiable at l = 0 (|x_b - x_a| is a cone there); for l = 0 the
// kernel uses t = 0 and drops the unbounded (I - t t^T)/l term: zero x-gradient,
// zero x-block and zero x-u coupling (only the u-u block remains).
func StretchGradHess(ks float64, xa, xb dense.Vec3, ua, ub float64, g *[8]float64, H *[64]float64) float64 {
	du := ub - ua
	e := xb.Sub(xa)
	l := e.Norm()
	r := l - du
	V := 0.5 * ks * r * r / du

	Vl := ks * r / du
	Vd := 0.5 * ks * (1 - l*l/(du*du))
	Vll := ks / du
	Vld := -ks * l / (du * du)
	Vdd := ks * l * l / (du * du * du)

	var t dense.Vec3
	var c float64 // coefficient of (I - t t^T)
	if l > 0 {
		t = e.Scale(1 / l)
		c = Vl / l
	}
	*g = [8]float64{}
	*H = [64]float64{}
	for i := 0; i < 3; i++ {
		g[i] = -Vl * t[i]
		g[3+i] = Vl * t[i]
	}
	g[6] = -Vd
	g[7] = Vd
	// xx block of the segment vector e: B = Vll t t^T + c (I - t t^T).
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			b := (Vll - c) * t[i] * t[j]
			if i == j {
				b += c
			}
			H[i*8+j] = b
			H[(3+i)*8+3+j] = b
			H[i*8+3+j] = -b
			H[(3+i)*8+j] = -b
		}
		// x-u coupling: d2V/dx_b d du = Vld t; x_a gets -, u_a gets -.
		m := Vld * t[i]
		H[i*8+6], H[6*8+i] = m, m
		H[i*8+7], H[7*8+i] = -m, -m
		H[(3+i)*8+6], H[6*8+3+i] = -m, -m
		H[(3+i)*8+7], H[7*8+3+i] = m, m
	}
	H[6*8+6], H[7*8+7] = Vdd, Vdd
	H[6*8+7], H[7*8+6] = -Vdd, -Vdd
	return V
}
