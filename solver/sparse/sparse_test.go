package sparse

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loomsim/loom/ecs"
	"gonum.org/v1/gonum/mat"
)

func TestPatternQuad(t *testing.T) {
	// Quad 0-1-2-3 split along 0-2, one hinge on the shared edge, vertex 4 isolated.
	groups := []ElementGroup{
		{Stride: 3, Verts: []int32{0, 1, 2, 0, 2, 3}},
		{Stride: 4, Verts: []int32{0, 2, 1, 3}},
	}
	p, err := NewPattern(5, groups)
	if err != nil {
		t.Fatal(err)
	}
	// Vertices 1 and 3 are coupled only through the hinge.
	wantCol := []int32{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 4}
	wantRow := []int32{0, 4, 8, 12, 16, 17}
	if !slices.Equal(p.RowPtr(), wantRow) || !slices.Equal(p.Col(), wantCol) {
		t.Fatalf("pattern rowPtr=%v col=%v", p.RowPtr(), p.Col())
	}
	for i, d := range p.Diag() {
		if p.Col()[d] != int32(i) {
			t.Fatalf("diag[%d]=%d points at column %d", i, d, p.Col()[d])
		}
	}
	if p.HessLen() != 2*81+144 || p.GradLen() != 2*9+12 {
		t.Fatalf("HessLen=%d GradLen=%d", p.HessLen(), p.GradLen())
	}
	if p.HessOffset(1, 0) != 162 || p.HessOffset(0, 1) != 81 || p.GradOffset(1, 0) != 18 || p.GradOffset(0, 1) != 9 {
		t.Fatal("offsets wrong")
	}
	// Triangles only: 1 and 3 are not coupled.
	p2, err := NewPattern(4, groups[:1])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p2.Col(), []int32{0, 1, 2, 3, 0, 1, 2, 0, 1, 2, 3, 0, 2, 3}) {
		t.Fatalf("col=%v", p2.Col())
	}
	// Assemble and compare with dense scatter.
	rng := rand.New(rand.NewPCG(1, 2))
	h := randomElemHess(p, groups, rng, false)
	A := p.NewMatrix()
	p.AssembleHessian(Serial{}, h, A)
	compareDense(t, toDense(A), denseHess(5, groups, p, h))
}

// TestPatternBuilder builds the patterns of meshes that grow and shrink, and
// one invalid mesh, with one builder, and checks that each pattern is
// NewPattern's, that each matrix is zero with the pattern's structure and
// assembles bit for bit like one from NewMatrix, and that a rebuild at a size
// built before allocates only the Pattern and BSR headers (unchecked under the
// race detector).
func TestPatternBuilder(t *testing.T) {
	var pb PatternBuilder
	rng := rand.New(rand.NewPCG(5, 6))
	var groups []ElementGroup
	n := 0
	for _, sz := range [][2]int{{6, 5}, {12, 9}, {4, 4}, {0, 0}, {12, 10}, {2, 1}, {9, 9}} {
		tris, hinges := gridMesh(sz[0], sz[1], rng)
		n = sz[0]*sz[1] + 2
		groups = []ElementGroup{{Stride: 3, Verts: tris, Form: Packed}, {Stride: 4, Verts: hinges, Form: Factor}}
		if _, _, err := pb.Build(Serial{}, n, []ElementGroup{{Stride: 3, Verts: []int32{0, 1, int32(n)}}}); err == nil {
			t.Fatal("Build accepted a vertex out of range")
		}
		want, err := NewPattern(n, groups)
		if err != nil {
			t.Fatal(err)
		}
		got, A, err := pb.Build(Serial{}, n, groups)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: Build's pattern differs from NewPattern's", sz)
		}
		if A.N != n || !slices.Equal(A.RowPtr, want.RowPtr()) || !slices.Equal(A.Col, want.Col()) || !slices.Equal(A.Diag, want.Diag()) || len(A.Val) != 9*want.NNZB() {
			t.Fatalf("%v: matrix structure differs from the pattern's", sz)
		}
		if slices.ContainsFunc(A.Val, func(v float64) bool { return v != 0 }) {
			t.Fatalf("%v: matrix is not zero", sz)
		}
		h := randomElemHess(want, groups, rng, false)
		B := want.NewMatrix()
		want.AssembleHessian(Serial{}, h, B)
		got.AssembleHessian(Serial{}, h, A)
		if !bitsEqual(A.Val, B.Val) {
			t.Fatalf("%v: assembled matrices differ", sz)
		}
	}
	if raceEnabled {
		return // sync.Pool, which holds Build's task, drops items under the race detector
	}
	if allocs := testing.AllocsPerRun(5, func() {
		if _, _, err := pb.Build(Serial{}, n, groups); err != nil {
			t.Fatal(err)
		}
	}); allocs > 2 {
		t.Fatalf("rebuild: %v allocations, want 2", allocs)
	}
}

