package systems

import (
	"fmt"
	"slices"

	"github.com/loomsim/loom/solver/qp"
)

// QPStats summarizes the step's last QP solve.
type QPStats struct {
	Rows           int // contact inequalities
	Iterations     int // ADMM iterations
	Factorizations int
	Residual       float64 // largest relative KKT residual
}

// contactQP assembles the implicit step as the QP of Weidner 2018 eq. 12,
//
//	minimize 1/2 v^T A v - b^T v  s.t.  v_p = z_p (pins),  n^T v_i >= target_i (contacts),
//
// reusing its buffers (and the QP solver's, qp.Solver.SolveInto) from step
// to step, so that a step whose contact set is that of the previous one
// allocates nothing, and warm-starts each solve from the velocities and from
// the previous step's impulses of vertices still in contact.
type contactQP struct {
	solver  *qp.Solver
	h, eq   qp.CSR
	in      qp.CSR
	beq     []float64
	bin     []float64
	warm    qp.Result
	res     qp.Result
	prob    qp.Problem
	lastImp []float64 // per vertex, the impulse of the previous solve
	// lastPair is the impulse of each proximity pair (by its vertices) of
	// the previous solve that had one.
	lastPair, nextPair map[[4]int32]float64
}

// qpSettings are the QP solver's defaults with one equilibration pass: the
// implicit step's matrix is already well scaled (a mass-dominated diagonal),
// and more passes cost more than the solve they would save.
var qpSettings = func() qp.Settings {
	s := qp.DefaultSettings()
	s.ScalingIter = 1
	return s
}()

// pairMaxIter bounds the ADMM iterations of a QP with proximity rows: one
// that does not converge (degenerate sets of pairs) is solved again
// without them (ImplicitSolve), the fail-safe's repulsions taking over.
const pairMaxIter = 5000

func (c *contactQP) solve(s *ClothState) error {
	if c.solver == nil {
		c.solver = qp.NewSolver()
	}
	n := s.NumVerts()
	c.hessian(s)
	c.pins(s)
	c.rows(s)
	if len(c.lastImp) != n {
		c.lastImp = make([]float64, n)
	}
	c.warm.X = append(c.warm.X[:0], s.VNew...)
	c.warm.Yeq = c.warm.Yeq[:0]
	c.warm.Yin = c.warm.Yin[:0]
	for _, r := range s.Contacts {
		c.warm.Yin = append(c.warm.Yin, c.lastImp[r.Vertex])
	}
	for _, r := range s.Pairs {
		c.warm.Yin = append(c.warm.Yin, c.lastPair[r.V])
	}
	c.prob = qp.Problem{H: &c.h, F: s.B, Aeq: &c.eq, Beq: c.beq, Ain: &c.in, Bin: c.bin}
	res := &c.res
	set := qpSettings
	if len(s.Pairs) > 0 {
		set.MaxIter = pairMaxIter
	}
	if err := c.solver.SolveInto(&c.prob, &c.warm, set, res); err != nil {
		return fmt.Errorf("QP: %w", err)
	}
	s.LastQP = QPStats{Rows: len(s.Contacts) + len(s.Pairs), Iterations: res.Iterations, Factorizations: res.Factorizations, Residual: res.Residuals.Max()}
	if res.Status != qp.Solved {
		return fmt.Errorf("QP with %d contact and %d proximity rows: %v after %d iterations (KKT %v)", len(s.Contacts), len(s.Pairs), res.Status, res.Iterations, res.Residuals)
	}
	copy(s.VNew, res.X)
	nc := len(s.Contacts)
	s.Impulse = append(s.Impulse[:0], res.Yin[:nc]...)
	s.PairImpulse = append(s.PairImpulse[:0], res.Yin[nc:]...)
	clear(c.lastImp)
	for k, r := range s.Contacts {
		c.lastImp[r.Vertex] = res.Yin[k]
	}
	if c.nextPair == nil {
		c.lastPair, c.nextPair = map[[4]int32]float64{}, map[[4]int32]float64{}
	}
	clear(c.nextPair)
	for k, r := range s.Pairs {
		if y := res.Yin[nc+k]; y > 0 {
			c.nextPair[r.V] = y
		}
	}
	c.lastPair, c.nextPair = c.nextPair, c.lastPair
	return nil
}

