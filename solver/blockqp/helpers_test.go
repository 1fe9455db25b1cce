package blockqp

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/qp"
)

// sym is a test-side symmetric matrix in triplets (both triangles added).
type sym struct {
	n          int
	rows, cols []int
	vals       []float64
}

func (t *sym) add(i, j int, v float64) {
	t.rows = append(t.rows, i)
	t.cols = append(t.cols, j)
	t.vals = append(t.vals, v)
}

func (t *sym) csr(tb testing.TB) *qp.CSR {
	m, err := qp.NewCSR(t.n, t.n, t.rows, t.cols, t.vals)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func mulCSR(h *qp.CSR, x []float64) []float64 {
	y := make([]float64, h.Rows)
	for i := 0; i < h.Rows; i++ {
		for k := h.RowPtr[i]; k < h.RowPtr[i+1]; k++ {
			y[i] += h.Val[k] * x[h.Col[k]]
		}
	}
	return y
}

// toQP converts p to solver/qp's form; eqOf and inOf map qp's equality and
// inequality rows back to p's rows.
func toQP(tb testing.TB, p *Problem) (q *qp.Problem, eqOf, inOf []int) {
	n := len(p.F)
	var er, ec, ir, ic []int
	var ev, iv, beq, bin []float64
	for i, r := range p.Rows {
		vars := p.Groups[r.Group].Vars
		for a, c := range r.Coef {
			if r.Eq {
				er, ec, ev = append(er, len(beq)), append(ec, int(vars[a])), append(ev, c)
			} else {
				ir, ic, iv = append(ir, len(bin)), append(ic, int(vars[a])), append(iv, c)
			}
		}
		if r.Eq {
			beq = append(beq, r.Target)
			eqOf = append(eqOf, i)
		} else {
			bin = append(bin, r.Target)
			inOf = append(inOf, i)
		}
	}
	q = &qp.Problem{H: p.H, F: p.F}
	var err error
	if len(beq) > 0 {
		if q.Aeq, err = qp.NewCSR(len(beq), n, er, ec, ev); err != nil {
			tb.Fatal(err)
		}
		q.Beq = beq
	}
	if len(bin) > 0 {
		if q.Ain, err = qp.NewCSR(len(bin), n, ir, ic, iv); err != nil {
			tb.Fatal(err)
		}
		q.Bin = bin
	}
	return q, eqOf, inOf
}

// reference solves p with solver/qp and returns X and per-row multipliers.
func reference(tb testing.TB, p *Problem) (x, y []float64) {
	q, eqOf, inOf := toQP(tb, p)
	res, err := qp.NewSolver().Solve(q, nil, qp.DefaultSettings())
	if err != nil {
		tb.Fatal(err)
	}
	if res.Status != qp.Solved {
		tb.Fatalf("qp: %v (%v)", res.Status, res.Residuals)
	}
	y = make([]float64, len(p.Rows))
	for k, i := range eqOf {
		y[i] = res.Yeq[k]
	}
	for k, i := range inOf {
		y[i] = res.Yin[k]
	}
	return res.X, y
}

func normInf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// checkKKT checks the optimality conditions of (x, y) for p directly, each
// relative to its natural scale, to tol.
func checkKKT(t *testing.T, p *Problem, x, y []float64, tol float64) {
	t.Helper()
	n := len(p.F)
	hx := mulCSR(p.H, x)
	aty := make([]float64, n)
	a1 := make([]float64, n) // column sums of |A|
	ainf, binf := 0.0, 0.0
	for i, r := range p.Rows {
		s := 0.0
		for a, c := range r.Coef {
			v := p.Groups[r.Group].Vars[a]
			aty[v] += c * y[i]
			a1[v] += math.Abs(c)
			s += math.Abs(c)
		}
		ainf = math.Max(ainf, s)
		binf = math.Max(binf, math.Abs(r.Target))
	}
	stat := 0.0
	for i := range hx {
		stat = math.Max(stat, math.Abs(hx[i]-p.F[i]-aty[i]))
	}
	sscale := math.Max(math.Max(normInf(hx), normInf(p.F)), normInf(aty))
	if stat > tol*sscale {
		t.Errorf("stationarity: ||H x - F - A^T y|| = %.3e, scale %.3e", stat, sscale)
	}
	ps := math.Max(ainf*normInf(x), binf)
	ys := normInf(y)
	if m := normInf(a1); m > 0 {
		ys = math.Max(ys, math.Max(normInf(hx), normInf(p.F))/m)
	}
	for i, r := range p.Rows {
		ax := 0.0
		for a, c := range r.Coef {
			ax += c * x[p.Groups[r.Group].Vars[a]]
		}
		sl := ax - r.Target
		if r.Eq {
			if math.Abs(sl) > tol*ps {
				t.Errorf("row %d (eq): residual %.3e, scale %.3e", i, sl, ps)
			}
			continue
		}
		if sl < -tol*ps {
			t.Errorf("row %d: violated by %.3e, scale %.3e", i, -sl, ps)
		}
		if y[i] < -tol*ys {
			t.Errorf("row %d: multiplier %.3e < 0, scale %.3e", i, y[i], ys)
		}
		if c := math.Min(math.Abs(y[i])/ys, math.Abs(sl)/ps); c > tol {
			t.Errorf("row %d: complementarity: y %.3e, slack %.3e", i, y[i], sl)
		}
	}
}

// compare checks x and y against the reference to rel (relative to the
// reference's infinity norms).
func compare(t *testing.T, x, y, xr, yr []float64, rel float64) {
	t.Helper()
	xs, ys := math.Max(normInf(xr), 1e-300), math.Max(normInf(yr), 1e-300)
	for i := range xr {
		if d := math.Abs(x[i] - xr[i]); d > rel*xs {
			t.Errorf("x[%d] = %.10g, qp %.10g (diff %.2e, scale %.2e)", i, x[i], xr[i], d, xs)
			return
		}
	}
	for i := range yr {
		if d := math.Abs(y[i] - yr[i]); d > rel*ys {
			t.Errorf("y[%d] = %.10g, qp %.10g (diff %.2e, scale %.2e)", i, y[i], yr[i], d, ys)
			return
		}
	}
}

func unit(rng *rand.Rand, k int) []float64 {
	u := make([]float64, k)
	n := 0.0
	for a := range u {
		u[a] = rng.NormFloat64()
		n += u[a] * u[a]
	}
	n = math.Sqrt(n)
	for a := range u {
		u[a] /= n
	}
	return u
}

// randomProblem builds a problem of the package's structure: ng groups of 3
// or 5 variables scattered over the index range, H = P (G^T G + 0.1 I) P with
// a sparse random G and P removing a random direction d_g from every 5-group
// (so H d_g = 0), an equality on every 5-group that removes d_g, and random
// equality and inequality rows, feasible at a random point; some of them tight
// there.
func randomProblem(tb testing.TB, rng *rand.Rand, ng int) *Problem {
	sizes := make([]int, ng)
	n := 0
	for g := range sizes {
		sizes[g] = 3
		if rng.Intn(2) == 0 {
			sizes[g] = 5
		}
		n += sizes[g]
	}
	perm := rng.Perm(n)
	p := &Problem{Groups: make([]Group, ng)}
	k := 0
	for g, sz := range sizes {
		for a := 0; a < sz; a++ {
			p.Groups[g].Vars = append(p.Groups[g].Vars, int32(perm[k]))
			k++
		}
	}
	// Dense H0 = G^T G + 0.1 I with G sparse (3 entries per row).
	h0 := make([][]float64, n)
	for i := range h0 {
		h0[i] = make([]float64, n)
		h0[i][i] = 0.1
	}
	for r := 0; r < 2*n; r++ {
		var cols []int
		var vals []float64
		for e := 0; e < 3; e++ {
			cols = append(cols, rng.Intn(n))
			vals = append(vals, rng.NormFloat64())
		}
		for a := range cols {
			for b := range cols {
				h0[cols[a]][cols[b]] += vals[a] * vals[b]
			}
		}
	}
	// P = I - sum d d^T over 5-groups.
	pm := make([][]float64, n)
	for i := range pm {
		pm[i] = make([]float64, n)
		pm[i][i] = 1
	}
	dirs := make([][]float64, ng)
	for g, grp := range p.Groups {
		if len(grp.Vars) != 5 {
			continue
		}
		d := unit(rng, 5)
		dirs[g] = d
		for a, i := range grp.Vars {
			for b, j := range grp.Vars {
				pm[i][j] -= d[a] * d[b]
			}
		}
	}
	hm := &sym{n: n}
	tmp := make([][]float64, n)
	for i := range tmp {
		tmp[i] = make([]float64, n)
		for j := 0; j < n; j++ {
			for l := 0; l < n; l++ {
				tmp[i][j] += pm[i][l] * h0[l][j]
			}
		}
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := 0.0
			for l := 0; l < n; l++ {
				v += tmp[i][l] * pm[l][j]
			}
			if math.Abs(v) > 1e-14 {
				hm.add(i, j, v)
			}
		}
	}
	// Symmetrise exactly.
	hd := make([][]float64, n)
	for i := range hd {
		hd[i] = make([]float64, n)
	}
	for e := range hm.rows {
		hd[hm.rows[e]][hm.cols[e]] = hm.vals[e]
	}
	hs := &sym{n: n}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if v := 0.5 * (hd[i][j] + hd[j][i]); v != 0 {
				hs.add(i, j, v)
			}
		}
	}
	p.H = hs.csr(tb)

	vhat := make([]float64, n)
	for i := range vhat {
		vhat[i] = rng.NormFloat64()
	}
	dot := func(g int, c []float64) float64 {
		s := 0.0
		for a, v := range p.Groups[g].Vars {
			s += c[a] * vhat[v]
		}
		return s
	}
	for g, grp := range p.Groups {
		sz := len(grp.Vars)
		nrow := 0
		if sz == 5 {
			// The equality removing d_g: a random row plus a d_g component.
			c := unit(rng, 5)
			for a := range c {
				c[a] += dirs[g][a]
			}
			p.Rows = append(p.Rows, Row{Group: int32(g), Coef: c, Eq: true, Target: dot(g, c)})
			nrow++
		}
		extra := rng.Intn(sz - nrow + 1)
		for e := 0; e < extra; e++ {
			c := unit(rng, sz)
			eq := rng.Intn(5) == 0
			t := dot(g, c)
			if !eq && rng.Intn(3) != 0 {
				t -= rng.Float64()
			}
			p.Rows = append(p.Rows, Row{Group: int32(g), Coef: c, Eq: eq, Target: t})
		}
	}
	// Shuffle the rows so a group's rows are not contiguous.
	rng.Shuffle(len(p.Rows), func(i, j int) { p.Rows[i], p.Rows[j] = p.Rows[j], p.Rows[i] })
	p.F = make([]float64, n)
	for i := range p.F {
		p.F[i] = 3 * rng.NormFloat64()
	}
	return p
}