// TestPatternBuilderRunners builds, with one builder per Runner (serial, ecs
// pools of 2 and 3 workers, and the test runners that split the rows in other
// ways), the patterns of a run of meshes whose topology changes from one build
// to the next, and checks each pattern against refPattern, bit for bit, and
// each matrix's structure against the pattern's.
func TestPatternBuilderRunners(t *testing.T) {
	pool2, pool3 := ecs.NewPool(2), ecs.NewPool(3)
	defer pool2.Close()
	defer pool3.Close()
	runners := append(testRunners(), namedRunner{"ecs2", pool2}, namedRunner{"ecs3", pool3})
	type mesh struct {
		n      int
		groups []ElementGroup
	}
	var meshes []mesh
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sz := range [][4]int{{30, 20, 3, 40}, {31, 20, 0, 60}, {12, 11, 0, 10}, {1, 1, 5, 0}, {0, 0, 0, 0}, {40, 35, 1, 100}, {40, 35, 1, 100}, {9, 8, 70, 30}} {
		n, groups := remeshedMesh(sz[0], sz[1], sz[2], sz[3], rng)
		meshes = append(meshes, mesh{n, groups})
	}
	for _, nr := range runners {
		var pb PatternBuilder
		for b, m := range meshes {
			got, A, err := pb.Build(nr.r, m.n, m.groups)
			if err != nil {
				t.Fatal(err)
			}
			if err := patternDiff(got, refPattern(m.n, m.groups)); err != nil {
				t.Fatalf("%s, build %d: %v", nr.name, b, err)
			}
			if A.N != m.n || !slices.Equal(A.RowPtr, got.RowPtr()) || !slices.Equal(A.Col, got.Col()) || !slices.Equal(A.Diag, got.Diag()) || len(A.Val) != 9*got.NNZB() {
				t.Fatalf("%s, build %d: matrix structure differs from the pattern's", nr.name, b)
			}
		}
	}
}

func compareDense(t *testing.T, got, want [][]float64) {
	t.Helper()
	scale := math.Max(maxAbs(want), 1e-300)
	for i := range want {
		for j := range want[i] {
			if d := math.Abs(got[i][j] - want[i][j]); d > 1e-12*scale {
				t.Fatalf("entry (%d,%d): got %v want %v", i, j, got[i][j], want[i][j])
			}
		}
	}
}

