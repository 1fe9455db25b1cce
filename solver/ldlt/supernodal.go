package ldlt

import (
	"github.com/loomsim/loom/solver/ldlt/internal/kernel"
	"github.com/loomsim/loom/solver/sparse"
)

// Supernodal left-looking numeric LDL^T.
//
// A supernode is a maximal run of consecutive columns f..l of L where each
// column j < l has parent j+1 in the elimination tree and
// colcount(j+1) = colcount(j) - 1, so all its columns share one row
// structure (a fundamental supernode without the single-child condition).
// Each supernode is stored as a dense column-major nrow x ncol block (rows
// = the structure of its first column, diagonal block first). The numeric
// phase visits supernodes in order; supernode s first gathers its columns
// of P A P^T, then subtracts the updates L_d D_d L_d(rows in s)^T of every
// earlier supernode d whose structure reaches s (found through linked
// lists, as in CHOLMOD's left-looking supernodal method), computed as a
// dense block product and scattered through a relative index map; finally
// the diagonal block is factored densely as L D L^T and the rows below are
// solved against it.

type superSym struct {
	nsuper  int
	first   []int   // first column of supernode s (len nsuper+1)
	colSn   []int32 // supernode of each column
	rowPtr  []int   // rows[rowPtr[s]:rowPtr[s+1]] = row structure of s
	rows    []int32
	xoff    []int // offset of s's dense block in x (len nsuper+1)
	maxW    int   // workspace for the update block
	maxT    int
	maxNrow int

	// Lower triangle of C = P A P^T by columns, with value map into A.Val.
	clp   []int
	cli   []int32
	clmap []int
}

func (s *Symbolic) buildSuper() {
	n := s.n
	sn := &superSym{}
	lp := s.lp
	cc := func(j int) int { return lp[j+1] - lp[j] } // off-diagonal count
	sn.first = append(sn.first, 0)
	for j := 1; j < n; j++ {
		if s.parent[j-1] == j && cc(j) == cc(j-1)-1 {
			continue
		}
		sn.first = append(sn.first, j)
	}
	if n > 0 {
		sn.first = append(sn.first, n)
	} else {
		sn.first = []int{0}
	}
	ns := len(sn.first) - 1
	sn.nsuper = ns
	sn.colSn = make([]int32, n)
	for t := 0; t < ns; t++ {
		for j := sn.first[t]; j < sn.first[t+1]; j++ {
			sn.colSn[j] = int32(t)
		}
	}
	// Row structures: structure of L(:, f) = {f} ∪ {k : L(k,f) != 0}.
	// Rows of the diagonal block are f..l, then the structure of column l
	// below l.
	sn.rowPtr = make([]int, ns+1)
	sn.xoff = make([]int, ns+1)
	for t := 0; t < ns; t++ {
		f := sn.first[t]
		nrow := cc(f) + 1
		ncol := sn.first[t+1] - f
		sn.rowPtr[t+1] = sn.rowPtr[t] + nrow
		sn.xoff[t+1] = sn.xoff[t] + nrow*ncol
		if nrow*ncol > sn.maxW {
			sn.maxW = nrow * ncol
		}
		if ncol*ncol > sn.maxT {
			sn.maxT = ncol * ncol
		}
		if nrow > sn.maxNrow {
			sn.maxNrow = nrow
		}
	}
	sn.rows = make([]int32, sn.rowPtr[ns])
	fill := make([]int, ns)
	for t := 0; t < ns; t++ {
		f := sn.first[t]
		for j := f; j < sn.first[t+1]; j++ {
			sn.rows[sn.rowPtr[t]+j-f] = int32(j)
		}
		fill[t] = sn.rowPtr[t] + sn.first[t+1] - f
	}
	// Row-subtree traversal again: L(k, i) != 0 for each i reached from row
	// k; record k for the last column of each supernode.
	flag := make([]int, n)
	cp, ci, parent := s.cp, s.ci, s.parent
	for k := 0; k < n; k++ {
		flag[k] = k
		for p := cp[k]; p < cp[k+1]; p++ {
			i := int(ci[p])
			for ; i < k && flag[i] != k; i = parent[i] {
				flag[i] = k
				t := sn.colSn[i]
				if i == sn.first[t+1]-1 {
					sn.rows[fill[t]] = int32(k)
					fill[t]++
				}
			}
		}
	}
	// Lower triangle of C by columns (transpose of the upper part).
	nnz := len(ci)
	sn.clp = make([]int, n+1)
	for k := 0; k < n; k++ {
		for p := cp[k]; p < cp[k+1]; p++ {
			sn.clp[ci[p]+1]++
		}
	}
	for j := 0; j < n; j++ {
		sn.clp[j+1] += sn.clp[j]
	}
	sn.cli = make([]int32, nnz)
	sn.clmap = make([]int, nnz)
	next := make([]int, n)
	copy(next, sn.clp[:n])
	for k := 0; k < n; k++ {
		for p := cp[k]; p < cp[k+1]; p++ {
			j := ci[p]
			sn.cli[next[j]] = int32(k)
			sn.clmap[next[j]] = s.cmap[p]
			next[j]++
		}
	}
	s.sn = sn
}

