package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// checkBenchRowProgress: a bench row that runs longer than a second draws a
// bar with its name and count on stderr (redrawn within a quarter second of
// a change), and a finished row clears it.
func checkBenchRowProgress(t *testing.T) {
	var buf bytes.Buffer
	w := &syncWriter{w: &buf}
	rows := &rowProgress{w: w}
	rows.report("sheet-100-amg", 1, 3)
	if w.String() != "" {
		t.Fatalf("a bar within the first second: %q", w.String())
	}
	time.Sleep(1100 * time.Millisecond)
	rows.report("sheet-100-amg", 2, 3)
	time.Sleep(300 * time.Millisecond)
	if s := w.String(); !strings.Contains(s, "sheet-100-amg") || !strings.Contains(s, "2/3") {
		t.Fatalf("after a second the bar shows %q, want the row and 2/3", s)
	}
	rows.report("sheet-100-amg", 3, 3)
	if rows.bar != nil {
		t.Error("a finished row keeps its bar")
	}
}
