package rodcontact

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// PenaltyForce returns the magnitude k (r - d)^2 / r of the force with
// which SegmentPenalty's potential pushes two segments d apart (-phi'(d)),
// 0 for d >= r: the normal force that friction at the pair is bounded by.
func PenaltyForce(k, r, d float64) float64 {
	if !(d < r) {
		return 0
	}
	return k * (r - d) * (r - d) / r
}

// SegmentPenalty returns the penalty potential of two segments x[0]-x[1] and
// x[2]-x[3] of yarns whose radii sum to r (SB2020 sec. 5, non-persistent
// contacts):
//
//	E = phi(d) = k (r - d)^3 / (3 r) for d < r, else 0,
//
// d the distance between the segments' closest points p(s) = x0 + s (x1 -
// x0) and q(t) = x2 + t (x3 - x2), (s, t) in [0, 1]^2. The cubic is twice
// continuously differentiable where contact begins (a quadratic penalty's
// Hessian jumps there, and Newton cycled across the jump on rod-incline);
// its stiffness phi_dd = 2 k (r - d)/r reaches k at half the radii. Its
// gradient g over (x0, x1, x2, x3) is phi_d A^T n, phi_d = -k (r - d)^2/r,
// n = (p - q)/d, A = d(p - q)/dx at fixed (s, t) (the closest-point
// conditions make the terms in ds/dx, dt/dx vanish). Its Hessian is
//
//	phi_dd A^T n n^T A + phi_d Hess d,
//	Hess d = A^T (I - n n^T)/d (A + e1 ds/dx^T - e2 dt/dx^T) + d(A^T n)/d(s, t) (ds/dx, dt/dx),
//
// with ds/dx, dt/dx by implicit differentiation of the closest-point
// conditions (p - q).e1 = 0, (p - q).e2 = 0 of the free parameters (a
// clamped parameter has none), nearly parallel segments taken as parallel
// (one parameter clamped, as geom.SegmentClosest does at exact
// parallelism). The Newton matrix takes this Hessian as it is (indefinite
// where the curvature of d outweighs phi_dd; the Newton solve regularizes
// then): the Gauss-Newton part alone made Newton converge only linearly on
// rod-crossing, where two parallel yarns press on each other (21 step
// halvings instead of none), and its projection onto the positive
// semidefinite matrices (dense.ProjectPSD) still cost 7 halvings there and
// on rod-incline. The solve projects it only where no regularization helps
// (rodstep's factorNewton: a closest point at a segment's end, d far below
// r, gives curvature -k r/d). g and H (row-major 12 x 12) are written only
// when E > 0.
func SegmentPenalty(k, r float64, x *[4]dense.Vec3, g *[12]float64, H *[144]float64) float64 {
	s, t, d := geom.SegmentClosest(x[0], x[1], x[2], x[3])
	return penaltyAt(k, r, x, s, t, d, s > 0 && s < 1, g, H)
}

// PointSegmentPenalty is SegmentPenalty's potential phi(d) with the point
// on the first segment held at the parameter s: d is the distance from
// p(s) = x0 + s (x1 - x0) to the second segment, whose closest point q(t)
// is free. For two nearly parallel segments the closest points of the
// segments jump between the ends of their overlap as the segments turn by a
// hair (two yarns lying side by side at their contact distance: on
// rod-incline the point jumped from s = 0.996 to s = 0 and back at every
// Newton iteration, which zigzagged without converging), where a point held
// on one of them moves smoothly; the solver holds it at the middle of the
// overlap (rodstep: parallelPairs). Gradient and Hessian as SegmentPenalty's
// with ds/dx = 0.
func PointSegmentPenalty(k, r, s float64, x *[4]dense.Vec3, g *[12]float64, H *[144]float64) float64 {
	e2 := x[3].Sub(x[2])
	p := x[0].Add(x[1].Sub(x[0]).Scale(s))
	t := 0.0
	if l2 := e2.Dot(e2); l2 > 0 {
		t = math.Max(0, math.Min(1, p.Sub(x[2]).Dot(e2)/l2))
	}
	d := p.Sub(x[2].Add(e2.Scale(t))).Norm()
	return penaltyAt(k, r, x, s, t, d, false, g, H)
}