// superWork is the numeric workspace of the supernodal factorization.
type superWork struct {
	x     []float64 // dense blocks
	lhead []int32
	lnext []int32
	lpos  []int32
	scratch
	par *parallel // nil: serial (SetRunner)
}

// scratch is the workspace of one supernode's factorization.
type scratch struct {
	relmap []int32
	rel    []int32 // an update's rows as positions in its target (superUpdateCols)
	w      []float64
	t      []float64
}

func newScratch(s *Symbolic) scratch {
	sn := s.sn
	return scratch{relmap: make([]int32, s.n), rel: make([]int32, sn.maxNrow), w: make([]float64, sn.maxW), t: make([]float64, sn.maxT)}
}

func newSuperWork(s *Symbolic) *superWork {
	sn := s.sn
	return &superWork{
		x:       make([]float64, sn.xoff[sn.nsuper]),
		lhead:   make([]int32, sn.nsuper),
		lnext:   make([]int32, sn.nsuper),
		lpos:    make([]int32, sn.nsuper),
		scratch: newScratch(s),
	}
}

// advance moves descendant dd, which has just updated the supernode ending
// before column lc, past that supernode's rows (lpos[dd]) and links it into
// the list (lhead, lnext) of the supernode of its next row, if any.
func (sn *superSym) advance(dd int32, lc int, lhead, lnext, lpos []int32) {
	drows := sn.rows[sn.rowPtr[dd]:sn.rowPtr[dd+1]]
	p := int(lpos[dd])
	for p < len(drows) && int(drows[p]) < lc {
		p++
	}
	lpos[dd] = int32(p)
	if p < len(drows) {
		tt := sn.colSn[drows[p]]
		lnext[dd] = lhead[tt]
		lhead[tt] = dd
	}
}

func (f *Factor) superFactor(ax []float64, signs []int8) error {
	if f.sw.par != nil && f.sw.par.r != nil {
		return f.superFactorParallel(ax, signs)
	}
	s := f.sym
	sn := s.sn
	wk := f.sw
	lhead, lnext, lpos := wk.lhead, wk.lnext, wk.lpos
	for t := range lhead {
		lhead[t] = -1
	}
	for t := 0; t < sn.nsuper; t++ {
		lc := sn.first[t+1]
		rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
		nrow := len(rows)
		X := f.gather(t, ax, &wk.scratch)
		// Updates from descendants.
		for dd := lhead[t]; dd >= 0; {
			dn := lnext[dd]
			f.superUpdate(int(dd), t, X, nrow, int(lpos[dd]), &wk.scratch)
			sn.advance(dd, lc, lhead, lnext, lpos)
			dd = dn
		}
		if err := f.factorBlock(t, X, signs, nil); err != nil {
			return err
		}
		// Link t to the supernode of its first row below the block.
		ncol := lc - sn.first[t]
		if nrow > ncol {
			lpos[t] = int32(ncol)
			tt := sn.colSn[rows[ncol]]
			lnext[t] = lhead[tt]
			lhead[tt] = int32(t)
		}
	}
	return nil
}

