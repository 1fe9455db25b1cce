package systems

import "github.com/loomsim/loom/ecs"

// concurrently runs independent tasks on pool p, as many at once as it has
// workers, and returns the error of the first task, in task order, that
// failed. The tasks must not depend on each other's effects (so that the
// results do not depend on the number of workers) nor use p.
func concurrently(p *ecs.Pool, tasks ...func() error) error {
	errs := make([]error, len(tasks))
	// With at most 4 tasks per worker, For's chunks are single tasks.
	p.For(len(tasks), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			errs[i] = tasks[i]()
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
