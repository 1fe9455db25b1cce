package bench

import "testing"

// TestMeasureGame: the game-loop row runs and its frames allocate nothing.
func TestMeasureGame(t *testing.T) {
	r, err := MeasureGame(12, 1, 30, 20)
	if err != nil {
		t.Fatal(err)
	}
	if r.Vertices != 12*9 || r.StepMS <= 0 || r.ReadMS <= 0 {
		t.Errorf("%+v", r)
	}
	if r.AllocsPerFrame != 0 {
		t.Errorf("%g allocations per frame, want 0", r.AllocsPerFrame)
	}
}
