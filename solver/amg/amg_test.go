package amg

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"

	"github.com/loomsim/loom/solver/internal/testrun"
	"github.com/loomsim/loom/solver/sparse"
)

// springSheet returns M + h^2 K for an nx x ny triangulated sheet of unit
// masses joined by springs of stiffness k along its edges (K_e = k d d^T on
// the edge direction d, plus eps k I, a stand-in for bending), the sheet
// lying in the plane with out-of-plane noise: a cloth-like SPD matrix built
// without the solver's code.
func springSheet(nx, ny int, k, eps float64, rng *rand.Rand) *sparse.BSR {
	A, _ := springSheetAt(nx, ny, k, eps, rng)
	return A
}

// springSheetAt is springSheet that also returns the vertex positions (3n).
func springSheetAt(nx, ny int, k, eps float64, rng *rand.Rand) (*sparse.BSR, []float64) {
	return hingeSheetAt(nx, ny, k, eps, 0, rng)
}

// hingeSheetAt is springSheetAt plus, for kb > 0, a stand-in for bending
// hinges: for every three consecutive vertices a, b, c of a grid row or
// column the energy kb/2 (z_a - 2 z_b + z_c)^2, whose Hessian couples a and
// c (two edges apart) by the positive block kb e_z e_z^T only, as a
// hinge's wing tips are coupled.
func hingeSheetAt(nx, ny int, k, eps, kb float64, rng *rand.Rand) (*sparse.BSR, []float64) {
	n := nx * ny
	pos := make([][3]float64, n)
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			pos[j*nx+i] = [3]float64{float64(i), float64(j), 0.1 * rng.Float64()}
		}
	}
	blocks := make([]map[int][9]float64, n)
	for i := range blocks {
		blocks[i] = map[int][9]float64{i: {1, 0, 0, 0, 1, 0, 0, 0, 1}}
	}
	add := func(a, b int, m [9]float64, s float64) {
		v := blocks[a][b]
		for e := range v {
			v[e] += s * m[e]
		}
		blocks[a][b] = v
	}
	spring := func(a, b int) {
		var d [3]float64
		l := 0.0
		for c := range d {
			d[c] = pos[b][c] - pos[a][c]
			l += d[c] * d[c]
		}
		l = math.Sqrt(l)
		var m [9]float64
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				m[3*r+c] = k * d[r] * d[c] / (l * l)
			}
			m[4*r] += eps * k
		}
		add(a, a, m, 1)
		add(b, b, m, 1)
		add(a, b, m, -1)
		add(b, a, m, -1)
	}
	hinge := func(a, b, c int) {
		w := [3]float64{1, -2, 1}
		for r, p := range [3]int{a, b, c} {
			for q, u := range [3]int{a, b, c} {
				var m [9]float64
				m[8] = kb * w[r] * w[q]
				add(p, u, m, 1)
			}
		}
	}
	for j := 0; j < ny && kb > 0; j++ {
		for i := 0; i < nx; i++ {
			v := j*nx + i
			if i+2 < nx {
				hinge(v, v+1, v+2)
			}
			if j+2 < ny {
				hinge(v, v+nx, v+2*nx)
			}
		}
	}
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			v := j*nx + i
			if i+1 < nx {
				spring(v, v+1)
			}
			if j+1 < ny {
				spring(v, v+nx)
			}
			if i+1 < nx && j+1 < ny {
				spring(v, v+nx+1)
			}
		}
	}
	A := &sparse.BSR{N: n, RowPtr: make([]int32, n+1), Diag: make([]int32, n)}
	for i, row := range blocks {
		cols := make([]int, 0, len(row))
		for c := range row {
			cols = append(cols, c)
		}
		slices.Sort(cols)
		for _, c := range cols {
			if c == i {
				A.Diag[i] = int32(len(A.Col))
			}
			b := row[c]
			A.Col = append(A.Col, int32(c))
			A.Val = append(A.Val, b[:]...)
		}
		A.RowPtr[i+1] = int32(len(A.Col))
	}
	x := make([]float64, 0, 3*n)
	for _, p := range pos {
		x = append(x, p[:]...)
	}
	return A, x
}