func TestAssembleHessianDense(t *testing.T) {
	for _, c := range []struct {
		psd            bool
		tris, hingesOf HessForm
	}{{false, Dense, Dense}, {true, Dense, Dense}, {false, Packed, Factor}, {true, Packed, Factor}, {true, Factor, Packed}} {
		psd := c.psd
		rng := rand.New(rand.NewPCG(3, 4))
		tris, hinges := gridMesh(7, 5, rng)
		n := 7*5 + 3 // three isolated vertices
		groups := []ElementGroup{{Stride: 3, Verts: tris, Form: c.tris}, {Stride: 4, Verts: hinges, Form: c.hingesOf}}
		p, err := NewPattern(n, groups)
		if err != nil {
			t.Fatal(err)
		}
		h := randomElemHess(p, groups, rng, psd)
		A := p.NewMatrix()
		for i := range A.Val {
			A.Val[i] = math.NaN() // must be overwritten
		}
		p.AssembleHessian(Serial{}, h, A)
		D := toDense(A)
		ref := denseHess(n, groups, p, h)
		compareDense(t, D, ref)
		// Every nonzero of the reference is in the pattern; columns sorted; diag present.
		for i := 0; i < n; i++ {
			cols := A.Col[A.RowPtr[i]:A.RowPtr[i+1]]
			if !slices.IsSorted(cols) || !slices.Contains(cols, int32(i)) {
				t.Fatalf("row %d cols %v", i, cols)
			}
		}
		if psd {
			for i := range D {
				for j := range D {
					if D[i][j] != D[j][i] {
						t.Fatalf("not symmetric at (%d,%d): %v vs %v", i, j, D[i][j], D[j][i])
					}
				}
			}
		}
	}
}

// TestHessForms checks that the Packed and Factor forms assemble the matrix the
// Dense form of the same element Hessians does, bit for bit: a Packed element
// stores the upper blocks of a symmetric Hessian, a Factor element u stands
// for the Dense Hessian with entries u_i u_j (each one product, as the
// assembly forms them).
func TestHessForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	tris, hinges := gridMesh(9, 6, rng)
	n := 9*6 + 2
	forms := []ElementGroup{{Stride: 3, Verts: tris, Form: Packed}, {Stride: 4, Verts: hinges, Form: Factor}}
	dense := []ElementGroup{{Stride: 3, Verts: tris}, {Stride: 4, Verts: hinges}}
	pf, err := NewPattern(n, forms)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := NewPattern(n, dense)
	if err != nil {
		t.Fatal(err)
	}
	if pf.HessLen() != len(tris)/3*54+len(hinges)/4*12 {
		t.Fatalf("HessLen %d", pf.HessLen())
	}
	for _, psd := range []bool{false, true} {
		hf := randomElemHess(pf, forms, rng, psd)
		hd := make([]float64, pd.HessLen())
		for g, grp := range forms {
			for e := 0; e < len(grp.Verts)/grp.Stride; e++ {
				copy(hd[pd.HessOffset(g, e):], elemDense(pf, g, grp, e, hf))
			}
		}
		A, B := pf.NewMatrix(), pd.NewMatrix()
		pf.AssembleHessian(Serial{}, hf, A)
		pd.AssembleHessian(Serial{}, hd, B)
		if !slices.Equal(A.Col, B.Col) || !bitsEqual(A.Val, B.Val) {
			t.Fatalf("psd=%v: Packed/Factor assembly differs from the Dense one", psd)
		}
	}
}

func TestAssembleGradientAndMulVec(t *testing.T) {
	s := newSystem(6, 6, 2, 0.3, 11)
	rng := rand.New(rand.NewPCG(5, 6))
	g := randVec(s.p.GradLen(), rng)
	out := make([]float64, 3*s.n)
	s.p.AssembleGradient(Serial{}, g, out)
	ref := make([]float64, 3*s.n)
	for gi, grp := range s.groups {
		k := grp.Stride
		for e := 0; e < len(grp.Verts)/k; e++ {
			o := s.p.GradOffset(gi, e)
			for a := 0; a < k; a++ {
				v := int(grp.Verts[e*k+a])
				for c := 0; c < 3; c++ {
					ref[3*v+c] += g[o+3*a+c]
				}
			}
		}
	}
	for i := range ref {
		if math.Abs(out[i]-ref[i]) > 1e-12*(1+math.Abs(ref[i])) {
			t.Fatalf("grad[%d]=%v want %v", i, out[i], ref[i])
		}
	}

	x := randVec(3*s.n, rng)
	y := make([]float64, 3*s.n)
	s.A.MulVec(Serial{}, x, y)
	D := toDense(s.A)
	// A = diag(mass) + h2*K must match the dense construction too.
	K := denseHess(s.n, s.groups, s.p, s.elemH)
	for i := range K {
		for j := range K[i] {
			K[i][j] *= 0.3
		}
		K[i][i] += s.mass[i]
	}
	compareDense(t, D, K)
	for i := range D {
		want := 0.0
		for j := range D[i] {
			want += D[i][j] * x[j]
		}
		if math.Abs(y[i]-want) > 1e-12*(1+math.Abs(want))*float64(len(x)) {
			t.Fatalf("MulVec[%d]=%v want %v", i, y[i], want)
		}
	}

	// Dot against a naive sum.
	for _, n := range []int{0, 1, 255, 256, 257, 1000, 3 * s.n} {
		a, b := randVec(n, rng), randVec(n, rng)
		part := make([]float64, PartialLen(n))
		got := Dot(splitRunner{3}, a, b, part)
		want := 0.0
		for i := range a {
			want += a[i] * b[i]
		}
		if math.Abs(got-want) > 1e-12*float64(n+1) {
			t.Fatalf("Dot n=%d: %v want %v", n, got, want)
		}
	}
}

