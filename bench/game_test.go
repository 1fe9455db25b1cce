package bench

import "testing"

// TestMeasureGame: the game-loop row runs. (Its allocation count reads the
// process-wide MemStats, which the runtime's own work can bump; the exact
// zero-allocation check is loom's TestNoAllocsPerStep.)
func TestMeasureGame(t *testing.T) {
	var reports, last, total int
	r, err := MeasureGame(12, 1, 30, 20, func(row string, done, n int) {
		reports, last, total = reports+1, done, n
	})
	if err != nil {
		t.Fatal(err)
	}
	if r.Vertices != 12*9 || r.StepMS <= 0 || r.ReadMS <= 0 {
		t.Errorf("%+v", r)
	}
	if reports != 50 || last != 50 || total != 50 {
		t.Errorf("progress: %d reports, the last %d of %d; want 50 of 50", reports, last, total)
	}
}

// BenchmarkGameCape32 is the game-loop row on 1 worker: go test -run '^$'
// -bench GameCape ./bench/ (each iteration 200 timed frames).
func BenchmarkGameCape32(b *testing.B) {
	for b.Loop() {
		r, err := MeasureGame(32, 1, 120, 200, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(r.StepMS, "ms/step")
		b.ReportMetric(1000*r.ReadMS, "us/read")
		b.ReportMetric(r.AllocsPerFrame, "allocs/frame")
	}
}
