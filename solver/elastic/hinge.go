package elastic

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// HingeRest is the rest state of a bending hinge. Vertex order: x0, x1 span the
// shared edge; x2 is the opposite vertex of face (x0,x1,x2); x3 is the opposite
// vertex of face (x1,x0,x3).
type HingeRest struct {
	Theta0 float64 // rest dihedral angle (DihedralAngle of the rest positions)
	Weight float64 // 3|e|^2/(A1+A2) from the rest geometry (Grinspun 2003)
}

// MinHingeEdge is the smallest rest edge length NewHingeRest accepts; the rest face
// areas must exceed MinRestArea.
const MinHingeEdge = 1e-7

// NewHingeRest computes the rest angle and weight from rest positions (for a flat
// sheet: material coordinates lifted to z = 0). It returns an error when the shared
// edge is shorter than MinHingeEdge, a face area is <= MinRestArea, or a value is
// not finite.
func NewHingeRest(X0, X1, X2, X3 dense.Vec3) (HingeRest, error) {
	e := X1.Sub(X0)
	n1 := e.Cross(X2.Sub(X0))
	n2 := X3.Sub(X0).Cross(e)
	l2 := e.Dot(e)
	a1, a2 := 0.5*n1.Norm(), 0.5*n2.Norm()
	w := 3 * l2 / (a1 + a2)
	th := DihedralAngle(X0, X1, X2, X3)
	switch {
	case math.IsNaN(w+th) || math.IsInf(w, 0) || math.IsInf(l2, 0) || math.IsInf(a1+a2, 0):
		return HingeRest{}, fmt.Errorf("elastic: hinge %v %v %v %v: non-finite rest geometry", X0, X1, X2, X3)
	case l2 <= MinHingeEdge*MinHingeEdge:
		return HingeRest{}, fmt.Errorf("elastic: hinge %v %v %v %v: shared edge length %g <= %g", X0, X1, X2, X3, math.Sqrt(l2), MinHingeEdge)
	case a1 <= MinRestArea || a2 <= MinRestArea:
		return HingeRest{}, fmt.Errorf("elastic: hinge %v %v %v %v: degenerate face (areas %g, %g <= %g)", X0, X1, X2, X3, a1, a2, MinRestArea)
	}
	return HingeRest{Theta0: th, Weight: w}, nil
}

// DihedralAngle returns the signed angle from the normal n1 = e x (x2-x0) of face
// (x0,x1,x2) to the normal n2 = (x3-x0) x e of face (x1,x0,x3) about the edge
// e = x1-x0: theta = atan2((n1 x n2).e/|e|, n1.n2), in (-pi, pi], zero for a flat
// hinge and smooth through it. With a = e, b = x2-x0, c = x3-x0 the identities
// n1 x n2 = -det(a,b,c) a and n1.n2 = (a.c)(a.b) - |a|^2 (b.c) give
//
//	theta = atan2(-|a| det(a,b,c), (a.b)(a.c) - |a|^2 (b.c)),
//
// the form differentiated by HingeGradHess. theta < 0 when the wings fold towards
// the side the normals point to (x2, x3 displaced along +n1, +n2), theta > 0 when
// they fold away from it.
func DihedralAngle(x0, x1, x2, x3 dense.Vec3) float64 {
	a, b, c := x1.Sub(x0), x2.Sub(x0), x3.Sub(x0)
	y := -a.Norm() * a.Dot(b.Cross(c))
	x := a.Dot(b)*a.Dot(c) - a.Dot(a)*b.Dot(c)
	return math.Atan2(y, x)
}

// wrapAngle maps d to (-pi, pi].
func wrapAngle(d float64) float64 {
	if d > math.Pi {
		d -= 2 * math.Pi
	} else if d <= -math.Pi {
		d += 2 * math.Pi
	}
	return d
}

// HingeEnergy returns E = kb * Weight * (theta - Theta0)^2 (kb: bending stiffness,
// N*m; theta - Theta0 wrapped to (-pi, pi]).
func HingeEnergy(r *HingeRest, kb float64, x0, x1, x2, x3 dense.Vec3) float64 {
	d := wrapAngle(DihedralAngle(x0, x1, x2, x3) - r.Theta0)
	return kb * r.Weight * d * d
}

