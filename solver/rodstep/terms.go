package rodstep

import (
	"math"

	"github.com/loomsim/loom/solver/rod"
)

// lagMasses evaluates every segment's generalized mass at the start of the
// step (SB2020 sec. 4.3; segments join consecutive non-EIL nodes).
func (s *State) lagMasses() {
	w := &s.ws
	w.mass = w.mass[:0]
	for r := range s.Rods {
		R := &s.Rods[r]
		for k := 0; !R.Fixed && k+1 < len(R.nonEIL); k++ {
			a, b := R.nonEIL[k], R.nonEIL[k+1]
			var M [64]float64
			rod.SegmentMass(w.xn[a], w.xn[b], w.un[a], w.un[b], R.Rho, &M)
			w.mass = append(w.mass, M)
		}
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

// scatter adds a term's local gradient g (and, when level is 2, its local
// Hessian H, row-major l.n x l.n) to the global gradient and triplets.
func (s *State) scatter(l *local, g, H []float64, level int) {
	w := &s.ws
	for a := 0; a < l.n; a++ {
		if i := l.node[a]; i >= 0 {
			w.gx[i][a%3] += g[a]
		}
		if l.idx[a] >= 0 {
			w.grad[l.idx[a]] += g[a]
		}
	}
	if level < 2 {
		return
	}
	for a := 0; a < l.n; a++ {
		ia := l.idx[a]
		if ia < 0 {
			continue
		}
		for b := 0; b < l.n; b++ {
			ib := l.idx[b]
			if ib < 0 || ib > ia {
				continue
			}
			if v := H[a*l.n+b]; v != 0 {
				w.rows, w.cols, w.vals = append(w.rows, ia), append(w.cols, ib), append(w.vals, v)
			}
		}
	}
}

// eval returns the incremental potential at q. level 1 also fills the
// gradient (and per-node x gradients), level 2 also the Hessian triplets.
func (s *State) eval(q []float64, h float64, hessian bool) float64 {
	level := 1
	if hessian {
		level = 2
	}
	w := &s.ws
	clear(w.grad)
	clear(w.gx)
	w.rows, w.cols, w.vals = w.rows[:0], w.cols[:0], w.vals[:0]
	phi := 0.0
	var g [18]float64
	var H [324]float64
	seg := 0
	for r := range s.Rods {
		R := &s.Rods[r]
		if R.Fixed {
			continue
		}
		nodes := R.nonEIL
		for k := 0; k+1 < len(nodes); k++ {
			a, b := nodes[k], nodes[k+1]
			var l local
			l.addX(s, a)
			l.addX(s, b)
			l.addU(s, a)
			l.addU(s, b)
			xa, xb, ua, ub := s.x(q, a), s.x(q, b), s.u(q, a), s.u(q, b)

			// Inertia: (1 + h alpha)/(2 h^2) (y - y^)^T M (y - y^).
			var y [8]float64
			xha := w.xn[a].Add(s.V[a].Scale(h))
			xhb := w.xn[b].Add(s.V[b].Scale(h))
			for c := 0; c < 3; c++ {
				y[c], y[3+c] = xa[c]-xha[c], xb[c]-xhb[c]
			}
			y[6], y[7] = ua-(w.un[a]+h*s.UDot[a]), ub-(w.un[b]+h*s.UDot[b])
			cI := (1 + h*R.Alpha) / (h * h)
			M := &w.mass[seg]
			seg++
			var gs [8]float64
			var Hs [64]float64
			phi += rod.StretchGradHess(R.Ks, xa, xb, ua, ub, &gs, &Hs)
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
			s.scatter(&l, g[:8], H[:64], level)
		}
		if R.Kb > 0 {
			for k := 0; k+2 < len(nodes); k++ {
				a, b, c := nodes[k], nodes[k+1], nodes[k+2]
				var l local
				l.addX(s, a)
				l.addX(s, b)
				l.addX(s, c)
				l.addU(s, a)
				l.addU(s, b)
				l.addU(s, c)
				var gb [12]float64
				var Hb [144]float64
				phi += rod.BendGradHess(R.Kb, s.x(q, a), s.x(q, b), s.x(q, c), s.u(q, a), s.u(q, b), s.u(q, c), &gb, &Hb)
				s.scatter(&l, gb[:], Hb[:], level)
			}
		}
	}
	for _, c := range s.Contacts {
		if s.shared(c) {
			continue
		}
		var l local
		p := s.point(q, c.P, &l)
		y := s.point(q, c.Q, &l)
		var gc [18]float64
		var Hc [324]float64
		e, _ := rod.ContactGradHess(c.K, &p, &y, &gc, &Hc)
		phi += e
		s.scatter(&l, gc[:l.n], Hc[:l.n*l.n], level)
	}
	for i := range s.Anchor {
		a := &s.Anchor[i]
		if a.Kf == 0 || w.udof[i] < 0 {
			continue
		}
		e, f, k := s.anchorTerm(i, q[w.udof[i]])
		phi += e
		w.grad[w.udof[i]] += f
		if level == 2 && k > 0 {
			j := int(w.udof[i])
			w.rows, w.cols, w.vals = append(w.rows, j), append(w.cols, j), append(w.vals, k)
		}
	}
	for _, e := range s.Edges {
		// 1/2 K |P (x - A)|^2, P = I - Dir Dir^T.
		var l local
		if s.Kind[e.Node] == rod.EIL {
			// x interpolated: written as the spring 1/2 K |x - y|^2 to the
			// foot y of x on the line, held constant. Energy, gradient and
			// the curvature part of the Hessian are those of the edge term
			// (x - y = P (x - A)); the Gauss-Newton part K J^T J is corrected
			// to K J^T P J below.
			p := s.point(q, e.Node, &l)
			d := p.X.Sub(e.A)
			y := rod.NodePoint(e.A.Add(e.Dir.Scale(d.Dot(e.Dir))))
			for k := 0; k < 3; k++ {
				l.idx[l.n], l.node[l.n] = -1, -1
				l.n++
			}
			var gc [18]float64
			var Hc [324]float64
			e2, n := rod.ContactGradHess(e.K, &p, &y, &gc, &Hc)
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
					Hc[a*n+b] -= e.K * dj[a] * dj[b]
				}
			}
			phi += e2
			s.scatter(&l, gc[:l.n], Hc[:l.n*l.n], level)
			continue
		}
		l.addX(s, e.Node)
		d := s.x(q, e.Node).Sub(e.A)
		d = d.Sub(e.Dir.Scale(d.Dot(e.Dir)))
		phi += 0.5 * e.K * d.Dot(d)
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
		s.scatter(&l, g[:3], H[:9], level)
	}
	if len(s.Obstacles) > 0 {
		for i := range s.X {
			if w.xdof[i] < 0 {
				continue
			}
			x := s.x(q, int32(i))
			for _, o := range s.Obstacles {
				d, n := o.Distance(x)
				pen := s.Thickness - d
				if pen <= 0 {
					continue
				}
				var l local
				l.addX(s, int32(i))
				phi += 0.5 * s.ObstacleK * pen * pen
				for a := 0; a < 3; a++ {
					g[a] = -s.ObstacleK * pen * n[a]
					for b := 0; b < 3; b++ {
						H[3*a+b] = s.ObstacleK * n[a] * n[b]
					}
				}
				s.scatter(&l, g[:3], H[:9], level)
			}
		}
	}
	return phi
}

