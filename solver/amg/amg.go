package amg

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/sparse"
)

// Options are the settings of the hierarchy.
type Options struct {
	// Theta is the strength-of-connection threshold of eq. 3.1 (on block
	// Frobenius norms).
	Theta float64
	// MaxCoarse is the number of block rows at or below which coarsening
	// stops and the level is solved by LDL^T.
	MaxCoarse int
	// Sweeps is the number of damped block-Jacobi sweeps before and after
	// the coarse-grid correction (the same number both ways keeps the
	// V-cycle symmetric).
	Sweeps int
	// Smoother is the smoother of every level but the coarsest.
	Smoother Smoother
	// Damping is the Jacobi smoother's damping over rho(D^-1 A): x +=
	// (Damping / rho) D^-1 (b - A x). It must lie in (0, 2) for a
	// convergent smoother.
	Damping float64
	// KeepProlongator keeps the smoothed prolongators (and the spectral
	// radius estimates) from the last symbolic setup while the pattern
	// holds; each Setup then recomputes only the Galerkin products, the
	// smoother's diagonal blocks and the coarse factor.
	KeepProlongator bool
	// RotationLevels is the number of levels whose tentative prolongators
	// carry the rigid rotations (when Setup is given coordinates); the
	// coarser ones carry the translations only. 0: translations everywhere.
	// On a 100x100 drape step matrix the rotations halve PCG's iterations
	// (34 to 17 with two levels; 200x200: 78 to 34) but double the operator
	// complexity (1.24 to 2.47: two coarse nodes per aggregate, 40 blocks a
	// row) and triple the numeric setup, so they do not pay and are off.
	RotationLevels int
	// WeakDrop is the relative block strength (||A_ij||_F over
	// sqrt(||A_ii||_F ||A_jj||_F), as in the strength of connection) below
	// which an off-diagonal block is left out of the filtered operator A^F
	// and its symmetric part lumped into its row's diagonal block (see
	// filterPattern; which blocks are weak is decided at the symbolic
	// setup, as the strength is). The Gauss-Seidel sweeps read A^F, and
	// the prolongator is smoothed with it (Vanek et al. 1996, eq. 3.5's
	// filtered matrix). It applies to the levels whose every block row is
	// one node's three velocities (the finest, and the coarser ones made by
	// translation-only aggregates) and with the Gauss-Seidel smoother only
	// (the Jacobi smoother's damping is over rho(D^-1 A) of the whole A).
	// Levels below a rotation level are left whole: there the blocks
	// between an aggregate's translation and rotation nodes are small in
	// norm but not weak (dropped, a rotation hierarchy's PCG iterations
	// went from 41 to 210 in TestRigidModes). 0 keeps every block.
	WeakDrop float64
}

// DefaultOptions returns the settings measured best on the implicit cloth
// step's matrices (see the package doc).
func DefaultOptions() Options {
	return Options{Theta: 0.08, MaxCoarse: 200, Sweeps: 1, Damping: 1, KeepProlongator: false, RotationLevels: 0, WeakDrop: 0.03}
}

// Smoother selects the V-cycle's smoother.
type Smoother uint8

const (
	// GaussSeidel is multicolour block Gauss-Seidel: forward over the
	// colours before the coarse correction, backward after it (symmetric).
	// Rows of one colour share no block, so each colour's rows update in
	// parallel and the result does not depend on the split.
	GaussSeidel Smoother = iota
	// Jacobi is damped block Jacobi.
	Jacobi
)

// powerIterations is the number of power-method steps estimating
// rho(D^-1 A) from a fixed start vector.
const powerIterations = 10

// warmIterations is the number of power-method steps from the last numeric
// setup's vector.
const warmIterations = 3

// maxLevels bounds the hierarchy's depth.
const maxLevels = 12

// Preconditioner is a smoothed-aggregation AMG V-cycle for a symmetric
// positive definite 3x3 block-sparse matrix. Setup builds it (symbolic part
// when the pattern is new, numeric part always); Apply runs one V-cycle,
// a symmetric positive definite approximation of A^-1 for PCG. It is not
// safe for concurrent use. Apply does not allocate.
type Preconditioner struct {
	opt    Options
	rowPtr []int32 // the pattern of the analyzed fine matrix
	col    []int32
	levels []*level
	coarse coarseSolve
	fresh  bool      // the prolongators are to be computed in the next numeric setup
	nsym   int       // symbolic setups so far
	x      []float64 // the fine nodes' positions (3n) for the rigid modes, or nil
	b0     []float64 // the fine level's near-null space
	// fineVal is Setup's copy of the fine matrix's values, kept when the
	// V-cycle reads them (Jacobi, or Gauss-Seidel with several sweeps).
	fineVal []float64
	filt    filtered // SetupFiltered's matrix
}