// HingeGradHess returns the hinge energy and writes its exact gradient (12 entries,
// g[3v+i] = dE/dx_v[i]) and exact 12x12 Hessian (row-major, not projected) into g
// and H: g = 2 kb W (theta-theta0) grad theta, H = 2 kb W (grad theta grad theta^T +
// (theta-theta0) Hess theta) (Tamstorf & Grinspun 2013, sec. 3).
//
// grad/Hess theta are exact closed forms: with q = (a, b, c) = (x1-x0, x2-x0,
// x3-x0) in R9, theta = atan2(y, x), y = -|a| D, D = det(a,b,c), x = (a.b)(a.c) -
// |a|^2 (b.c) (see DihedralAngle); all derivatives of D, |a| and the dot products
// are elementary, and with rho = x^2 + y^2
//
//	grad theta = (x grad y - y grad x)/rho
//	Hess theta = (x Hess y - y Hess x + grad y grad x^T - grad x grad y^T)/rho
//	             - grad theta (2x grad x + 2y grad y)^T / rho,
//
// then chained to the 12 vertex coordinates through x0 = -(a+b+c) derivatives. The
// gradient agrees with the familiar form dtheta/dx2 = -|e|/|n1|^2 n1,
// dtheta/dx3 = -|e|/|n2|^2 n2 (Bridson 2003; Tamstorf & Grinspun 2013) for this
// sign convention. A degenerate face (rho = 0) yields zero gradient and Hessian.
// No allocations.
func HingeGradHess(r *HingeRest, kb float64, x0, x1, x2, x3 dense.Vec3, g *[12]float64, H *[144]float64) float64 {
	var t hingeTerms
	E, ok := t.eval(r, kb, x0, x1, x2, x3)
	if !ok {
		*g = [12]float64{}
		*H = [144]float64{}
		return E
	}
	t.grad(g)
	var H9 [81]float64
	hingeExactHess9(&H9, &t)
	// Chain to 12 coordinates: x_{v} for v = 1,2,3 maps to block v-1; x0 = -sum.
	for i := 0; i < 9; i++ {
		copy(H[12*(3+i)+3:12*(3+i)+12], H9[9*i:9*i+9])
	}
	for i := 0; i < 3; i++ {
		r0, r1, r2 := (*[9]float64)(H9[9*i:]), (*[9]float64)(H9[9*(3+i):]), (*[9]float64)(H9[9*(6+i):])
		for j := 0; j < 9; j++ {
			s := r0[j] + r1[j] + r2[j] // sum over blocks of rows
			H[12*i+3+j] = -s
			H[12*(3+j)+i] = -s
		}
	}
	for i := 0; i < 3; i++ {
		r0, r1, r2 := (*[9]float64)(H9[9*i:]), (*[9]float64)(H9[9*(3+i):]), (*[9]float64)(H9[9*(6+i):])
		for j := i; j < 3; j++ {
			s := 0.0 + r0[j] + r0[3+j] + r0[6+j] + r1[j] + r1[3+j] + r1[6+j] + r2[j] + r2[3+j] + r2[6+j]
			H[12*i+j] = s
			H[12*j+i] = s
		}
	}
	return E
}

// HingeGradGN is HingeGradHess with the Gauss-Newton Hessian
// H = 2 kb W grad theta grad theta^T: the exact Hessian without the
// (theta-theta0) Hess theta term, which is the part that can be indefinite
// (Tamstorf & Grinspun 2013 sec. 3 discuss both). It is PSD by construction and
// exact at the rest angle, and it costs a fraction of projecting the 12x12 exact
// Hessian with an eigen-solver, which is what the implicit step needs. Being
// rank one, w times it (w = h^2 + h beta gives the entries of the implicit
// system, Weidner 2018 eq. 11) is written as its factor u, w H = u u^T
// (sparse.Factor):
//
//	u = sqrt(2 kb W w) grad theta,
//
// 12 entries instead of 144; u's first vertex is minus the sum of the other
// three (x0 = -(a+b+c) in the chain rule). kb and w must be >= 0. Energy and
// gradient are HingeGradHess's, bit for bit.
func HingeGradGN(r *HingeRest, kb float64, x0, x1, x2, x3 dense.Vec3, w float64, g, u *[12]float64) float64 {
	var t hingeTerms
	E, ok := t.eval(r, kb, x0, x1, x2, x3)
	if !ok {
		*g = [12]float64{}
		*u = [12]float64{}
		return E
	}
	t.grad(g)
	sq := math.Sqrt(t.k2 * w)
	gt := &t.gt
	for i := 0; i < 3; i++ {
		u1, u2, u3 := sq*gt[i], sq*gt[3+i], sq*gt[6+i]
		u[i], u[3+i], u[6+i], u[9+i] = -(u1 + u2 + u3), u1, u2, u3
	}
	return E
}

// hingeTerms holds the angle, the energy's factors and the quantities theta
// is made of with their R9 gradients (see HingeGradHess), for the gradient
// and the Hessians.
type hingeTerms struct {
	a, b, c, ah                     dense.Vec3
	L, D, x, y, pp, qq, mm, rr, inv float64
	k2, d                           float64 // 2 kb W, theta - theta0
	gy, gx, gt                      [9]float64
}

