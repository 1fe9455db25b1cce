package rodstep

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/rod"
	"github.com/loomsim/loom/solver/rodcontact"
)

// lagMasses evaluates every segment's generalized mass at the start of the
// step (SB2020 sec. 4.3; segments join consecutive non-EIL nodes), in
// parallel over the segment terms (after buildTerms).
func (s *State) lagMasses() {
	w := &s.ws
	as := &w.asm
	n := 0
	for t := range as.terms {
		if as.terms[t].kind == termSegment {
			n++
		}
	}
	if cap(w.mass) < n {
		w.mass = make([][64]float64, n)
	}
	w.mass = w.mass[:n]
	s.bind()
	s.runFor(len(as.terms), as.massFn)
}

func (s *State) massRange(lo, hi int) {
	w := &s.ws
	for t := lo; t < hi; t++ {
		tm := &w.asm.terms[t]
		if tm.kind != termSegment {
			continue
		}
		R := &s.Rods[tm.rod]
		rod.SegmentMass(w.xn[tm.a], w.xn[tm.b], w.un[tm.a], w.un[tm.b], R.Rho, &w.mass[tm.id])
	}
}

// local maps a term's local coordinates to unknowns (-1: a constant) and to
// the node whose x they are (for the per-node x gradient; -1: not an x).
type local struct {
	n    int
	idx  [18]int
	node [18]int32
}

func (l *local) addX(s *State, i int32) {
	b := s.ws.xdof[i]
	for k := 0; k < 3; k++ {
		l.idx[l.n] = -1
		if b >= 0 {
			l.idx[l.n] = 3*int(b) + k
		}
		l.node[l.n] = i
		l.n++
	}
}

func (l *local) addU(s *State, i int32) {
	l.idx[l.n] = int(s.ws.udof[i])
	l.node[l.n] = -1
	l.n++
}