// Matches reports whether A has the pattern of the last Setup's matrix, so
// that the V-cycle can precondition it (as a lagged preconditioner).
func (p *Preconditioner) Matches(A *sparse.BSR) bool {
	return len(p.rowPtr) > 0 && slices.Equal(A.RowPtr, p.rowPtr) && slices.Equal(A.Col, p.col)
}

// Analyses returns the number of symbolic setups so far (one per pattern
// change).
func (p *Preconditioner) Analyses() int { return p.nsym }

// New returns an empty preconditioner with options o; Setup builds it.
func New(o Options) (*Preconditioner, error) {
	switch {
	case !(o.Theta >= 0 && o.Theta < 1):
		return nil, fmt.Errorf("amg: Theta = %v, want [0, 1)", o.Theta)
	case o.MaxCoarse < 1:
		return nil, fmt.Errorf("amg: MaxCoarse = %d, want >= 1", o.MaxCoarse)
	case o.Sweeps < 1:
		return nil, fmt.Errorf("amg: Sweeps = %d, want >= 1", o.Sweeps)
	case !(o.Damping > 0 && o.Damping < 2):
		return nil, fmt.Errorf("amg: Damping = %v, want (0, 2)", o.Damping)
	case !(o.WeakDrop >= 0 && o.WeakDrop < 1):
		return nil, fmt.Errorf("amg: WeakDrop = %v, want [0, 1)", o.WeakDrop)
	}
	return &Preconditioner{opt: o}, nil
}

// LevelSize describes one level of the hierarchy.
type LevelSize struct {
	Rows, Blocks int // block rows and stored 3x3 blocks of the level's operator
}

// Levels returns the sizes of the hierarchy's levels, finest first.
func (p *Preconditioner) Levels() []LevelSize {
	out := make([]LevelSize, 0, len(p.levels)+1)
	for _, l := range p.levels {
		out = append(out, LevelSize{l.a.rows, len(l.a.col)})
	}
	if c := p.coarse.a; c != nil {
		out = append(out, LevelSize{c.rows, len(c.col)})
	}
	return out
}

// Setup prepares the V-cycle for A: a new symbolic setup (strength,
// aggregates, the patterns of the prolongators and of the coarse operators,
// the coarse LDL^T analysis) when A's pattern differs from the last one,
// then the numeric setup. A must be symmetric positive definite. x, when
// not nil, holds the positions of A's nodes (3N): the near-null space is
// then the six rigid-body modes (translations and rotations), otherwise the
// three translations. Results are bitwise identical for any Runner.
//
// Apply is then the V-cycle of this A: Setup keeps what the cycle reads
// (the smoother's single-precision copies, or a copy of A's values), so A's
// values may change afterwards and the preconditioner stays the same
// symmetric positive definite operator, a lagged preconditioner for the
// matrices that follow while their pattern is A's.
func (p *Preconditioner) Setup(r sparse.Runner, A *sparse.BSR, x []float64) error {
	if A == nil || len(A.RowPtr) != A.N+1 || len(A.Val) != 9*len(A.Col) || int(A.RowPtr[A.N]) != len(A.Col) {
		return errors.New("amg: malformed matrix")
	}
	if x != nil && len(x) != 3*A.N {
		return fmt.Errorf("amg: %d coordinates for %d block rows, want %d", len(x), A.N, 3*A.N)
	}
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("amg: coordinate %d is %v", i, v)
		}
	}
	if p.opt.RotationLevels == 0 {
		x = nil
	}
	if (x == nil) != (p.x == nil) {
		p.rowPtr = p.rowPtr[:0] // another near-null space: a new hierarchy
	}
	p.x = x
	m := 3
	if x != nil {
		m = 6
	}
	p.b0 = slices.Grow(p.b0[:0], 3*m*A.N)[:3*m*A.N]
	if x != nil {
		rigidModes(x, p.b0)
	} else {
		translations(p.b0)
	}
	fine := blockMat{rows: A.N, cols: A.N, rowPtr: A.RowPtr, col: A.Col, val: A.Val}
	if !slices.Equal(A.RowPtr, p.rowPtr) || !slices.Equal(A.Col, p.col) {
		if err := p.symbolic(r, fine); err != nil {
			return err
		}
	}
	if len(p.levels) > 0 {
		val := A.Val
		if p.opt.Smoother != GaussSeidel || p.opt.Sweeps > 1 {
			p.fineVal = append(p.fineVal[:0], A.Val...)
			val = p.fineVal
		}
		p.levels[0].a.val = val
	} else {
		p.coarse.a.val = A.Val
	}
	return p.numeric(r)
}

