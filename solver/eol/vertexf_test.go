package eol

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"gonum.org/v1/gonum/mat"
)

func mat3ToDense(R dense.Mat3) *mat.Dense {
	return mat.NewDense(3, 3, []float64{R[0][0], R[0][1], R[0][2], R[1][0], R[1][1], R[1][2], R[2][0], R[2][1], R[2][2]})
}

// TestSO3ExpAgainstGonum compares Rodrigues' formula with gonum's general matrix
// exponential of the skew matrix, including tiny and near-pi angles.
func TestSO3ExpAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	angles := []float64{0, 1e-12, 1e-8, 1e-5, 1e-4, 2e-4, 0.1, 1, 2, 3, math.Pi - 1e-6, math.Pi, 5}
	for k := 0; k < 400; k++ {
		a := randVec3(rng)
		a = a.Scale(1 / a.Norm())
		th := rng.Float64() * math.Pi
		if k < len(angles) {
			th = angles[k]
		}
		w := a.Scale(th)
		var E mat.Dense
		E.Exp(mat3ToDense(dense.Skew(w)))
		R := SO3Exp(w)
		var D mat.Dense
		D.Sub(mat3ToDense(R), &E)
		if d := mat.Norm(&D, 2); d > 1e-14 {
			t.Fatalf("angle %g: |SO3Exp - expm| = %g", th, d)
		}
		if d := frob3(sub3(R, axisAngle(a, th))); d > 1e-14 {
			t.Fatalf("angle %g: |SO3Exp - quaternion rotation| = %g", th, d)
		}
	}
}

// TestSO3LogRoundTrip: exp(log R) = R for random rotations and for rotations near the
// identity and near angle pi, and log(exp w) = w for |w| < pi with the angle not too
// close to pi (at pi the sign of the axis is arbitrary).
func TestSO3LogRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	var Rs []dense.Mat3
	for k := 0; k < 300; k++ {
		Rs = append(Rs, randRot(rng))
	}
	special := []float64{0, 1e-15, 1e-10, 1e-6, 9e-5, 1.1e-4, 1e-3, 2.09, 2.1, math.Pi - 1e-3, math.Pi - 1e-6, math.Pi - 1e-9, math.Pi - 1e-13, math.Pi}
	for _, th := range special {
		for k := 0; k < 20; k++ {
			Rs = append(Rs, axisAngle(randVec3(rng), th))
		}
	}
	for k, R := range Rs {
		w := SO3Log(R)
		if n := w.Norm(); n > math.Pi+1e-15 {
			t.Fatalf("case %d: |log R| = %g > pi", k, n)
		}
		if d := frob3(sub3(SO3Exp(w), R)); d > 4e-15 {
			t.Fatalf("case %d: |exp(log R) - R| = %g (angle %g)", k, d, w.Norm())
		}
	}
	for k := 0; k < 300; k++ {
		w := randVec3(rng)
		w = w.Scale((math.Pi - 1e-6) * rng.Float64() / w.Norm())
		if k < len(special)-1 {
			a := randVec3(rng)
			w = a.Scale(math.Min(special[k], math.Pi-1e-6) / a.Norm())
		}
		got := SO3Log(SO3Exp(w))
		// Near pi the angle's conditioning is 1/sin t.
		tol := 1e-15 * (1 + 1/math.Max(math.Sin(w.Norm()), 1e-15)) * (1 + w.Norm())
		if d := got.Sub(w).Norm(); d > 4*tol {
			t.Fatalf("case %d: log(exp(%v)) = %v (|diff| = %g)", k, w, got, d)
		}
	}
}

