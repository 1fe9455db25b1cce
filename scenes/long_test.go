package scenes

import "os"

// long reports whether LOOM_LONG_TESTS is set: the tests then run their long
// forms (every case), which take longer.
func long() bool { return os.Getenv("LOOM_LONG_TESTS") != "" }