// symbolic builds the hierarchy's patterns for fine, using its values for
// the strength of connection.
func (p *Preconditioner) symbolic(r sparse.Runner, fine blockMat) error {
	p.rowPtr = append(p.rowPtr[:0], fine.rowPtr...)
	p.col = append(p.col[:0], fine.col...)
	p.levels = p.levels[:0]
	p.fresh = true
	p.nsym++
	a := &fine
	b, m := p.b0, len(p.b0)/(3*fine.rows)
	velocities := true // every block row of a is one node's three velocities
	for a.rows > p.opt.MaxCoarse && len(p.levels) < maxLevels {
		l, err := newLevel(a, p.opt, b, m, len(p.levels)+1, velocities)
		if err != nil {
			return err
		}
		if l == nil { // aggregation stalled
			break
		}
		p.levels = append(p.levels, l)
		// The strength of the next level needs its values.
		if err := l.numeric(r, p.opt, true); err != nil {
			return err
		}
		// With rotations an aggregate has translation and rotation nodes.
		velocities = velocities && m == 3
		a, b, m = &l.rap.c, l.bnext, l.mnext
	}
	return p.coarse.analyze(a)
}

// numeric recomputes the hierarchy's values for the current fine matrix.
func (p *Preconditioner) numeric(r sparse.Runner) error {
	full := p.fresh || !p.opt.KeepProlongator
	for _, l := range p.levels {
		if err := l.numeric(r, p.opt, full); err != nil {
			return err
		}
	}
	p.fresh = false
	return p.coarse.factor()
}

// level is one non-coarsest level: its operator A, smoother data, the
// prolongator P to the next level, R = P^T, and the Galerkin products.
type level struct {
	a    blockMat
	diag []int32  // per row: index of its diagonal block
	rho  float64  // estimate of rho(D_F^-1 A^F) (A^F = A when nothing is dropped)
	agg  []int32  // node -> aggregate
	p    blockMat // smoothed prolongator
	pdst []int32  // per block of A: the block of P in its row that agg(col)'s first coarse node adds to

	m        int       // near-null vectors
	mnext    int       // the next level's: m, or the 3 translations past Options.RotationLevels
	bnull    []float64 // this level's near-null space B, 3 x m per node
	bnext    []float64 // the next level's, R_g per aggregate
	aggPtr   []int32   // aggregate g's nodes are aggNodes[aggPtr[g]:aggPtr[g+1]], ascending
	aggNodes []int32
	cfirst   []int32   // aggregate g's coarse nodes are cfirst[g] ... cfirst[g+1]-1
	tentOff  []int32   // node i's tentative blocks (one per coarse node of agg(i)) start at tent[9 tentOff[i]]
	tent     []float64 // the tentative prolongator's blocks
	qOff     []int     // aggregate g's Q_g is qloc[qOff[g]:qOff[g+1]], column-major
	qloc     []float64
	r        *transpose
	ap       *product
	rap      *product // its C is the next level's operator

	// V-cycle vectors: right-hand side, iterate, scratch
	b, x, t []float64
	next    *level // nil when the next level is the coarse solve
	omega   float64
	xc, bc  []float64 // the next level's x and b

	partial []float64
	v, w    []float64 // power-method vectors
	warm    bool      // v holds the last estimate's vector

	bad []bool // per row: its diagonal block is not positive definite

	// serial runs the level's V-cycle kernels on the calling goroutine
	// (serialLevel).
	serial bool

	colorPtr []int32 // Gauss-Seidel: colour c's rows are rows[colorPtr[c]:colorPtr[c+1]]
	rows     []int32 // the rows in colour order
	// A's off-diagonal blocks in colour order (row k is A's row rows[k]),
	// split into L (columns of earlier colours) and U (later colours), in
	// single precision, streamed by the sweeps. gsSrc[k] is the block of A
	// that L's block k (for k < len(gsL.col)) copies, or whose transpose U's
	// block k-len(gsL.col) copies: U's block (i, j) is A's block (j, i)
	// transposed, so that L + D + U is exactly symmetric.
	gsL, gsU blockMat32
	gsSrc    []int32
	// The filtered operator A^F (filterPattern): its diagonal blocks (A_ii
	// plus the symmetric parts of the row's dropped blocks) and their
	// inverses; the blocks of A that row i drops are
	// dropped[dropPtr[i]:dropPtr[i+1]] (pdst is -1 for them). The sweeps
	// read A^F's off-diagonal blocks through gsL and gsU.
	diagF, dinvF     []float64
	dropPtr, dropped []int32
	cur              int // the first position in rows of the colour being swept

	kDinv, kP, kPow, kJac0, kJac, kRes, kRestrict, kProlong, kGS, kPerm, kTent func(lo, hi int)
	kGS0, kResU, kResGS                                                        func(lo, hi int)
}

