package ldlt

import (
	"math"
	"slices"
	"sync/atomic"

	"github.com/loomsim/loom/solver/ldlt/internal/kernel"
	"github.com/loomsim/loom/solver/sparse"
)

// Parallel supernodal factorization.
//
// Supernodes in disjoint subtrees of the supernodal elimination tree do not
// update each other, so they can be factored concurrently; the supernodes
// above the subtrees (the top) are factored afterwards in order. Each
// supernode subtracts its descendants' updates in a fixed order, the order
// in which the serial factorization's linked lists deliver them, recorded
// once by replaying the lists over the structure (schedule). Every
// supernode therefore does the same arithmetic in the same order as in the
// serial factorization, and the factor is bitwise identical to it for any
// Runner and any number of workers.

// parallelParts is the number of subtrees aimed at: the tree is split from
// the root down until no subtree holds more than 1/parallelParts of the
// work (on the constraint matrix of a 5000-face developable sheet: 7
// subtrees, 28% of the work at the top, a two-worker bound of 1.56x).
const parallelParts = 4

// parallel is the schedule of the parallel factorization.
type parallel struct {
	r sparse.Runner
	f *Factor // the factor scheduled
	// Updates of supernode t, in the serial order: descendant dd[i] from
	// its row position p0[i], for i in start[t] .. start[t+1]-1.
	start  []int
	dd, p0 []int32
	// The supernodes of subtree k (increasing) are
	// nodes[task[k]:task[k+1]]; the top ones follow, increasing.
	nodes []int32
	task  []int
	ws    []scratch // one per subtree
	cost  []float64 // per supernode: multiply-adds of its block and the updates it receives
	wide  []scratch // one per column range of a wide top supernode (topNode)
	topT  int       // the wide top supernode under way
	topX  []float64 // its block
	// The panel under way in a wide top supernode's block (factorBlock).
	panelX                      []float64
	panelNrow, panelK0, panelK1 int
	panelInv                    [4]float64
	trail                       func(lo, hi int) // panelTrail, bound once
	err                         []error          // first error of each subtree
	errAt                       []int            // its supernode
	// failed is the lowest supernode found failing in this factorization
	// (MaxInt64: none yet); subtrees stop before supernodes above it.
	failed atomic.Int64
	run    func(lo, hi int) // subtrees, bound once (a method of p, which state images keep)

	// The triangular solve over the schedule (solveScheduled): top[c] is
	// the pivot of the c-th column of the top supernodes; cut[t] is the
	// position in subtree supernode t's rows of its first row in the top
	// (the rows before it lie in its own subtree), and those rows in the
	// top are top[c] for c in topRows[topPtr[t]:topPtr[t+1]]; acc[k] holds
	// subtree k's sums for the top's columns; solveW is the vector of the
	// solve under way; forward and backward are the subtrees' halves,
	// bound once.
	top               []int32
	cut               []int32
	topPtr            []int
	topRows           []int32
	acc               [][]float64
	buf               [][]float64 // per subtree, and the top's last: a supernode's rows below its block (and backwardBlock's column products)
	solveW            []float64
	forward, backward func(lo, hi int)

	// The arguments of the factorization under way.
	ax    []float64
	signs []int8
}

// SetRunner makes Refactor factor independent subtrees of the supernodal
// elimination tree concurrently through r, and Solve solve them
// concurrently; nil restores the serial factorization. The factor is
// bitwise identical either way (each supernode applies its descendants'
// updates in the serial order), and so is the solution (Solve follows the
// same schedule serially without a Runner), so results do not depend on
// the Runner. It has no effect on a simplicial factor.
func (f *Factor) SetRunner(r sparse.Runner) {
	if f.sw == nil {
		return
	}
	if r == nil {
		if f.sw.par != nil {
			f.sw.par.r = nil
		}
		return
	}
	if f.sw.par == nil {
		f.sw.par = f.schedule()
	}
	p := f.sw.par
	if p.ws == nil { // the factorization's scratch, made when first parallel
		p.ws = make([]scratch, len(p.task)-1)
		for k := range p.ws {
			p.ws[k] = newScratch(f.sym)
		}
		p.wideScratch(p.nodes[p.task[len(p.task)-1]:])
	}
	p.r = r
}