// evalTerm evaluates term t at q: its energy, local gradient g[:n] and full
// local Hessian H[:n*n] (row-major), n = t.n. It reads the state and writes
// nothing else, so terms evaluate concurrently.
//
// With energyOnly, segments and bend triples skip their derivatives (g and H
// are then garbage); their energies are bitwise those of the full
// evaluation, so the line search compares like with like.
func (s *State) evalTerm(t *term, q []float64, h float64, energyOnly bool, g *[18]float64, H *[324]float64) float64 {
	w := &s.ws
	n := int(t.n)
	switch t.kind {
	case termSegment:
		R := &s.Rods[t.rod]
		a, b := t.a, t.b
		xa, xb, ua, ub := s.x(q, a), s.x(q, b), s.u(q, a), s.u(q, b)
		if !(ub > ua) {
			// The stretch energy's barrier at du = 0 was jumped: the
			// segment would be inverted, where the energy formula turns
			// negative without bound. Infeasible: the line search backs off.
			return math.Inf(1)
		}
		// Inertia: (1 + h alpha)/(2 h^2) (y - y^)^T M (y - y^).
		var y [8]float64
		xha := w.xn[a].Add(s.V[a].Scale(h))
		xhb := w.xn[b].Add(s.V[b].Scale(h))
		for c := 0; c < 3; c++ {
			y[c], y[3+c] = xa[c]-xha[c], xb[c]-xhb[c]
		}
		y[6], y[7] = ua-(w.un[a]+h*s.UDot[a]), ub-(w.un[b]+h*s.UDot[b])
		cI := (1 + h*R.Alpha) / (h * h)
		M := &w.mass[t.id]
		if energyOnly {
			phi := rod.StretchEnergy(R.Ks, xa, xb, ua, ub)
			for i := 0; i < 8; i++ {
				My := 0.0
				for j := 0; j < 8; j++ {
					My += M[8*i+j] * y[j]
				}
				phi += 0.5 * cI * y[i] * My
			}
			return phi - R.Rho*(ub-ua)*s.Gravity.Dot(xa.Add(xb))/2
		}
		var gs [8]float64
		var Hs [64]float64
		phi := rod.StretchGradHess(R.Ks, xa, xb, ua, ub, &gs, &Hs)
		for i := 0; i < 8; i++ {
			My := 0.0
			for j := 0; j < 8; j++ {
				My += M[8*i+j] * y[j]
			}
			phi += 0.5 * cI * y[i] * My
			g[i] = gs[i] + cI*My
		}
		for i := 0; i < 64; i++ {
			H[i] = Hs[i] + cI*M[i]
		}
		if !w.exactHessian {
			projectStretch(R.Ks, xa, xb, ua, ub, H)
		}
		// Gravity: -rho (u_b - u_a) g.(x_a + x_b)/2.
		du := ub - ua
		gsum := s.Gravity.Dot(xa.Add(xb))
		phi -= R.Rho * du * gsum / 2
		for c := 0; c < 3; c++ {
			g[c] -= R.Rho * du * s.Gravity[c] / 2
			g[3+c] -= R.Rho * du * s.Gravity[c] / 2
			// d2/dx du: -rho g/2 * d(du)/du_{a,b} = +-rho g/2.
			H[c*8+6] += R.Rho * s.Gravity[c] / 2
			H[6*8+c] += R.Rho * s.Gravity[c] / 2
			H[(3+c)*8+6] += R.Rho * s.Gravity[c] / 2
			H[6*8+3+c] += R.Rho * s.Gravity[c] / 2
			H[c*8+7] -= R.Rho * s.Gravity[c] / 2
			H[7*8+c] -= R.Rho * s.Gravity[c] / 2
			H[(3+c)*8+7] -= R.Rho * s.Gravity[c] / 2
			H[7*8+3+c] -= R.Rho * s.Gravity[c] / 2
		}
		g[6] += R.Rho * gsum / 2
		g[7] -= R.Rho * gsum / 2
		return phi
	case termBend:
		R := &s.Rods[t.rod]
		a, b, c := t.a, t.b, t.c
		if R.Rest != nil {
			// Projected unless exact: (theta - thetaBar)^2 is a cone at
			// theta = 0 turned down where thetaBar > 0, its Hessian
			// (1 - thetaBar/theta) G_xx + ... negative without bound as
			// theta -> 0. A contact node on a curved yarn bends it less
			// than its rest angle (theta 0.13 against 0.37 on a knit at
			// load, eigenvalues to -3e4 N/m against 2 N/m of inertia), and
			// the regularization that repaired it stalled Newton.
			if energyOnly {
				return rod.BendRestEnergy(R.Kb, R.Rest, s.x(q, a), s.x(q, b), s.x(q, c), s.u(q, a), s.u(q, b), s.u(q, c))
			}
			return rod.BendRestGradHess(R.Kb, R.Rest, s.x(q, a), s.x(q, b), s.x(q, c), s.u(q, a), s.u(q, b), s.u(q, c),
				!w.exactHessian, (*[12]float64)(g[:12]), (*[144]float64)(H[:144]))
		}
		if energyOnly {
			return rod.BendEnergyOf(R.Kb, s.x(q, a), s.x(q, b), s.x(q, c), s.u(q, a), s.u(q, c))
		}
		bend := rod.BendGradHess
		if w.projectBend && !w.exactHessian {
			bend = rod.BendGradHessPSD
		}
		return bend(R.Kb, s.x(q, a), s.x(q, b), s.x(q, c), s.u(q, a), s.u(q, b), s.u(q, c),
			(*[12]float64)(g[:12]), (*[144]float64)(H[:144]))
	case termContact:
		c := &s.Contacts[t.id]
		p, y := s.point(q, c.P), s.point(q, c.Q)
		y.X = y.X.Add(c.Normal.Scale(c.Gap))
		e, _ := rod.ContactGradHess(c.K, &p, &y, g, H)
		if !w.exactHessian {
			rod.ContactGaussNewton(c.K, &p, &y, H)
		}
		return e
	case termAnchor:
		i := int(t.id)
		e, f, k := s.anchorTerm(i, q[w.udof[i]])
		g[0], H[0] = f, k
		return e
	case termEdge:
		e := &s.Edges[t.id]
		if n > 3 {
			// x interpolated (EIL): written as the spring 1/2 K |x - y|^2 to
			// the foot y of x on the line, held constant. Energy, gradient
			// and the curvature part of the Hessian are those of the edge
			// term (x - y = P (x - A)); the Gauss-Newton part K J^T J is
			// corrected to K J^T P J below.
			p := s.point(q, e.Node)
			d := p.X.Sub(e.A)
			y := rod.NodePoint(e.A.Add(e.Dir.Scale(d.Dot(e.Dir))))
			e2, m := rod.ContactGradHess(e.K, &p, &y, g, H)
			if !w.exactHessian {
				rod.ContactGaussNewton(e.K, &p, &y, H)
			}
			var J [27]float64
			np := p.Jacobian(&J)
			var dj [9]float64 // Dir^T J
			for a := 0; a < np; a++ {
				for c := 0; c < 3; c++ {
					dj[a] += e.Dir[c] * J[c*np+a]
				}
			}
			for a := 0; a < np; a++ {
				for b := 0; b < np; b++ {
					H[a*m+b] -= e.K * dj[a] * dj[b]
				}
			}
			return e2
		}
		// 1/2 K |P (x - A)|^2, P = I - Dir Dir^T.
		d := s.x(q, e.Node).Sub(e.A)
		d = d.Sub(e.Dir.Scale(d.Dot(e.Dir)))
		for a := 0; a < 3; a++ {
			g[a] = e.K * d[a]
			for b := 0; b < 3; b++ {
				pab := -e.Dir[a] * e.Dir[b]
				if a == b {
					pab++
				}
				H[3*a+b] = e.K * pab
			}
		}
		return 0.5 * e.K * d.Dot(d)
	case termObstacle:
		clear(g[:3])
		clear(H[:9])
		x := s.x(q, t.id)
		phi := 0.0
		th := s.Rods[s.Rod[t.id]].Radius
		near := obstacleNear{}
		for _, o := range s.Obstacles {
			d, nrm := o.Distance(x)
			pen := th - d
			if pen <= 0 {
				band := predictBand
				if w.entering[t.id] {
					band = enteringBand
				}
				if pen < 0 && pen >= -band*th && (near.pen == 0 || pen > near.pen) {
					near = obstacleNear{pen, nrm}
				}
				continue
			}
			phi += 0.5 * s.ObstacleK * pen * pen
			for a := 0; a < 3; a++ {
				g[a] -= s.ObstacleK * pen * nrm[a]
				for b := 0; b < 3; b++ {
					H[3*a+b] += s.ObstacleK * nrm[a] * nrm[b]
				}
			}
		}
		if !energyOnly {
			w.near[t.id] = near // for predictObstacles
		}
		if muN := w.yarn.obsMuN[t.id]; muN > 0 {
			var gf [3]float64
			var Hf [9]float64
			phi += rodcontact.Friction(muN, frictionVel*h, w.yarn.obsNrm[t.id], x.Sub(w.xn[t.id]), &gf, &Hf)
			for a := 0; a < 3; a++ {
				g[a] += gf[a]
			}
			for a := range Hf {
				H[a] += Hf[a]
			}
		}
		return phi
	case termYarn:
		p := w.yarn.pairs[t.id]
		xs := s.segmentPoints(q, p)
		clear(g[:12])
		clear(H[:144])
		var e float64
		if sh := w.yarn.pointAt[t.id]; sh >= 0 {
			e = rodcontact.PointSegmentPenalty(s.yarnK(p), w.yarn.reff[t.id], sh, &xs, (*[12]float64)(g[:12]), (*[144]float64)(H[:144]))
		} else {
			e = rodcontact.SegmentPenalty(s.yarnK(p), w.yarn.reff[t.id], &xs, (*[12]float64)(g[:12]), (*[144]float64)(H[:144]))
		}
		if f := &w.yarn.fric[t.id]; f.muN > 0 {
			e += pairFrictionTerm(f, frictionVel*h, &xs, g[:12], H[:144])
		}
		if w.projectYarn && !energyOnly && e > 0 {
			dense.ProjectPSD(H[:144], 12)
		}
		return e
	case termShear:
		c := &s.Contacts[t.id]
		e := rod.CrossingShear(c.Shear, c.ShearCos0, s.x(q, w.prevN[c.P]), s.x(q, w.nextN[c.P]), s.x(q, w.prevN[c.Q]), s.x(q, w.nextN[c.Q]),
			(*[12]float64)(g[:12]), (*[144]float64)(H[:144]))
		if !w.exactHessian && !energyOnly {
			dense.ProjectPSD(H[:144], 12)
		}
		return e
	}
	panic("rodstep: unknown term kind")
}

