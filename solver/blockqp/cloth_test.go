package blockqp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/sparse"
)

// clothProblem builds an EOL-cloth-like QP on an nx x ny triangulated grid
// (h = 1e-2 s, vertex mass 1e-3 kg, edge stiffness 1e3 N/m):
//
//   - world matrix A = M + h^2 K on the vertices' world velocities (lumped
//     mass plus a Laplacian-like sum of edge blocks w (0.2 I + d d^T));
//   - about 2% of the vertices are EOL vertices, with two more variables (the
//     material velocity Xdot, stored after all world velocities) and world
//     velocity xdot - F Xdot (F a random 3x2 of rank 2), so H = T^T A T: the
//     EOL vertex's own block is (m + h^2 k deg) [I, -F; -F^T, F^T F], singular
//     along (F u, u). A small material stiffness across dir makes the null
//     space one-dimensional, (F dir, dir), and the equality dir . Xdot = 0 (E
//     coefficients) removes it. EOL vertices also get one or two Lagrangian
//     inequality rows n . xdot >= -d/h (box-edge normals);
//   - about 10% of the cloth vertices touch an obstacle: n . v >= -d/h;
//   - the two corners of the first row are pinned: three equalities e_x, e_y,
//     e_z with scripted target velocities;
//   - F = T^T (M v0 - h M g), the cloth falling at about 1 m/s.
func clothProblem(tb testing.TB, rng *rand.Rand, nx, ny int) *Problem {
	const (
		h     = 1e-2
		mass  = 1e-3
		stiff = 1e3
	)
	nv := nx * ny
	w := h * h * stiff
	eolOf := make([]int, nv)
	var eols []int
	for v := range eolOf {
		eolOf[v] = -1
		if i, j := v/ny, v%ny; i > 0 && j > 0 && i < nx-1 && j < ny-1 && rng.Float64() < 0.02 {
			eolOf[v] = len(eols)
			eols = append(eols, v)
		}
	}
	n := 3*nv + 2*len(eols)
	cols, hm := gridEOLHessian(rng, nx, ny, eolOf, len(eols), mass, 0.1, func(d [3]float64) (k [3][3]float64) {
		// An edge's stiffness block K_e = w (0.2 I + d d^T), d its
		// (slightly wrinkled) direction: a full 3x3 block pattern.
		l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				k[r][c] = w * d[r] * d[c] / (l * l)
				if r == c {
					k[r][c] += 0.2 * w
				}
			}
		}
		return k
	})

	p := &Problem{F: make([]float64, n), Groups: make([]Group, nv)}
	for v := 0; v < nv; v++ {
		fw := [3]float64{mass * 0.1 * rng.NormFloat64(), mass * 0.1 * rng.NormFloat64(), mass * (-1 + 0.1*rng.NormFloat64())}
		fw[2] -= h * mass * 9.81
		for _, c := range cols[v] {
			p.F[c.v] += c.t[0]*fw[0] + c.t[1]*fw[1] + c.t[2]*fw[2]
			p.Groups[v].Vars = append(p.Groups[v].Vars, int32(c.v))
		}
	}
	normal := func() [3]float64 {
		nz := 0.5 + 0.5*rng.Float64()
		nx, ny := 0.3*rng.NormFloat64(), 0.3*rng.NormFloat64()
		l := math.Sqrt(nx*nx + ny*ny + nz*nz)
		return [3]float64{nx / l, ny / l, nz / l}
	}
	for e, v := range eols {
		th := rng.Float64() * 2 * math.Pi
		dir := [2]float64{math.Cos(th), math.Sin(th)}
		perp := [2]float64{-dir[1], dir[0]}
		m := 3*nv + 2*e
		for a := 0; a < 2; a++ {
			for b := 0; b < 2; b++ {
				hm.add(m+a, m+b, 0.1*mass*perp[a]*perp[b])
			}
		}
		p.Rows = append(p.Rows, Row{Group: int32(v), Coef: []float64{0, 0, 0, dir[0], dir[1]}, Eq: true})
		for k := 0; k < 1+rng.Intn(2); k++ {
			nn := normal()
			p.Rows = append(p.Rows, Row{Group: int32(v), Coef: []float64{nn[0], nn[1], nn[2], 0, 0}, Target: -0.01 * rng.Float64() / h})
		}
	}
	for v := 0; v < nv; v++ {
		if eolOf[v] >= 0 || v < ny || rng.Float64() >= 0.1 {
			continue
		}
		nn := normal()
		p.Rows = append(p.Rows, Row{Group: int32(v), Coef: nn[:], Target: -0.01 * rng.Float64() / h})
	}
	for _, v := range []int{0, ny - 1} { // the corners (0, 0) and (0, ny-1)
		for k := 0; k < 3; k++ {
			c := make([]float64, 3)
			c[k] = 1
			p.Rows = append(p.Rows, Row{Group: int32(v), Coef: c, Eq: true, Target: 0.1 * rng.NormFloat64()})
		}
	}
	p.H = hm.csr(tb)
	return p
}