// schedule replays the serial factorization's linked lists to record each
// supernode's updates in order, and splits the supernodal tree into
// subtrees and the top.
func (f *Factor) schedule() *parallel {
	sn := f.sym.sn
	ns := sn.nsuper
	p := &parallel{start: make([]int, ns+1)}
	lhead := make([]int32, ns)
	lnext := make([]int32, ns)
	lpos := make([]int32, ns)
	for t := range lhead {
		lhead[t] = -1
	}
	parent := make([]int32, ns) // supernodal tree
	cost := make([]float64, ns) // multiply-adds, own block and updates received
	for t := 0; t < ns; t++ {
		fc, lc := sn.first[t], sn.first[t+1]
		rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
		ncol, nrow := lc-fc, len(rows)
		cost[t] = float64(ncol * ncol * nrow)
		for dd := lhead[t]; dd >= 0; {
			dn := lnext[dd]
			p.dd = append(p.dd, dd)
			p.p0 = append(p.p0, lpos[dd])
			ndrows, p0 := sn.rowPtr[dd+1]-sn.rowPtr[dd], int(lpos[dd])
			sn.advance(dd, lc, lhead, lnext, lpos)
			cost[t] += float64((ndrows - p0) * (int(lpos[dd]) - p0) * (sn.first[dd+1] - sn.first[dd]))
			dd = dn
		}
		p.start[t+1] = len(p.dd)
		parent[t] = -1
		if nrow > ncol {
			lpos[t] = int32(ncol)
			tt := sn.colSn[rows[ncol]]
			lnext[t] = lhead[tt]
			lhead[tt] = int32(t)
			parent[t] = tt
		}
	}
	// Subtree costs and children.
	sub := slices.Clone(cost)
	kids := make([][]int32, ns)
	var set []int32
	total := 0.0
	for t := range ns {
		if q := parent[t]; q >= 0 {
			sub[q] += sub[t]
			kids[q] = append(kids[q], int32(t))
		} else {
			set = append(set, int32(t))
			total += sub[t]
		}
	}
	// Split the heaviest subtree until each holds at most 1/parallelParts
	// of the work; the split roots form the top.
	top := make([]bool, ns)
	for {
		h := 0
		for i, t := range set {
			if sub[t] > sub[set[h]] {
				h = i
			}
		}
		if len(set) == 0 || sub[set[h]] <= total/parallelParts || len(kids[set[h]]) == 0 {
			break
		}
		t := set[h]
		top[t] = true
		set = append(slices.Delete(set, h, h+1), kids[t]...)
	}
	slices.Sort(set)
	// Subtree of each supernode (descendants have lower numbers).
	of := make([]int32, ns)
	for t := range of {
		of[t] = -1
	}
	for k, r := range set {
		of[r] = int32(k)
	}
	for t := ns - 1; t >= 0; t-- {
		if q := parent[t]; q >= 0 && !top[q] && of[q] >= 0 {
			of[t] = of[q]
		}
	}
	p.task = make([]int, len(set)+1)
	for t := range ns {
		if k := of[t]; k >= 0 {
			p.task[k+1]++
		}
	}
	for k := range set {
		p.task[k+1] += p.task[k]
	}
	p.nodes = make([]int32, ns)
	next := slices.Clone(p.task[:len(set)])
	at := p.task[len(set)]
	for t := range ns {
		if k := of[t]; k >= 0 {
			p.nodes[next[k]] = int32(t)
			next[k]++
		} else {
			p.nodes[at] = int32(t)
			at++
		}
	}
	p.f = f
	p.cost = cost
	p.trail = p.panelTrail
	p.run = p.subtrees
	p.err = make([]error, len(set))
	p.errAt = make([]int, len(set))
	p.cut = make([]int32, ns)
	p.topPtr = make([]int, ns+1)
	topOf := make([]int32, f.sym.n) // position c of a top pivot in top
	for t := range ns {
		if of[t] < 0 {
			for j := sn.first[t]; j < sn.first[t+1]; j++ {
				topOf[j] = int32(len(p.top))
				p.top = append(p.top, int32(j))
			}
		}
	}
	for t := range ns {
		p.topPtr[t+1] = p.topPtr[t]
		if of[t] < 0 {
			continue
		}
		rows := sn.rows[sn.rowPtr[t]:sn.rowPtr[t+1]]
		c := sn.first[t+1] - sn.first[t] // its own columns are in its subtree
		for c < len(rows) && of[sn.colSn[rows[c]]] >= 0 {
			c++
		}
		p.cut[t] = int32(c)
		for _, r := range rows[c:] {
			p.topRows = append(p.topRows, topOf[r])
		}
		p.topPtr[t+1] = len(p.topRows)
	}
	p.acc = make([][]float64, len(set))
	for k := range p.acc {
		p.acc[k] = make([]float64, len(p.top))
	}
	most := 0 // rows of a supernode: its rows below and its columns' products (backwardBlock)
	for t := range ns {
		most = max(most, int(sn.rowPtr[t+1]-sn.rowPtr[t]))
	}
	p.buf = make([][]float64, len(set)+1)
	for k := range p.buf {
		p.buf[k] = make([]float64, most)
	}
	p.forward, p.backward = p.forwardSubtrees, p.backwardSubtrees
	return p
}