// newLevel aggregates a and builds the patterns of the prolongator, its
// transpose and the Galerkin product R A P, for the near-null space b of m
// vectors. It returns nil when aggregation does not coarsen (fewer than a
// tenth of the block rows fewer).
func newLevel(a *blockMat, o Options, b []float64, m, depth int, velocities bool) (*level, error) {
	n := a.rows
	l := &level{a: *a}
	l.diag = make([]int32, n)
	for i := 0; i < n; i++ {
		l.diag[i] = -1
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			if int(a.col[k]) == i {
				l.diag[i] = k
			}
		}
		if l.diag[i] < 0 {
			return nil, fmt.Errorf("amg: block row %d has no diagonal block", i)
		}
	}
	ptr, adj, wgt := strength(a, o.Theta)
	agg, nagg := aggregate(ptr, adj, wgt)
	// Aggregate g of s nodes has min(m/3, s) coarse nodes: 3 of its
	// columns of Q_g each.
	l.aggPtr = make([]int32, nagg+1)
	for _, g := range agg {
		l.aggPtr[g+1]++
	}
	l.cfirst = make([]int32, nagg+1)
	l.qOff = make([]int, nagg+1)
	for g := 0; g < nagg; g++ {
		s := l.aggPtr[g+1]
		k := min(int32(m/3), s)
		l.cfirst[g+1] = l.cfirst[g] + k
		l.qOff[g+1] = l.qOff[g] + int(9*s*k)
		l.aggPtr[g+1] += l.aggPtr[g]
	}
	nc := int(l.cfirst[nagg])
	if 10*nc > 9*n {
		return nil, nil
	}
	l.agg = agg
	l.m, l.bnull = m, b
	l.aggNodes = make([]int32, n)
	next := slices.Clone(l.aggPtr[:nagg])
	l.tentOff = make([]int32, n+1)
	for i, g := range agg {
		l.aggNodes[next[g]] = int32(i)
		next[g]++
		l.tentOff[i+1] = l.tentOff[i] + l.cfirst[g+1] - l.cfirst[g]
	}
	l.tent = make([]float64, 9*l.tentOff[n])
	l.qloc = make([]float64, l.qOff[nagg])
	l.mnext = m
	if depth >= o.RotationLevels {
		l.mnext = 3
	}
	l.bnext = make([]float64, 3*l.mnext*nc)
	drop := 0.0
	if velocities && o.Smoother == GaussSeidel {
		drop = o.WeakDrop
	}
	kept, src, dropPtr, dropped := filterPattern(a, l.diag, drop)
	l.dropPtr, l.dropped = dropPtr, dropped
	l.diagF, l.dinvF = make([]float64, 9*n), make([]float64, 9*n)
	// P's pattern: row i holds the coarse nodes of the aggregates of i's
	// neighbours in A^F (P = (I - omega D_F^-1 A^F) P_tent, eqs. 3.4-3.5 of
	// Vanek et al.); an aggregate's coarse nodes are consecutive in the row.
	pm := &l.p
	pm.rows, pm.cols = n, nc
	pm.rowPtr = make([]int32, n+1)
	l.pdst = make([]int32, len(a.col))
	var row []int32
	for i := 0; i < n; i++ {
		row = row[:0]
		for _, j := range kept.col[kept.rowPtr[i]:kept.rowPtr[i+1]] {
			for c := l.cfirst[agg[j]]; c < l.cfirst[agg[j]+1]; c++ {
				row = append(row, c)
			}
		}
		slices.Sort(row)
		row = slices.Compact(row)
		base := int32(len(pm.col))
		pm.col = append(pm.col, row...)
		pm.rowPtr[i+1] = int32(len(pm.col))
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			l.pdst[k] = -1 // dropped
		}
		for _, k := range src[kept.rowPtr[i]:kept.rowPtr[i+1]] {
			c, _ := slices.BinarySearch(row, l.cfirst[agg[a.col[k]]])
			l.pdst[k] = base + int32(c)
		}
	}
	pm.val = make([]float64, 9*len(pm.col))
	l.r = newTranspose(pm)
	l.ap = newProduct(&l.a, pm)
	l.rap = newProduct(&l.r.t, &l.ap.c)
	l.bad = make([]bool, n)
	l.b, l.x, l.t = make([]float64, 3*n), make([]float64, 3*n), make([]float64, 3*n)
	l.v, l.w = make([]float64, 3*n), make([]float64, 3*n)
	l.partial = make([]float64, sparse.PartialLen(3*n))
	l.kDinv, l.kP, l.kPow = l.dinvKernel, l.prolongatorKernel, l.powerKernel
	l.kJac0, l.kJac, l.kRes = l.jacobi0Kernel, l.jacobiKernel, l.residualKernel
	l.kRestrict, l.kProlong, l.kGS = l.restrictKernel, l.prolongKernel, l.gaussSeidelKernel
	l.kGS0, l.kResU, l.kResGS = l.forwardZeroKernel, l.upperResidualKernel, l.gaussSeidelResidualKernel
	l.colorPtr, l.rows = colour(&kept)
	colourOf := make([]int32, n)
	for c := range len(l.colorPtr) - 1 {
		for _, i := range l.rows[l.colorPtr[c]:l.colorPtr[c+1]] {
			colourOf[i] = int32(c)
		}
	}
	l.gsL = blockMat32{rowPtr: make([]int32, n+1)}
	l.gsU = blockMat32{rowPtr: make([]int32, n+1)}
	var usrc []int32
	for k, i := range l.rows {
		for _, q := range src[kept.rowPtr[i]:kept.rowPtr[i+1]] {
			switch j := a.col[q]; {
			case colourOf[j] < colourOf[i]:
				l.gsL.col = append(l.gsL.col, j)
				l.gsSrc = append(l.gsSrc, q)
			case colourOf[j] > colourOf[i]:
				c, ok := slices.BinarySearch(a.col[a.rowPtr[j]:a.rowPtr[j+1]], int32(i))
				if !ok {
					return nil, fmt.Errorf("amg: block (%d, %d) has no mirror (%d, %d): pattern not symmetric", i, j, j, i)
				}
				l.gsU.col = append(l.gsU.col, j)
				usrc = append(usrc, a.rowPtr[j]+int32(c))
			}
		}
		l.gsL.rowPtr[k+1] = int32(len(l.gsL.col))
		l.gsU.rowPtr[k+1] = int32(len(l.gsU.col))
	}
	l.gsSrc = append(l.gsSrc, usrc...)
	l.gsL.val = make([]float32, 9*len(l.gsL.col))
	l.gsU.val = make([]float32, 9*len(l.gsU.col))
	l.kPerm, l.kTent = l.permuteKernel, l.tentativeKernel
	l.serial = serialLevel(a)
	return l, nil
}

