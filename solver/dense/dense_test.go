package dense

import (
	"math"
	"math/rand"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randMat32(rng *rand.Rand) Mat32 {
	var F Mat32
	for i := range F {
		for j := range F[i] {
			F[i][j] = rng.NormFloat64()
		}
	}
	return F
}

// testMat32s returns random 3x2 matrices of many kinds: generic, scaled, rank-1,
// near rank-1, equal singular values (scaled orthonormal columns), zero, a
// single non-zero entry, and nearly coincident singular values.
func testMat32s(rng *rand.Rand, n int) []Mat32 {
	var out []Mat32
	for k := 0; k < n; k++ {
		F := randMat32(rng)
		switch k % 9 {
		case 0: // generic
		case 1:
			F = F.Scale(math.Pow(10, float64(rng.Intn(13)-6)))
		case 2: // exact rank 1
			u := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			v := Vec2{rng.NormFloat64(), rng.NormFloat64()}
			F = Outer32(u, v)
		case 3: // near rank 1
			u := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			v := Vec2{rng.NormFloat64(), rng.NormFloat64()}
			F = Outer32(u, v).Add(F.Scale(math.Pow(10, -float64(3+rng.Intn(12)))))
		case 4: // s0 == s1: scaled orthonormal columns
			U, _, V := SVD32(F)
			s := rng.Float64() + 0.1
			F = U.MulMat2(V.T()).Scale(s)
		case 5: // nearly equal singular values
			U, _, V := SVD32(F)
			s := rng.Float64() + 0.1
			F = U.MulMat2(Mat2{{s, 0}, {0, s * (1 - 1e-9*rng.Float64())}}).MulMat2(V.T())
		case 6:
			F = Mat32{}
		case 7: // one column zero
			c := rng.Intn(2)
			for i := 0; i < 3; i++ {
				F[i][c] = 0
			}
		case 8: // a single entry
			F = Mat32{}
			F[rng.Intn(3)][rng.Intn(2)] = rng.NormFloat64()
		}
		out = append(out, F)
	}
	return out
}

func frob32(m Mat32) float64 { return math.Sqrt(m.FrobDot(m)) }

func usv(U Mat32, S [2]float64, V Mat2) Mat32 {
	return U.MulMat2(Mat2{{S[0], 0}, {0, S[1]}}).MulMat2(V.T())
}

func TestSVD32AgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const tol = 1e-13
	for k, F := range testMat32s(rng, 9000) {
		U, S, V := SVD32(F)
		nF := frob32(F)
		scale := math.Max(nF, 1e-300)
		// Reconstruction.
		if e := frob32(usv(U, S, V).Sub(F)); e > tol*scale && e > 0 {
			t.Fatalf("case %d: |USV^T - F| = %g (|F| = %g), F=%v", k, e, nF, F)
		}
		// Ordering and sign.
		if !(S[0] >= S[1] && S[1] >= 0) {
			t.Fatalf("case %d: bad singular values %v", k, S)
		}
		// Orthonormality.
		if e := maxAbs2(U.TMul(U).Sub2(Mat2{{1, 0}, {0, 1}})); e > 1e-14 {
			t.Fatalf("case %d: U^T U - I = %g", k, e)
		}
		if e := maxAbs2(V.T().Mul(V).Sub2(Mat2{{1, 0}, {0, 1}})); e > 1e-14 {
			t.Fatalf("case %d: V^T V - I = %g", k, e)
		}
		if math.Abs(V.Det()-1) > 1e-14 {
			t.Fatalf("case %d: det V = %g, want +1", k, V.Det())
		}
		// Singular values against gonum.
		g := mat.NewDense(3, 2, []float64{F[0][0], F[0][1], F[1][0], F[1][1], F[2][0], F[2][1]})
		var svd mat.SVD
		if !svd.Factorize(g, mat.SVDThin) {
			t.Fatalf("gonum SVD failed")
		}
		ref := svd.Values(nil)
		for i := 0; i < 2; i++ {
			if math.Abs(ref[i]-S[i]) > 1e-13*math.Max(ref[0], 1e-300) && math.Abs(ref[i]-S[i]) > 0 {
				t.Fatalf("case %d: sigma_%d = %.17g, gonum %.17g (F=%v)", k, i, S[i], ref[i], F)
			}
		}
	}
}

func maxAbs2(m Mat2) float64 {
	return math.Max(math.Max(math.Abs(m[0][0]), math.Abs(m[0][1])), math.Max(math.Abs(m[1][0]), math.Abs(m[1][1])))
}

// Sub2 is a test helper: m-b.
func (m Mat2) Sub2(b Mat2) Mat2 {
	return Mat2{{m[0][0] - b[0][0], m[0][1] - b[0][1]}, {m[1][0] - b[1][0], m[1][1] - b[1][1]}}
}

