package qp

import (
	"math"
	"math/rand"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// bruteForce enumerates all active sets of min 1/2 x'Hx - f'x s.t. A x >= b
// (dense), solving each equality-constrained KKT system with a rank-revealing
// SVD, and returns the best KKT point found (feasible, multipliers >= 0).
func bruteForce(h *mat.Dense, f []float64, a *mat.Dense, b []float64) (x []float64, obj float64, found bool) {
	n, _ := h.Dims()
	m, _ := a.Dims()
	obj = math.Inf(1)
	for mask := 0; mask < 1<<m; mask++ {
		var act []int
		for i := 0; i < m; i++ {
			if mask&(1<<i) != 0 {
				act = append(act, i)
			}
		}
		k := len(act)
		K := mat.NewDense(n+k, n+k, nil)
		rhs := mat.NewVecDense(n+k, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				K.Set(i, j, h.At(i, j))
			}
			rhs.SetVec(i, f[i])
		}
		for r, i := range act {
			for j := 0; j < n; j++ {
				K.Set(n+r, j, a.At(i, j))
				K.Set(j, n+r, -a.At(i, j)) // H x - A^T y = f
			}
			rhs.SetVec(n+r, b[i])
		}
		var svd mat.SVD
		if !svd.Factorize(K, mat.SVDFull) {
			continue
		}
		s := svd.Values(nil)
		var u, v mat.Dense
		svd.UTo(&u)
		svd.VTo(&v)
		sol := make([]float64, n+k)
		for c := range s {
			if s[c] <= 1e-10*s[0] {
				continue
			}
			coef := mat.Dot(u.ColView(c), rhs) / s[c]
			for i := range sol {
				sol[i] += coef * v.At(i, c)
			}
		}
		// consistency
		var chk mat.VecDense
		chk.MulVec(K, mat.NewVecDense(n+k, sol))
		bad := false
		for i := 0; i < n+k; i++ {
			if math.Abs(chk.AtVec(i)-rhs.AtVec(i)) > 1e-8*(1+math.Abs(rhs.AtVec(i))) {
				bad = true
			}
		}
		for r := 0; r < k; r++ {
			if sol[n+r] < -1e-9 {
				bad = true
			}
		}
		xc := sol[:n]
		for i := 0; i < m && !bad; i++ {
			ax := 0.0
			for j := 0; j < n; j++ {
				ax += a.At(i, j) * xc[j]
			}
			if ax < b[i]-1e-9*(1+math.Abs(b[i])) {
				bad = true
			}
		}
		if bad {
			continue
		}
		o := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				o += 0.5 * xc[i] * h.At(i, j) * xc[j]
			}
			o -= f[i] * xc[i]
		}
		if o < obj {
			obj, x, found = o, append([]float64(nil), xc...), true
		}
	}
	return
}

func TestBruteForceTiny(t *testing.T) {
	rng := rand.New(rand.NewSource(42))
	s := NewSolver()
	solved, other := 0, 0
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.Intn(4)
		m := rng.Intn(6)
		k := n - rng.Intn(2) // rows of B: sometimes singular H
		if trial%7 == 0 {
			k = 0 // H = 0: an LP
		}
		B := mat.NewDense(max(k, 1), n, nil)
		for i := 0; i < k; i++ {
			for j := 0; j < n; j++ {
				B.Set(i, j, rng.NormFloat64())
			}
		}
		H := mat.NewDense(n, n, nil)
		H.Mul(B.T(), B)
		q := &testQP{h: &triplets{r: n, c: n}, f: make([]float64, n), obj: math.NaN()}
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				if v := H.At(i, j); v != 0 {
					q.h.add(i, j, v)
				}
			}
			q.f[i] = rng.NormFloat64()
		}
		A := mat.NewDense(max(m, 1), n, nil)
		if m > 0 {
			q.ain = &triplets{r: m, c: n}
			q.bin = make([]float64, m)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					v := rng.NormFloat64()
					if rng.Intn(3) == 0 {
						v = 0
					}
					A.Set(i, j, v)
					if v != 0 {
						q.ain.add(i, j, v)
					}
				}
				q.bin[i] = rng.NormFloat64()
			}
			if m >= 2 && rng.Intn(3) == 0 { // duplicated constraint
				for j := 0; j < n; j++ {
					A.Set(m-1, j, A.At(0, j))
				}
				q.ain = &triplets{r: m, c: n}
				for i := 0; i < m; i++ {
					for j := 0; j < n; j++ {
						if v := A.At(i, j); v != 0 {
							q.ain.add(i, j, v)
						}
					}
				}
				q.bin[m-1] = q.bin[0]
			}
		}
		xb, ob, found := bruteForce(H, q.f, A.Slice(0, m, 0, n).(*mat.Dense), q.bin)
		if m == 0 {
			xb, ob, found = bruteForce(H, q.f, mat.NewDense(1, n, nil).Slice(0, 0, 0, n).(*mat.Dense), nil)
		}
		res, err := s.Solve(q.problem(t), nil, DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		if !found {
			other++
			if res.Status != Infeasible && res.Status != DualInfeasible {
				t.Errorf("trial %d (n=%d m=%d): brute force finds no KKT point, solver says %v obj %g", trial, n, m, res.Status, q.objective(res.X))
			}
			continue
		}
		solved++
		if res.Status != Solved {
			t.Errorf("trial %d (n=%d m=%d): status %v, brute-force optimum %g", trial, n, m, res.Status, ob)
			continue
		}
		kktCheck(t, "tiny", q, res.X, nil, res.Yin, 1e-8)
		if got := q.objective(res.X); math.Abs(got-ob) > 1e-7*math.Max(1, math.Abs(ob)) {
			t.Errorf("trial %d: objective %.10g, brute force %.10g", trial, got, ob)
		}
		if k == n { // strictly convex (almost surely): unique x
			for i := range xb {
				if math.Abs(res.X[i]-xb[i]) > 1e-6*math.Max(1, infNorm(xb)) {
					t.Errorf("trial %d: x %v, brute force %v", trial, res.X, xb)
					break
				}
			}
		}
	}
	t.Logf("%d with optimum, %d infeasible or unbounded", solved, other)
}