// numeric recomputes D_F^-1, and, when full, rho(D_F^-1 A^F) and the smoothed
// prolongator with R = P^T; then the next operator R A P.
func (l *level) numeric(r sparse.Runner, o Options, full bool) error {
	n := l.a.rows
	r.For(n, l.kDinv)
	r.For(n, l.kPerm)
	for i, b := range l.bad {
		if b {
			return fmt.Errorf("amg: diagonal block %d is not positive definite (matrix not SPD)", i)
		}
	}
	if full {
		l.rho = l.spectralRadius(r)
		if !(l.rho > 0) || math.IsInf(l.rho, 0) {
			return fmt.Errorf("amg: spectral radius estimate %v of D_F^-1 A^F (matrix not SPD or not finite)", l.rho)
		}
		r.For(len(l.cfirst)-1, l.kTent)
		r.For(n, l.kP)
		r.For(l.r.t.rows, l.r.kern)
	}
	l.omega = o.Damping / l.rho
	r.For(n, l.ap.kern)
	r.For(l.rap.c.rows, l.rap.kern)
	return nil
}

// dinvKernel computes the filtered operator's diagonal blocks D_F (A_ii
// with the row's dropped blocks lumped) and their inverses for rows
// [lo, hi), and marks rows whose A_ii is not positive definite. A lumped
// block that is not positive definite falls back to A_ii (A^F then simply
// leaves the row's dropped blocks out). With nothing dropped D_F = D.
func (l *level) dinvKernel(lo, hi int) {
	for i := lo; i < hi; i++ {
		d := (*[9]float64)(l.a.val[9*l.diag[i]:])
		inv, ok := sparse.InvSPD3(d)
		l.bad[i] = !ok
		g := (*[9]float64)(l.diagF[9*i:])
		*g = *d
		for _, k := range l.dropped[l.dropPtr[i]:l.dropPtr[i+1]] {
			v := l.a.val[9*k : 9*k+9 : 9*k+9]
			for r := 0; r < 3; r++ {
				for c := 0; c < 3; c++ {
					g[3*r+c] += 0.5 * (v[3*r+c] + v[3*c+r])
				}
			}
		}
		ginv, gok := sparse.InvSPD3(g)
		if !gok {
			*g, ginv = *d, inv
		}
		copy(l.dinvF[9*i:9*i+9], ginv[:])
	}
}