// point returns node i's contact point at q (locals: pointLocals).
func (s *State) point(q []float64, i int32) rod.ContactPoint {
	if s.Kind[i] != rod.EIL {
		return rod.NodePoint(s.x(q, i))
	}
	a, c := s.ws.interpA[i], s.ws.interpC[i]
	return rod.EILPoint(s.x(q, a), s.x(q, c), s.u(q, a), s.u(q, c), s.u(q, i))
}

// pairFrictionTerm adds a penalty pair's lagged Coulomb friction
// (rodcontact.Friction) to its gradient g and Hessian H over the four end
// points xs (row-major 12 x 12) and returns its energy. The slide is that of
// the closest points of the step's start, kept at their parameters s, t:
// dx = p(s) - q(t) - r0 with p(s) = (1 - s) x0 + s x1, q(t) = (1 - t) x2 +
// t x3, linear in the end points with weights w = (1 - s, s, t - 1, -t), so
// the gradient is w_k grad D and the Hessian w_k w_l Hess D (positive
// semidefinite, as Hess D is).
func pairFrictionTerm(f *pairFriction, eps float64, xs *[4]dense.Vec3, g, H []float64) float64 {
	p := xs[0].Scale(1 - f.s).Add(xs[1].Scale(f.s))
	q := xs[2].Scale(1 - f.t).Add(xs[3].Scale(f.t))
	var gf [3]float64
	var Hf [9]float64
	e := rodcontact.Friction(f.muN, eps, f.n, p.Sub(q).Sub(f.r0), &gf, &Hf)
	w := [4]float64{1 - f.s, f.s, f.t - 1, -f.t}
	for k := range 4 {
		for a := range 3 {
			g[3*k+a] += w[k] * gf[a]
		}
		for l := range 4 {
			c := w[k] * w[l]
			for a := range 3 {
				for b := range 3 {
					H[(3*k+a)*12+3*l+b] += c * Hf[3*a+b]
				}
			}
		}
	}
	return e
}