func countRows(p *Problem) (eq, in int) {
	for _, r := range p.Rows {
		if r.Eq {
			eq++
		} else {
			in++
		}
	}
	return
}

// TestClothAgainstQP solves the 30x30 EOL-cloth-like problem cold and warm
// (from a perturbed problem's answer), compares X and the multipliers with
// solver/qp and checks the KKT conditions directly.
func TestClothAgainstQP(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	p := clothProblem(t, rng, 30, 30)
	eq, in := countRows(p)
	xr, yr := reference(t, p)
	s := NewSolver()
	// Without screening (every round solved to Tol), then with the default.
	for _, set := range []Settings{{ScreenTol: 1e-10}, {}} {
		res, err := s.Solve(nil, p, nil, set)
		if err != nil {
			t.Fatal(err)
		}
		if !res.Converged {
			t.Fatalf("%+v: not converged: %s", set, res.Message)
		}
		act := 0
		for i, a := range res.Active {
			if a && !p.Rows[i].Eq {
				act++
			}
		}
		t.Logf("ScreenTol %g: n %d, nnz %d, %d eq, %d ineq (%d active): %d rounds, %d CG iterations, residual %.1e, %d regularized",
			set.ScreenTol, len(p.F), p.H.RowPtr[len(p.F)], eq, in, act, res.Rounds, res.CGIterations, res.Residual, res.RegularizedGroups)
		compare(t, res.X, res.Y, xr, yr, 1e-6)
		checkKKT(t, p, res.X, res.Y, 1e-8)
	}
	res, _ := s.Solve(nil, p, nil, Settings{})

	// Warm start: perturb F, solve from the previous answer.
	p2 := *p
	p2.F = append([]float64(nil), p.F...)
	for i := range p2.F {
		p2.F[i] *= 1 + 1e-2*rng.NormFloat64()
	}
	xr2, yr2 := reference(t, &p2)
	res2, err := s.Solve(nil, &p2, res.X, Settings{}) // res.X aliases the Solver's buffer
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Converged {
		t.Fatalf("warm: not converged: %s", res2.Message)
	}
	t.Logf("warm: %d rounds, %d CG iterations", res2.Rounds, res2.CGIterations)
	compare(t, res2.X, res2.Y, xr2, yr2, 1e-6)
	checkKKT(t, &p2, res2.X, res2.Y, 1e-8)
}

