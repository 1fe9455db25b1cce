package systems

import "os"

// long reports whether LOOM_LONG_TESTS is set: the tests then run their long
// forms (full resolutions and durations, every case), which take minutes.
func long() bool { return os.Getenv("LOOM_LONG_TESTS") != "" }
