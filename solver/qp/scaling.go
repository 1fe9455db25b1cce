package qp

import "math"

const (
	minScaling = 1e-4
	maxScaling = 1e4
)

func clampScale(v float64) float64 {
	if v < minScaling {
		return 1
	}
	if v > maxScaling {
		return maxScaling
	}
	return v
}

// ruiz equilibrates the KKT matrix [[P, A^T], [A, 0]] in place (modified Ruiz
// scaling as in OSQP): on return P := c D P D, A := E A D, q := c D q, where
// D (len n) and E (len m) are written to d and e and c is returned; work
// (len >= n) and et (len m) are scratch.
func ruiz(p, a *CSR, q, d, e []float64, iters int, work, et []float64) float64 {
	n, m := p.Rows, a.Rows
	for i := range d {
		d[i] = 1
	}
	for i := range e {
		e[i] = 1
	}
	c := 1.0
	if iters < 0 {
		return c
	}
	dt := work[:n]
	for it := 0; it < iters; it++ {
		for j := range dt {
			dt[j] = 0
		}
		for i := 0; i < n; i++ { // P symmetric: row norms are column norms
			for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
				dt[i] = math.Max(dt[i], math.Abs(p.Val[k]))
			}
		}
		for i := 0; i < m; i++ {
			et[i] = 0
			for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
				v := math.Abs(a.Val[k])
				et[i] = math.Max(et[i], v)
				dt[a.Col[k]] = math.Max(dt[a.Col[k]], v)
			}
		}
		for j := range dt {
			dt[j] = 1 / math.Sqrt(clampScale(dt[j]))
		}
		for i := range et {
			et[i] = 1 / math.Sqrt(clampScale(et[i]))
		}
		for i := 0; i < n; i++ {
			for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
				p.Val[k] *= dt[i] * dt[p.Col[k]]
			}
			q[i] *= dt[i]
			d[i] *= dt[i]
		}
		for i := 0; i < m; i++ {
			for k := a.RowPtr[i]; k < a.RowPtr[i+1]; k++ {
				a.Val[k] *= et[i] * dt[a.Col[k]]
			}
			e[i] *= et[i]
		}
		// cost scaling
		mean := 0.0
		for i := 0; i < n; i++ {
			r := 0.0
			for k := p.RowPtr[i]; k < p.RowPtr[i+1]; k++ {
				r = math.Max(r, math.Abs(p.Val[k]))
			}
			mean += r
		}
		if n > 0 {
			mean /= float64(n)
		}
		g := 1 / clampScale(math.Max(mean, vecNormInf(q)))
		for k := range p.Val {
			p.Val[k] *= g
		}
		for i := range q {
			q[i] *= g
		}
		c *= g
	}
	return c
}
