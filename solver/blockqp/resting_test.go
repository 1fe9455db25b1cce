package blockqp

import (
	"math"
	"math/rand"
	"testing"
)

// restingCloth builds the QP of an nx x ny cloth sheet resting on a box top
// (z = 0) at the engine's scales: density 0.05 kg/m^2 at 2 cm spacing
// (vertex mass 2e-5 kg), h = 5 ms, edge stiffness stiff (4e6 N/m puts
// h^2 k at 1e2, so H's entries span 2e-5 to 1e2 and the sheet's rigid
// motions are 1e7 times softer than its stretching). The column i = nx/2
// lies on the box's edge and is made of EOL vertices, as in clothProblem
// (world velocity xdot - Fm Xdot, H = T^T A T), whose material stiffness is
// 0.1 of the mass: after the equality perp . Xdot = 0 the material motion
// along the edge has a curvature 1e8 times smaller than H's largest. Every other vertex has a contact row
// e_z . v >= b; an EOL vertex has e_z . xdot >= b and -e_x . xdot >= b (the
// two faces at the edge). The answer v* (about 1e-2 m/s, material velocities
// 1e-1) and multipliers y* are chosen first and F = H v* - A^T y* made to
// fit: of the contact rows 40% are active (y* of the order of m g h), 40%
// degenerate (tight with y* = 0: resting vertices whose contact force
// vanishes) and 20% inactive; two corners are pinned. It returns the
// problem, a warm start (v* perturbed by wamp: a previous step's velocities)
// and v*, the exact answer.
func restingCloth(tb testing.TB, rng *rand.Rand, nx, ny int, stiff, wamp float64) (p *Problem, warm, vs []float64) {
	const (
		dx   = 0.02
		h    = 5e-3
		mass = 0.05 * dx * dx
	)
	nv := nx * ny
	idx := func(i, j int) int { return i*ny + j }
	eolOf := make([]int, nv)
	ne := 0
	for v := range eolOf {
		eolOf[v] = -1
		if i, j := v/ny, v%ny; i == nx/2 && j > 0 && j < ny-1 {
			eolOf[v] = ne
			ne++
		}
	}
	n := 3*nv + 2*ne
	cols, hm := gridEOLHessian(rng, nx, ny, eolOf, ne, mass, 0.05, func(d [3]float64) (k [3][3]float64) {
		l2 := d[0]*d[0] + d[1]*d[1] + d[2]*d[2]
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				k[r][c] = h * h * stiff * d[r] * d[c] / l2
				if r == c {
					k[r][c] += 1e-3 * h * h * stiff
				}
			}
		}
		return k
	})

	vs = make([]float64, n)
	for i := range vs {
		vs[i] = 1e-2 * rng.NormFloat64()
		if i >= 3*nv {
			vs[i] *= 10
		}
	}
	p = &Problem{Groups: make([]Group, nv)}
	var ys []float64
	row := func(v int, coef []float64, eq bool, b, y float64) {
		p.Rows = append(p.Rows, Row{Group: int32(v), Coef: coef, Eq: eq, Target: b})
		ys = append(ys, y)
	}
	dot := func(v int, coef []float64) float64 {
		s := 0.0
		for a, c := range coef {
			s += c * vs[cols[v][a].v]
		}
		return s
	}
	contact := func(v int, coef []float64) {
		y, b := 0.0, dot(v, coef)
		switch u := rng.Float64(); {
		case u < 0.4:
			y = mass * 9.81 * h * (0.5 + rng.Float64())
		case u >= 0.8:
			b -= 1e-2 * rng.Float64()
		}
		row(v, coef, false, b, y)
	}
	for v := 0; v < nv; v++ {
		for _, c := range cols[v] {
			p.Groups[v].Vars = append(p.Groups[v].Vars, int32(c.v))
		}
		if e := eolOf[v]; e >= 0 {
			th := 0.5 * math.Pi * (1 + 0.01*rng.NormFloat64()) // along the edge (y)
			dir := [2]float64{math.Cos(th), math.Sin(th)}
			perp := [2]float64{-dir[1], dir[0]}
			m := 3*nv + 2*e
			for a := 0; a < 2; a++ {
				for b := 0; b < 2; b++ {
					hm.add(m+a, m+b, 0.1*mass*dir[a]*dir[b])
				}
			}
			c := []float64{0, 0, 0, perp[0], perp[1]}
			row(v, c, true, dot(v, c), 1e-7*rng.NormFloat64())
			contact(v, []float64{0, 0, 1, 0, 0})
			contact(v, []float64{-1, 0, 0, 0, 0})
			continue
		}
		if v == idx(0, 0) || v == idx(nx-1, 0) {
			for k := 0; k < 3; k++ {
				c := make([]float64, 3)
				c[k] = 1
				row(v, c, true, vs[3*v+k], 1e-6*rng.NormFloat64())
			}
			continue
		}
		contact(v, []float64{0, 0, 1})
	}
	p.H = hm.csr(tb)
	p.F = mulCSR(p.H, vs)
	for i, r := range p.Rows {
		for a, c := range r.Coef {
			p.F[p.Groups[r.Group].Vars[a]] -= c * ys[i]
		}
	}
	warm = make([]float64, n)
	for i := range warm {
		warm[i] = vs[i] + wamp*rng.NormFloat64()
	}
	return p, warm, vs
}