// gather clears supernode t's block, sets ws.relmap to its rows, adds its
// columns of C = P A P^T (values ax) and returns the block.
func (f *Factor) gather(t int, ax []float64, ws *scratch) []float64 {
	sn := f.sym.sn
	fc, lc := sn.first[t], sn.first[t+1]
	rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
	nrow := len(rows)
	X := f.sw.x[sn.xoff[t]:sn.xoff[t+1]]
	clear(X)
	relmap := ws.relmap
	for r, row := range rows {
		relmap[row] = int32(r)
	}
	for j := fc; j < lc; j++ {
		col := X[(j-fc)*nrow:]
		for p := sn.clp[j]; p < sn.clp[j+1]; p++ {
			col[relmap[sn.cli[p]]] += ax[sn.clmap[p]]
		}
	}
	return X
}

// factorBlock factors supernode t's updated block X densely as L D L^T,
// the rows below the diagonal block included, and stores its pivots: column
// k's pivot d_k = X(k, k), then every later column j subtracts X(j:, k)
// l_jk with l_jk = X(j, k) / d_k (skipped where l_jk = 0), then column k is
// scaled by 1/d_k. The columns go in panels of four: each panel eliminates
// within itself, then its later columns take the panel's four
// subtractions in a row (kernel.Sub4: the same operations in the same order
// per entry, each column read and written once a panel instead of four
// times), then the panel is scaled.
//
// With r (a wide top supernode of the parallel factorization), the later
// columns of each panel are updated through r.
func (f *Factor) factorBlock(t int, X []float64, signs []int8, r sparse.Runner) error {
	sn := f.sym.sn
	fc, lc := sn.first[t], sn.first[t+1]
	ncol := lc - fc
	nrow := sn.rowPtr[t+1] - sn.rowPtr[t]
	d := f.d
	var inv [4]float64
	for k0 := 0; k0 < ncol; k0 += 4 {
		k1 := min(k0+4, ncol)
		for k := k0; k < k1; k++ {
			colk := X[k*nrow : (k+1)*nrow]
			dk := colk[k]
			if err := f.checkPivot(fc+k, dk, signs); err != nil {
				return err
			}
			d[fc+k] = dk
			inv[k-k0] = 1 / dk
			for j := k + 1; j < k1; j++ {
				if lj := colk[j] * inv[k-k0]; lj != 0 {
					kernel.SubScaled(X[j*nrow+j:(j+1)*nrow], colk[j:nrow], lj)
				}
			}
		}
		if r != nil && ncol-k1 > 1 {
			p := f.sw.par
			p.panelX, p.panelNrow, p.panelK0, p.panelK1, p.panelInv = X, nrow, k0, k1, inv
			r.For(ncol-k1, p.trail)
			p.panelX = nil
		} else {
			for j := k1; j < ncol; j++ {
				f.panelUpdate(X, nrow, k0, k1, j, &inv)
			}
		}
		for k := k0; k < k1; k++ {
			colk := X[k*nrow : (k+1)*nrow]
			for i := k + 1; i < nrow; i++ {
				colk[i] *= inv[k-k0]
			}
		}
	}
	return nil
}

// panelUpdate subtracts from column j (rows j on) of the block X the
// updates of the panel's columns k0 <= k < k1, in order: kernel.Sub4 for a
// full panel whose four l_jk are nonzero, else one at a time, skipping
// l_jk = 0.
func (f *Factor) panelUpdate(X []float64, nrow, k0, k1, j int, inv *[4]float64) {
	dst := X[j*nrow+j : (j+1)*nrow]
	var l [4]float64
	full := k1-k0 == 4
	for k := k0; k < k1; k++ {
		l[k-k0] = X[k*nrow+j] * inv[k-k0]
		full = full && l[k-k0] != 0
	}
	if full {
		x := X[k0*nrow+j:]
		kernel.Sub4(dst, x, x[nrow:], x[2*nrow:], x[3*nrow:], l[0], l[1], l[2], l[3])
		return
	}
	for k := k0; k < k1; k++ {
		if l[k-k0] != 0 {
			kernel.SubScaled(dst, X[k*nrow+j:(k+1)*nrow], l[k-k0])
		}
	}
}