func TestDeterminism(t *testing.T) {
	s := newSystem(40, 30, 5, 0.5, 21)
	rng := rand.New(rand.NewPCG(9, 9))
	g := randVec(s.p.GradLen(), rng)
	x := randVec(3*s.n, rng)
	b := randVec(3*s.n, rng)
	filter, z := randomFilter(s.n, rng)

	type result struct {
		hess, grad, mv, sol, solF []float64
		dot                       float64
		res, resF                 PCGResult
	}
	run := func(r Runner) result {
		var out result
		A := s.p.NewMatrix()
		s.p.AssembleHessian(r, s.elemH, A)
		A.ScaleAddDiagonal(r, 0.5, 1, s.mass)
		out.hess = A.Val
		out.grad = make([]float64, 3*s.n)
		s.p.AssembleGradient(r, g, out.grad)
		out.mv = make([]float64, 3*s.n)
		A.MulVec(r, x, out.mv)
		out.dot = Dot(r, x, out.mv, make([]float64, PartialLen(len(x))))
		pcg := NewPCG(s.n)
		out.sol = make([]float64, 3*s.n)
		var err error
		out.res, err = pcg.Solve(r, A, b, out.sol, nil, nil, 1e-12, 1000)
		if err != nil || !out.res.Converged {
			t.Fatalf("solve: %v %+v", err, out.res)
		}
		out.solF = slices.Clone(x)
		out.resF, err = pcg.Solve(r, A, b, out.solF, filter, z, 1e-12, 1000)
		if err != nil || !out.resF.Converged {
			t.Fatalf("filtered solve: %v %+v", err, out.resF)
		}
		return out
	}
	ref := run(Serial{})
	for _, nr := range testRunners()[1:] {
		got := run(nr.r)
		switch {
		case !bitsEqual(got.hess, ref.hess):
			t.Errorf("%s: assembled Hessian differs", nr.name)
		case !bitsEqual(got.grad, ref.grad):
			t.Errorf("%s: gradient differs", nr.name)
		case !bitsEqual(got.mv, ref.mv):
			t.Errorf("%s: MulVec differs", nr.name)
		case math.Float64bits(got.dot) != math.Float64bits(ref.dot):
			t.Errorf("%s: Dot differs", nr.name)
		case !bitsEqual(got.sol, ref.sol) || got.res != ref.res:
			t.Errorf("%s: PCG differs (%+v vs %+v)", nr.name, got.res, ref.res)
		case !bitsEqual(got.solF, ref.solF) || got.resF != ref.resF:
			t.Errorf("%s: filtered PCG differs (%+v vs %+v)", nr.name, got.resF, ref.resF)
		}
	}
}

func denseSolve(t *testing.T, A [][]float64, b []float64) []float64 {
	t.Helper()
	n := len(A)
	S := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			S.SetSym(i, j, 0.5*(A[i][j]+A[j][i]))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(S) {
		t.Fatal("reference matrix not SPD")
	}
	var x mat.VecDense
	if err := ch.SolveVecTo(&x, mat.NewVecDense(n, slices.Clone(b))); err != nil {
		t.Fatal(err)
	}
	return x.RawVector().Data
}