// hessian copies the block-sparse system matrix into the scalar CSR the QP
// takes, structure and values, in buffers kept between steps. The structure
// is copied every step: a remesh can change the columns (an edge flip) and
// keep the sizes.
func (c *contactQP) hessian(s *ClothState) {
	A := s.A
	n, nnz := 3*A.N, 9*len(A.Col)
	c.h.Rows, c.h.Cols = n, n
	c.h.RowPtr = slices.Grow(c.h.RowPtr[:0], n+1)[:n+1]
	c.h.Col = slices.Grow(c.h.Col[:0], nnz)[:nnz]
	c.h.Val = slices.Grow(c.h.Val[:0], nnz)[:nnz]
	c.h.RowPtr[0] = 0
	k := 0
	for i := 0; i < A.N; i++ {
		for r := 0; r < 3; r++ {
			for b := A.RowPtr[i]; b < A.RowPtr[i+1]; b++ {
				j := 3 * int(A.Col[b])
				c.h.Col[k], c.h.Col[k+1], c.h.Col[k+2] = j, j+1, j+2
				copy(c.h.Val[k:k+3], A.Val[9*int(b)+3*r:9*int(b)+3*r+3])
				k += 3
			}
			c.h.RowPtr[3*i+r+1] = k
		}
	}
}

// pins writes one equality row per pinned coordinate: v = z.
func (c *contactQP) pins(s *ClothState) {
	m := 3 * len(s.Pins)
	c.eq = qp.CSR{Rows: m, Cols: 3 * s.NumVerts(), RowPtr: c.eq.RowPtr[:0], Col: c.eq.Col[:0], Val: c.eq.Val[:0]}
	c.eq.RowPtr = append(c.eq.RowPtr, 0)
	c.beq = c.beq[:0]
	for _, p := range s.Pins {
		for k := 0; k < 3; k++ {
			j := 3*int(p.Vertex) + k
			c.eq.Col = append(c.eq.Col, j)
			c.eq.Val = append(c.eq.Val, 1)
			c.eq.RowPtr = append(c.eq.RowPtr, len(c.eq.Col))
			c.beq = append(c.beq, s.PinZ[j])
		}
	}
}

// rows writes one inequality per contact, n^T v_i >= target, then one per
// proximity pair, n^T sum_k w_k v_k >= target over its cloth vertices.
func (c *contactQP) rows(s *ClothState) {
	c.in = qp.CSR{Rows: len(s.Contacts) + len(s.Pairs), Cols: 3 * s.NumVerts(), RowPtr: c.in.RowPtr[:0], Col: c.in.Col[:0], Val: c.in.Val[:0]}
	c.in.RowPtr = append(c.in.RowPtr, 0)
	c.bin = c.bin[:0]
	for _, r := range s.Contacts {
		for k := 0; k < 3; k++ {
			c.in.Col = append(c.in.Col, 3*int(r.Vertex)+k)
			c.in.Val = append(c.in.Val, r.Normal[k])
		}
		c.in.RowPtr = append(c.in.RowPtr, len(c.in.Col))
		c.bin = append(c.bin, r.Target)
	}
	for _, r := range s.Pairs {
		c.pairRow(&r)
	}
}

// pairRow appends pair r's row; its cloth vertices' columns in increasing
// order (the CSR's), a vertex's weights summed should it appear twice.
func (c *contactQP) pairRow(r *PairRow) {
	order := [4]int{0, 1, 2, 3}
	slices.SortFunc(order[:], func(a, b int) int { return int(r.V[a]) - int(r.V[b]) })
	for i, a := range order {
		v := r.V[a]
		if v < 0 || (i > 0 && r.V[order[i-1]] == v) {
			continue
		}
		w := 0.0
		for _, b := range order[i:] {
			if r.V[b] == v {
				w += r.W[b]
			}
		}
		for k := 0; k < 3; k++ {
			c.in.Col = append(c.in.Col, 3*int(v)+k)
			c.in.Val = append(c.in.Val, w*r.Normal[k])
		}
	}
	c.in.RowPtr = append(c.in.RowPtr, len(c.in.Col))
	c.bin = append(c.bin, r.Target)
}