// superFactorParallel is superFactor over the schedule: the subtrees
// through the Runner, then the top in order. A failure is that of the
// first failing supernode, as in the serial factorization: the top
// supernodes before a subtree's failure are still factored (their
// descendants all precede it).
func (f *Factor) superFactorParallel(ax []float64, signs []int8) error {
	p := f.sw.par
	nsub := len(p.task) - 1
	p.ax, p.signs = ax, signs
	p.failed.Store(math.MaxInt64)
	p.r.For(nsub, p.run)
	p.ax, p.signs = nil, nil
	var first error
	at := f.sym.sn.nsuper
	for k, err := range p.err[:nsub] {
		if err != nil && p.errAt[k] < at {
			first, at = err, p.errAt[k]
		}
	}
	for _, t := range p.nodes[p.task[nsub]:] {
		if int(t) > at {
			break
		}
		if err := f.topNode(int(t), ax, signs); err != nil {
			return err
		}
	}
	return first
}

// wideParts is the number of column ranges a wide top supernode's updates
// are split into, and wideWork the multiply-adds (own block and updates
// received) from which a top supernode is wide. The top of a nested
// dissection holds the largest separators: on a tablecloth Newton matrix of
// 35,310 unknowns, 31% of the factorization's time, serial before.
const (
	wideParts = 8
	wideWork  = 1 << 20
)

// wideScratch allocates the scratch of each column range of the wide
// supernodes among top, sized for their largest update.
func (p *parallel) wideScratch(top []int32) {
	sn := p.f.sym.sn
	needW, needT, wide := 0, 0, false
	for _, t := range top {
		if p.cost[t] < wideWork {
			continue
		}
		wide = true
		fc := sn.first[t]
		ncol := sn.first[t+1] - fc
		for i := p.start[t]; i < p.start[t+1]; i++ {
			dd := p.dd[i]
			drows := sn.rows[sn.rowPtr[dd]:sn.rowPtr[dd+1]]
			kd := sn.first[dd+1] - sn.first[dd]
			for k := range wideParts {
				ja, jb := updateRange(drows, int(p.p0[i]), fc, k*ncol/wideParts, (k+1)*ncol/wideParts)
				needW = max(needW, (len(drows)-ja)*(jb-ja))
				needT = max(needT, (jb-ja)*kd)
			}
		}
	}
	if !wide {
		return
	}
	p.wide = make([]scratch, wideParts)
	for k := range p.wide {
		p.wide[k] = scratch{rel: make([]int32, sn.maxNrow), w: make([]float64, needW), t: make([]float64, needT)}
	}
}