// TestRotationStretchAgainstGonumSVD: Q(:, 1:2) = U V^T and P = V S V^T from gonum's
// thin SVD (both independent of the sign choices of the SVD), Q a rotation, and
// Q(:, 1:2) P = F.
func TestRotationStretchAgainstGonumSVD(t *testing.T) {
	rng := rand.New(rand.NewSource(12))
	for k := 0; k < 500; k++ {
		F := randMat32(rng)
		Q, P := RotationStretch(F)
		var svd mat.SVD
		if !svd.Factorize(toDense32(F), mat.SVDThin) {
			t.Fatal("gonum SVD failed")
		}
		var U, V mat.Dense
		svd.UTo(&U)
		svd.VTo(&V)
		s := svd.Values(nil)
		var R, Pg mat.Dense
		R.Mul(&U, V.T())
		Pg.Mul(&V, mat.NewDiagDense(2, s))
		Pg.Mul(&Pg, V.T())
		for i := 0; i < 3; i++ {
			for j := 0; j < 2; j++ {
				if d := math.Abs(Q[i][j] - R.At(i, j)); d > 1e-12 {
					t.Fatalf("case %d: Q(:,1:2) = %v, gonum U V^T = %v", k, Q, mat.Formatted(&R))
				}
			}
		}
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				if d := math.Abs(P[i][j] - Pg.At(i, j)); d > 1e-12*(1+s[0]) {
					t.Fatalf("case %d: P = %v, gonum V S V^T = %v", k, P, mat.Formatted(&Pg))
				}
			}
		}
		if d := frob3(sub3(Q.T().Mul(Q), dense.Mat3{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}})); d > 1e-14 {
			t.Fatalf("case %d: |Q^T Q - I| = %g", k, d)
		}
		if det := mat.Det(mat3ToDense(Q)); math.Abs(det-1) > 1e-14 {
			t.Fatalf("case %d: det Q = %g", k, det)
		}
		Qb := dense.Mat32{{Q[0][0], Q[0][1]}, {Q[1][0], Q[1][1]}, {Q[2][0], Q[2][1]}}
		if d := frob32(Qb.MulMat2(P).Sub(F)); d > 1e-13*frob32(F) {
			t.Fatalf("case %d: |Q P - F| = %g", k, d)
		}
	}
}

func TestVertexFOfIdenticalFaces(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	for k := 0; k < 100; k++ {
		F := randMat32(rng)
		n := 1 + rng.Intn(6)
		Fs := make([]dense.Mat32, n)
		w := make([]float64, n)
		for i := range Fs {
			Fs[i] = F
			w[i] = 0.1 + rng.Float64()
		}
		got, ok := VertexF(Fs, w)
		if !ok {
			t.Fatalf("case %d: VertexF failed", k)
		}
		if d := frob32(got.Sub(F)); d > 1e-13*frob32(F) {
			t.Fatalf("case %d: VertexF of %d copies of F = %v, want %v", k, n, got, F)
		}
	}
}

// TestVertexFOfFold: two unstretched faces folded by 90 degrees over an edge along the
// material u axis: F_a = (e_x e_y) on top, F_b = (e_x -e_z) hanging down. The plain
// average (e_x, (e_y - e_z)/2) shrinks the crossing direction by 1/sqrt 2, which would
// read as compression; the rotation average keeps both columns unit and orthogonal and
// bends halfway: (e_x, (e_y - e_z)/sqrt 2).
func TestVertexFOfFold(t *testing.T) {
	Fa := dense.Mat32{{1, 0}, {0, 1}, {0, 0}}
	Fb := dense.Mat32{{1, 0}, {0, 0}, {0, -1}}
	plain := Fa.Add(Fb).Scale(0.5)
	if n := plain.Col(1).Norm(); math.Abs(n-1/math.Sqrt2) > 1e-15 {
		t.Fatalf("plain average column norm %g", n)
	}
	got, ok := VertexF([]dense.Mat32{Fa, Fb}, []float64{math.Pi / 2, math.Pi / 2})
	if !ok {
		t.Fatal("VertexF failed")
	}
	r := 1 / math.Sqrt2
	want := dense.Mat32{{1, 0}, {0, r}, {0, -r}}
	if d := frob32(got.Sub(want)); d > 1e-15 {
		t.Fatalf("VertexF = %v, want %v", got, want)
	}
	if n0, n1 := got.Col(0).Norm(), got.Col(1).Norm(); math.Abs(n0-1) > 1e-15 || math.Abs(n1-1) > 1e-15 {
		t.Fatalf("column norms %g %g, want 1 1", n0, n1)
	}
}