// maxDiff returns max |x - ref| and max |ref|.
func maxDiff(x, ref []float64) (diff, norm float64) {
	for i := range x {
		diff = max(diff, math.Abs(x[i]-ref[i]))
		norm = max(norm, math.Abs(ref[i]))
	}
	return diff, norm
}

func randVec(n int, rng *rand.Rand) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	return v
}

func newPrecond(t *testing.T, o Options, r sparse.Runner, A *sparse.BSR) *Preconditioner {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Setup(r, A, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

func smallOptions(s Smoother) Options {
	o := DefaultOptions()
	o.Smoother = s
	o.MaxCoarse = 20 // three levels on the test sheets
	return o
}

// TestVCycleSymmetricPositive checks x^T M^-1 y = y^T M^-1 x and
// x^T M^-1 x > 0 on random vectors, for both smoothers: what PCG needs.
func TestVCycleSymmetricPositive(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	A := spring40(rng)
	for _, sm := range []Smoother{GaussSeidel, Jacobi} {
		p := newPrecond(t, smallOptions(sm), sparse.Serial{}, A)
		if len(p.Levels()) < 3 {
			t.Fatalf("smoother %d: %d levels, want >= 3", sm, len(p.Levels()))
		}
		vcycleSymmetricPositive(t, p, 3*A.N, rng)
	}
}

// vcycleSymmetricPositive checks y^T M^-1 x = x^T M^-1 y and x^T M^-1 x > 0
// for five pairs of random vectors of length n.
func vcycleSymmetricPositive(t *testing.T, p *Preconditioner, n int, rng *rand.Rand) {
	t.Helper()
	mx, my := make([]float64, n), make([]float64, n)
	for trial := 0; trial < 5; trial++ {
		x, y := randVec(n, rng), randVec(n, rng)
		p.Apply(sparse.Serial{}, x, mx)
		p.Apply(sparse.Serial{}, y, my)
		a, b := floats.Dot(y, mx), floats.Dot(x, my)
		scale := math.Sqrt(floats.Dot(x, mx) * floats.Dot(y, my))
		if math.Abs(a-b) > 1e-12*scale {
			t.Errorf("smoother %d: y^T M x = %.17g, x^T M y = %.17g", p.opt.Smoother, a, b)
		}
		if floats.Dot(x, mx) <= 0 {
			t.Errorf("smoother %d: x^T M x = %g", p.opt.Smoother, floats.Dot(x, mx))
		}
	}
}

func spring40(rng *rand.Rand) *sparse.BSR { return springSheet(40, 30, 2500, 1e-3, rng) }

// TestLaggedAfterSetup: Apply is the V-cycle of the matrix Setup was given
// even after that matrix's values change (scaled and overwritten in place,
// as the next step's fill does), for every smoother and sweep count; so a
// lagged preconditioner stays the same SPD operator.
func TestLaggedAfterSetup(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, o := range []Options{smallOptions(GaussSeidel), smallOptions(Jacobi), func() Options {
		o := smallOptions(GaussSeidel)
		o.Sweeps = 2
		return o
	}()} {
		A := spring40(rng)
		p := newPrecond(t, o, sparse.Serial{}, A)
		x := randVec(3*A.N, rng)
		before, after := make([]float64, len(x)), make([]float64, len(x))
		p.Apply(sparse.Serial{}, x, before)
		for i := range A.Val {
			A.Val[i] *= 3
		}
		p.Apply(sparse.Serial{}, x, after)
		for i := range before {
			if math.Float64bits(before[i]) != math.Float64bits(after[i]) {
				t.Fatalf("smoother %d, %d sweeps: entry %d moved from %v to %v when A changed after Setup", o.Smoother, o.Sweeps, i, before[i], after[i])
			}
		}
	}
}

// TestDeterministicAcrossWorkers: setup and V-cycle are bitwise identical
// serially and on 1, 2 and 8 workers with work stealing.
func TestDeterministicAcrossWorkers(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	A := spring40(rng)
	b := randVec(3*A.N, rng)
	run := func(r sparse.Runner) []float64 {
		p := newPrecond(t, smallOptions(GaussSeidel), r, A)
		z := make([]float64, len(b))
		p.Apply(r, b, z)
		pcg := sparse.NewPCG(A.N)
		pcg.SetPreconditioner(p)
		x := make([]float64, len(b))
		if _, err := pcg.Solve(r, A, b, x, nil, nil, 1e-10, 500); err != nil {
			t.Fatal(err)
		}
		return append(z, x...)
	}
	ref := run(sparse.Serial{})
	for _, w := range []int{1, 2, 8} {
		got := run(testrun.Chunked{Workers: w, Grain: 7})
		for i := range ref {
			if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
				t.Fatalf("%d workers: entry %d = %v, serial %v", w, i, got[i], ref[i])
			}
		}
	}
}

// TestPCGMatchesBlockJacobi solves the same system with AMG and with
// block-Jacobi PCG: the same solution to the tolerance, in far fewer
// iterations (measured at 1e-10 on this sheet: block-Jacobi 497, AMG 41
// with Gauss-Seidel and 55 with Jacobi smoothing).
func TestPCGMatchesBlockJacobi(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	A := spring40(rng)
	n := A.N
	b := randVec(3*n, rng)
	bj := sparse.NewPCG(n)
	xbj := make([]float64, 3*n)
	rbj, err := bj.Solve(sparse.Serial{}, A, b, xbj, nil, nil, 1e-10, 5000)
	if err != nil || !rbj.Converged {
		t.Fatal(rbj, err)
	}
	for _, sm := range []Smoother{GaussSeidel, Jacobi} {
		p := newPrecond(t, smallOptions(sm), sparse.Serial{}, A)
		pcg := sparse.NewPCG(n)
		pcg.SetPreconditioner(p)
		x := make([]float64, 3*n)
		res, err := pcg.Solve(sparse.Serial{}, A, b, x, nil, nil, 1e-10, 5000)
		if err != nil || !res.Converged {
			t.Fatal(res, err)
		}
		if diff, norm := maxDiff(x, xbj); diff > 1e-7*norm {
			t.Errorf("smoother %d: max |x_amg - x_bj| = %g (max |x| %g)", sm, diff, norm)
		}
		if 4*res.Iterations >= rbj.Iterations {
			t.Errorf("smoother %d: %d iterations, block-Jacobi %d: want fewer than a quarter", sm, res.Iterations, rbj.Iterations)
		}
		t.Logf("smoother %d: %d iterations, block-Jacobi %d, levels %v", sm, res.Iterations, rbj.Iterations, p.Levels())
	}
}

// TestPatternChange: a Setup on a matrix of another pattern (a remeshed
// sheet) rebuilds the hierarchy; the result equals a fresh preconditioner's
// bitwise, and going back to the first pattern works as well.
func TestPatternChange(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	A1 := spring40(rng)
	A2 := springSheet(25, 33, 1000, 1e-3, rng)
	p := newPrecond(t, smallOptions(GaussSeidel), sparse.Serial{}, A1)
	for _, A := range []*sparse.BSR{A2, A1} {
		if err := p.Setup(sparse.Serial{}, A, nil); err != nil {
			t.Fatal(err)
		}
		q := newPrecond(t, smallOptions(GaussSeidel), sparse.Serial{}, A)
		b := randVec(3*A.N, rng)
		z1, z2 := make([]float64, len(b)), make([]float64, len(b))
		p.Apply(sparse.Serial{}, b, z1)
		q.Apply(sparse.Serial{}, b, z2)
		if !slices.Equal(z1, z2) {
			t.Fatalf("after a pattern change the V-cycle differs from a fresh one")
		}
	}
}

// TestKeepProlongator: with KeepProlongator a new Setup on changed values
// keeps P (only the Galerkin products are refreshed); the cycle is still a
// symmetric preconditioner PCG converges with.
func TestKeepProlongator(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	A := spring40(rng)
	o := smallOptions(GaussSeidel)
	o.KeepProlongator = true
	p := newPrecond(t, o, sparse.Serial{}, A)
	P := slices.Clone(p.levels[0].p.val)
	A = spring40(rand.New(rand.NewPCG(9, 11))) // same pattern, other values
	if err := p.Setup(sparse.Serial{}, A, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(P, p.levels[0].p.val) {
		t.Fatal("KeepProlongator: P changed")
	}
	pcg := sparse.NewPCG(A.N)
	pcg.SetPreconditioner(p)
	b := randVec(3*A.N, rng)
	x := make([]float64, len(b))
	if res, err := pcg.Solve(sparse.Serial{}, A, b, x, nil, nil, 1e-8, 200); err != nil || !res.Converged {
		t.Fatal(res, err)
	}
}

// TestBadInput: a matrix that is not SPD and bad options are errors.
func TestBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	A := spring40(rng)
	A.Val[9*A.Diag[17]] = -5
	p, err := New(smallOptions(GaussSeidel))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Setup(sparse.Serial{}, A, nil); err == nil {
		t.Error("Setup accepted a matrix with a negative diagonal entry")
	}
	for _, o := range []Options{{Theta: -1, MaxCoarse: 1, Sweeps: 1, Damping: 1}, {MaxCoarse: 0, Sweeps: 1, Damping: 1},
		{MaxCoarse: 1, Sweeps: 0, Damping: 1}, {MaxCoarse: 1, Sweeps: 1, Damping: 2}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

// TestRigidModes: with coordinates and RotationLevels, the tentative
// prolongator of the first level is orthonormal per aggregate and
// reproduces the six rigid modes exactly (B = P_tent R, the next level's
// near-null space R); PCG with it converges to block-Jacobi's solution in
// fewer iterations than with the translations alone.
func TestRigidModes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	A, x := springSheetAt(40, 30, 2500, 1e-3, rng)
	o := smallOptions(GaussSeidel)
	o.RotationLevels = 2
	p := newPrecond(t, o, sparse.Serial{}, A)
	p.Setup(sparse.Serial{}, A, x)
	l := p.levels[0]
	if l.m != 6 || l.p.cols <= len(l.cfirst)-1 {
		t.Fatalf("m = %d, %d coarse nodes for %d aggregates: no rotations", l.m, l.p.cols, len(l.cfirst)-1)
	}
	// P_tent R = B, row by row.
	for i := 0; i < A.N; i++ {
		g := l.agg[i]
		for a := 0; a < 3; a++ {
			for j := 0; j < 6; j++ {
				s := 0.0
				for c := int32(0); c < l.tentOff[i+1]-l.tentOff[i]; c++ {
					for e := 0; e < 3; e++ {
						s += l.tent[9*int(l.tentOff[i]+c)+3*a+e] * l.bnext[18*int(l.cfirst[g]+c)+6*e+j]
					}
				}
				if want := l.bnull[18*i+6*a+j]; math.Abs(s-want) > 1e-12 {
					t.Fatalf("node %d row %d mode %d: P_tent R = %g, B = %g", i, a, j, s, want)
				}
			}
		}
	}
	// Q_g^T Q_g = I.
	for g := range len(l.cfirst) - 1 {
		rows := 3 * int(l.aggPtr[g+1]-l.aggPtr[g])
		q := l.qloc[l.qOff[g]:l.qOff[g+1]]
		nc := len(q) / rows
		for c := 0; c < nc; c++ {
			for d := 0; d < nc; d++ {
				want := 0.0
				if c == d {
					want = 1
				}
				if got := floats.Dot(q[c*rows:(c+1)*rows], q[d*rows:(d+1)*rows]); math.Abs(got-want) > 1e-12 {
					t.Fatalf("aggregate %d: q_%d . q_%d = %g", g, c, d, got)
				}
			}
		}
	}
	b := randVec(3*A.N, rng)
	solve := func(pre sparse.Preconditioner) ([]float64, int) {
		pcg := sparse.NewPCG(A.N)
		if pre != nil {
			pcg.SetPreconditioner(pre)
		}
		z := make([]float64, len(b))
		res, err := pcg.Solve(sparse.Serial{}, A, b, z, nil, nil, 1e-10, 5000)
		if err != nil || !res.Converged {
			t.Fatal(res, err)
		}
		return z, res.Iterations
	}
	xbj, _ := solve(nil)
	xt, it := solve(newPrecond(t, smallOptions(GaussSeidel), sparse.Serial{}, A))
	xr, ir := solve(p)
	for i := range xbj {
		if math.Abs(xr[i]-xbj[i]) > 1e-7*floats.Norm(xbj, math.Inf(1)) || math.Abs(xt[i]-xbj[i]) > 1e-7*floats.Norm(xbj, math.Inf(1)) {
			t.Fatalf("entry %d: rotations %g, translations %g, block-Jacobi %g", i, xr[i], xt[i], xbj[i])
		}
	}
	if ir >= it {
		t.Errorf("rotations: %d iterations, translations %d: want fewer", ir, it)
	}
	t.Logf("iterations: translations %d, rotations %d, levels %v", it, ir, p.Levels())
}

// TestWeakDrop: on a sheet whose hinges couple vertices two edges apart
// by weak blocks (relative strength 1e-3, yet the size of the out-of-plane
// diagonal), the finest level's filtered operator A^F leaves exactly those
// blocks out, its lumped diagonal keeps A's action on the translations (the
// dropped blocks are symmetric), the sweeps read the other blocks, the
// smoothed prolongator reaches only the kept neighbours' aggregates, the
// V-cycle stays symmetric positive definite, and PCG reaches block-Jacobi's
// solution.
func TestWeakDrop(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	const nx, ny = 40, 30
	A, _ := hingeSheetAt(nx, ny, 2500, 1e-3, 10, rng)
	full := smallOptions(GaussSeidel)
	full.WeakDrop = 0
	p0 := newPrecond(t, full, sparse.Serial{}, A)
	p := newPrecond(t, smallOptions(GaussSeidel), sparse.Serial{}, A)
	l := p.levels[0]
	wantDrop := 2 * ((nx-2)*ny + nx*(ny-2))
	if len(l.dropped) != wantDrop {
		t.Fatalf("%d blocks dropped, want the %d hinge-tip couplings", len(l.dropped), wantDrop)
	}
	for i := 0; i < A.N; i++ {
		for _, k := range l.dropped[l.dropPtr[i]:l.dropPtr[i+1]] {
			if d := int(A.Col[k]) - i; d != 2 && d != -2 && d != 2*nx && d != -2*nx {
				t.Fatalf("row %d: dropped block of column %d, not a hinge tip", i, A.Col[k])
			}
		}
	}
	if len(p0.levels[0].dropped) != 0 {
		t.Fatalf("WeakDrop 0 dropped %d blocks", len(p0.levels[0].dropped))
	}
	// The smoother's operator D~ + L + U on a translation equals A's: the
	// lumping keeps each row's block sum.
	for i := 0; i < A.N; i++ {
		var got, want [9]float64
		copy(got[:], l.diagF[9*i:9*i+9])
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			for e := range want {
				want[e] += A.Val[9*int(k)+e]
			}
		}
		dropped := map[int32]bool{}
		for _, k := range l.dropped[l.dropPtr[i]:l.dropPtr[i+1]] {
			dropped[k] = true
		}
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			if k != A.Diag[i] && !dropped[k] {
				for e := range got {
					got[e] += A.Val[9*int(k)+e]
				}
			}
		}
		for e := range got {
			if math.Abs(got[e]-want[e]) > 1e-12*frob(A.Val[9*int(A.Diag[i]):]) {
				t.Fatalf("row %d: smoother's block sum %v, A's %v", i, got, want)
			}
		}
	}
	if got, want := len(l.gsL.col)+len(l.gsU.col), len(A.Col)-A.N-wantDrop; got != want {
		t.Errorf("the sweeps read %d off-diagonal blocks, want %d", got, want)
	}
	// P's row i reaches the aggregates of i and its kept neighbours only
	// (P = (I - omega D_F^-1 A^F) P_tent), and fewer blocks than without the drop.
	for i := 0; i < A.N; i++ {
		want := map[int32]bool{}
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			if d := int(A.Col[k]) - i; d != 2 && d != -2 && d != 2*nx && d != -2*nx {
				want[l.cfirst[l.agg[A.Col[k]]]] = true
			}
		}
		got := l.p.col[l.p.rowPtr[i]:l.p.rowPtr[i+1]]
		if len(got) != len(want) {
			t.Fatalf("row %d of P: coarse nodes %v, want those of the aggregates %v", i, got, want)
		}
		for _, c := range got {
			if !want[c] {
				t.Fatalf("row %d of P: coarse node %d outside the kept neighbours' aggregates", i, c)
			}
		}
	}
	if nb, nb0 := len(l.p.col), len(p0.levels[0].p.col); nb >= nb0 {
		t.Errorf("P has %d blocks with the drop, %d without: want fewer", nb, nb0)
	}
	vcycleSymmetricPositive(t, p, 3*A.N, rng)
	b := randVec(3*A.N, rng)
	bj := sparse.NewPCG(A.N)
	xbj := make([]float64, 3*A.N)
	if res, err := bj.Solve(sparse.Serial{}, A, b, xbj, nil, nil, 1e-10, 10000); err != nil || !res.Converged {
		t.Fatal(res, err)
	}
	its := [2]int{}
	for k, pre := range []*Preconditioner{p0, p} {
		pcg := sparse.NewPCG(A.N)
		pcg.SetPreconditioner(pre)
		x := make([]float64, 3*A.N)
		res, err := pcg.Solve(sparse.Serial{}, A, b, x, nil, nil, 1e-10, 5000)
		if err != nil || !res.Converged {
			t.Fatal(res, err)
		}
		if diff, norm := maxDiff(x, xbj); diff > 1e-7*norm {
			t.Errorf("drop %v: max |x_amg - x_bj| = %g (max |x| %g)", pre.opt.WeakDrop, diff, norm)
		}
		its[k] = res.Iterations
	}
	t.Logf("PCG iterations: %d with A whole, %d with the hinge tips filtered out; colours %d -> %d",
		its[0], its[1], len(p0.levels[0].colorPtr)-1, len(l.colorPtr)-1)
}