// objective is 1/2 x^T H x - F^T x.
func objective(p *Problem, x []float64) float64 {
	hx := mulCSR(p.H, x)
	q := 0.0
	for i := range x {
		q += x[i] * (0.5*hx[i] - p.F[i])
	}
	return q
}

// TestRestingCloth: the sheet at rest on the box with EOL vertices on its
// edge and many degenerate contacts, at the engine's settings (Tol 1e-6,
// MaxCG 2000), warm-started from perturbed velocities. Before the active-set
// search re-solved more accurately when its candidates stopped falling, five
// of these six cases ended "active set not settled after 50 rounds" (and the
// sixth took 47 rounds): loose solves leave the nearly free material motion
// unresolved, so the multipliers' signs and the slacks were noise and the
// bulk steps wandered. The answer is checked against the constructed one by
// the objective at the engine's settings and, solved again to Tol 1e-8, by
// the KKT conditions to 1e-8; X itself is determined only to
// about 1e-2 along the soft material directions (the objective changes by
// 1e-13 relative there), which is also why solver/qp is no reference here.
func TestRestingCloth(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		for _, wamp := range []float64{1e-2, 1} {
			p, warm, vs := restingCloth(t, rand.New(rand.NewSource(seed)), 30, 30, 4e6, wamp)
			res, err := NewSolver().Solve(nil, p, warm, Settings{Tol: 1e-6, MaxCG: 2000})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("seed %d, warm +- %g: %s", seed, wamp, res.Message)
			}
			q, qs := objective(p, res.X), objective(p, vs)
			t.Logf("seed %d, warm +- %g: %d rounds, %d CG iterations, residual %.1e, objective %.3e off", seed, wamp, res.Rounds, res.CGIterations, res.Residual, (q-qs)/math.Abs(qs))
			if q-qs > 1e-10*math.Abs(qs) {
				t.Errorf("objective %.15g, the answer's %.15g", q, qs)
			}
			// The KKT conditions hold to what is asked: checked at Tol 1e-8
			// (at 1e-6 the stationarity is about 1e-6 of its scale).
			res, err = NewSolver().Solve(nil, p, warm, Settings{Tol: 1e-8, MaxCG: 2000})
			if err != nil || !res.Converged {
				t.Fatalf("seed %d, warm +- %g, Tol 1e-8: %v %s", seed, wamp, err, res.Message)
			}
			checkKKT(t, p, res.X, res.Y, 1e-8)
		}
	}
}