func TestSVD32Special(t *testing.T) {
	U, S, V := SVD32(Mat32{})
	if S != [2]float64{} || U != (Mat32{{1, 0}, {0, 1}, {0, 0}}) || V != (Mat2{{1, 0}, {0, 1}}) {
		t.Fatalf("F=0: got U=%v S=%v V=%v", U, S, V)
	}
	_, S, _ = SVD32(Mat32{{math.NaN(), 0}, {0, 1}, {0, 0}})
	if !math.IsNaN(S[0]) {
		t.Fatalf("NaN input should give NaN, got %v", S)
	}
	// Diagonal input.
	U, S, V = SVD32(Mat32{{2, 0}, {0, 3}, {0, 0}})
	if math.Abs(S[0]-3) > 1e-15 || math.Abs(S[1]-2) > 1e-15 {
		t.Fatalf("diag: S=%v", S)
	}
	if e := frob32(usv(U, S, V).Sub(Mat32{{2, 0}, {0, 3}, {0, 0}})); e > 1e-15 {
		t.Fatalf("diag reconstruction %g", e)
	}
}

func TestPolar32(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for k, F := range testMat32s(rng, 4500) {
		R, S := Polar32(F)
		nF := math.Max(frob32(F), 1e-300)
		if e := frob32(R.MulMat2(S).Sub(F)); e > 1e-13*nF && e > 0 {
			t.Fatalf("case %d: |RS-F| = %g", k, e)
		}
		if e := maxAbs2(R.TMul(R).Sub2(Mat2{{1, 0}, {0, 1}})); e > 1e-14 {
			t.Fatalf("case %d: R^T R - I = %g", k, e)
		}
		if S[0][1] != S[1][0] {
			t.Fatalf("case %d: S not symmetric", k)
		}
		// S PSD and equal to (F^T F)^{1/2}: S*S == F^T F.
		if S[0][0] < -1e-15*nF || S[1][1] < -1e-15*nF || S.Det() < -1e-13*nF*nF {
			t.Fatalf("case %d: S not PSD: %v", k, S)
		}
		if e := maxAbs2(S.Mul(S).Sub2(F.TMul(F))); e > 1e-13*nF*nF && e > 0 {
			t.Fatalf("case %d: S^2 - F^T F = %g", k, e)
		}
		// For full-rank F, R must equal F (F^T F)^{-1/2} from gonum's SVD.
		_, sv, _ := SVD32(F)
		if sv[1] > 1e-6*sv[0] {
			g := mat.NewDense(3, 2, []float64{F[0][0], F[0][1], F[1][0], F[1][1], F[2][0], F[2][1]})
			var svd mat.SVD
			svd.Factorize(g, mat.SVDThin)
			var gu, gv, rr mat.Dense
			svd.UTo(&gu)
			svd.VTo(&gv)
			rr.Mul(&gu, gv.T())
			for i := 0; i < 3; i++ {
				for j := 0; j < 2; j++ {
					if math.Abs(rr.At(i, j)-R[i][j]) > 1e-8 {
						t.Fatalf("case %d: R differs from gonum U V^T: %v vs %v", k, R, mat.Formatted(&rr))
					}
				}
			}
		}
	}
}

func TestMatHelpers(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	A := randMat32(rng)
	B := Mat2{{rng.NormFloat64(), rng.NormFloat64()}, {rng.NormFloat64(), rng.NormFloat64()}}
	ga := mat.NewDense(3, 2, []float64{A[0][0], A[0][1], A[1][0], A[1][1], A[2][0], A[2][1]})
	gb := mat.NewDense(2, 2, []float64{B[0][0], B[0][1], B[1][0], B[1][1]})
	var p mat.Dense
	p.Mul(ga, gb)
	C := A.MulMat2(B)
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			if math.Abs(C[i][j]-p.At(i, j)) > 1e-14 {
				t.Fatal("MulMat2")
			}
		}
	}
	var q mat.Dense
	q.Mul(ga.T(), ga)
	D := A.TMul(A)
	for i := 0; i < 2; i++ {
		for j := 0; j < 2; j++ {
			if math.Abs(D[i][j]-q.At(i, j)) > 1e-14 {
				t.Fatal("TMul")
			}
		}
	}
	if math.Abs(A.FrobDot(A)-mat.Norm(ga, 2)*mat.Norm(ga, 2)) > 1e-12 {
		t.Fatal("FrobDot")
	}
	v := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	w := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	if d := Skew(v).MulVec(w).Sub(v.Cross(w)).Norm(); d > 1e-15 {
		t.Fatal("Skew")
	}
	M := Mat3{{1, 2, 3}, {4, 5, 6}, {7, 8, 10}}
	if M.Mul(M.T()) != (Mat3{{14, 32, 53}, {32, 77, 128}, {53, 128, 213}}) {
		t.Fatal("Mat3 Mul/T")
	}
	if (Mat2{{1, 2}, {3, 4}}).Mul(Mat2{{0, 1}, {1, 0}}) != (Mat2{{2, 1}, {4, 3}}) {
		t.Fatal("Mat2 Mul")
	}
	for k := 0; k < 100; k++ {
		u := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		if k%3 == 0 {
			u[k%3+0] = 0
		}
		u = u.Scale(1 / u.Norm())
		p := Perp(u)
		if math.Abs(p.Dot(u)) > 1e-15 || math.Abs(p.Norm()-1) > 1e-15 {
			t.Fatal("Perp")
		}
	}
}

