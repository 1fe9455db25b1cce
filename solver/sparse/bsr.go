package sparse

// BSR is a square block-sparse matrix with 3x3 blocks in block compressed sparse
// row form. Row i's blocks are Val[9*j : 9*j+9] (row-major 3x3) at block column
// Col[j] for j in [RowPtr[i], RowPtr[i+1]); Diag[i] is the index j of the
// diagonal block of row i. Matrices made by Pattern.NewMatrix share RowPtr, Col
// and Diag with the Pattern; treat them as read-only.
type BSR struct {
	N      int
	RowPtr []int32
	Col    []int32
	Diag   []int32
	Val    []float64
}

// NewMatrix returns a zero matrix with the pattern's structure.
func (p *Pattern) NewMatrix() *BSR {
	return &BSR{N: p.n, RowPtr: p.rowPtr, Col: p.col, Diag: p.diag, Val: make([]float64, 9*len(p.col))}
}

// AssembleHessian sets every stored block of out to the sum of its element-Hessian
// contributions from elemHess (len >= HessLen()), always added in the same order
// (by group, then element). It runs in parallel over block rows, writes each
// block exactly once, and is bitwise deterministic for any Runner. out must have
// been made by p.NewMatrix. It does not allocate in steady state.
func (p *Pattern) AssembleHessian(r Runner, elemHess []float64, out *BSR) {
	if len(elemHess) < p.hessLen {
		panic("sparse: AssembleHessian: elemHess shorter than HessLen")
	}
	if out.N != p.n || len(out.Val) != 9*len(p.col) || len(out.RowPtr) != p.n+1 {
		panic("sparse: AssembleHessian: matrix does not match pattern")
	}
	t := getTask()
	t.fn = hessKernel
	t.p, t.m, t.u = p, out, elemHess
	r.For(p.n, t.body)
	putTask(t)
}

func hessKernel(t *task, lo, hi int) {
	p, h, val := t.p, t.u, t.m.Val
	for j := p.rowPtr[lo]; j < p.rowPtr[hi]; j++ {
		var a0, a1, a2, a3, a4, a5, a6, a7, a8 float64
		for _, c := range p.hCon[p.hPtr[j]:p.hPtr[j+1]] {
			o, s := int(c.off), int(c.stride)
			switch {
			case s < 0: // a Factor block u v^T, row by row
				u, v := h[o:o+3:o+3], h[-s-1:2-s:2-s]
				v0, v1, v2 := v[0], v[1], v[2]
				x := u[0]
				a0 += x * v0
				a1 += x * v1
				a2 += x * v2
				x = u[1]
				a3 += x * v0
				a4 += x * v1
				a5 += x * v2
				x = u[2]
				a6 += x * v0
				a7 += x * v1
				a8 += x * v2
			case s == 3: // a contiguous row-major block
				b := h[o : o+9 : o+9]
				a0 += b[0]
				a1 += b[1]
				a2 += b[2]
				a3 += b[3]
				a4 += b[4]
				a5 += b[5]
				a6 += b[6]
				a7 += b[7]
				a8 += b[8]
			default: // a stored block: entry (r, c) at o + r*rs + c*cs
				rs, cs := s, 1
				if s == 0 { // a Packed block, transposed
					rs, cs = 1, 3
				}
				b := h[o : o+2*rs+2*cs+1]
				a0 += b[0]
				a1 += b[cs]
				a2 += b[2*cs]
				a3 += b[rs]
				a4 += b[rs+cs]
				a5 += b[rs+2*cs]
				a6 += b[2*rs]
				a7 += b[2*rs+cs]
				a8 += b[2*rs+2*cs]
			}
		}
		d := val[9*j : 9*j+9 : 9*j+9]
		d[0], d[1], d[2] = a0, a1, a2
		d[3], d[4], d[5] = a3, a4, a5
		d[6], d[7], d[8] = a6, a7, a8
	}
}

// AssembleGradient sets out[3i:3i+3] to the sum of vertex i's element-gradient
// contributions from elemGrad (len >= GradLen()), in a fixed order (by group,
// then element). len(out) must be 3*N(). Parallel over vertices, bitwise
// deterministic, no allocation in steady state.
func (p *Pattern) AssembleGradient(r Runner, elemGrad []float64, out []float64) {
	if len(elemGrad) < p.gradLen {
		panic("sparse: AssembleGradient: elemGrad shorter than GradLen")
	}
	if len(out) != 3*p.n {
		panic("sparse: AssembleGradient: len(out) != 3*N")
	}
	t := getTask()
	t.fn = gradKernel
	t.p, t.u, t.w = p, elemGrad, out
	r.For(p.n, t.body)
	putTask(t)
}