func relErr(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range want {
		num += (got[i] - want[i]) * (got[i] - want[i])
		den += want[i] * want[i]
	}
	return math.Sqrt(num / den)
}

func TestPCGDense(t *testing.T) {
	for seed := uint64(0); seed < 4; seed++ {
		h2 := []float64{0.01, 0.5, 5, 50}[seed]
		s := newSystem(9, 8, 2, h2, 100+seed)
		rng := rand.New(rand.NewPCG(seed, 1))
		b := randVec(3*s.n, rng)
		want := denseSolve(t, toDense(s.A), b)
		pcg := NewPCG(s.n)
		for _, warm := range []bool{false, true} {
			x := make([]float64, 3*s.n)
			if warm {
				for i := range x {
					x[i] = want[i] + 0.1*rng.NormFloat64()
				}
			}
			res, err := pcg.Solve(splitRunner{3}, s.A, b, x, nil, nil, 1e-10, 10*s.n)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged || res.Residual > 1e-10 {
				t.Fatalf("seed %d: not converged: %+v", seed, res)
			}
			if e := relErr(x, want); e > 1e-8 {
				t.Fatalf("seed %d h2 %v warm %v: relative error %g (%+v)", seed, h2, warm, e, res)
			}
			t.Logf("h2=%v warm=%v: %d iterations, residual %.3g, error %.3g", h2, warm, res.Iterations, res.Residual, relErr(x, want))
		}
	}
}

// randomFilter returns per-vertex filters mixing free, pinned, plane, axis and
// line constraints, and prescribed values z.
func randomFilter(n int, rng *rand.Rand) (filter, z []float64) {
	filter = make([]float64, 9*n)
	z = randVec(3*n, rng)
	unit := func() [3]float64 {
		v := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
		return [3]float64{v[0] / l, v[1] / l, v[2] / l}
	}
	for i := 0; i < n; i++ {
		S := filter[9*i : 9*i+9]
		S[0], S[4], S[8] = 1, 1, 1
		sub := func(u [3]float64) {
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					S[3*r+c] -= u[r] * u[c]
				}
			}
		}
		switch rng.IntN(8) {
		case 0: // pinned
			clear(S)
		case 1: // plane constraint, oblique normal
			sub(unit())
		case 2: // axis constraint
			k := rng.IntN(3)
			S[4*k] = 0
		case 3: // line: two orthonormal constrained directions
			u := unit()
			w := unit()
			d := u[0]*w[0] + u[1]*w[1] + u[2]*w[2]
			for c := range w {
				w[c] -= d * u[c]
			}
			l := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
			for c := range w {
				w[c] /= l
			}
			sub(u)
			sub(w)
		}
	}
	return filter, z
}

// filteredProblem is TestPCGFiltered's problem: a system, random filters
// and prescribed values, a right-hand side and a warm start that violates
// the constraints.
func filteredProblem() (s *system, filter, z, b, x []float64) {
	s = newSystem(10, 9, 3, 2, 77)
	rng := rand.New(rand.NewPCG(12, 13))
	filter, z = randomFilter(s.n, rng)
	return s, filter, z, randVec(3*s.n, rng), randVec(3*s.n, rng)
}

