package loom

import (
	"math"
	"testing"
	"time"

	"github.com/loomsim/loom/scenes"
)

func TestScratchTimings(t *testing.T) {
	for rep := 0; rep < 3; rep++ {
		for _, v := range []string{"amg", "ldlt", "bj"} {
			sc := CapeScene(32)
			switch v {
			case "bj":
				sc.Solver.Preconditioner = "block-jacobi"
			case "ldlt":
				sc.Solver.Linear = "ldlt"
			}
			scratchRun(t, v, sc)
		}
	}
}

func scratchRun(t *testing.T, name string, sc *scenes.Scene) {
	sim, err := LoadScene(sc, Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	cape, _ := sim.Body("cape")
	character, _ := sim.Obstacle("character")
	n, _ := sim.VertexCount(cape)
	pos := make([]float32, 3*n)
	sim.Positions(cape, pos)
	top := math.Inf(-1)
	for v := range n {
		top = max(top, float64(pos[3*v+2]))
	}
	for v := range n {
		if float64(pos[3*v+2]) > top-1e-3 {
			sim.Attach(cape, v, character)
		}
	}
	contacts := 0
	var t0 time.Time
	for f := 1; f <= 220; f++ {
		if f == 121 {
			sim.sim.Scheduler.ResetTimings()
			t0 = time.Now()
		}
		tt := float64(f) * sim.Dt()
		yaw := 0.4 * math.Sin(tt)
		sim.SetObstaclePose(character, [3]float64{0, 1.2 * tt, 0.8}, [4]float64{0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)})
		if err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if sim.Stats().Contacts > 0 {
			contacts++
		}
	}
	line := name
	for _, tm := range sim.sim.Scheduler.Timings() {
		if tm.Elapsed > 10*time.Millisecond {
			line += " " + tm.System + " " + ms(tm.Elapsed)
		}
	}
	t.Logf("%s total %s; %d frames with contacts", line, ms(time.Since(t0)), contacts)
}

func ms(d time.Duration) string { return time.Duration(d / 100).Round(time.Microsecond).String() }