// eval computes the terms of the hinge at x0..x3 and returns the energy, and
// false for a degenerate hinge (rho = 0 or |a| = 0), whose gradient and
// Hessian are zero.
func (t *hingeTerms) eval(r *HingeRest, kb float64, x0, x1, x2, x3 dense.Vec3) (float64, bool) {
	// On scalars (the Go compiler keeps Vec3 values in memory), each
	// operation as the vector form writes it (TestHingeGradGNBitwise).
	a0, a1, a2 := x1[0]-x0[0], x1[1]-x0[1], x1[2]-x0[2]
	b0, b1, b2 := x2[0]-x0[0], x2[1]-x0[1], x2[2]-x0[2]
	c0, c1, c2 := x3[0]-x0[0], x3[1]-x0[1], x3[2]-x0[2]
	L := math.Sqrt(a0*a0 + a1*a1 + a2*a2)
	// bc = b x c, ca = c x a, ab = a x b.
	bc0, bc1, bc2 := b1*c2-b2*c1, b2*c0-b0*c2, b0*c1-b1*c0
	ca0, ca1, ca2 := c1*a2-c2*a1, c2*a0-c0*a2, c0*a1-c1*a0
	ab0, ab1, ab2 := a1*b2-a2*b1, a2*b0-a0*b2, a0*b1-a1*b0
	D := a0*bc0 + a1*bc1 + a2*bc2
	pp, qq := a0*b0+a1*b1+a2*b2, a0*c0+a1*c1+a2*c2
	mm, rr := a0*a0+a1*a1+a2*a2, b0*c0+b1*c1+b2*c2
	y := -L * D
	x := pp*qq - mm*rr
	theta := math.Atan2(y, x)
	d := wrapAngle(theta - r.Theta0)
	k2 := 2 * kb * r.Weight
	E := kb * r.Weight * d * d
	rho := x*x + y*y
	if !(rho > 0) || !(L > 0) || math.IsInf(rho, 0) {
		return E, false
	}

	// Gradients in R9 (blocks a, b, c) of y = -(|a| D) and x = pp qq - mm rr
	// from those of D (bc, ca, ab), |a| (ah, 0, 0), pp (b, a, 0), qq (c, 0,
	// a), mm (2a, 0, 0) and rr (0, c, b) (hingeGradients lists them), their
	// zero blocks left out: that changes at most the sign of a zero entry,
	// which no sum the assembly makes (from +0) can tell.
	il := 1 / L
	ah0, ah1, ah2 := il*a0, il*a1, il*a2
	gy, gx := &t.gy, &t.gx
	gy[0], gy[1], gy[2] = -(D*ah0 + L*bc0), -(D*ah1 + L*bc1), -(D*ah2 + L*bc2)
	gy[3], gy[4], gy[5] = -(L * ca0), -(L * ca1), -(L * ca2)
	gy[6], gy[7], gy[8] = -(L * ab0), -(L * ab1), -(L * ab2)
	gx[0], gx[1], gx[2] = qq*b0+pp*c0-rr*(2*a0), qq*b1+pp*c1-rr*(2*a1), qq*b2+pp*c2-rr*(2*a2)
	gx[3], gx[4], gx[5] = qq*a0-mm*c0, qq*a1-mm*c1, qq*a2-mm*c2
	gx[6], gx[7], gx[8] = pp*a0-mm*b0, pp*a1-mm*b1, pp*a2-mm*b2
	inv := 1 / rho
	for i := 0; i < 9; i++ {
		t.gt[i] = (x*gy[i] - y*gx[i]) * inv
	}
	t.a, t.b, t.c, t.ah = dense.Vec3{a0, a1, a2}, dense.Vec3{b0, b1, b2}, dense.Vec3{c0, c1, c2}, dense.Vec3{ah0, ah1, ah2}
	t.L, t.D, t.x, t.y, t.pp, t.qq, t.mm, t.rr, t.inv = L, D, x, y, pp, qq, mm, rr, inv
	t.k2, t.d = k2, d
	return E, true
}

// grad writes the energy gradient k2 d grad theta, chained to the 12 vertex
// coordinates (x_v for v = 1,2,3 maps to block v-1; x0 = -sum).
func (t *hingeTerms) grad(g *[12]float64) {
	kd, gt := t.k2*t.d, &t.gt
	for i := 0; i < 3; i++ {
		g1, g2, g3 := kd*gt[i], kd*gt[3+i], kd*gt[6+i]
		g[i], g[3+i], g[6+i], g[9+i] = -(0.0 + g1 + g2 + g3), g1, g2, g3
	}
}