// randSym returns a random n x n symmetric matrix of one of several kinds.
func randSym(rng *rand.Rand, n, kind int) []float64 {
	A := make([]float64, n*n)
	switch kind % 5 {
	case 0: // generic indefinite
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := rng.NormFloat64()
				A[i*n+j], A[j*n+i] = v, v
			}
		}
	case 1, 2: // PSD with rank r (kind 1: full rank PD, kind 2: rank-deficient)
		r := n
		if kind%5 == 2 {
			r = rng.Intn(n)
		}
		for k := 0; k < r; k++ {
			v := make([]float64, n)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					A[i*n+j] += v[i] * v[j]
				}
			}
		}
	case 3: // negative definite (diagonally dominant)
		for i := 0; i < n; i++ {
			A[i*n+i] = -1 - rng.Float64()
		}
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				v := 0.1 * rng.NormFloat64() / float64(n)
				A[i*n+j], A[j*n+i] = v, v
			}
		}
	case 4: // clustered / repeated eigenvalues: Q diag(...) Q^T with repeats
		var g mat.Dense
		g.CloneFrom(mat.NewDense(n, n, func() []float64 {
			x := make([]float64, n*n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			return x
		}()))
		var qr mat.QR
		qr.Factorize(&g)
		var Q mat.Dense
		qr.QTo(&Q)
		vals := []float64{-2, -2, 0, 0, 1e-12, -1e-12, 3, 3, 3, 1, -1, 5}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for k := 0; k < n; k++ {
					s += Q.At(i, k) * vals[k] * Q.At(j, k)
				}
				A[i*n+j] = s
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				A[j*n+i] = A[i*n+j]
			}
		}
	}
	return A
}

func TestEigenSymAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	for trial := 0; trial < 2000; trial++ {
		n := 1 + trial%MaxSym
		A := randSym(rng, n, trial/MaxSym)
		w := make([]float64, n)
		q := make([]float64, n*n)
		EigenSym(A, n, w, q)
		var es mat.EigenSym
		if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), A...)), true) {
			t.Fatal("gonum EigenSym failed")
		}
		ref := es.Values(nil)
		got := append([]float64(nil), w...)
		sort.Float64s(got)
		sort.Float64s(ref)
		norm := frobN(A)
		for i := range ref {
			if math.Abs(ref[i]-got[i]) > 1e-12*math.Max(norm, 1) {
				t.Fatalf("trial %d n=%d: eigenvalue %d: %g vs gonum %g", trial, n, i, got[i], ref[i])
			}
		}
		// Q orthonormal and A = Q diag(w) Q^T.
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				qq, rec := 0.0, 0.0
				for k := 0; k < n; k++ {
					qq += q[k*n+i] * q[k*n+j]
					rec += q[i*n+k] * w[k] * q[j*n+k]
				}
				if i == j {
					qq--
				}
				if math.Abs(qq) > 1e-13 || math.Abs(rec-A[i*n+j]) > 1e-12*math.Max(norm, 1) {
					t.Fatalf("trial %d: orthonormality %g / reconstruction %g", trial, qq, rec-A[i*n+j])
				}
			}
		}
	}
}

func frobN(A []float64) float64 {
	s := 0.0
	for _, v := range A {
		s += v * v
	}
	return math.Sqrt(s)
}

// clampRef is the gonum reference: Q diag(max(lambda,0)) Q^T.
func clampRef(t *testing.T, A []float64, n int) []float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), A...)), true) {
		t.Fatal("gonum EigenSym failed")
	}
	vals := es.Values(nil)
	var Q mat.Dense
	es.VectorsTo(&Q)
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := 0; k < n; k++ {
				s += Q.At(i, k) * math.Max(vals[k], 0) * Q.At(j, k)
			}
			out[i*n+j] = s
		}
	}
	return out
}

func minEig(t *testing.T, A []float64, n int) float64 {
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(n, append([]float64(nil), A...)), false) {
		t.Fatal("gonum EigenSym failed")
	}
	v := es.Values(nil)
	return v[0]
}

func TestProjectPSDAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 3000; trial++ {
		n := 1 + trial%MaxSym
		A := randSym(rng, n, trial/MaxSym)
		ref := clampRef(t, A, n)
		H := append([]float64(nil), A...)
		ProjectPSD(H, n)
		norm := math.Max(frobN(A), 1)
		for i := range H {
			if math.Abs(H[i]-ref[i]) > 1e-11*norm {
				t.Fatalf("trial %d n=%d kind %d: entry %d: %g vs gonum %g", trial, n, (trial/MaxSym)%5, i, H[i], ref[i])
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if H[i*n+j] != H[j*n+i] {
					t.Fatalf("trial %d: result not symmetric", trial)
				}
			}
		}
		if m := minEig(t, H, n); m < -1e-12*norm {
			t.Fatalf("trial %d: min eigenvalue after projection %g", trial, m)
		}
		// Idempotent: projecting again changes nothing beyond rounding.
		H2 := append([]float64(nil), H...)
		ProjectPSD(H2, n)
		for i := range H2 {
			if math.Abs(H2[i]-H[i]) > 1e-12*norm {
				t.Fatalf("trial %d: not idempotent", trial)
			}
		}
	}
}

func TestProjectPSDFastPathUnchanged(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	for n := 1; n <= MaxSym; n++ {
		A := randSym(rng, n, 1) // PD
		for i := 0; i < n; i++ {
			A[i*n+i] += 0.1
		}
		H := append([]float64(nil), A...)
		ProjectPSD(H, n)
		for i := range H {
			if H[i] != A[i] {
				t.Fatalf("n=%d: PD matrix was modified", n)
			}
		}
	}
}

func TestNoAllocs(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	F := randMat32(rng)
	if a := testing.AllocsPerRun(100, func() { _, _, _ = SVD32(F) }); a != 0 {
		t.Fatalf("SVD32 allocs %v", a)
	}
	if a := testing.AllocsPerRun(100, func() { _, _ = Polar32(F) }); a != 0 {
		t.Fatalf("Polar32 allocs %v", a)
	}
	A := randSym(rng, 12, 0)
	H := make([]float64, 144)
	if a := testing.AllocsPerRun(100, func() { copy(H, A); ProjectPSD(H, 12) }); a != 0 {
		t.Fatalf("ProjectPSD allocs %v", a)
	}
	w := make([]float64, 12)
	q := make([]float64, 144)
	if a := testing.AllocsPerRun(100, func() { EigenSym(A, 12, w, q) }); a != 0 {
		t.Fatalf("EigenSym allocs %v", a)
	}
}

func TestPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("expected panic for n > 12")
		}
	}()
	ProjectPSD(make([]float64, 169), 13)
}

var sinkS [2]float64

func BenchmarkSVD32(b *testing.B) {
	rng := rand.New(rand.NewSource(8))
	Fs := testMat32s(rng, 64)
	for i := range Fs {
		Fs[i] = randMat32(rng)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, s, _ := SVD32(Fs[i&63])
		sinkS[0] += s[0]
	}
}

func BenchmarkPolar32(b *testing.B) {
	rng := rand.New(rand.NewSource(8))
	F := randMat32(rng)
	for i := 0; i < b.N; i++ {
		R, _ := Polar32(F)
		sinkS[0] += R[0][0]
	}
}

func benchPSD(b *testing.B, kind int) {
	rng := rand.New(rand.NewSource(9))
	A := randSym(rng, 12, kind)
	H := make([]float64, 144)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		copy(H, A)
		ProjectPSD(H, 12)
	}
}

// BenchmarkProjectPSD12 projects an indefinite 12x12 matrix (eigen-decomposition path).
func BenchmarkProjectPSD12(b *testing.B) { benchPSD(b, 0) }

// BenchmarkProjectPSD12PD measures the Cholesky fast path on a PD matrix.
func BenchmarkProjectPSD12PD(b *testing.B) { benchPSD(b, 1) }

// SegmentDistance2 against the minimum over 10001 points of the segment.
func TestSegmentDistance2(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for k := 0; k < 200; k++ {
		p := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		a := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		b := Vec2{rng.NormFloat64(), rng.NormFloat64()}
		if k%50 == 0 {
			b = a // degenerate segment
		}
		ref := math.Inf(1)
		for i := 0; i <= 10000; i++ {
			s := float64(i) / 10000
			ref = math.Min(ref, math.Hypot(p[0]-a[0]-s*(b[0]-a[0]), p[1]-a[1]-s*(b[1]-a[1])))
		}
		if d := SegmentDistance2(p, a, b); d > ref+1e-12 || d < ref-1e-6 {
			t.Fatalf("p %v a %v b %v: %v, sampled %v", p, a, b, d, ref)
		}
	}
}
