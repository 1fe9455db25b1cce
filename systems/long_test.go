package systems

import "os"

// long reports whether LOOM_LONG_TESTS is set: the tests then run their long
// forms (full resolutions and durations, every case), which take minutes.
func long() bool { return os.Getenv("LOOM_LONG_TESTS") != "" }

// The heavy scene tests (golden hashes, Done-means runs, the pass-through
// checker, the EOL scene checks...) call t.Parallel: Go runs them two at a
// time (GOMAXPROCS) after every quick test, so the package uses both cores
// of a 2-core machine (mostly serial steps used one) and the suite stays
// within its 5 minutes. Each builds its own Sim; none measures allocations
// or time.