// hingeGradients writes the gradients in R9 = (a, b, c) of D = det(a,b,c),
// L = |a|, pp = a.b, qq = a.c, mm = a.a and rr = b.c (ah = a/|a|) into the
// zeroed gD, gL, gp, gq, gm and gr.
func hingeGradients(a, b, c, ah dense.Vec3, gD, gL, gp, gq, gm, gr *[9]float64) {
	bc, ca, ab := b.Cross(c), c.Cross(a), a.Cross(b)
	for i := 0; i < 3; i++ {
		gD[i], gD[3+i], gD[6+i] = bc[i], ca[i], ab[i]
		gL[i] = ah[i]
		gp[i], gp[3+i] = b[i], a[i]
		gq[i], gq[6+i] = c[i], a[i]
		gm[i] = 2 * a[i]
		gr[3+i], gr[6+i] = c[i], b[i]
	}
}

// hingeExactHess9 writes the exact energy Hessian k2 (gt gt^T + d Hess theta) in
// the reduced coordinates (a, b, c) into H9; see HingeGradHess for the formulas.
func hingeExactHess9(H9 *[81]float64, t *hingeTerms) {
	a, b, c, ah := t.a, t.b, t.c, t.ah
	L, D, x, y, pp, qq, mm, rr, inv, k2, d := t.L, t.D, t.x, t.y, t.pp, t.qq, t.mm, t.rr, t.inv, t.k2, t.d
	gt, gx, gy := &t.gt, &t.gx, &t.gy
	var gD, gL, gp, gq, gm, gr [9]float64
	hingeGradients(a, b, c, ah, &gD, &gL, &gp, &gq, &gm, &gr)
	// Hessians in R9 of y and x, combined: M = x Hess y - y Hess x.
	var M [81]float64
	// Hess y = -(gD gL^T + gL gD^T + D Hess L + L Hess D).
	// Hess x = gp gq^T + gq gp^T - gr gm^T - gm gr^T + qq Hess p + pp Hess q - rr Hess m - mm Hess r.
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			hy := -(gD[i]*gL[j] + gL[i]*gD[j])
			hx := gp[i]*gq[j] + gq[i]*gp[j] - gr[i]*gm[j] - gm[i]*gr[j]
			M[9*i+j] = x*hy - y*hx
		}
	}
	// D Hess L: (I - ah ah^T) D / L on the (a,a) block.
	// Hess m: 2I on (a,a).
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			hl := -ah[i] * ah[j]
			if i == j {
				hl++
			}
			hy := -D * hl / L
			hx := 0.0
			if i == j {
				hx = -rr * 2
			}
			M[9*i+j] += x*hy - y*hx
		}
	}
	// L Hess D: (a,b) = -Skew(c), (b,a) = Skew(c), (a,c) = Skew(b), (c,a) = -Skew(b),
	// (b,c) = -Skew(a), (c,b) = Skew(a). Hess y gets -L Hess D.
	sa, sb, sc := dense.Skew(a), dense.Skew(b), dense.Skew(c)
	xl := -x * L
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			M[9*i+3+j] += xl * (-sc[i][j])
			M[9*(3+i)+j] += xl * sc[i][j]
			M[9*i+6+j] += xl * sb[i][j]
			M[9*(6+i)+j] += xl * (-sb[i][j])
			M[9*(3+i)+6+j] += xl * (-sa[i][j])
			M[9*(6+i)+3+j] += xl * sa[i][j]
		}
	}
	// Hess p: I on (a,b),(b,a); Hess q: I on (a,c),(c,a); Hess r: I on (b,c),(c,b).
	// Hess x gets qq Hess p + pp Hess q - mm Hess r; M gets -y times that.
	for i := 0; i < 3; i++ {
		M[9*i+3+i] -= y * qq
		M[9*(3+i)+i] -= y * qq
		M[9*i+6+i] -= y * pp
		M[9*(6+i)+i] -= y * pp
		M[9*(3+i)+6+i] += y * mm
		M[9*(6+i)+3+i] += y * mm
	}
	// Hess theta (9x9), symmetrised.
	var Ht [81]float64
	for i := 0; i < 9; i++ {
		for j := 0; j < 9; j++ {
			Ht[9*i+j] = (M[9*i+j]+gy[i]*gx[j]-gx[i]*gy[j])*inv - gt[i]*2*(x*gx[j]+y*gy[j])*inv
		}
	}
	// Energy Hessian in R9: k2 (gt gt^T + d Ht), symmetrised.
	for i := 0; i < 9; i++ {
		for j := i; j < 9; j++ {
			v := k2 * (gt[i]*gt[j] + d*0.5*(Ht[9*i+j]+Ht[9*j+i]))
			H9[9*i+j] = v
			H9[9*j+i] = v
		}
	}
}