// point returns node i's contact point and appends its local coordinates: x
// for a non-EIL node; x_a, x_c, u_a, u_c, u_b for an EIL node.
func (s *State) point(q []float64, i int32, l *local) rod.ContactPoint {
	if s.Kind[i] != rod.EIL {
		l.addX(s, i)
		return rod.NodePoint(s.x(q, i))
	}
	a, c := s.ws.interpA[i], s.ws.interpC[i]
	l.addX(s, a)
	l.addX(s, c)
	l.addU(s, a)
	l.addU(s, c)
	l.addU(s, i)
	// The EIL point's x coordinates are its neighbours', not its own.
	for k := l.n - 9; k < l.n-3; k++ {
		l.node[k] = -1
	}
	return rod.EILPoint(s.x(q, a), s.x(q, c), s.u(q, a), s.u(q, c), s.u(q, i))
}

// anchorTerm is node i's Eulerian friction (Cirio et al. 2014) taken
// implicitly: the anchor spring 1/2 Kf (u - U)^2 while its force stays within
// the Coulomb bound mu N (N: the contact's normal force of the last step), and
// beyond it the linear continuation of slope +-mu N (a Huber potential), so a
// sliding contact feels exactly the kinetic friction force within the step
// instead of being held back by a stiff spring. It returns the energy, dE/du
// and d2E/du2.
func (s *State) anchorTerm(i int, u float64) (e, f, k float64) {
	a := &s.Anchor[i]
	bound := s.Mu * max(s.ws.normal[i], 0)
	d := u - a.U
	if math.Abs(a.Kf*d) <= bound {
		return 0.5 * a.Kf * d * d, a.Kf * d, a.Kf
	}
	return bound*math.Abs(d) - bound*bound/(2*a.Kf), math.Copysign(bound, d), 0
}