// topNode factors top supernode t, its descendants done. A wide one (cost
// at least wideWork) takes its descendants' updates through the Runner
// split by its columns (each entry takes the same updates in the same
// order as serially: superUpdateCols) and eliminates its block with the
// panels' later columns through the Runner (factorBlock), so the factor
// stays bitwise the serial one.
func (f *Factor) topNode(t int, ax []float64, signs []int8) error {
	p := f.sw.par
	if p.cost[t] < wideWork || p.wide == nil || serialRunner(p.r) {
		return f.superNode(t, ax, signs, &f.sw.scratch)
	}
	p.topT = t
	p.topX = f.gather(t, ax, &f.sw.scratch)
	p.r.For(wideParts, p.topUpdates)
	X := p.topX
	p.topX = nil
	return f.factorBlock(t, X, signs, p.r)
}

// topUpdates applies the scheduled updates of supernode p.topT to its
// column ranges lo .. hi-1 of wideParts (the Runner's body).
func (p *parallel) topUpdates(lo, hi int) {
	f, t := p.f, p.topT
	sn := f.sym.sn
	ncol := sn.first[t+1] - sn.first[t]
	nrow := sn.rowPtr[t+1] - sn.rowPtr[t]
	for k := lo; k < hi; k++ {
		ca, cb := k*ncol/wideParts, (k+1)*ncol/wideParts
		for i := p.start[t]; i < p.start[t+1]; i++ {
			f.superUpdateCols(int(p.dd[i]), t, p.topX, nrow, int(p.p0[i]), &p.wide[k], f.sw.scratch.relmap, ca, cb)
		}
	}
}

// subtrees factors subtrees lo .. hi-1 (the Runner's body).
//
// A subtree stops before a supernode numbered above a failure already found
// (p.failed): the factorization fails anyway, and the first failing
// supernode, the one reported, is numbered at most that, so no subtree
// skips it (its descendants, numbered below it, are in its subtree and done
// before it). A matrix that is not positive definite (the rod Newton's
// regularization tries) then costs less than a whole factorization.
func (p *parallel) subtrees(lo, hi int) {
	f := p.f
	for k := lo; k < hi; k++ {
		p.err[k] = nil
		for _, t := range p.nodes[p.task[k]:p.task[k+1]] {
			if int64(t) > p.failed.Load() {
				break
			}
			if err := f.superNode(int(t), p.ax, p.signs, &p.ws[k]); err != nil {
				p.err[k], p.errAt[k] = err, int(t)
				for {
					old := p.failed.Load()
					if int64(t) >= old || p.failed.CompareAndSwap(old, int64(t)) {
						break
					}
				}
				break
			}
		}
	}
}

// superNode factors supernode t, its descendants done: gather, the
// scheduled updates, the dense block.
func (f *Factor) superNode(t int, ax []float64, signs []int8, ws *scratch) error {
	p := f.sw.par
	nrow := f.sym.sn.rowPtr[t+1] - f.sym.sn.rowPtr[t]
	X := f.gather(t, ax, ws)
	for i := p.start[t]; i < p.start[t+1]; i++ {
		f.superUpdate(int(p.dd[i]), t, X, nrow, int(p.p0[i]), ws)
	}
	return f.factorBlock(t, X, signs, nil)
}

// panelTrail applies the panel under way to the later columns
// panelK1+lo .. panelK1+hi-1 of the block (the Runner's body).
func (p *parallel) panelTrail(lo, hi int) {
	for j := p.panelK1 + lo; j < p.panelK1+hi; j++ {
		p.f.panelUpdate(p.panelX, p.panelNrow, p.panelK0, p.panelK1, j, &p.panelInv)
	}
}

