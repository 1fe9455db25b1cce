package ecs

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// WorkerCount returns the default pool size: LOOM_WORKERS when it is set to a
// positive integer, otherwise runtime.GOMAXPROCS(0). It never uses cpuid's core
// counts, which report the host's cores inside virtual machines.
func WorkerCount() (int, error) {
	if s := os.Getenv("LOOM_WORKERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("LOOM_WORKERS=%q: must be a positive integer", s)
		}
		return n, nil
	}
	return runtime.GOMAXPROCS(0), nil
}

// Pool is a fixed set of worker goroutines that run parallel loops. Workers
// claim chunks of the index range dynamically, so callers must make every
// result independent of which worker ran which chunk (write to disjoint slots,
// reduce in a fixed order); then results are bitwise identical for any pool
// size. For is not reentrant: the body must not call For on the same pool.
type Pool struct {
	workers int
	mu      sync.Mutex
	wake    []chan struct{}
	done    sync.WaitGroup

	// The loop being run; written by For before waking the workers.
	body  func(lo, hi int)
	n     int
	chunk int
	next  atomic.Int64
}

// NewPool starts a pool with the given number of workers (values below 1 mean 1).
// The calling goroutine counts as one worker.
func NewPool(workers int) *Pool {
	if workers < 1 {
		workers = 1
	}
	p := &Pool{workers: workers, wake: make([]chan struct{}, workers-1)}
	for i := range p.wake {
		ch := make(chan struct{})
		p.wake[i] = ch
		go func() {
			for range ch {
				p.claim()
				p.done.Done()
			}
		}()
	}
	return p
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
	// About four chunks per worker balances uneven chunks; callers that pass
	// coarse items (blocks of rows) get them one or a few at a time.
	chunk := (n + 4*p.workers - 1) / (4 * p.workers)
	p.body, p.n, p.chunk = body, n, chunk
	p.next.Store(0)
	helpers := min(len(p.wake), (n+chunk-1)/chunk-1)
	p.done.Add(helpers)
	for i := 0; i < helpers; i++ {
		p.wake[i] <- struct{}{}
	}
	p.claim()
	p.done.Wait()
	p.body = nil
}

func (p *Pool) claim() {
	n, chunk := int64(p.n), int64(p.chunk)
	for {
		lo := p.next.Add(chunk) - chunk
		if lo >= n {
			return
		}
		p.body(int(lo), int(min(lo+chunk, n)))
	}
}

// Close stops the workers. The pool must not be used afterwards.
func (p *Pool) Close() {
	for _, ch := range p.wake {
		close(ch)
	}
	p.wake = nil
}
