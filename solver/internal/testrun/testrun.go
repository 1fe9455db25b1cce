// Package testrun holds the worker-pool stand-in that the solver packages'
// tests run their parallel loops on, to check that results do not depend on
// how a loop is split or scheduled.
package testrun

import (
	"sync"
	"sync/atomic"
)

// Chunked runs a loop on Workers goroutines that pull chunks of Grain
// indices in whatever order they get to them, like a worker pool with work
// stealing. It satisfies the solver packages' Runner interfaces.
type Chunked struct{ Workers, Grain int }

// For calls body on disjoint chunks covering [0, n).
func (c Chunked) For(n int, body func(lo, hi int)) {
	if n <= 0 {
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range c.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(int64(c.Grain))) - c.Grain
				if lo >= n {
					return
				}
				body(lo, min(lo+c.Grain, n))
			}
		}()
	}
	wg.Wait()
}
