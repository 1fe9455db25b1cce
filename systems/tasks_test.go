package systems

import (
	"fmt"
	"testing"

	"github.com/loomsim/loom/ecs"
)

// concurrently runs every task once, on any number of workers, and returns
// the error of the first failing task in task order.
func TestConcurrently(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		p := ecs.NewPool(workers)
		ran := make([]int, 7)
		tasks := make([]func() error, len(ran))
		for i := range tasks {
			tasks[i] = func() error {
				ran[i]++
				if i == 3 || i == 5 {
					return fmt.Errorf("task %d", i)
				}
				return nil
			}
		}
		err := concurrently(p, tasks...)
		if err == nil || err.Error() != "task 3" {
			t.Errorf("%d workers: error %v, want task 3's", workers, err)
		}
		for i, n := range ran {
			if n != 1 {
				t.Errorf("%d workers: task %d ran %d times", workers, i, n)
			}
		}
		if err := concurrently(p, func() error { return nil }); err != nil {
			t.Errorf("%d workers: %v", workers, err)
		}
		if err := concurrently(p); err != nil {
			t.Errorf("%d workers: no tasks: %v", workers, err)
		}
		p.Close()
	}
}
