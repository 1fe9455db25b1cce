// Package kkt is the brute-force reference the contact solvers' tests check
// against: a small strictly convex QP solved by trying every active set with
// a dense LU of its KKT system. It shares no code with the solvers.
package kkt

import (
	"errors"

	"gonum.org/v1/gonum/mat"

	"github.com/loomsim/loom/solver/dense"
)

// Brute solves min 1/2 v^T A v - b^T v subject to the pins (v_p = z, three
// equalities per pinned vertex) and the rows c_k^T v >= d_k. For each active
// set it solves the equality-constrained KKT system
//
//	[A  -C^T] [v  ]   [b]
//	[C   0  ] [lam] = [d]
//
// and returns the first solution whose active multipliers are non-negative
// and that meets the inactive rows (the QP is strictly convex: that is its
// optimum), with the rows' multipliers (0 for inactive rows). singular counts
// the active sets whose KKT matrix LU could not solve (dependent rows).
func Brute(a *mat.SymDense, b []float64, pins map[int]dense.Vec3, c [][]float64, d []float64) (v, lam []float64, singular int, err error) {
	n3 := len(b)
	for set := 0; set < 1<<len(c); set++ {
		var crow [][]float64
		var rhsC []float64
		for i := 0; i < n3/3; i++ {
			if z, ok := pins[i]; ok {
				for k := range 3 {
					e := make([]float64, n3)
					e[3*i+k] = 1
					crow, rhsC = append(crow, e), append(rhsC, z[k])
				}
			}
		}
		first := len(crow)
		var act []int
		for k := range c {
			if set&(1<<k) != 0 {
				crow, rhsC, act = append(crow, c[k]), append(rhsC, d[k]), append(act, k)
			}
		}
		m := len(crow)
		sys := mat.NewDense(n3+m, n3+m, nil)
		rhs := mat.NewVecDense(n3+m, nil)
		for i := range n3 {
			for j := range n3 {
				sys.Set(i, j, a.At(i, j))
			}
			rhs.SetVec(i, b[i])
		}
		for q, row := range crow {
			for j := range n3 {
				sys.Set(n3+q, j, row[j])
				sys.Set(j, n3+q, -row[j])
			}
			rhs.SetVec(n3+q, rhsC[q])
		}
		var sol mat.VecDense
		if err := sol.SolveVec(sys, rhs); err != nil {
			singular++
			continue
		}
		x := sol.RawVector().Data[:n3]
		l := make([]float64, len(c))
		ok := true
		for q, k := range act {
			l[k] = sol.AtVec(n3 + first + q)
			ok = ok && l[k] >= -1e-9
		}
		for k := range c {
			ok = ok && mat.Dot(mat.NewVecDense(n3, c[k]), mat.NewVecDense(n3, x)) >= d[k]-1e-9
		}
		if ok {
			return append([]float64(nil), x...), l, singular, nil
		}
	}
	return nil, nil, singular, errors.New("no active set meets the KKT conditions")
}
