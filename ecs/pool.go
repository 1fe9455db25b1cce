package ecs

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxWorkers is the largest worker count accepted: far more than any machine
// has cores (each worker is a goroutine with its own wake channel; a count
// in the millions only spends memory).
const MaxWorkers = 1024

// CheckWorkers returns an error naming source (such as "--workers" or
// "LOOM_WORKERS") unless 1 <= n <= MaxWorkers: the one validation of a
// worker count, wherever it comes from.
func CheckWorkers(source string, n int) error {
	if n < 1 || n > MaxWorkers {
		return fmt.Errorf("%s=%d: the worker count must be from 1 to %d", source, n, MaxWorkers)
	}
	return nil
}

// WorkerList parses a comma-separated list of worker counts (such as
// "1,2,4,8,16") given by source, each checked by CheckWorkers.
func WorkerList(source, list string) ([]int, error) {
	var ws []int
	for _, f := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("%s=%q: %q is not a worker count", source, list, f)
		}
		if err := CheckWorkers(source, n); err != nil {
			return nil, err
		}
		ws = append(ws, n)
	}
	return ws, nil
}

// WorkerCount returns the default pool size: LOOM_WORKERS when it is set (an
// integer that CheckWorkers accepts, else an error), otherwise
// runtime.GOMAXPROCS(0). It never uses cpuid's core counts, which report the
// host's cores inside virtual machines.
func WorkerCount() (int, error) {
	if s := os.Getenv("LOOM_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return 0, fmt.Errorf("LOOM_WORKERS=%q: the worker count must be an integer from 1 to %d", s, MaxWorkers)
		}
		return n, CheckWorkers("LOOM_WORKERS", n)
	}
	return runtime.GOMAXPROCS(0), nil
}

// Pool is a fixed set of worker goroutines that run parallel loops. Callers
// must make every result independent of which worker ran which chunk (write
// to disjoint slots, reduce in a fixed order); then results are bitwise
// identical for any pool size. For is not reentrant: the body must not call
// For on the same pool.
//
// A loop's index range is cut into chunks, and each participant (the caller
// is participant 0, worker i participant i+1) has a home share of them, the
// same for the same n every time: it runs its own chunks first, in order,
// and then takes over chunks left in the others' shares. So on an idle
// machine a worker runs the same part of the data in loop after loop and
// finds it in its core's cache (blockqp's sweeps lost a tenth of their speed
// when their parts moved between cores), while on a loaded machine a worker
// whose thread is not running leaves its share to the others instead of
// holding them up.
//
// A worker that finishes a loop keeps polling for the next one for spinFor
// before it parks: a step runs its parallel loops close together, and
// waking a parked goroutine takes tens of microseconds on a virtual machine
// (a loop of two 25 us chunks ran no faster on two workers than on one), so
// short loops would otherwise run on the calling goroutine alone. For waits
// only for the loop's chunks, never for an idle worker to check in; it too
// polls for spinFor and then blocks until the last chunk is done, so that
// on a loaded machine a caller waiting for a descheduled worker does not
// burn the core that worker needs.
type Pool struct {
	workers int
	mu      sync.Mutex
	wake    []chan struct{} // one token wakes a parked worker
	parked  []atomic.Bool   // worker i may be blocked on wake[i]

	// The loop being run; body, n and chunk are written by For before it
	// frees the loop's chunks, and read by a participant only after it has
	// claimed one, so they always belong to the claimed chunk's loop.
	body  func(lo, hi int)
	n     int
	chunk int
	// chunks is the loop's number of chunks; taken[c] is 1 once chunk c
	// of the loop is claimed (For sets the loop's to 0, and a chunk beyond
	// them stays 1 from an earlier loop).
	chunks atomic.Int64
	taken  []atomic.Uint32
	done   atomic.Int64  // chunks of the current loop finished
	gen    atomic.Uint64 // advanced once per loop (and by Close)
	closed atomic.Bool

	// The caller of For blocks on finished after waiting spinFor for the
	// loop's last chunks; waiting says it may be blocked there.
	waiting  atomic.Bool
	finished chan struct{}
}

// spinFor is how long an idle worker polls for the next loop before it parks.
const spinFor = 50 * time.Microsecond