// filterPattern splits a's off-diagonal blocks into those of the filtered
// operator A^F and the weak ones it leaves out: block (i, j) is dropped
// when ||A_ij||_F < drop sqrt(||A_ii||_F ||A_jj||_F), the strength measure
// of eq. 3.1 (symmetric in i and j, so the kept pattern stays symmetric).
// It returns the kept pattern (diagonal included; kept's val is nil) with
// src[k], the block of a that kept entry k is, and per row the dropped
// blocks of a, dropped[dropPtr[i]:dropPtr[i+1]].
//
// A^F is A without the dropped blocks, each one's symmetric part added to
// its row's diagonal block (lumping, as Vanek et al. 1996's filtered
// matrix, eq. 3.5, and the sparsified AMG of Bienz, Falgout, Gropp, Olson
// & Schroder 2016, sec. 3, do; for symmetric dropped blocks A^F acts on
// the translations as A does). On the drape's step matrices the dropped
// blocks are the couplings that only the bending hinges make (||A_ij||
// relative 1e-3 at 100 x 100 vertices, 4e-3 to 9e-3 at 200 x 200, against
// 0.1 for the edges'), 36% of the blocks: without them the fine level
// needs 3 colours instead of 7, and the prolongator P = (I - omega
// D_F^-1 A^F) P_tent reaches only the aggregates of the edge neighbours.
// Left out of the smoother without lumping, PCG took over 1,000 iterations
// instead of about 50: the hinges' couplings between wing tips carry most
// of the out-of-plane diagonal they are lumped into. Symmetric
// Gauss-Seidel on any symmetric A^F with positive definite diagonal blocks
// gives a symmetric positive definite V-cycle (its symmetrised smoother is
// W^-T D_F W^-1 for W = D_F + L_F), so PCG stays correct whatever is
// dropped; the Galerkin operators P^T A P use the whole A.
func filterPattern(a *blockMat, diag []int32, drop float64) (kept blockMat, src, dropPtr, dropped []int32) {
	n := a.rows
	dn := make([]float64, n)
	for i := range dn {
		dn[i] = frob(a.val[9*diag[i]:])
	}
	kept = blockMat{rows: n, cols: n, rowPtr: make([]int32, n+1)}
	dropPtr = make([]int32, n+1)
	for i := 0; i < n; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := a.col[k]
			if int(j) != i && frob(a.val[9*k:]) < drop*math.Sqrt(dn[i]*dn[j]) {
				dropped = append(dropped, k)
				continue
			}
			kept.col = append(kept.col, j)
			src = append(src, k)
		}
		kept.rowPtr[i+1] = int32(len(kept.col))
		dropPtr[i+1] = int32(len(dropped))
	}
	return kept, src, dropPtr, dropped
}