// permuted returns P A P^T: row and column i of A become perm[i].
func permuted(A *sparse.BSR, perm []int) *sparse.BSR {
	n := A.N
	inv := make([]int, n)
	for i, p := range perm {
		inv[p] = i
	}
	B := &sparse.BSR{N: n, RowPtr: make([]int32, n+1), Diag: make([]int32, n)}
	for r := 0; r < n; r++ {
		i := inv[r]
		type blk struct {
			c int
			k int32
		}
		var row []blk
		for k := A.RowPtr[i]; k < A.RowPtr[i+1]; k++ {
			row = append(row, blk{perm[A.Col[k]], k})
		}
		slices.SortFunc(row, func(a, b blk) int { return a.c - b.c })
		for _, e := range row {
			if e.c == r {
				B.Diag[r] = int32(len(B.Col))
			}
			B.Col = append(B.Col, int32(e.c))
			B.Val = append(B.Val, A.Val[9*e.k:9*e.k+9]...)
		}
		B.RowPtr[r+1] = int32(len(B.Col))
	}
	return B
}

// TestSerialLevel checks which levels run their V-cycle kernels serially
// (serialLevel): a small sheet in grid order runs in parallel, the same
// sheet with its vertices shuffled (a remeshed cloth's order) serially,
// and a large shuffled one in parallel; on the shuffled sheet the
// preconditioner is bitwise the same on any Runner.
func TestSerialLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	grid := spring40(rng)
	shuffled := permuted(grid, rng.Perm(grid.N))
	big := springSheet(80, 60, 2500, 1e-3, rng)
	big = permuted(big, rng.Perm(big.N))
	for _, c := range []struct {
		name   string
		A      *sparse.BSR
		serial bool
	}{{"grid 40x30", grid, false}, {"shuffled 40x30", shuffled, true}, {"shuffled 80x60", big, false}} {
		p := newPrecond(t, DefaultOptions(), sparse.Serial{}, c.A)
		if len(p.levels) == 0 {
			t.Fatalf("%s: no levels", c.name)
		}
		if got := p.levels[0].serial; got != c.serial {
			t.Errorf("%s (%d rows): finest level serial = %v, want %v", c.name, c.A.N, got, c.serial)
		}
	}
	b := randVec(3*shuffled.N, rng)
	apply := func(r sparse.Runner) []float64 {
		p := newPrecond(t, DefaultOptions(), r, shuffled)
		z := make([]float64, len(b))
		p.Apply(r, b, z)
		return z
	}
	ref := apply(sparse.Serial{})
	got := apply(testrun.Chunked{Workers: 4, Grain: 7})
	for i := range ref {
		if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
			t.Fatalf("entry %d = %v on 4 workers, %v serially", i, got[i], ref[i])
		}
	}
}