// TestWarmActiveSet re-solves a perturbed cloth problem (forces and contact
// targets) from the last answer
// with and without Row.Warm marking the last working set, and with every
// inequality marked (a bad guess): all three reach the reference answer, and
// the good guess takes fewer CG iterations than none.
func TestWarmActiveSet(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	p := clothProblem(t, rng, 30, 30)
	s := NewSolver()
	res, err := s.Solve(nil, p, nil, Settings{})
	if err != nil || !res.Converged {
		t.Fatalf("cold solve: %v %s", err, res.Message)
	}
	x0 := append([]float64(nil), res.X...)
	active := append([]bool(nil), res.Active...)

	// The next step: other forces, and contacts that moved a little, so the
	// last answer no longer meets the active rows exactly.
	p2 := *p
	p2.F = append([]float64(nil), p.F...)
	for i := range p2.F {
		p2.F[i] *= 1 + 1e-2*rng.NormFloat64()
	}
	p2.Rows = append([]Row(nil), p.Rows...)
	for i := range p2.Rows {
		if !p2.Rows[i].Eq {
			p2.Rows[i].Target -= 1e-2 * rng.Float64()
		}
	}
	xr, yr := reference(t, &p2)
	iters := map[string]int{}
	for _, guess := range []string{"none", "last", "all"} {
		p3 := p2
		p3.Rows = append([]Row(nil), p2.Rows...)
		for i := range p3.Rows {
			switch guess {
			case "last":
				p3.Rows[i].Warm = active[i] && !p3.Rows[i].Eq
			case "all":
				p3.Rows[i].Warm = !p3.Rows[i].Eq
			}
		}
		res, err := s.Solve(nil, &p3, x0, Settings{})
		if err != nil || !res.Converged {
			t.Fatalf("%s: %v %s", guess, err, res.Message)
		}
		t.Logf("warm guess %s: %d rounds, %d CG iterations", guess, res.Rounds, res.CGIterations)
		iters[guess] = res.CGIterations
		compare(t, res.X, res.Y, xr, yr, 1e-6)
		checkKKT(t, &p3, res.X, res.Y, 1e-8)
	}
	if iters["last"] >= iters["none"] {
		t.Errorf("the last working set as a guess took %d CG iterations, none %d", iters["last"], iters["none"])
	}
}

// reorder returns p with its groups in the given order (order[k] is the
// group placed k-th): the same QP, swept in another order.
func reorder(p *Problem, order []int32) *Problem {
	q := *p
	q.Groups = make([]Group, len(order))
	at := make([]int32, len(order))
	for k, g := range order {
		q.Groups[k] = p.Groups[g]
		at[g] = int32(k)
	}
	q.Rows = append([]Row(nil), p.Rows...)
	for i := range q.Rows {
		q.Rows[i].Group = at[q.Rows[i].Group]
	}
	return &q
}

// TestGroupOrder solves the cloth problem with its groups shuffled and in
// reverse Cuthill-McKee order of H's group graph: the order of the
// Gauss-Seidel sweeps changes the iterations, not the answer, and the banded
// order takes fewer than the shuffled one.
func TestGroupOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	p := clothProblem(t, rng, 30, 30)
	xr, yr := reference(t, p)
	shuffled := make([]int32, len(p.Groups))
	for k, g := range rng.Perm(len(p.Groups)) {
		shuffled[k] = int32(g)
	}
	// H's group graph in the shuffled numbering.
	ps := reorder(p, shuffled)
	gof := make([]int32, len(p.F))
	for g, grp := range ps.Groups {
		for _, v := range grp.Vars {
			gof[v] = int32(g)
		}
	}
	rowPtr, col := []int32{0}, []int32(nil)
	for _, grp := range ps.Groups {
		for _, v := range grp.Vars {
			for k := p.H.RowPtr[v]; k < p.H.RowPtr[v+1]; k++ {
				col = append(col, gof[p.H.Col[k]])
			}
		}
		rowPtr = append(rowPtr, int32(len(col)))
	}
	var r sparse.RCM
	pr := reorder(ps, r.Order(len(ps.Groups), rowPtr, col))
	iters := map[string]int{}
	for _, c := range []struct {
		name string
		q    *Problem
	}{{"given", p}, {"shuffled", ps}, {"rcm", pr}} {
		name, q := c.name, c.q
		res, err := NewSolver().Solve(nil, q, nil, Settings{})
		if err != nil || !res.Converged {
			t.Fatalf("%s: %v %s", name, err, res.Message)
		}
		t.Logf("%s order: %d rounds, %d CG iterations", name, res.Rounds, res.CGIterations)
		iters[name] = res.CGIterations
		compare(t, res.X, res.Y, xr, yr, 1e-6)
		checkKKT(t, q, res.X, res.Y, 1e-8)
	}
	if iters["rcm"] >= iters["shuffled"] {
		t.Errorf("RCM order took %d CG iterations, shuffled %d", iters["rcm"], iters["shuffled"])
	}
}