func gradKernel(t *task, lo, hi int) {
	p, g, out := t.p, t.u, t.w
	for i := lo; i < hi; i++ {
		var x, y, z float64
		for _, o := range p.gOff[p.gPtr[i]:p.gPtr[i+1]] {
			e := g[o : o+3 : o+3]
			x += e[0]
			y += e[1]
			z += e[2]
		}
		out[3*i], out[3*i+1], out[3*i+2] = x, y, z
	}
}

func (m *BSR) check() {
	if len(m.RowPtr) != m.N+1 || len(m.Diag) != m.N || len(m.Val) != 9*len(m.Col) {
		panic("sparse: malformed BSR")
	}
}

// Scale multiplies every stored entry by s.
func (m *BSR) Scale(r Runner, s float64) { m.ScaleAddDiagonal(r, s, 0, nil) }

// AddDiagonal adds d[3i+k] to diagonal entry (k,k) of the diagonal block of row
// i; len(d) must be 3N (one value per degree of freedom, e.g. the lumped mass).
func (m *BSR) AddDiagonal(r Runner, d []float64) { m.ScaleAddDiagonal(r, 1, 1, d) }

// ScaleAddDiagonal sets m = s*m + a*diag(d) in one pass, e.g. s = -h^2 and a = 1
// with d the per-DOF lumped mass to form M - h^2 K from an assembled K. d may be
// nil (no diagonal term); otherwise len(d) must be 3N. Parallel over block rows;
// it does not allocate in steady state.
func (m *BSR) ScaleAddDiagonal(r Runner, s, a float64, d []float64) {
	m.check()
	if d != nil && len(d) != 3*m.N {
		panic("sparse: ScaleAddDiagonal: len(d) != 3*N")
	}
	t := getTask()
	t.fn = scaleDiagKernel
	t.m, t.a, t.c, t.u = m, s, a, d
	r.For(m.N, t.body)
	putTask(t)
}

func scaleDiagKernel(t *task, lo, hi int) {
	m, s, a, d := t.m, t.a, t.c, t.u
	if s != 1 {
		v := m.Val[9*int(m.RowPtr[lo]) : 9*int(m.RowPtr[hi])]
		for i := range v {
			v[i] *= s
		}
	}
	if d != nil {
		for i := lo; i < hi; i++ {
			b := m.Val[9*int(m.Diag[i]) : 9*int(m.Diag[i])+9 : 9*int(m.Diag[i])+9]
			b[0] += a * d[3*i]
			b[4] += a * d[3*i+1]
			b[8] += a * d[3*i+2]
		}
	}
}

// MulVec computes y = m x, in parallel over block rows with a fixed summation
// order per row (bitwise deterministic). len(x) and len(y) must be 3N and x and y
// must not overlap.
func (m *BSR) MulVec(r Runner, x, y []float64) {
	m.check()
	if len(x) != 3*m.N || len(y) != 3*m.N {
		panic("sparse: MulVec: length mismatch")
	}
	if m.N > 0 && &x[0] == &y[0] {
		panic("sparse: MulVec: x and y alias")
	}
	t := getTask()
	t.fn = mulKernel
	t.m, t.u, t.w = m, x, y
	r.For(m.N, t.body)
	putTask(t)
}

func mulKernel(t *task, lo, hi int) {
	m, x, y := t.m, t.u, t.w
	for i := lo; i < hi; i++ {
		y0, y1, y2 := m.rowMul(i, x)
		y[3*i], y[3*i+1], y[3*i+2] = y0, y1, y2
	}
}

// rowMul returns block row i of m times x.
func (m *BSR) rowMul(i int, x []float64) (y0, y1, y2 float64) {
	return RowMul(m.RowPtr, m.Col, m.Val, i, x)
}

// RowMul returns block row i of the block rows (rowPtr, col, val), in BSR's
// layout (square or not), times x, summed in the row's order.
func RowMul(rowPtr, col []int32, val []float64, i int, x []float64) (y0, y1, y2 float64) {
	j0, j1 := int(rowPtr[i]), int(rowPtr[i+1])
	cols := col[j0:j1]
	vals := val[9*j0 : 9*j1]
	for k, c := range cols {
		xs := x[3*int(c) : 3*int(c)+3 : 3*int(c)+3]
		b := vals[9*k : 9*k+9 : 9*k+9]
		x0, x1, x2 := xs[0], xs[1], xs[2]
		y0 += b[0]*x0 + b[1]*x1 + b[2]*x2
		y1 += b[3]*x0 + b[4]*x1 + b[5]*x2
		y2 += b[6]*x0 + b[7]*x1 + b[8]*x2
	}
	return
}
