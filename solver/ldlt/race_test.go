//go:build race

package ldlt

// raceEnabled: the race detector is on, under which sync.Pool drops items
// on purpose, so storage kept in a pool is not kept.
const raceEnabled = true