// permuteKernel rounds A's off-diagonal blocks into gsL and gsU, in colour
// order, for the rows [lo, hi) of that order; U's from the transposed
// mirror blocks.
func (l *level) permuteKernel(lo, hi int) {
	a, nl := &l.a, l.gsL.rowPtr[l.a.rows]
	for k := lo; k < hi; k++ {
		for q := l.gsL.rowPtr[k]; q < l.gsL.rowPtr[k+1]; q++ {
			d, s := l.gsL.val[9*q:9*q+9:9*q+9], a.val[9*l.gsSrc[q]:9*l.gsSrc[q]+9:9*l.gsSrc[q]+9]
			for e, v := range s {
				d[e] = float32(v)
			}
		}
		for q := l.gsU.rowPtr[k]; q < l.gsU.rowPtr[k+1]; q++ {
			src := l.gsSrc[nl+q]
			d, s := l.gsU.val[9*q:9*q+9:9*q+9], a.val[9*src:9*src+9:9*src+9]
			d[0], d[1], d[2] = float32(s[0]), float32(s[3]), float32(s[6])
			d[3], d[4], d[5] = float32(s[1]), float32(s[4]), float32(s[7])
			d[6], d[7], d[8] = float32(s[2]), float32(s[5]), float32(s[8])
		}
	}
}

// spectralRadius estimates rho(D_F^-1 A^F) by the power method, with the last
// step's norm ratio: powerIterations steps from a fixed start vector after
// a symbolic setup, then warmIterations from the last setup's vector (the
// matrix of the next time step is close to the last one's). Deterministic.
func (l *level) spectralRadius(r sparse.Runner) float64 {
	if l.warm {
		return l.power(r, warmIterations)
	}
	l.warm = true
	for i := range l.v {
		// A fixed, non-smooth start vector (splitmix64 of the index).
		z := uint64(i) + 0x9e3779b97f4a7c15
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		l.v[i] = float64(z>>11)/(1<<53) - 0.5
	}
	return l.power(r, powerIterations)
}

// power runs k power-method steps from l.v and returns the last norm ratio.
func (l *level) power(r sparse.Runner, k int) float64 {
	rho := 0.0
	for it := 0; it < k; it++ {
		vv := sparse.Dot(r, l.v, l.v, l.partial)
		r.For(l.a.rows, l.kPow) // w = D_F^-1 A^F v
		ww := sparse.Dot(r, l.w, l.w, l.partial)
		rho = math.Sqrt(ww / vv)
		s := 1 / math.Sqrt(ww)
		for i, x := range l.w {
			l.v[i] = s * x
		}
	}
	return rho
}

// blockF returns block k of A's row i as the filtered operator A^F has it:
// nil for a dropped block, D_F's block for the diagonal, A's block else.
func (l *level) blockF(i int, k int32) *[9]float64 {
	switch {
	case l.pdst[k] < 0:
		return nil
	case k == l.diag[i]:
		return (*[9]float64)(l.diagF[9*i:])
	}
	return (*[9]float64)(l.a.val[9*k:])
}

func (l *level) powerKernel(lo, hi int) {
	a := &l.a
	for i := lo; i < hi; i++ {
		var y0, y1, y2 float64
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			b := l.blockF(i, k)
			if b == nil {
				continue
			}
			j := 3 * int(a.col[k])
			x0, x1, x2 := l.v[j], l.v[j+1], l.v[j+2]
			y0 += b[0]*x0 + b[1]*x1 + b[2]*x2
			y1 += b[3]*x0 + b[4]*x1 + b[5]*x2
			y2 += b[6]*x0 + b[7]*x1 + b[8]*x2
		}
		w0, w1, w2 := apply3(l.dinvF[9*i:], y0, y1, y2)
		l.w[3*i], l.w[3*i+1], l.w[3*i+2] = w0, w1, w2
	}
}