// serialRunner reports whether r says it runs one worker (ecs.Pool's
// Workers): a wide supernode's split would only add passes there.
func serialRunner(r sparse.Runner) bool {
	w, ok := r.(interface{ Workers() int })
	return ok && w.Workers() == 1
}

// Triangular solve over the schedule.
//
// The forward solve L y = b subtracts each column, once final, from the
// rows below it. A subtree supernode's rows lie in its own subtree up to
// cut[t] and in the top after it. The subtrees solve concurrently: each
// subtracts its columns from its own rows and sums their products with
// the top's rows in its own accumulator (acc[k]); the top's entries then
// subtract the accumulators in subtree order, and the top supernodes are
// solved in order. The backward solve L^T x = y sets each column from the
// rows below it, already final: the top supernodes in reverse order, then
// the subtrees concurrently.
//
// Each supernode is solved as a dense block (forwardBlock, backwardBlock):
// its diagonal block column by column, and the rows below it at once, the
// products of all its columns summed in a contiguous buffer before they
// are scattered (forward), the rows' values gathered once into it and each
// column's dot product taken in four running sums (backward). Every sum's
// order is fixed by the schedule (which depends on the matrix alone), so
// the solution is bitwise the same for any Runner and without one; it
// differs from superSolve's column-by-column solve in rounding only.

// solveScheduled solves L D L^T w = w in place (pivot order) over the
// schedule, through its Runner when it has one.
func (f *Factor) solveScheduled(w []float64) {
	p := f.sw.par
	nsub := len(p.task) - 1
	p.solveW = w
	p.each(nsub, p.forward)
	for c, j := range p.top {
		wj := w[j]
		for _, acc := range p.acc {
			wj -= acc[c]
		}
		w[j] = wj
	}
	buf := p.buf[nsub]
	for _, t := range p.nodes[p.task[nsub]:] {
		f.forwardBlock(int(t), w, buf, -1, nil, nil)
	}
	for j, dj := range f.d {
		w[j] /= dj
	}
	for _, t := range slices.Backward(p.nodes[p.task[nsub]:]) {
		f.backwardBlock(int(t), w, buf)
	}
	p.each(nsub, p.backward)
	p.solveW = nil
}

// each runs body over [0, n) through the Runner, or in one call without
// one.
func (p *parallel) each(n int, body func(lo, hi int)) {
	if p.r == nil {
		body(0, n)
		return
	}
	p.r.For(n, body)
}

// forwardSubtrees is the forward solve of subtrees lo .. hi-1: their own
// rows, and their sums for the top's rows in acc (the Runner's body).
func (p *parallel) forwardSubtrees(lo, hi int) {
	for k := lo; k < hi; k++ {
		acc := p.acc[k]
		clear(acc)
		for _, t := range p.nodes[p.task[k]:p.task[k+1]] {
			p.f.forwardBlock(int(t), p.solveW, p.buf[k], int(p.cut[t]), p.topRows[p.topPtr[t]:p.topPtr[t+1]], acc)
		}
	}
}

// backwardSubtrees is the backward solve of subtrees lo .. hi-1, the top
// done (the Runner's body).
func (p *parallel) backwardSubtrees(lo, hi int) {
	for k := lo; k < hi; k++ {
		nodes := p.nodes[p.task[k]:p.task[k+1]]
		for _, t := range slices.Backward(nodes) {
			p.f.backwardBlock(int(t), p.solveW, p.buf[k])
		}
	}
}

