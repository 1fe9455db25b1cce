package developable

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestJacobianFD compares J (rigidity rows at a random configuration,
// linear rows constant) with central differences of C, and J M^-1 J^T as
// assembled with the dense product of that J.
func TestJacobianFD(t *testing.T) {
	m, x0 := grid(t, 5, 1)
	b, err := NewBody(m, x0, Params{Density: 0.3, Dt: 0.01, Tolerance: 1e-4, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	k := b.Constraints
	if err := k.SetPins([]Pin{{3, [3]float64{0.1, 0.2, 0.3}}}); err != nil {
		t.Fatal(err)
	}
	if err := k.SetContacts([]Contact{{7, [3]float64{0.6, 0, 0.8}, 0.2}, {12, [3]float64{0, 1, 0}, -0.1}}); err != nil {
		t.Fatal(err)
	}
	// A conforming configuration (midpoints of moved vertices), where the
	// conformity rows' frozen directions are exact, off the rigid rest.
	rng := rand.New(rand.NewPCG(1, 2))
	xv := append([]float64(nil), x0...)
	for i := range xv {
		xv[i] += 0.05 * rng.NormFloat64()
	}
	x := m.Midpoints(xv)
	nr, nx := k.NumRows(), len(x)
	k.Eval(x, make([]float64, nr))
	k.jacobian(x)
	dense := make([][]float64, nr)
	for r := range nr {
		dense[r] = make([]float64, nx)
		for a := k.rowStart[r]; a < k.rowStart[r+1]; a++ {
			for c := range 3 {
				dense[r][3*int(k.entEdge[a])+c] += k.jv[3*int(a)+c]
			}
		}
	}
	cp, cm := make([]float64, nr), make([]float64, nr)
	const h = 1e-6
	worst := 0.0
	for i := range nx {
		shifted(x, i, h, func(plus bool) {
			if plus {
				k.Eval(x, cp)
			} else {
				k.Eval(x, cm)
			}
		})
		for r := range nr {
			fd := (cp[r] - cm[r]) / (2 * h)
			worst = math.Max(worst, math.Abs(fd-dense[r][i]))
		}
	}
	if worst > 1e-6 {
		t.Fatalf("J differs from central differences of C by %g", worst)
	}
	if err := k.factorS(); err != nil {
		t.Fatal(err)
	}
	// The diagonal carries the regularization shift: regularization times
	// the mean of the product's diagonal.
	want := make([][]float64, nr)
	mean := 0.0
	for r := range nr {
		want[r] = make([]float64, r+1)
		for s := 0; s <= r; s++ {
			for i := range nx {
				want[r][s] += dense[r][i] * dense[s][i] * k.invM[i/3]
			}
		}
		mean += want[r][r] / float64(nr)
	}
	worst = 0
	for r := range nr {
		want[r][r] += regularization * mean
		for s := 0; s <= r; s++ {
			worst = math.Max(worst, math.Abs(k.s.At(r, s)-want[r][s]))
		}
	}
	if worst > 1e-9 {
		t.Fatalf("J M^-1 J^T differs from the dense product by %g", worst)
	}
}

// rankDeficiency returns how many of J's rows (at x) are linearly
// dependent on the others: NumRows minus the rank found by Gaussian
// elimination with full pivoting, pivots under 1e-9 of the largest entry
// counting as zero.
func rankDeficiency(k *Constraints, x []float64) int {
	nr, nx := k.NumRows(), len(x)
	k.Eval(x, make([]float64, nr))
	k.jacobian(x)
	a := make([][]float64, nr)
	big := 0.0
	for r := range nr {
		a[r] = make([]float64, nx)
		for e := k.rowStart[r]; e < k.rowStart[r+1]; e++ {
			for c := range 3 {
				a[r][3*int(k.entEdge[e])+c] += k.jv[3*int(e)+c]
			}
		}
		for _, v := range a[r] {
			big = math.Max(big, math.Abs(v))
		}
	}
	rank := 0
	for ; rank < nr; rank++ {
		pr, pc, best := -1, -1, 1e-9*big
		for r := rank; r < nr; r++ {
			for c, v := range a[r] {
				if math.Abs(v) > best {
					pr, pc, best = r, c, math.Abs(v)
				}
			}
		}
		if pr < 0 {
			break
		}
		a[rank], a[pr] = a[pr], a[rank]
		for r := rank + 1; r < nr; r++ {
			f := a[r][pc] / a[rank][pc]
			for c := range a[r] {
				a[r][c] -= f * a[rank][c]
			}
		}
	}
	return nr - rank
}

// TestFlatRedundancy documents why J M^-1 J^T needs its regularization
// shift and why the projection converges slowly at tight tolerances on
// nearly flat sheets: at a flat configuration the rows act in the plane
// and across it separately, and in the plane the 3F rigidity rows and the
// one in-plane row of each of the P border pairs outnumber what the 2E
// in-plane coordinates less the 3 rigid motions can take, so at least
// 3F + P - (2E - 3) rows are dependent (first-order redundant: a flat
// in-plane error that they disagree on is removed only by moving out of
// the plane, by its square root). Off the plane, at a generic conforming
// configuration, most of that dependency is gone (1 or 2 rows remain).
func TestFlatRedundancy(t *testing.T) {
	for _, n := range []int{4, 5} {
		m, x0 := grid(t, n, 1)
		b, err := NewBody(m, x0, Params{Density: 0.3, Dt: 0.01, Tolerance: 1e-4, MaxIter: 5})
		if err != nil {
			t.Fatal(err)
		}
		k := b.Constraints
		if err := k.SetPins(nil); err != nil {
			t.Fatal(err)
		}
		count := 3*len(m.Faces) + len(k.pairs) - (2*m.NumEdges() - 3)
		flat := rankDeficiency(k, m.Midpoints(x0))
		rng := rand.New(rand.NewPCG(3, 4))
		xv := append([]float64(nil), x0...)
		for i := range xv {
			xv[i] += 0.05 * rng.NormFloat64()
		}
		bent := rankDeficiency(k, m.Midpoints(xv))
		if flat != count {
			t.Errorf("%dx%d grid, flat: %d dependent rows, want 3F + P - (2E - 3) = %d", n, n, flat, count)
		}
		if bent >= flat {
			t.Errorf("%dx%d grid: %d dependent rows bent, %d flat: want fewer bent", n, n, bent, flat)
		}
		t.Logf("%dx%d grid: %d rows; dependent: %d flat, %d bent", n, n, k.NumRows(), flat, bent)
	}
}

// TestContactRows moves the centre vertex of a 5x5 sheet rolled onto a
// cylinder with a contact row and projects: the faces must end rigid and
// the ghost vertex (A x_n, through Ghost.Map) on the contact plane. Then
// it projects again with a superset pattern, where a second vertex (and
// the faces' vertices around both) have rows out of contact (zero rows),
// and the result must match the projection whose pattern never had them
// to 1 um (a row still holding vertex 6 at its old target 0 would move it
// by 17 mm). The sheet is rolled because flat, J M^-1 J^T is nearly
// singular and the regularization shift, which the zero rows change
// through the mean diagonal, steers the projection's path (by 0.1 mm).
func TestContactRows(t *testing.T) {
	const (
		tol    = 1e-9
		R      = 0.5
		target = 0.05
		centre = 12
	)
	c := Contact{Vertex: centre, Normal: [3]float64{0, 1, 0}, Target: target}
	project := func(sets ...[]Contact) ([]float64, *Constraints) {
		m, x0 := grid(t, 5, 1)
		for v := 0; v < len(x0); v += 3 { // rolled onto a cylinder of radius R
			u := x0[v]
			x0[v], x0[v+1] = R*math.Sin(u/R), R*(1-math.Cos(u/R))
		}
		b, err := NewBody(m, x0, Params{Density: 0.3, Dt: 0.01, Tolerance: tol, MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		for _, cs := range sets {
			if err := b.Constraints.SetContacts(cs); err != nil {
				t.Fatal(err)
			}
		}
		x := append([]float64(nil), b.X...)
		if _, err := b.Constraints.Project(x, tol, 200); err != nil {
			t.Fatal(err)
		}
		if e := m.InPlaneError(x); e > tol {
			t.Errorf("in-plane error %g after projection, want <= %g", e, tol)
		}
		xc := make([]float64, 3*m.NumVerts)
		b.Ghost.Map(x, xc)
		if got := xc[3*centre+1]; math.Abs(got-target) > tol*m.MeanEdge {
			t.Errorf("ghost vertex %d at y = %g, want %g", centre, got, target)
		}
		return xc, b.Constraints
	}
	fresh, k := project([]Contact{c})
	rows := k.NumRows()
	super, k := project([]Contact{{6, [3]float64{0, 1, 0}, 0}, c}, []Contact{c})
	if k.NumRows() <= rows {
		t.Errorf("superset pattern has %d rows, the fresh one %d: want more (zero rows)", k.NumRows(), rows)
	}
	worst := 0.0
	for i := range fresh {
		worst = math.Max(worst, math.Abs(fresh[i]-super[i]))
	}
	if worst > 1e-6 {
		t.Errorf("superset pattern's projection differs from the fresh one's by %g m", worst)
	}
	t.Logf("ghost mesh with and without the zero row differs by %.3g m; vertex 6 at y = %.4g m", worst, super[3*6+1])
}

// TestPauseResume checks that a projection paused at a loose tolerance
// (ProjectUntil) and resumed (Resume) takes the steps and factorizations
// of an uninterrupted Project and ends at bitwise the same positions, that
// it pauses at a residual between the two tolerances, and that Resume
// without a pause is an error.
func TestPauseResume(t *testing.T) {
	m, x0 := grid(t, 9, 1)
	rng := rand.New(rand.NewPCG(4, 5))
	xv := append([]float64(nil), x0...)
	for i := range xv {
		xv[i] += 0.02 * rng.NormFloat64()
	}
	start := m.Midpoints(xv)
	for i := range start {
		start[i] += 0.01 * rng.NormFloat64() // off the conforming, rigid set
	}
	newBody := func() *Body {
		b, err := NewBody(m, x0, Params{Density: 0.3, Dt: 0.01, Tolerance: 1e-8, MaxIter: 200})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Constraints.SetPins([]Pin{{0, [3]float64{0, 0, 1}}}); err != nil {
			t.Fatal(err)
		}
		return b
	}
	// Two projections in a row, so the second starts with a kept factor.
	whole, parts := newBody(), newBody()
	for round := range 2 {
		x := append([]float64(nil), start...)
		for i := range x {
			x[i] += 0.003 * float64(round) * math.Sin(float64(i))
		}
		xa, xb := append([]float64(nil), x...), append([]float64(nil), x...)
		st, err := whole.Constraints.Project(xa, 1e-8, 200)
		if err != nil {
			t.Fatal(err)
		}
		p, err := parts.Constraints.ProjectUntil(xb, 1e-8, 1e-3, 200)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Paused || p.Residual > 1e-3 || p.Residual <= 1e-8 || p.Iterations == 0 {
			t.Fatalf("round %d: paused %v at residual %g after %d steps, want a pause in (1e-8, 1e-3]", round, p.Paused, p.Residual, p.Iterations)
		}
		r, err := parts.Constraints.Resume(xb, 1e-8, 200)
		if err != nil {
			t.Fatal(err)
		}
		if r.Paused || p.Iterations+r.Iterations != st.Iterations || p.Factors+r.Factors != st.Factors || r.Residual != st.Residual {
			t.Fatalf("round %d: paused %d steps (%d factors) + resumed %d (%d), residual %g; whole %d (%d), residual %g",
				round, p.Iterations, p.Factors, r.Iterations, r.Factors, r.Residual, st.Iterations, st.Factors, st.Residual)
		}
		for i := range xa {
			if math.Float64bits(xa[i]) != math.Float64bits(xb[i]) {
				t.Fatalf("round %d: x[%d] = %v resumed, %v whole", round, i, xb[i], xa[i])
			}
		}
		t.Logf("round %d: %d steps, %d factorizations, paused after %d at %.2g", round, st.Iterations, st.Factors, p.Iterations, p.Residual)
	}
	if _, err := parts.Constraints.Resume(start, 1e-8, 200); err == nil {
		t.Fatal("Resume without a paused projection: no error")
	}
}
