package sparse

import "sync"

// Runner runs body over [0,n) split into chunks, possibly concurrently; body(lo,hi)
// is called for disjoint ranges covering [0,n). Implementations may split the range
// any way they like, so nothing computed by this package depends on the split.
type Runner interface {
	For(n int, body func(lo, hi int))
}

// Serial is a Runner that runs everything on the calling goroutine.
type Serial struct{}

// For calls body(0, n) when n > 0.
func (Serial) For(n int, body func(lo, hi int)) {
	if n > 0 {
		body(0, n)
	}
}

// ReduceBlock is the number of vector entries summed into one partial sum by Dot.
// The partials are added serially in block order, which makes the result
// independent of how a Runner splits the work.
const ReduceBlock = 256

// PartialLen returns the length of the partial-sum slice Dot needs for vectors of
// length n.
func PartialLen(n int) int { return (n + ReduceBlock - 1) / ReduceBlock }

// Dot returns a.b computed deterministically: entries are summed sequentially
// within fixed blocks of ReduceBlock entries (in parallel over blocks), the block
// sums are stored in partial (len >= PartialLen(len(a))), and then added in block
// order. The result is bitwise identical for any Runner. It does not allocate.
// It panics if len(a) != len(b) or partial is too short.
func Dot(r Runner, a, b, partial []float64) float64 {
	if len(a) != len(b) {
		panic("sparse: Dot length mismatch")
	}
	nb := PartialLen(len(a))
	if len(partial) < nb {
		panic("sparse: Dot partial slice too short")
	}
	if nb == 0 {
		return 0
	}
	t := getTask()
	t.fn = dotKernel
	t.u, t.v, t.w = a, b, partial
	r.For(nb, t.body)
	putTask(t)
	s := 0.0
	for _, p := range partial[:nb] {
		s += p
	}
	return s
}

func dotKernel(t *task, lo, hi int) {
	a, b := t.u, t.v
	for blk := lo; blk < hi; blk++ {
		i0 := blk * ReduceBlock
		i1 := min(i0+ReduceBlock, len(a))
		aa, bb := a[i0:i1], b[i0:i1:i1]
		bb = bb[:len(aa)]
		s := 0.0
		for i, x := range aa {
			s += x * bb[i]
		}
		t.w[blk] = s
	}
}

// task carries the arguments of one parallel kernel. body is bound once when the
// task is created, so handing it to a Runner does not allocate; tasks are
// recycled through a sync.Pool, which keeps the package-level operations
// allocation-free in steady state and safe for concurrent use.
type task struct {
	fn      func(t *task, lo, hi int)
	p       *Pattern
	pb      *PatternBuilder
	m       *BSR
	u, v, w []float64
	a, c    float64
	body    func(lo, hi int)
}

func (t *task) run(lo, hi int) { t.fn(t, lo, hi) }

var taskPool = sync.Pool{New: func() any {
	t := new(task)
	t.body = t.run
	return t
}}

func getTask() *task { return taskPool.Get().(*task) }

func putTask(t *task) {
	body := t.body
	*t = task{body: body}
	taskPool.Put(t)
}