// superUpdate subtracts from supernode t (block X, nrow rows, ws.relmap
// set) the update of descendant supernode dd: L_d(R,:) D_d L_d(R1,:)^T
// where R are dd's rows from position p0 on and R1 ⊆ R those inside t's
// columns.
func (f *Factor) superUpdate(dd, t int, X []float64, nrow, p0 int, ws *scratch) {
	sn := f.sym.sn
	f.superUpdateCols(dd, t, X, nrow, p0, ws, ws.relmap, 0, sn.first[t+1]-sn.first[t])
}

// updateRange returns the positions ja <= j < jb of a descendant's rows
// (drows, from p0 on) that are the columns ca .. cb-1 of the supernode
// whose first column is fc.
func updateRange(drows []int32, p0, fc, ca, cb int) (ja, jb int) {
	ja = p0
	for ja < len(drows) && int(drows[ja])-fc < ca {
		ja++
	}
	jb = ja
	for jb < len(drows) && int(drows[jb])-fc < cb {
		jb++
	}
	return ja, jb
}

// superUpdateCols is superUpdate on t's columns ca <= tc < cb only (block
// columns), with relmap t's row map: each entry of those columns takes the
// same update as from superUpdate.
func (f *Factor) superUpdateCols(dd, t int, X []float64, nrow, p0 int, ws *scratch, relmap []int32, ca, cb int) {
	sn := f.sym.sn
	fc := sn.first[t]
	df := sn.first[dd]
	kd := sn.first[dd+1] - df
	drows := sn.rows[sn.rowPtr[dd]:sn.rowPtr[dd+1]]
	dnrow := len(drows)
	Ld := f.sw.x[sn.xoff[dd]:sn.xoff[dd+1]]
	ja, jb := updateRange(drows, p0, fc, ca, cb)
	if ja == jb {
		return
	}
	m := dnrow - ja // rows of the update
	c := jb - ja    // columns of the update
	// T (c x kd, row-major by update column): T[j*kd+k] = L_d(R1_j, k) * D_k.
	T := ws.t[:c*kd]
	dv := f.d[df : df+kd]
	k := 0
	for ; k+3 < kd; k += 4 { // four columns of L_d at a time: T's rows filled four entries at once
		c0 := Ld[k*dnrow+ja : k*dnrow+jb]
		c1 := Ld[(k+1)*dnrow+ja:][:c]
		c2 := Ld[(k+2)*dnrow+ja:][:c]
		c3 := Ld[(k+3)*dnrow+ja:][:c]
		d0, d1, d2, d3 := dv[k], dv[k+1], dv[k+2], dv[k+3]
		for j, v := range c0 {
			tj := T[j*kd+k:][:4]
			tj[0], tj[1], tj[2], tj[3] = v*d0, c1[j]*d1, c2[j]*d2, c3[j]*d3
		}
	}
	for ; k < kd; k++ {
		colk := Ld[k*dnrow+ja : k*dnrow+jb]
		dk := dv[k]
		for j, v := range colk {
			T[j*kd+k] = v * dk
		}
	}
	// W(:, j) = sum_k L_d(R_i, k) T[j,k] for i >= j (column-major, ld m).
	W := ws.w[:m*c]
	kernel.Update(W, m, c, T, kd, Ld[ja:], dnrow)
	// Scatter-subtract into X: the rows' positions in t looked up once for
	// all c columns; where they are consecutive (the update's rows are a
	// contiguous run of t's), a dense subtraction.
	rel := ws.rel[:m]
	for i, r := range drows[ja:] {
		rel[i] = relmap[r]
	}
	contiguous := int(rel[m-1]-rel[0]) == m-1
	for j := 0; j < c; j++ {
		tc := int(drows[ja+j]) - fc
		col := X[tc*nrow : (tc+1)*nrow]
		wj := W[j*m+j : j*m+m]
		if contiguous {
			dst := col[int(rel[j]):][:len(wj)]
			for i, v := range wj {
				dst[i] -= v
			}
			continue
		}
		for i, p := range rel[j:] {
			col[p] -= wj[i]
		}
	}
}