// prolongatorKernel computes rows [lo, hi) of the smoothed prolongator
// P = (I - omega_P D_F^-1 A^F) P_tent with omega_P = 4/3 / rho(D_F^-1 A^F)
// (Vanek et al. 1996, eqs. 3.4-3.5 and sec. 4; A^F the filtered operator,
// D_F its block diagonal), P_tent from the near-null space
// (tentativeKernel).
func (l *level) prolongatorKernel(lo, hi int) {
	a, p := &l.a, &l.p
	wP := 4.0 / 3.0 / l.rho
	clear(p.val[9*int(p.rowPtr[lo]) : 9*int(p.rowPtr[hi])])
	for i := lo; i < hi; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			ak := l.blockF(i, k)
			if ak == nil {
				continue
			}
			j := a.col[k]
			for c := int32(0); c < l.tentOff[j+1]-l.tentOff[j]; c++ {
				mulAdd3(p.val[9*(l.pdst[k]+c):], ak, (*[9]float64)(l.tent[9*(l.tentOff[j]+c):]))
			}
		}
		dinv := (*[9]float64)(l.dinvF[9*i:])
		for k := p.rowPtr[i]; k < p.rowPtr[i+1]; k++ {
			var s [9]float64
			d := p.val[9*k : 9*k+9 : 9*k+9]
			mulAdd3(s[:], dinv, (*[9]float64)(d))
			for e := range d {
				d[e] = -wP * s[e]
			}
		}
		own := l.pdst[l.diag[i]] // agg(i)'s first coarse node in row i
		for c := int32(0); c < l.tentOff[i+1]-l.tentOff[i]; c++ {
			d := p.val[9*(own+c) : 9*(own+c)+9 : 9*(own+c)+9]
			for e, v := range l.tent[9*(l.tentOff[i]+c) : 9*(l.tentOff[i]+c)+9] {
				d[e] += v
			}
		}
	}
}

// serialLevel reports whether a level of matrix a runs its V-cycle kernels
// serially: it has fewer than serialRows block rows and its row order is
// incoherent, more than serialCross of its blocks coupling the first half
// of the rows with the second. The parallel loops split each colour's rows
// by index, so on such a level each worker's rows neighbour the others'
// everywhere and the sweeps' writes to x bounce cache lines between cores
// on nearly every block. A remeshed cloth's vertex order is like that
// (sphere-arcsim: 40-46% of the finest level's blocks, against 0.7-2.5% on
// the drape's grid and 3-7% on its coarser levels), and there, 2 workers
// (this 2-core VM) spent 3.6 times the CPU time of 1 worker in the
// Gauss-Seidel sweeps' block products (12.5 s against 3.5 s over 99
// frames; PCG's own SpMV, which this leaves parallel, 1.5 times): the
// implicit solve took longer on 2 workers than on 1. Small levels stay in the cores' caches, where that
// traffic is most of the kernels' cost. The results do not depend on it
// (the kernels are bitwise the same for any Runner).
func serialLevel(a *blockMat) bool {
	n := a.rows
	if n >= serialRows {
		return false
	}
	cross := 0
	for i := 0; i < n; i++ {
		for _, j := range a.col[a.rowPtr[i]:a.rowPtr[i+1]] {
			if (i < n/2) != (int(j) < n/2) {
				cross++
			}
		}
	}
	return float64(cross) > serialCross*float64(len(a.col))
}

// serialRows and serialCross are serialLevel's bounds.
const (
	serialRows  = 4096
	serialCross = 0.2
)

// apply3 returns m v for the 3x3 block at m[0:9].
func apply3(m []float64, v0, v1, v2 float64) (float64, float64, float64) {
	m = m[:9:9]
	return m[0]*v0 + m[1]*v1 + m[2]*v2, m[3]*v0 + m[4]*v1 + m[5]*v2, m[6]*v0 + m[7]*v1 + m[8]*v2
}

// colour colours the block graph of a greedily in row order (each row takes
// the smallest colour none of its earlier neighbours has) and returns the
// rows grouped by colour, ascending within a colour.
func colour(a *blockMat) (ptr, rows []int32) {
	n := a.rows
	col := make([]int32, n)
	var used []int32 // used[c] == i+1: colour c is taken by a neighbour of i
	nc := 0
	for i := 0; i < n; i++ {
		for _, j := range a.col[a.rowPtr[i]:a.rowPtr[i+1]] {
			if int(j) < i {
				used[col[j]] = int32(i + 1)
			}
		}
		c := 0
		for c < nc && used[c] == int32(i+1) {
			c++
		}
		if c == nc {
			nc++
			used = append(used, 0)
		}
		col[i] = int32(c)
	}
	ptr = make([]int32, nc+1)
	for _, c := range col {
		ptr[c+1]++
	}
	for c := 0; c < nc; c++ {
		ptr[c+1] += ptr[c]
	}
	next := slices.Clone(ptr[:nc])
	rows = make([]int32, n)
	for i, c := range col {
		rows[next[c]] = int32(i)
		next[c]++
	}
	return ptr, rows
}