// TestVertexFOfCoaxialRotations: faces rotated about a common axis, all with the same
// stretch P, average to the rotation by the weighted mean angle times P. The second
// set of angles has the faces near a half turn on either side of pi (t and 2 pi - t),
// where the errata's exp(sum w log Q_k) about the identity would return the
// identity; relative to the reference face the mean is the half turn.
func TestVertexFOfCoaxialRotations(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for k := 0; k < 100; k++ {
		axis := randVec3(rng)
		P := dense.Mat2{{1 + rng.Float64(), 0.3 * rng.NormFloat64()}, {0, 1 + rng.Float64()}}
		P[1][0] = P[0][1]
		flat := dense.Mat32{{P[0][0], P[0][1]}, {P[1][0], P[1][1]}, {0, 0}} // (I2; 0) P
		n := 2 + rng.Intn(4)
		Fs := make([]dense.Mat32, n)
		w := make([]float64, n)
		base := rng.Float64()*4 - 2
		mean, sw := 0.0, 0.0
		for i := range Fs {
			th := base + rng.Float64() - 0.5
			if k%2 == 1 {
				// Around pi: angles in (pi - 0.5, pi + 0.5) represented in (-pi, pi].
				th = math.Pi + rng.Float64() - 0.5
			}
			w[i] = 0.1 + rng.Float64()
			mean += w[i] * th
			sw += w[i]
			if th > math.Pi {
				th -= 2 * math.Pi
			}
			Fs[i] = mat3MulMat32(axisAngle(axis, th), flat)
		}
		mean /= sw
		got, ok := VertexF(Fs, w)
		if !ok {
			t.Fatalf("case %d: VertexF failed", k)
		}
		want := mat3MulMat32(axisAngle(axis, mean), flat)
		if d := frob32(got.Sub(want)); d > 1e-13*frob32(want) {
			t.Fatalf("case %d: VertexF = %v, rotation by the mean angle %g gives %v", k, got, mean, want)
		}
	}
}

// TestVertexFIsFrameIndifferent: rotating every face rotates the vertex deformation
// gradient by the same rotation, VertexF(R F_k) = R VertexF(F_k).
func TestVertexFIsFrameIndifferent(t *testing.T) {
	rng := rand.New(rand.NewSource(15))
	for k := 0; k < 200; k++ {
		F0 := randMat32(rng)
		n := 1 + rng.Intn(6)
		Fs := make([]dense.Mat32, n)
		RFs := make([]dense.Mat32, n)
		w := make([]float64, n)
		R := randRot(rng)
		for i := range Fs {
			Fs[i] = F0.Add(randMat32(rng).Scale(0.3))
			RFs[i] = mat3MulMat32(R, Fs[i])
			w[i] = 0.1 + rng.Float64()
		}
		a, ok1 := VertexF(Fs, w)
		b, ok2 := VertexF(RFs, w)
		if !ok1 || !ok2 {
			t.Fatalf("case %d: VertexF failed", k)
		}
		if d := frob32(mat3MulMat32(R, a).Sub(b)); d > 1e-12*frob32(b) {
			t.Fatalf("case %d: R VertexF(F) = %v, VertexF(R F) = %v", k, mat3MulMat32(R, a), b)
		}
	}
}

func TestVertexFRejectsBadInput(t *testing.T) {
	F := []dense.Mat32{{{1, 0}, {0, 1}, {0, 0}}}
	if _, ok := VertexF(nil, nil); ok {
		t.Fatal("accepted no faces")
	}
	if _, ok := VertexF(F, []float64{1, 2}); ok {
		t.Fatal("accepted mismatched weights")
	}
	if _, ok := VertexF(F, []float64{0}); ok {
		t.Fatal("accepted zero weights")
	}
}