// chunksPerWorker is about how many chunks each participant's share has: a
// few balance chunks of uneven cost.
const chunksPerWorker = 4

// NewPool starts a pool with the given number of workers (values below 1 mean 1).
// The calling goroutine counts as one worker.
func NewPool(workers int) *Pool {
	if workers < 1 {
		workers = 1
	}
	p := &Pool{workers: workers, wake: make([]chan struct{}, workers-1), parked: make([]atomic.Bool, workers-1),
		taken: make([]atomic.Uint32, chunksPerWorker*workers), finished: make(chan struct{}, 1)}
	for c := range p.taken {
		p.taken[c].Store(1)
	}
	for i := range p.wake {
		p.wake[i] = make(chan struct{}, 1)
		go p.work(i, p.gen.Load())
	}
	return p
}

// work is worker i's loop: wait for a generation after seen, spinning for
// spinFor and then parked, and claim chunks of the loop while there are
// any. seen is read before the goroutine starts, so a loop started before
// it runs is not missed.
func (p *Pool) work(i int, seen uint64) {
	for {
		t0 := time.Now()
		for spins := 0; p.gen.Load() == seen; spins++ {
			if spins&63 == 63 {
				if time.Since(t0) > spinFor {
					p.parked[i].Store(true)
					if p.gen.Load() == seen { // For wakes only parked workers
						<-p.wake[i]
					}
					p.parked[i].Store(false)
					t0 = time.Now()
				} else {
					runtime.Gosched()
				}
			}
		}
		seen = p.gen.Load()
		if p.closed.Load() {
			return
		}
		p.claim(i + 1)
	}
}

// Workers returns the pool size.
func (p *Pool) Workers() int { return p.workers }

// For runs body over [0, n) in chunks on all workers and returns when every
// chunk is done.
func (p *Pool) For(n int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if p.workers == 1 || n == 1 {
		body(0, n)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	chunk := (n + chunksPerWorker*p.workers - 1) / (chunksPerWorker * p.workers)
	chunks := (n + chunk - 1) / chunk
	p.body, p.n, p.chunk = body, n, chunk
	p.done.Store(0)
	p.chunks.Store(int64(chunks))
	for c := range chunks {
		p.taken[c].Store(0)
	}
	p.gen.Add(1)
	p.rouse()
	p.claim(0)
	t0 := time.Now()
	for spins := 0; p.done.Load() < int64(chunks); spins++ {
		if spins&63 != 63 {
			continue
		}
		if time.Since(t0) <= spinFor {
			runtime.Gosched()
			continue
		}
		// A chunk is still running after spinFor: block until the
		// participant that finishes the last one signals. A token left by
		// an earlier loop only makes this check once more.
		p.waiting.Store(true)
		if p.done.Load() < int64(chunks) {
			<-p.finished
		}
		p.waiting.Store(false)
	}
	p.body = nil
}

// rouse sends a wake token to every parked worker (a token left over from
// a worker that saw the new generation before blocking is harmless: it
// wakes once, finds no new generation and parks again).
func (p *Pool) rouse() {
	for i, ch := range p.wake {
		if p.parked[i].Load() {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// claim runs, for participant me, the chunks of its share of the current
// loop that are left, in order, and then those left in the others' shares,
// from the last chunk down (the ends of the shares, away from where their
// owners are working).
func (p *Pool) claim(me int) {
	chunks := int(p.chunks.Load())
	lo, hi := me*chunks/p.workers, (me+1)*chunks/p.workers
	for c := lo; c < hi; c++ {
		p.run(c)
	}
	for c := chunks - 1; c >= 0; c-- {
		p.run(c)
	}
}

// run runs chunk c of the current loop unless it is taken.
func (p *Pool) run(c int) {
	if p.taken[c].Load() != 0 || !p.taken[c].CompareAndSwap(0, 1) {
		return
	}
	lo := c * p.chunk
	p.body(lo, min(lo+p.chunk, p.n))
	if p.done.Add(1) == p.chunks.Load() && p.waiting.Load() {
		select {
		case p.finished <- struct{}{}:
		default:
		}
	}
}

// Close stops the workers. The pool must not be used afterwards.
func (p *Pool) Close() {
	p.closed.Store(true)
	p.gen.Add(1)
	for _, ch := range p.wake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
