package bench

import "testing"

// TestMeasureGame: the game-loop row runs. (Its allocation count reads the
// process-wide MemStats, which the runtime's own work can bump; the exact
// zero-allocation check is loom's TestNoAllocsPerStep.)
func TestMeasureGame(t *testing.T) {
	r, err := MeasureGame(12, 1, 30, 20)
	if err != nil {
		t.Fatal(err)
	}
	if r.Vertices != 12*9 || r.StepMS <= 0 || r.ReadMS <= 0 {
		t.Errorf("%+v", r)
	}
}

// BenchmarkGameCape32 is the game-loop row on 1 worker: go test -run '^$'
// -bench GameCape ./bench/ (each iteration 200 timed frames).
func BenchmarkGameCape32(b *testing.B) {
	for b.Loop() {
		r, err := MeasureGame(32, 1, 120, 200)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.StepMS, "ms/step")
		b.ReportMetric(1000*r.ReadMS, "us/read")
		b.ReportMetric(r.AllocsPerFrame, "allocs/frame")
	}
}