// scheduledSolveMin is the number of entries of L from which Solve runs
// over the parallel factorization's schedule (solveScheduled); smaller
// factors are solved column by column, where a Runner's dispatch would
// cost more than it saves (a factor of 2^20 entries takes about 2 ms to
// solve). The choice depends on the matrix alone, so results do not
// depend on the Runner. A variable for the tests, which solve small
// factors both ways.
var scheduledSolveMin = 1 << 20

// superSolve solves L D L^T w = w in place (pivot order): for a large
// factor over the schedule of the parallel factorization (made here when
// SetRunner has not made it), otherwise column by column.
func (f *Factor) superSolve(w []float64) {
	if f.sym.NnzL() >= scheduledSolveMin {
		if f.sw.par == nil {
			f.sw.par = f.schedule()
		}
		f.solveScheduled(w)
		return
	}
	sn := f.sym.sn
	for t := 0; t < sn.nsuper; t++ {
		f.forwardNode(t, w)
	}
	for j, dj := range f.d {
		w[j] /= dj
	}
	for t := sn.nsuper - 1; t >= 0; t-- {
		f.backwardNode(t, w)
	}
}

// block returns supernode t's first column fc, its number of columns, its
// rows (the block's own columns first) and its dense block X (column k's
// entries at X[k*len(rows) : (k+1)*len(rows)]).
func (f *Factor) block(t int) (fc, ncol int, rows []int32, X []float64) {
	sn := f.sym.sn
	fc = sn.first[t]
	return fc, sn.first[t+1] - fc, sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]], f.sw.x[sn.xoff[t]:sn.xoff[t+1]]
}

// forwardNode subtracts supernode t's columns, each once final, from the
// rows below it in L w = b.
func (f *Factor) forwardNode(t int, w []float64) {
	fc, ncol, rows, X := f.block(t)
	nrow := len(rows)
	for k := range ncol {
		wj := w[fc+k]
		if wj == 0 {
			continue
		}
		col := X[k*nrow : (k+1)*nrow]
		for i := k + 1; i < nrow; i++ {
			w[rows[i]] -= col[i] * wj
		}
	}
}

// backwardNode sets supernode t's entries of L^T x = y, the rows below its
// columns final, last column first.
func (f *Factor) backwardNode(t int, w []float64) {
	fc, ncol, rows, X := f.block(t)
	nrow := len(rows)
	for k := ncol - 1; k >= 0; k-- {
		col := X[k*nrow : (k+1)*nrow]
		wj := w[fc+k]
		for i := k + 1; i < nrow; i++ {
			wj -= col[i] * w[rows[i]]
		}
		w[fc+k] = wj
	}
}

// superForEachL iterates the strictly-lower entries of column j.
func (f *Factor) superForEachL(j int, fn func(i int, v float64)) {
	sn := f.sym.sn
	t := int(sn.colSn[j])
	fc := sn.first[t]
	rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
	nrow := len(rows)
	col := f.sw.x[sn.xoff[t]+(j-fc)*nrow : sn.xoff[t]+(j-fc+1)*nrow]
	for i := j - fc + 1; i < nrow; i++ {
		fn(int(rows[i]), col[i])
	}
}

// SIMD reports whether the factorization's dense kernels run on their
// 4-lane AVX2 path (loom built with GOEXPERIMENT=simd, on a CPU with AVX2);
// either path gives bitwise the same factors.
func SIMD() bool { return kernel.SIMD() }