func TestPCGFiltered(t *testing.T) {
	s, filter, z, b, x := filteredProblem()
	n := s.n
	res, err := NewPCG(n).Solve(splitRunner{2}, s.A, b, x, filter, z, 1e-10, 10*n)
	if err != nil || !res.Converged {
		t.Fatalf("%v %+v", err, res)
	}
	t.Logf("filtered: %d iterations, residual %.3g", res.Iterations, res.Residual)

	// Dense reference: w solves (S A S + I - S) w = S (b - A (I-S) z); v = w + (I-S) z.
	N := 3 * n
	A := toDense(s.A)
	Sd := make([][]float64, N)
	for i := range Sd {
		Sd[i] = make([]float64, N)
	}
	for i := 0; i < n; i++ {
		for r := 0; r < 3; r++ {
			for c := 0; c < 3; c++ {
				Sd[3*i+r][3*i+c] = filter[9*i+3*r+c]
			}
		}
	}
	mul := func(X, Y [][]float64) [][]float64 {
		Z := make([][]float64, N)
		for i := range Z {
			Z[i] = make([]float64, N)
			for k := 0; k < N; k++ {
				if X[i][k] == 0 {
					continue
				}
				for j := 0; j < N; j++ {
					Z[i][j] += X[i][k] * Y[k][j]
				}
			}
		}
		return Z
	}
	mv := func(X [][]float64, v []float64) []float64 {
		y := make([]float64, N)
		for i := range X {
			for j, a := range X[i] {
				y[i] += a * v[j]
			}
		}
		return y
	}
	R := mul(mul(Sd, A), Sd)
	zc := make([]float64, N) // (I-S) z
	Sz := mv(Sd, z)
	for i := range zc {
		zc[i] = z[i] - Sz[i]
	}
	for i := range R {
		for j := range R[i] {
			id := 0.0
			if i == j {
				id = 1
			}
			R[i][j] += id - Sd[i][j]
		}
	}
	Azc := mv(A, zc)
	rhs := make([]float64, N)
	for i := range rhs {
		rhs[i] = b[i] - Azc[i]
	}
	rhs = mv(Sd, rhs)
	w := denseSolve(t, R, rhs)
	want := make([]float64, N)
	for i := range want {
		want[i] = w[i] + zc[i]
	}
	if e := relErr(x, want); e > 1e-8 {
		t.Fatalf("filtered solution relative error %g", e)
	}

	// Constraints: pinned and axis-aligned components equal z exactly; oblique
	// ones satisfy (I-S)(x - z) = 0 to rounding.
	for i := 0; i < n; i++ {
		S := filter[9*i : 9*i+9]
		for r := 0; r < 3; r++ {
			if S[3*r] == 0 && S[3*r+1] == 0 && S[3*r+2] == 0 && x[3*i+r] != z[3*i+r] {
				t.Fatalf("vertex %d component %d: %v, want exactly %v", i, r, x[3*i+r], z[3*i+r])
			}
		}
		var d [3]float64
		for r := 0; r < 3; r++ {
			d[r] = x[3*i+r] - z[3*i+r]
		}
		for r := 0; r < 3; r++ {
			c := d[r] - (S[3*r]*d[0] + S[3*r+1]*d[1] + S[3*r+2]*d[2])
			if math.Abs(c) > 1e-12*(1+math.Abs(x[3*i+r])) {
				t.Fatalf("vertex %d: constraint violated by %g", i, c)
			}
		}
	}
	// S (A x - b) ~ 0 relative to ||S b||.
	Ax := mv(A, x)
	for i := range Ax {
		Ax[i] -= b[i]
	}
	Sr := mv(Sd, Ax)
	Sb := mv(Sd, b)
	if nr, nb := math.Sqrt(dot(Sr, Sr)), math.Sqrt(dot(Sb, Sb)); nr > 1e-9*nb {
		t.Fatalf("||S(Ax-b)|| = %g, ||Sb|| = %g", nr, nb)
	}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

func TestPCGAllPinned(t *testing.T) {
	s := newSystem(3, 3, 0, 1, 5)
	filter := make([]float64, 9*s.n)
	rng := rand.New(rand.NewPCG(1, 1))
	z := randVec(3*s.n, rng)
	x := randVec(3*s.n, rng)
	res, err := NewPCG(s.n).Solve(Serial{}, s.A, randVec(3*s.n, rng), x, filter, z, 1e-10, 100)
	if err != nil || !res.Converged || res.Iterations != 0 {
		t.Fatalf("%v %+v", err, res)
	}
	if !slices.Equal(x, z) {
		t.Fatal("all-pinned solution differs from z")
	}
}

func TestPCGMaxIter(t *testing.T) {
	s := newSystem(10, 10, 0, 50, 8)
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, 3*s.n)
	res, err := NewPCG(s.n).Solve(Serial{}, s.A, randVec(3*s.n, rng), x, nil, nil, 1e-14, 3)
	if err != nil || res.Converged || res.Iterations != 3 {
		t.Fatalf("%v %+v", err, res)
	}
}

