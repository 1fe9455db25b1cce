package qp

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// triplets is a test-side sparse matrix, independent of CSR.
type triplets struct {
	r, c       int
	rows, cols []int
	vals       []float64
}

func (t *triplets) add(i, j int, v float64) {
	t.rows = append(t.rows, i)
	t.cols = append(t.cols, j)
	t.vals = append(t.vals, v)
}

func (t *triplets) csr(tb testing.TB) *CSR {
	m, err := NewCSR(t.r, t.c, t.rows, t.cols, t.vals)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// mul returns t x by direct triplet accumulation.
func (t *triplets) mul(x []float64) []float64 {
	y := make([]float64, t.r)
	for k := range t.rows {
		y[t.rows[k]] += t.vals[k] * x[t.cols[k]]
	}
	return y
}

func (t *triplets) mulT(y []float64) []float64 {
	x := make([]float64, t.c)
	for k := range t.rows {
		x[t.cols[k]] += t.vals[k] * y[t.rows[k]]
	}
	return x
}

// absRowSums returns max_i sum_j |t_ij| (rowwise) or columnwise.
func (t *triplets) absSums(byRow bool) float64 {
	var s []float64
	if byRow {
		s = make([]float64, t.r)
	} else {
		s = make([]float64, t.c)
	}
	for k := range t.rows {
		if byRow {
			s[t.rows[k]] += math.Abs(t.vals[k])
		} else {
			s[t.cols[k]] += math.Abs(t.vals[k])
		}
	}
	m := 0.0
	for _, v := range s {
		m = math.Max(m, v)
	}
	return m
}

// testQP is a problem with its triplet form and, when known, an optimal
// objective value.
type testQP struct {
	h, aeq, ain    *triplets
	f, beq, bin    []float64
	obj            float64 // optimal objective, NaN if unknown
	x0, y0eq, y0in []float64
}

func (q *testQP) problem(tb testing.TB) *Problem {
	p := &Problem{H: q.h.csr(tb), F: q.f, Beq: q.beq, Bin: q.bin}
	if q.aeq != nil {
		p.Aeq = q.aeq.csr(tb)
	}
	if q.ain != nil {
		p.Ain = q.ain.csr(tb)
	}
	return p
}

func (q *testQP) objective(x []float64) float64 {
	hx := q.h.mul(x)
	return 0.5*dot(x, hx) - dot(q.f, x)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func infNorm(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// kktCheck computes the KKT residuals with the definitions of the package doc,
// independently of Residuals (triplet products, no CSR code), and fails the
// test if any exceeds tol.
func kktCheck(tb testing.TB, name string, q *testQP, x, yeq, yin []float64, tol float64) {
	tb.Helper()
	xn := infNorm(x)
	hx := q.h.mul(x)
	st := make([]float64, len(hx))
	for i := range st {
		st[i] = hx[i] - q.f[i]
	}
	scale := math.Max(infNorm(hx), infNorm(q.f))
	var eqT, inT float64
	if q.aeq != nil {
		g := q.aeq.mulT(yeq)
		for i := range st {
			st[i] -= g[i]
		}
		eqT = q.aeq.absSums(false)
		scale = math.Max(scale, infNorm(g))
	}
	if q.ain != nil {
		g := q.ain.mulT(yin)
		for i := range st {
			st[i] -= g[i]
		}
		inT = q.ain.absSums(false)
		scale = math.Max(scale, infNorm(g))
	}
	rel := func(a, b float64) float64 {
		if b == 0 {
			if a == 0 {
				return 0
			}
			return math.Inf(1)
		}
		return a / b
	}
	stat := rel(infNorm(st), scale)
	eq := 0.0
	if q.aeq != nil && q.aeq.r > 0 {
		ax := q.aeq.mul(x)
		e := 0.0
		for i := range ax {
			e = math.Max(e, math.Abs(ax[i]-q.beq[i]))
		}
		eq = rel(e, math.Max(q.aeq.absSums(true)*xn, infNorm(q.beq)))
	}
	var pin, dneg, comp float64
	if q.ain != nil && q.ain.r > 0 {
		ax := q.ain.mul(x)
		ps := math.Max(q.ain.absSums(true)*xn, infNorm(q.bin))
		ys := math.Max(infNorm(yeq), infNorm(yin))
		if an := math.Max(eqT, inT); an > 0 {
			ys = math.Max(ys, math.Max(infNorm(hx), infNorm(q.f))/an)
		}
		for i := range ax {
			s := ax[i] - q.bin[i]
			pin = math.Max(pin, rel(-s, ps))
			dneg = math.Max(dneg, rel(-yin[i], ys))
			comp = math.Max(comp, math.Min(rel(math.Abs(yin[i]), ys), rel(math.Abs(s), ps)))
		}
	}
	if stat > tol || eq > tol || pin > tol || dneg > tol || comp > tol {
		tb.Errorf("%s: KKT residuals stat %.3e eq %.3e in %.3e dual %.3e comp %.3e > %g", name, stat, eq, pin, dneg, comp, tol)
	}
}

// randomQP builds a feasible, bounded QP with known optimum: a point x0 and
// multipliers are chosen, then F is set so that they satisfy the KKT
// conditions. H = B^T B with B having fewer rows than n (singular), and some
// coordinates have no H entries at all. Inequalities include many active ones,
// weakly active ones (zero multiplier, zero slack), duplicated rows, parallel
// rows with different offsets; equalities include redundant rows.
func randomQP(rng *rand.Rand, n int) *testQP {
	q := &testQP{h: &triplets{r: n, c: n}}
	// B: k x n sparse rows, k < n
	k := n / 2
	if k < 1 {
		k = 1
	}
	zeroCols := map[int]bool{}
	for j := 0; j < n/10; j++ {
		zeroCols[rng.Intn(n)] = true
	}
	hd := map[[2]int]float64{}
	for r := 0; r < k; r++ {
		nz := 1 + rng.Intn(4)
		cols := map[int]float64{}
		var idx []int
		for t := 0; t < nz; t++ {
			j := rng.Intn(n)
			if zeroCols[j] {
				continue
			}
			if _, ok := cols[j]; !ok {
				idx = append(idx, j)
			}
			cols[j] = rng.NormFloat64()
		}
		for _, a := range idx {
			for _, b := range idx {
				hd[[2]int{a, b}] += cols[a] * cols[b]
			}
		}
	}
	keys := make([][2]int, 0, len(hd))
	for key := range hd {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(a, b int) bool {
		return keys[a][0] < keys[b][0] || (keys[a][0] == keys[b][0] && keys[a][1] < keys[b][1])
	})
	for _, key := range keys {
		q.h.add(key[0], key[1], hd[key])
	}
	x0 := make([]float64, n)
	for i := range x0 {
		x0[i] = rng.NormFloat64()
	}
	// inequality rows
	mi := n/2 + 2
	ain := &triplets{c: n}
	var bin, yin []float64
	sortedKeys := func(row map[int]float64) []int {
		ks := make([]int, 0, len(row))
		for j := range row {
			ks = append(ks, j)
		}
		sort.Ints(ks)
		return ks
	}
	addRow := func(t *triplets, row map[int]float64) {
		for _, j := range sortedKeys(row) {
			t.add(t.r, j, row[j])
		}
		t.r++
	}
	rowDot := func(row map[int]float64) float64 {
		s := 0.0
		for _, j := range sortedKeys(row) {
			s += row[j] * x0[j]
		}
		return s
	}
	randRow := func() map[int]float64 {
		row := map[int]float64{}
		nz := 1 + rng.Intn(3)
		for t := 0; t < nz; t++ {
			row[rng.Intn(n)] = rng.NormFloat64()
		}
		return row
	}
	for len(bin) < mi {
		row := randRow()
		ax := rowDot(row)
		switch c := rng.Intn(10); {
		case c < 4: // active, positive multiplier
			addRow(ain, row)
			bin = append(bin, ax)
			yin = append(yin, rng.Float64()+0.1)
		case c < 5: // weakly active
			addRow(ain, row)
			bin = append(bin, ax)
			yin = append(yin, 0)
		case c < 6: // duplicated active row
			y := rng.Float64() + 0.1
			addRow(ain, row)
			addRow(ain, row)
			bin = append(bin, ax, ax)
			yin = append(yin, y, 0.5*y)
		case c < 7: // parallel rows, different offsets (scaled copy)
			addRow(ain, row)
			bin = append(bin, ax)
			yin = append(yin, rng.Float64()+0.1)
			s := 0.5 + rng.Float64()
			scaled := map[int]float64{}
			for _, j := range sortedKeys(row) {
				scaled[j] = s * row[j]
			}
			addRow(ain, scaled)
			bin = append(bin, s*ax-1)
			yin = append(yin, 0)
		default: // inactive
			addRow(ain, row)
			bin = append(bin, ax-rng.Float64()-0.01)
			yin = append(yin, 0)
		}
	}
	q.ain, q.bin = ain, bin
	// equality rows with a redundant (duplicated and combined) part
	me := n / 10
	aeq := &triplets{c: n}
	var beq, yeq []float64
	var rowsEq []map[int]float64
	for i := 0; i < me; i++ {
		row := randRow()
		rowsEq = append(rowsEq, row)
		addRow(aeq, row)
		beq = append(beq, rowDot(row))
		yeq = append(yeq, rng.NormFloat64())
	}
	if me >= 2 {
		addRow(aeq, rowsEq[0])
		beq = append(beq, rowDot(rowsEq[0]))
		yeq = append(yeq, 0)
		comb := map[int]float64{}
		for _, j := range sortedKeys(rowsEq[0]) {
			comb[j] += 2 * rowsEq[0][j]
		}
		for _, j := range sortedKeys(rowsEq[1]) {
			comb[j] -= rowsEq[1][j]
		}
		addRow(aeq, comb)
		beq = append(beq, rowDot(comb))
		yeq = append(yeq, 0)
	}
	if aeq.r > 0 {
		q.aeq, q.beq = aeq, beq
	}
	// F = H x0 - Aeq^T yeq - Ain^T yin
	f := q.h.mul(x0)
	if q.aeq != nil {
		g := q.aeq.mulT(yeq)
		for i := range f {
			f[i] -= g[i]
		}
	}
	g := q.ain.mulT(yin)
	for i := range f {
		f[i] -= g[i]
	}
	q.f = f
	q.obj = q.objective(x0)
	q.x0, q.y0eq, q.y0in = x0, yeq, yin
	return q
}