// tcol is one column of a vertex's block of T, the map from the problem's
// variables to world velocities: variable v contributes t to the vertex's
// world velocity.
type tcol struct {
	v int
	t [3]float64
}

// gridEOLHessian builds H = T^T A T for an nx x ny grid triangulated along
// one diagonal: A is the lumped mass on every vertex plus, for every grid
// edge, the 3x3 block edgeK(d) (d the edge's direction with a random z part
// of size noise) on its two vertices' diagonal and minus it off the diagonal;
// T is the identity on world velocities and, for EOL vertex eolOf[v] = e >=
// 0, maps its material velocities (variables 3 nv + 2e, +1) through -F, F a
// random perturbation of (I; 0). It returns T's columns per vertex and H.
// The random numbers are drawn in a fixed order: the F's by vertex, then one
// per edge.
func gridEOLHessian(rng *rand.Rand, nx, ny int, eolOf []int, ne int, mass, noise float64, edgeK func(d [3]float64) [3][3]float64) ([][]tcol, *sym) {
	nv := nx * ny
	cols := make([][]tcol, nv)
	for v := 0; v < nv; v++ {
		for k := 0; k < 3; k++ {
			var t [3]float64
			t[k] = 1
			cols[v] = append(cols[v], tcol{3*v + k, t})
		}
		if e := eolOf[v]; e >= 0 {
			f := [6]float64{1, 0, 0, 1, 0, 0}
			for a := range f {
				f[a] += 0.3 * rng.NormFloat64()
			}
			for l := 0; l < 2; l++ {
				cols[v] = append(cols[v], tcol{3*nv + 2*e + l, [3]float64{-f[l], -f[2+l], -f[4+l]}})
			}
		}
	}
	hm := &sym{n: 3*nv + 2*ne}
	block := func(u, v int, a *[3][3]float64) { // H += T_u^T a T_v
		for _, p := range cols[u] {
			for _, q := range cols[v] {
				d := 0.0
				for r := 0; r < 3; r++ {
					for c := 0; c < 3; c++ {
						d += p.t[r] * a[r][c] * q.t[c]
					}
				}
				if d != 0 {
					hm.add(p.v, q.v, d)
				}
			}
		}
	}
	diag := make([][3][3]float64, nv)
	idx := func(i, j int) int { return i*ny + j }
	edge := func(a, b int) {
		ia, ja, ib, jb := a/ny, a%ny, b/ny, b%ny
		k := edgeK([3]float64{float64(ib - ia), float64(jb - ja), noise * rng.NormFloat64()})
		var nk [3][3]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				nk[r][c] = -k[r][c]
				diag[a][r][c] += k[r][c]
				diag[b][r][c] += k[r][c]
			}
		}
		block(a, b, &nk)
		block(b, a, &nk)
	}
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			if i+1 < nx {
				edge(idx(i, j), idx(i+1, j))
			}
			if j+1 < ny {
				edge(idx(i, j), idx(i, j+1))
			}
			if i+1 < nx && j+1 < ny {
				edge(idx(i, j), idx(i+1, j+1))
			}
		}
	}
	for v := 0; v < nv; v++ {
		for k := 0; k < 3; k++ {
			diag[v][k][k] += mass
		}
		block(v, v, &diag[v])
	}
	return cols, hm
}
