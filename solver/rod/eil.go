package rod

import "github.com/loomsim/loom/solver/dense"

// Interpolate returns the Lagrangian position of an EIL node with Eulerian
// coordinate u_b between its non-EIL neighbours a and c (SB2020 eq. 3):
//
//	x(u_b) = ((u_c - u_b) x_a + (u_b - u_a) x_c) / (u_c - u_a) = x_a + alpha (x_c - x_a),
//	alpha = (u_b - u_a)/(u_c - u_a).
//
// u_c != u_a is required (AssignNodes keeps u_c - u_a >= d). For u_b outside
// [u_a, u_c] the same formula extrapolates linearly.
func Interpolate(xa, xc dense.Vec3, ua, uc, ub float64) dense.Vec3 {
	alpha := (ub - ua) / (uc - ua)
	return xa.Add(xc.Sub(xa).Scale(alpha))
}

// ContactPoint is one side of a contact constraint: either a free node (EoL or
// Lagrangian: 3 DOFs, x) or an EIL interpolated point (9 DOFs: x_a, x_c, u_a, u_c,
// u_b; SB2020 eq. 3). Build it with NodePoint or EILPoint; it stores the position,
// and for an EIL point the derivatives of the interpolation: with D = x_c - x_a,
// L = u_c - u_a, n = u_b - u_a, alpha = n/L,
//
//	dx/dx_a = (1 - alpha) I,  dx/dx_c = alpha I,  dx/du_k = D dalpha/du_k,
//	dalpha/d(u_a, u_c, u_b) = ((alpha - 1)/L, -alpha/L, 1/L),
//	d2x/dx_a du_k = -dalpha/du_k I,  d2x/dx_c du_k = dalpha/du_k I,
//	d2x/du_k du_l = D d2alpha/du_k du_l,  with (order u_a, u_c, u_b)
//	d2alpha = [[2(n-L)/L^3, (L-2n)/L^3, 1/L^2], [(L-2n)/L^3, 2n/L^3, -1/L^2], [1/L^2, -1/L^2, 0]],
//
// and d2x/dx dx = 0.
type ContactPoint struct {
	X     dense.Vec3 // position: the node's x, or the interpolated x(u_b)
	EIL   bool       // false: 3 DOFs (x); true: 9 DOFs (x_a, x_c, u_a, u_c, u_b)
	Alpha float64    // (u_b - u_a)/(u_c - u_a) (EIL only)
	D     dense.Vec3 // x_c - x_a (EIL only)
	DA    [3]float64 // dalpha/d(u_a, u_c, u_b) (EIL only)
	DDA   [3][3]float64
}

// NodePoint returns the contact point of a free (EoL or Lagrangian) node at x.
func NodePoint(x dense.Vec3) ContactPoint { return ContactPoint{X: x} }

// EILPoint returns the contact point of an EIL node with Eulerian coordinate u_b
// between non-EIL neighbours (x_a, u_a) and (x_c, u_c). For a fixed neighbour
// (Lagrangian node) the caller drops the corresponding u entry when scattering.
func EILPoint(xa, xc dense.Vec3, ua, uc, ub float64) ContactPoint {
	Lac := uc - ua
	n := ub - ua
	alpha := n / Lac
	iL := 1 / Lac
	iL2 := iL * iL
	iL3 := iL2 * iL
	D := xc.Sub(xa)
	return ContactPoint{
		X:     xa.Add(D.Scale(alpha)),
		EIL:   true,
		Alpha: alpha,
		D:     D,
		DA:    [3]float64{(alpha - 1) * iL, -alpha * iL, iL},
		DDA: [3][3]float64{
			{2 * (n - Lac) * iL3, (Lac - 2*n) * iL3, iL2},
			{(Lac - 2*n) * iL3, 2 * n * iL3, -iL2},
			{iL2, -iL2, 0},
		},
	}
}

// NDOF returns the number of local DOFs of p: 3 for a node, 9 for an EIL point.
func (p *ContactPoint) NDOF() int {
	if p.EIL {
		return 9
	}
	return 3
}

// Jacobian writes dx/dq (3 x NDOF, row-major with stride NDOF) into J and returns
// NDOF.
func (p *ContactPoint) Jacobian(J *[27]float64) int {
	n := p.NDOF()
	*J = [27]float64{}
	if !p.EIL {
		J[0], J[4], J[8] = 1, 1, 1
		return n
	}
	for i := 0; i < 3; i++ {
		J[i*9+i] = 1 - p.Alpha
		J[i*9+3+i] = p.Alpha
		for k := 0; k < 3; k++ {
			J[i*9+6+k] = p.D[i] * p.DA[k]
		}
	}
	return n
}