// forwardBlock is supernode t's forward solve: its diagonal block column
// by column, then the rows below it, t_i = sum_k L_ik w_k summed in buf
// (four columns at a time, kernel.Sub4), subtracted from w, except the
// rows from position cut on (cut < 0: none), which add to acc at trows
// instead.
func (f *Factor) forwardBlock(t int, w, buf []float64, cut int, trows []int32, acc []float64) {
	fc, ncol, rows, X := f.block(t)
	nrow := len(rows)
	own := w[fc : fc+ncol]
	for k := range ncol {
		wj := own[k]
		col := X[k*nrow : k*nrow+ncol]
		for i := k + 1; i < ncol; i++ {
			own[i] -= col[i] * wj
		}
	}
	if nrow == ncol {
		return
	}
	sum := buf[:nrow-ncol]
	clear(sum)
	k := 0
	for ; k+4 <= ncol; k += 4 { // sum - L_k (-w_k) adds L_k w_k exactly
		kernel.Sub4(sum, X[k*nrow+ncol:], X[(k+1)*nrow+ncol:], X[(k+2)*nrow+ncol:], X[(k+3)*nrow+ncol:], -own[k], -own[k+1], -own[k+2], -own[k+3])
	}
	for ; k < ncol; k++ {
		kernel.SubScaled(sum, X[k*nrow+ncol:], -own[k])
	}
	if cut < 0 {
		cut = nrow
	}
	for i, r := range rows[ncol:cut] {
		w[r] -= sum[i]
	}
	for i, c := range trows {
		acc[c] += sum[cut-ncol+i]
	}
}

// backwardBlock is supernode t's backward solve, the rows below its block
// final: those rows' values gathered into buf once, every column's product
// L_k(below) . buf (four running sums; two columns a pass, dot4x2), then
// each column from the last, w_k -= that product and its diagonal block's
// later entries. Reading the gathered rows once for two columns made the
// scheduled solve 10-19% faster than one column a pass with the same bits
// (BenchmarkSolveRunner, cloth N = 100 and 200, 1 and 2 workers, medians of
// three interleaved runs on the 2-core VM: 22.9 -> 18.9, 14.4 -> 11.6,
// 105.7 -> 91.9 and 63.7 -> 57.1 ms).
func (f *Factor) backwardBlock(t int, w, buf []float64) {
	fc, ncol, rows, X := f.block(t)
	nrow := len(rows)
	below, dots := buf[:nrow-ncol], buf[nrow-ncol:nrow]
	for i, r := range rows[ncol:] {
		below[i] = w[r]
	}
	k := 0
	for ; k+2 <= ncol; k += 2 {
		dots[k], dots[k+1] = dot4x2(X[k*nrow+ncol:(k+1)*nrow], X[(k+1)*nrow+ncol:(k+2)*nrow], below)
	}
	for ; k < ncol; k++ {
		dots[k] = dot4(X[k*nrow+ncol:(k+1)*nrow], below)
	}
	own := w[fc : fc+ncol]
	for k := ncol - 1; k >= 0; k-- {
		col := X[k*nrow : k*nrow+ncol]
		wj := own[k] - dots[k]
		for i := k + 1; i < ncol; i++ {
			wj -= col[i] * own[i]
		}
		own[k] = wj
	}
}

// dot4 returns x . y (len(y) <= len(x)) in four running sums, lanes i mod
// 4, added as (s0 + s1) + (s2 + s3).
func dot4(x, y []float64) float64 {
	x = x[:len(y)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(y); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(y); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dot4x2 returns x0 . y and x1 . y (len(y) <= len(x0), len(x1)), each
// summed exactly as dot4 sums it (the same bits), reading y once for both.
func dot4x2(x0, x1, y []float64) (float64, float64) {
	x0, x1 = x0[:len(y)], x1[:len(y)]
	var a0, a1, a2, a3, b0, b1, b2, b3 float64
	i := 0
	for ; i+4 <= len(y); i += 4 {
		y0, y1, y2, y3 := y[i], y[i+1], y[i+2], y[i+3]
		a0 += x0[i] * y0
		a1 += x0[i+1] * y1
		a2 += x0[i+2] * y2
		a3 += x0[i+3] * y3
		b0 += x1[i] * y0
		b1 += x1[i+1] * y1
		b2 += x1[i+2] * y2
		b3 += x1[i+3] * y3
	}
	for ; i < len(y); i++ {
		a0 += x0[i] * y[i]
		b0 += x1[i] * y[i]
	}
	return (a0 + a1) + (a2 + a3), (b0 + b1) + (b2 + b3)
}