// anchorTerm is node i's Eulerian friction (Cirio et al. 2014) taken
// implicitly in the stick or slide state the anchor entered the step with
// (rod.Anchor.Slide). Sticking: the anchor spring 1/2 Kf (u - U)^2. Sliding
// towards s = +-1, with d = s (u - u_n) the slide within the step and B =
// c + mu max(N, 0) (N the contact's normal force of the last step, c its
// cohesion; Contact.FrictionBound): kinetic friction B d
// while the node slides on (d >= 0), and where it would turn back the
// spring 1/2 Kf d^2 + B d, which lets the friction stop the node but not
// push it back by more than B/Kf: friction only dissipates. (A plain linear
// term would do work on a node it turns around, without bound once N is
// large.) Where B is zero (no friction, or the contact in tension) the
// sliding node is free in both directions: no term (the spring alone would
// be a ratchet, holding a frictionless node against any turn). Each state
// is C1 and convex in u, so Newton converges; the state
// switches between steps. (A Huber potential switching within the step,
// with a quadratic zone mu N/Kf wide, about 1e-8 m for the stiff anchors,
// made Newton bounce across the zone with tiny line-search steps.) It
// returns the energy, dE/du and d2E/du2.
func (s *State) anchorTerm(i int, u float64) (e, f, k float64) {
	a := &s.Anchor[i]
	if a.Slip == 0 {
		d := u - a.U
		return 0.5 * a.Kf * d * d, a.Kf * d, a.Kf
	}
	b := s.ws.bound[i]
	if b == 0 {
		return 0, 0, 0
	}
	sg := float64(a.Slip)
	d := sg * (u - s.ws.un[i])
	if d >= 0 {
		return b * d, sg * b, 0
	}
	return 0.5*a.Kf*d*d + b*d, sg * (a.Kf*d + b), a.Kf
}

// projectStretch drops the negative curvature of a compressed segment from
// its Hessian (H, 8x8 over x_a, x_b, u_a, u_b): the stretch energy is
// ks/(2 du) (l - du)^2, whose Hessian in (l, du) is positive semidefinite,
// plus dV/dl times the Hessian of l = |x_b - x_a|, (I - t t^T)/l on the x
// blocks with signs (+, -; -, +). In compression dV/dl < 0 makes that part
// negative, as stiff as ks/du_segment sideways: short compressed segments
// (next to a contact node) then make the Newton matrix strongly indefinite
// and the regularization that repairs it turns Newton into slow gradient
// descent. Removing it leaves a positive semidefinite segment Hessian and
// the gradient, hence the solution, unchanged (projected Newton).
func projectStretch(ks float64, xa, xb dense.Vec3, ua, ub float64, H *[324]float64) {
	du := ub - ua
	e := xb.Sub(xa)
	l := e.Norm()
	if !(l > 0) || l >= du {
		return
	}
	c := -ks * (l/du - 1) / l // -(dV/dl)/l > 0
	t := e.Scale(1 / l)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p := -t[i] * t[j]
			if i == j {
				p++
			}
			v := c * p
			H[i*8+j] += v
			H[(3+i)*8+3+j] += v
			H[i*8+3+j] -= v
			H[(3+i)*8+j] -= v
		}
	}
}