// penaltyAt is the penalty of the closest points p(s), q(t) at distance d,
// with s free (varying with x by the closest-point conditions) or held.
func penaltyAt(k, r float64, x *[4]dense.Vec3, s, t, d float64, freeS bool, g *[12]float64, H *[144]float64) float64 {
	if !(d < r) || d == 0 {
		return 0
	}
	e1, e2 := x[1].Sub(x[0]), x[3].Sub(x[2])
	p := x[0].Add(e1.Scale(s)).Sub(x[2].Add(e2.Scale(t)))
	n := p.Scale(1 / d)
	w := [4]float64{1 - s, s, -(1 - t), -t} // A = [w_i I]
	f := -PenaltyForce(k, r, d)             // phi'
	c2 := 2 * k * (r - d) / r               // phi''
	e := k * (r - d) * (r - d) * (r - d) / (3 * r)
	for i := 0; i < 4; i++ {
		for c := 0; c < 3; c++ {
			g[3*i+c] = f * w[i] * n[c]
		}
	}
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			H[12*i+j] = c2 * w[i/3] * n[i%3] * w[j/3] * n[j%3]
		}
	}
	// ds/dx and dt/dx (12-vectors) of the free parameters.
	var ds, dt [12]float64
	freeT := t > 0 && t < 1
	// dF/dx for F = p.e1 and G = p.e2.
	var dF, dG [12]float64
	for c := 0; c < 3; c++ {
		dF[c], dF[3+c], dF[6+c], dF[9+c] = w[0]*e1[c]-p[c], w[1]*e1[c]+p[c], w[2]*e1[c], w[3]*e1[c]
		dG[c], dG[3+c], dG[6+c], dG[9+c] = w[0]*e2[c], w[1]*e2[c], w[2]*e2[c]-p[c], w[3]*e2[c]+p[c]
	}
	a11, a12, a21, a22 := e1.Dot(e1), -e1.Dot(e2), e1.Dot(e2), -e2.Dot(e2)
	switch {
	case freeS && freeT:
		det := a11*a22 - a12*a21
		if !(math.Abs(det) > parallel*a11*math.Abs(a22)) {
			for m := 0; m < 12; m++ {
				dt[m] = -dG[m] / a22
			}
			break
		}
		for m := 0; m < 12; m++ {
			ds[m] = -(a22*dF[m] - a12*dG[m]) / det
			dt[m] = -(-a21*dF[m] + a11*dG[m]) / det
		}
	case freeS:
		for m := 0; m < 12; m++ {
			ds[m] = -dF[m] / a11
		}
	case freeT:
		for m := 0; m < 12; m++ {
			dt[m] = -dG[m] / a22
		}
	}
	// Dp = A + e1 ds^T - e2 dt^T (3 x 12), then (I - n n^T)/d Dp.
	var Dn [3][12]float64
	for c := 0; c < 3; c++ {
		for m := 0; m < 12; m++ {
			v := e1[c]*ds[m] - e2[c]*dt[m]
			if m%3 == c {
				v += w[m/3]
			}
			Dn[c][m] = v
		}
	}
	for m := 0; m < 12; m++ {
		nd := n[0]*Dn[0][m] + n[1]*Dn[1][m] + n[2]*Dn[2][m]
		for c := 0; c < 3; c++ {
			Dn[c][m] = (Dn[c][m] - n[c]*nd) / d
		}
	}
	// d(A^T n)/d(s, t): d w/ds = (-1, 1, 0, 0), d w/dt = (0, 0, 1, -1).
	dws := [4]float64{-1, 1, 0, 0}
	dwt := [4]float64{0, 0, 1, -1}
	for i := 0; i < 12; i++ {
		for j := 0; j < 12; j++ {
			hd := w[i/3]*Dn[i%3][j] + n[i%3]*(dws[i/3]*ds[j]+dwt[i/3]*dt[j])
			H[12*i+j] += f * hd
		}
	}
	return e
}

// parallel is the squared sine of the angle below which two segments count
// as parallel for the closest-point derivatives (whose interior solution has
// ds/dx ~ 1/sin^2 there).
const parallel = 1e-6
