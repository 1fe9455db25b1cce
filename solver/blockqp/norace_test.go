//go:build !race

package blockqp

const raceEnabled = false