func TestPCGErrors(t *testing.T) {
	s := newSystem(4, 4, 1, 1, 3)
	n := s.n
	rng := rand.New(rand.NewPCG(4, 4))
	b := randVec(3*n, rng)
	pcg := NewPCG(n)
	solve := func(A *BSR, b, x, f, z []float64) error {
		_, err := pcg.Solve(Serial{}, A, b, x, f, z, 1e-10, 100)
		return err
	}
	x := func() []float64 { return make([]float64, 3*n) }
	expect := func(name string, err error, substr string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), substr) {
			t.Errorf("%s: got error %v, want one containing %q", name, err, substr)
		}
	}
	nanB := slices.Clone(b)
	nanB[7] = math.NaN()
	expect("NaN b", solve(s.A, nanB, x(), nil, nil), "b[7]")
	infX := x()
	infX[2] = math.Inf(1)
	expect("Inf x", solve(s.A, b, infX, nil, nil), "x[2]")
	badA := s.p.NewMatrix()
	copy(badA.Val, s.A.Val)
	badA.Val[13] = math.NaN()
	expect("NaN A", solve(badA, b, x(), nil, nil), "A.Val[13]")
	f, z := randomFilter(n, rng)
	z[5] = math.NaN()
	expect("NaN z", solve(s.A, b, x(), f, z), "z[5]")

	expect("len b", solve(s.A, b[1:], x(), nil, nil), "len(b)")
	expect("len x", solve(s.A, b, make([]float64, 3), nil, nil), "len(x)")
	expect("len filter", solve(s.A, b, x(), make([]float64, 9), nil), "len(filter)")
	expect("len z", solve(s.A, b, x(), f, make([]float64, 2)), "len(z)")
	expect("matrix size", solve(newSystem(3, 3, 0, 1, 1).A, b, x(), nil, nil), "block rows")
	_, err := pcg.Solve(Serial{}, s.A, b, x(), nil, nil, -1, 10)
	expect("tol", err, "tolerance")

	// Negative definite: diagonal blocks fail first.
	neg := s.p.NewMatrix()
	for i := range neg.Val {
		neg.Val[i] = -s.A.Val[i]
	}
	expect("negative definite", solve(neg, b, x(), nil, nil), "not positive definite")
	// Indefinite with SPD diagonal blocks: A = D - 3*offdiag(K) style, giving
	// negative curvature in some CG iteration.
	ind := s.p.NewMatrix()
	copy(ind.Val, s.A.Val)
	for i := 0; i < n; i++ {
		for j := ind.RowPtr[i]; j < ind.RowPtr[i+1]; j++ {
			if int(ind.Col[j]) != i {
				for k := 0; k < 9; k++ {
					ind.Val[9*int(j)+k] *= 20
				}
			}
		}
	}
	err = solve(ind, b, x(), nil, nil)
	expect("indefinite", err, "non-positive curvature")
	expect("indefinite", err, "iteration")

	// Bad patterns.
	for _, c := range []struct {
		name   string
		n      int
		groups []ElementGroup
		substr string
	}{
		{"negative index", 4, []ElementGroup{{Stride: 3, Verts: []int32{0, -1, 2}}}, "out of range"},
		{"index too large", 4, []ElementGroup{{Stride: 3, Verts: []int32{0, 1, 4}}}, "out of range"},
		{"duplicate", 4, []ElementGroup{{Stride: 4, Verts: []int32{0, 1, 2, 1}}}, "repeated"},
		{"ragged", 4, []ElementGroup{{Stride: 3, Verts: []int32{0, 1, 2, 3}}}, "multiple"},
		{"stride", 4, []ElementGroup{{Stride: 0}}, "stride"},
		{"form", 4, []ElementGroup{{Stride: 3, Verts: []int32{0, 1, 2}, Form: Factor + 1}}, "form"},
		{"negative n", -1, nil, "negative"},
	} {
		_, err := NewPattern(c.n, c.groups)
		expect(c.name, err, c.substr)
	}
}

func TestAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	s := newSystem(20, 20, 0, 1, 6)
	rng := rand.New(rand.NewPCG(3, 3))
	b := randVec(3*s.n, rng)
	x := make([]float64, 3*s.n)
	f, z := randomFilter(s.n, rng)
	pcg := NewPCG(s.n)
	A := s.p.NewMatrix()
	g := randVec(s.p.GradLen(), rng)
	out := make([]float64, 3*s.n)
	part := make([]float64, PartialLen(len(b)))
	var err error
	allocs := testing.AllocsPerRun(20, func() {
		s.p.AssembleHessian(Serial{}, s.elemH, A)
		A.ScaleAddDiagonal(Serial{}, 1, 1, s.mass)
		s.p.AssembleGradient(Serial{}, g, out)
		A.MulVec(Serial{}, b, out)
		_ = Dot(Serial{}, b, out, part)
		clear(x)
		if _, e := pcg.Solve(Serial{}, A, b, x, nil, nil, 1e-8, 200); e != nil {
			err = e
		}
		if _, e := pcg.Solve(Serial{}, A, b, x, f, z, 1e-8, 200); e != nil {
			err = e
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if allocs != 0 {
		t.Fatalf("%v allocations per run, want 0", allocs)
	}
}

// blockDiagPre is a Preconditioner for tests: the unfiltered inverse
// diagonal blocks of A (nil inv: the identity, plain CG).
type blockDiagPre struct{ inv []float64 }

func (p blockDiagPre) Apply(_ Runner, r, z []float64) {
	if p.inv == nil {
		copy(z, r)
		return
	}
	for i := 0; i < len(r)/3; i++ {
		z[3*i], z[3*i+1], z[3*i+2] = apply3(p.inv[9*i:], r[3*i], r[3*i+1], r[3*i+2])
	}
}

// TestPCGPreconditioner: with an external preconditioner (plain CG, and the
// unfiltered block diagonal, applied as S M^-1 S) the filtered solve reaches
// the same solution as the built-in block-Jacobi path, bitwise the same for
// any Runner.
func TestPCGPreconditioner(t *testing.T) {
	s, filter, z, b, x0 := filteredProblem()
	n := s.n
	want := slices.Clone(x0)
	if res, err := NewPCG(n).Solve(Serial{}, s.A, b, want, filter, z, 1e-12, 10*n); err != nil || !res.Converged {
		t.Fatalf("%v %+v", err, res)
	}
	inv := make([]float64, 9*n)
	for i := 0; i < n; i++ {
		d := (*[9]float64)(s.A.Val[9*s.A.Diag[i]:])
		m, ok := InvSPD3(d)
		if !ok {
			t.Fatal("diagonal block not SPD")
		}
		copy(inv[9*i:], m[:])
	}
	for _, pre := range []blockDiagPre{{nil}, {inv}} {
		var ref []float64
		for _, nr := range testRunners() {
			pcg := NewPCG(n)
			pcg.SetPreconditioner(pre)
			x := slices.Clone(x0)
			res, err := pcg.Solve(nr.r, s.A, b, x, filter, z, 1e-12, 10*n)
			if err != nil || !res.Converged {
				t.Fatalf("%s: %v %+v", nr.name, err, res)
			}
			if e := relErr(x, want); e > 1e-9 {
				t.Fatalf("%s: relative difference %g from the block-Jacobi solve", nr.name, e)
			}
			if ref == nil {
				ref = x
			} else if !bitsEqual(x, ref) {
				t.Fatalf("%s: not bitwise equal to %s", nr.name, testRunners()[0].name)
			}
		}
	}
}
