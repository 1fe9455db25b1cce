package elastic

import (
	"math"
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// loopMembraneGradHess is membraneGradHess as loom wrote it before its
// Hessian was written out entry by entry: loops into the upper triangle
// of a 9x9 array, then packed (loopPackUpper). It is the reference
// TestMembraneGradHessBitwise holds membraneGradHess to.
func loopMembraneGradHess(r *MembraneRest, p Lame, x0, x1, x2 dense.Vec3, hw float64, g *[9]float64, H *[54]float64, clamp bool) float64 {
	F := r.DeformationGradient(x0, x1, x2)
	U, s, V := dense.SVD32(F)
	A := r.Area
	E := A * psi(p, s)

	// dF_kl/dx_{a,m} = delta_km c[a][l]: c[0] = -(B0+B1), c[1] = B0, c[2] = B1 (rows of DmInv).
	B := &r.DmInv
	c := [3][2]float64{{-B[0][0] - B[1][0], -B[0][1] - B[1][1]}, {B[0][0], B[0][1]}, {B[1][0], B[1][1]}}
	// cv[a][j] = sum_l c[a][l] V[l][j].
	var cv [3][2]float64
	for a := 0; a < 3; a++ {
		cv[a][0] = c[a][0]*V[0][0] + c[a][1]*V[1][0]
		cv[a][1] = c[a][0]*V[0][1] + c[a][1]*V[1][1]
	}
	u0, u1 := U.Col(0), U.Col(1)
	n := u0.Cross(u1)

	// Gradient: P = U diag(p) V^T, dE/dx_{a,m} = A sum_j P_mj c[a][j] = A sum_j U_mj p_j cv[a][j].
	tr := s[0] + s[1] - 2
	p0 := 2*p.Mu*(s[0]-1) + p.Lambda*tr
	p1 := 2*p.Mu*(s[1]-1) + p.Lambda*tr
	for a := 0; a < 3; a++ {
		for m := 0; m < 3; m++ {
			g[3*a+m] = A * (u0[m]*p0*cv[a][0] + u1[m]*p1*cv[a][1])
		}
	}

	// Hessian modes. W[(i,j)][(a,m)] = Q[m][i] cv[a][j]; w_k = W^T e_k.
	sc0, sc1 := floorAt(s[0], SingularEps), floorAt(s[1], SingularEps)
	mu2 := 2 * p.Mu
	lt := p.Lambda * tr
	beta := (lt - mu2) / (sc0 + sc1)
	lam := [6]float64{
		mu2 + 2*p.Lambda,
		mu2,
		mu2,
		mu2 + 2*beta,
		mu2 + (lt-mu2)/sc0,
		mu2 + (lt-mu2)/sc1,
	}
	if clamp {
		for k := range lam {
			lam[k] = floorAt(lam[k], 0)
		}
	}
	const r2 = 0.70710678118654752440
	var w [6][9]float64
	for a := 0; a < 3; a++ {
		for m := 0; m < 3; m++ {
			k := 3*a + m
			g00 := u0[m] * cv[a][0] // (i,j) = (0,0)
			g11 := u1[m] * cv[a][1]
			g01 := u0[m] * cv[a][1]
			g10 := u1[m] * cv[a][0]
			w[0][k] = r2 * (g00 + g11)
			w[1][k] = r2 * (g00 - g11)
			w[2][k] = r2 * (g01 + g10)
			w[3][k] = r2 * (g01 - g10)
			w[4][k] = n[m] * cv[a][0]
			w[5][k] = n[m] * cv[a][1]
		}
	}
	// H_ij = A sum_k lam_k w_ki w_kj for j >= i, summed over k in order,
	// with the sum written out so that the entries of a row overlap, into
	// the upper triangle of up, then packed into H. (A sum that starts from
	// zero would turn a -0 into +0, which the assembly, summing from +0,
	// does anyway.)
	var up [9][9]float64
	for i := 0; i < 9; i++ {
		l0, l1, l2 := lam[0]*w[0][i], lam[1]*w[1][i], lam[2]*w[2][i]
		l3, l4, l5 := lam[3]*w[3][i], lam[4]*w[4][i], lam[5]*w[5][i]
		row := &up[i]
		for j := i; j < 9; j++ {
			v := l0*w[0][j] + l1*w[1][j] + l2*w[2][j] + l3*w[3][j] + l4*w[4][j] + l5*w[5][j]
			v *= A
			v *= hw
			row[j] = v
		}
	}
	loopPackUpper(&up, H)
	return E
}

// loopPackUpper packs the upper 3x3 blocks of the symmetric 9x9 matrix
// whose upper triangle up holds into H (loopMembraneGradHess).
func loopPackUpper(up *[9][9]float64, H *[54]float64) {
	for a := 0; a < 3; a++ {
		blk := (*[9]float64)(H[9*packedBlock(a, a):])
		r0, r1, r2 := &up[3*a], &up[3*a+1], &up[3*a+2]
		blk[0], blk[1], blk[2] = r0[3*a], r0[3*a+1], r0[3*a+2]
		blk[3], blk[4], blk[5] = r0[3*a+1], r1[3*a+1], r1[3*a+2]
		blk[6], blk[7], blk[8] = r0[3*a+2], r1[3*a+2], r2[3*a+2]
		for b := a + 1; b < 3; b++ {
			blk := (*[9]float64)(H[9*packedBlock(a, b):])
			c0, c1, c2 := (*[3]float64)(r0[3*b:]), (*[3]float64)(r1[3*b:]), (*[3]float64)(r2[3*b:])
			blk[0], blk[1], blk[2] = c0[0], c0[1], c0[2]
			blk[3], blk[4], blk[5] = c1[0], c1[1], c1[2]
			blk[6], blk[7], blk[8] = c2[0], c2[1], c2[2]
		}
	}
}

// TestMembraneGradHessBitwise: membraneGradHess returns the loop form's
// energy, gradient and packed Hessian bit for bit, clamped or not, on the
// membrane test cases, collapsed and inverted triangles and signed zeros.
func TestMembraneGradHessBitwise(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	cs := membraneCases(t, rng, 600)
	negZero := math.Copysign(0, -1)
	special := [][3]dense.Vec3{
		{{}, {}, {}},               // collapsed to a point
		{{}, {1, 0, 0}, {2, 0, 0}}, // collapsed to a line
		{{negZero, negZero, negZero}, {1, 0, negZero}, {0, 1, 0}}, // signed zeros
		{{}, {0, 1, 0}, {1, 0, 0}},                                // inverted
		{{}, {math.NaN(), 0, 0}, {0, 1, 0}},                       // NaN
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	for k := range len(cs) + len(special) {
		c := &cs[k%len(cs)]
		x := c.x
		if k >= len(cs) {
			x = special[k-len(cs)]
		}
		for _, clamp := range []bool{false, true} {
			var g, gw [9]float64
			var H, Hw [54]float64
			E := membraneGradHess(&c.rest, c.p, x[0], x[1], x[2], 0.3, &g, &H, clamp)
			Ew := loopMembraneGradHess(&c.rest, c.p, x[0], x[1], x[2], 0.3, &gw, &Hw, clamp)
			ok := same(E, Ew)
			for i := range g {
				ok = ok && same(g[i], gw[i])
			}
			for i := range H {
				ok = ok && same(H[i], Hw[i])
			}
			if !ok {
				t.Fatalf("case %d clamp %v: E %v g %v H %v, loop form E %v g %v H %v", k, clamp, E, g, H, Ew, gw, Hw)
			}
		}
	}
}