// addCurvature adds s * sum_i r_i d2x_i/dq dq (the second-derivative term of the
// chain rule) to the NDOF x NDOF block of H (stride st) starting at (o, o).
func (p *ContactPoint) addCurvature(s float64, r dense.Vec3, H []float64, st, o int) {
	if !p.EIL {
		return
	}
	rD := r.Dot(p.D)
	for j := 0; j < 3; j++ {
		for k := 0; k < 3; k++ {
			v := s * r[j] * p.DA[k]
			// x_a row j, u column k: -dalpha_k r_j ; x_c: +dalpha_k r_j.
			H[(o+j)*st+o+6+k] -= v
			H[(o+6+k)*st+o+j] -= v
			H[(o+3+j)*st+o+6+k] += v
			H[(o+6+k)*st+o+3+j] += v
		}
	}
	for k := 0; k < 3; k++ {
		for l := 0; l < 3; l++ {
			H[(o+6+k)*st+o+6+l] += s * rD * p.DDA[k][l]
		}
	}
}

// ContactStiffness returns the soft contact constraint stiffness used by SB2020
// sec. 4.2: 1000 times the effective stretch stiffness k_s/du_rest of rest-shape
// rod segments.
func ContactStiffness(ks, restSegment float64) float64 { return 1000 * ks / restSegment }

// ContactEnergy returns 1/2 k |p.X - y.X|^2.
func ContactEnergy(k float64, p, y *ContactPoint) float64 {
	r := p.X.Sub(y.X)
	return 0.5 * k * r.Dot(r)
}

// ContactGradHess returns the soft contact constraint energy (SB2020 sec. 4.2, the
// penalty form of eq. 1)
//
//	E = 1/2 k |x_p(q_p) - x_y(q_y)|^2
//
// and writes its exact gradient g[0:n] and Hessian H[0:n*n] (row-major, stride n)
// with respect to q = (q_p, q_y), n = p.NDOF() + y.NDOF() in {6, 12, 18}, which it
// returns. With r = x_p - x_y and J_p, J_y the point Jacobians:
//
//	g = k (J_p^T r, -J_y^T r),
//	H = k [[J_p^T J_p + sum_i r_i d2x_p,i, -J_p^T J_y], [-J_y^T J_p, J_y^T J_y - sum_i r_i d2x_y,i]].
//
// If p and y share DOFs, scattering the local results additively is still exact.
func ContactGradHess(k float64, p, y *ContactPoint, g *[18]float64, H *[324]float64) (E float64, n int) {
	var Jp, Jy [27]float64
	np := p.Jacobian(&Jp)
	ny := y.Jacobian(&Jy)
	n = np + ny
	r := p.X.Sub(y.X)
	E = 0.5 * k * r.Dot(r)
	*g = [18]float64{}
	*H = [324]float64{}
	for a := 0; a < np; a++ {
		g[a] = k * (Jp[a]*r[0] + Jp[np+a]*r[1] + Jp[2*np+a]*r[2])
	}
	for a := 0; a < ny; a++ {
		g[np+a] = -k * (Jy[a]*r[0] + Jy[ny+a]*r[1] + Jy[2*ny+a]*r[2])
	}
	// Gauss-Newton part k [J_p, -J_y]^T [J_p, -J_y].
	var col [3]float64
	for a := 0; a < n; a++ {
		ja := jcol(&Jp, &Jy, np, ny, a, &col)
		for b := a; b < n; b++ {
			var jb [3]float64
			jcol(&Jp, &Jy, np, ny, b, &jb)
			v := k * (ja[0]*jb[0] + ja[1]*jb[1] + ja[2]*jb[2])
			H[a*n+b] = v
			H[b*n+a] = v
		}
	}
	p.addCurvature(k, r, H[:], n, 0)
	y.addCurvature(-k, r, H[:], n, np)
	return E, n
}

// jcol writes column a of [J_p, -J_y] into col and returns it.
func jcol(Jp, Jy *[27]float64, np, ny, a int, col *[3]float64) [3]float64 {
	if a < np {
		*col = [3]float64{Jp[a], Jp[np+a], Jp[2*np+a]}
	} else {
		b := a - np
		*col = [3]float64{-Jy[b], -Jy[ny+b], -Jy[2*ny+b]}
	}
	return *col
}

// ContactGaussNewton writes the Gauss-Newton part k [J_p, -J_y]^T [J_p, -J_y]
// of ContactGradHess's Hessian into H (row-major n x n, n returned): positive
// semidefinite, unlike the full Hessian, whose curvature terms
// k sum_i r_i d2x_i (EIL points) are indefinite and, with the stiff soft
// constraint (1000 x k_s/du) and a gap r left by a transition, can swamp
// everything else. At a satisfied constraint (r = 0) the two agree.
func ContactGaussNewton(k float64, p, y *ContactPoint, H *[324]float64) int {
	var Jp, Jy [27]float64
	np := p.Jacobian(&Jp)
	ny := y.Jacobian(&Jy)
	n := np + ny
	var ja, jb [3]float64
	for a := 0; a < n; a++ {
		jcol(&Jp, &Jy, np, ny, a, &ja)
		for b := a; b < n; b++ {
			jcol(&Jp, &Jy, np, ny, b, &jb)
			v := k * (ja[0]*jb[0] + ja[1]*jb[1] + ja[2]*jb[2])
			H[a*n+b] = v
			H[b*n+a] = v
		}
	}
	return n
}
