package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunResume: a run checkpointed at step 20 and resumed to step 40
// writes the same last frame, byte for byte, as a straight 40-step run
// (an adaptive scene, so the checkpoint spans remeshing).
func TestRunResume(t *testing.T) {
	straight, ck := t.TempDir(), t.TempDir()
	args := []string{"sphere", "--workers", "2", "--set", "bodies.0.remesh.size_min=0.06", "--set", "fps=50"}
	if out, err := runLoom(t, append([]string{"run", "--steps", "40", "--out", straight}, args...)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := runLoom(t, append([]string{"run", "--steps", "20", "--out", ck, "--checkpoint-every", "10"}, args...)...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err := runLoom(t, "resume", ck, "--steps", "40", "--workers", "1")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "resumed at step 20") {
		t.Errorf("resume does not say where it resumed: %q", out)
	}
	// Frames every 4 steps: the straight run's frame 10 is step 40, the
	// resumed run's frame 5.
	want, err := os.ReadFile(filepath.Join(straight, "frame_00010.obj"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(ck, "resumed", "frame_00005.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("the resumed run's frame at step 40 differs from the straight run's")
	}
	if _, err := runLoom(t, "resume", straight); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("resume without a checkpoint: %v", err)
	}
}
