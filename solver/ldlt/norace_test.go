//go:build !race

package ldlt

// raceEnabled: the race detector is off (race_test.go).
const raceEnabled = false
