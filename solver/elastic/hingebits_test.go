package elastic

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// vectorEval is hingeTerms.eval as loom wrote it on Vec3 values, before the
// scalar form: the reference TestHingeEvalBitwise holds eval to.
func (t *hingeTerms) vectorEval(r *HingeRest, kb float64, x0, x1, x2, x3 dense.Vec3) (float64, bool) {
	a, b, c := x1.Sub(x0), x2.Sub(x0), x3.Sub(x0)
	L := a.Norm()
	bc, ca, ab := b.Cross(c), c.Cross(a), a.Cross(b)
	D := a.Dot(bc)
	pp, qq, mm, rr := a.Dot(b), a.Dot(c), a.Dot(a), b.Dot(c)
	y := -L * D
	x := pp*qq - mm*rr
	theta := math.Atan2(y, x)
	d := wrapAngle(theta - r.Theta0)
	k2 := 2 * kb * r.Weight
	E := kb * r.Weight * d * d
	rho := x*x + y*y
	if !(rho > 0) || !(L > 0) || math.IsInf(rho, 0) {
		return E, false
	}

	// Gradients in R9 (blocks a, b, c) of y = -(|a| D) and x = pp qq - mm rr
	// from those of D (bc, ca, ab), |a| (ah, 0, 0), pp (b, a, 0), qq (c, 0,
	// a), mm (2a, 0, 0) and rr (0, c, b) (hingeGradients lists them), their
	// zero blocks left out: that changes at most the sign of a zero entry,
	// which no sum the assembly makes (from +0) can tell.
	ah := a.Scale(1 / L)
	for i := 0; i < 3; i++ {
		t.gy[i] = -(D*ah[i] + L*bc[i])
		t.gy[3+i] = -(L * ca[i])
		t.gy[6+i] = -(L * ab[i])
		t.gx[i] = qq*b[i] + pp*c[i] - rr*(2*a[i])
		t.gx[3+i] = qq*a[i] - mm*c[i]
		t.gx[6+i] = pp*a[i] - mm*b[i]
	}
	inv := 1 / rho
	for i := 0; i < 9; i++ {
		t.gt[i] = (x*t.gy[i] - y*t.gx[i]) * inv
	}
	t.a, t.b, t.c, t.ah = a, b, c, ah
	t.L, t.D, t.x, t.y, t.pp, t.qq, t.mm, t.rr, t.inv = L, D, x, y, pp, qq, mm, rr, inv
	t.k2, t.d = k2, d
	return E, true
}

// termBits is t's bytes (every field a float64 or an array of them), so
// that two terms compare bit for bit.
func termBits(t *testing.T, h *hingeTerms) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, h); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestHingeEvalBitwise: the scalar hingeTerms.eval returns the vector
// form's energy, validity and every term bit for bit, on the hinge test
// cases (flat, bent, near pi, exactly flat), degenerate hinges (a zero
// edge, coincident wings) and signed zeros.
func TestHingeEvalBitwise(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	cs := hingeCases(t, rng, 900)
	negZero := math.Copysign(0, -1)
	rest := cs[0].rest
	special := [][4]dense.Vec3{
		{{}, {}, {0, 1, 0}, {0, -1, 0}},                                           // zero edge
		{{}, {1, 0, 0}, {0.5, 1, 0}, {0.5, 1, 0}},                                 // coincident wings
		{{negZero, negZero, negZero}, {1, 0, 0}, {0.5, 1, 0}, {0.5, -1, negZero}}, // flat, signed zeros
		{{}, {1, 0, 0}, {0.5, 1, 0}, {0.5, 1, 1e-300}},                            // folded shut
		{{}, {1, 0, 0}, {math.NaN(), 1, 0}, {0.5, -1, 0}},                         // NaN
	}
	for k := range len(cs) + len(special) {
		var r *HingeRest
		var x [4]dense.Vec3
		kb := 0.3
		if k < len(cs) {
			r, x, kb = &cs[k].rest, cs[k].x, cs[k].kb
		} else {
			r, x = &rest, special[k-len(cs)]
		}
		var got, want hingeTerms
		E, ok := got.eval(r, kb, x[0], x[1], x[2], x[3])
		Ew, okw := want.vectorEval(r, kb, x[0], x[1], x[2], x[3])
		if math.Float64bits(E) != math.Float64bits(Ew) || ok != okw || !bytes.Equal(termBits(t, &got), termBits(t, &want)) {
			t.Fatalf("case %d: energy %v (%v), vector form %v (%v); terms %+v, vector form %+v", k, E, ok, Ew, okw, got, want)
		}
	}
}
