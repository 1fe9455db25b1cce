package systems

import (
	"os"
	"testing"

	"github.com/loomsim/loom/ecs"
)

// long reports whether LOOM_LONG_TESTS is set: the tests then run their long
// forms (full resolutions and durations, every case), which take minutes.
func long() bool { return os.Getenv("LOOM_LONG_TESTS") != "" }

// workerCounts returns the worker counts the determinism tests compare: 1, 2
// and 8, or the comma-separated list in LOOM_TEST_WORKERS (such as
// 1,2,4,8,16 on a machine with 16 cores, where the workers really run at
// once). A list of fewer than two counts is an error: it would compare
// nothing.
func workerCounts(t *testing.T) []int {
	t.Helper()
	env := os.Getenv("LOOM_TEST_WORKERS")
	if env == "" {
		return []int{1, 2, 8}
	}
	ws, err := ecs.WorkerList("LOOM_TEST_WORKERS", env)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) < 2 {
		t.Fatalf("LOOM_TEST_WORKERS=%q: the determinism tests need at least two worker counts to compare", env)
	}
	return ws
}

// The heavy scene tests (golden hashes, Done-means runs, the pass-through
// checker, the EOL scene checks...) call t.Parallel: Go runs them two at a
// time (GOMAXPROCS) after every quick test, so the package uses both cores
// of a 2-core machine (mostly serial steps used one) and the suite stays
// within its 5 minutes. Each builds its own Sim; none measures allocations
// or time.
