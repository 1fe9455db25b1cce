package bench

import (
	"strconv"
	"strings"
	"testing"
)

// TestRunKernels: the kernel table has the triad, the SpMV and the five
// V-cycle kernels, each with a positive bandwidth.
func TestRunKernels(t *testing.T) {
	c := Case{Name: "sheet-30", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", "30"}}}
	var out strings.Builder
	if err := RunKernels(&out, []Case{c}, 2, 1); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n") {
		if !strings.HasPrefix(line, "sheet-30 ") {
			continue
		}
		f := strings.Fields(line)
		gb, err := strconv.ParseFloat(f[len(f)-2], 64)
		if err != nil || !(gb > 0) {
			t.Errorf("row %q: GB/s %v %v", line, gb, err)
		}
		rows++
	}
	if rows != 7 {
		t.Errorf("%d kernel rows, want 7:\n%s", rows, out.String())
	}
}
