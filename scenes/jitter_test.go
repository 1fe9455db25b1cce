package scenes

import (
	"math"
	"testing"
)

// Jitter moves interior vertices only, the same way in material and world
// space, keeps every face counter-clockwise, and depends only on the seed.
func TestJitter(t *testing.T) {
	b := &Body{Name: "s", Size: [2]float64{1, 0.5}, Resolution: 11, Position: [3]float64{0, 0, 1}, Orientation: [3]float64{90, 0, 0}}
	ref, err := BuildSheet(b)
	if err != nil {
		t.Fatal(err)
	}
	sh, _ := BuildSheet(b)
	if err := sh.Jitter(b, 0.3, 7); err != nil {
		t.Fatal(err)
	}
	again, _ := BuildSheet(b)
	_ = again.Jitter(b, 0.3, 7)
	R := b.Rotation()
	moved := 0
	for v := range sh.Rest {
		du := [2]float64{sh.Rest[v][0] - ref.Rest[v][0], sh.Rest[v][1] - ref.Rest[v][1]}
		i, j := v%sh.NX, v/sh.NX
		border := i == 0 || j == 0 || i == sh.NX-1 || j == sh.NY-1
		if border && du != [2]float64{} {
			t.Fatalf("border vertex %d moved by %v", v, du)
		}
		if du != [2]float64{} {
			moved++
		}
		if math.Abs(du[0]) > 0.3*0.1+1e-15 || math.Abs(du[1]) > 0.3*0.1+1e-15 {
			t.Fatalf("vertex %d moved by %v, more than 30%% of the 0.1 m spacing", v, du)
		}
		for k := range 3 {
			want := ref.Pos[v][k] + R[k][0]*du[0] + R[k][1]*du[1]
			if math.Abs(sh.Pos[v][k]-want) > 1e-12 {
				t.Fatalf("vertex %d: world %v does not follow its material offset %v", v, sh.Pos[v], du)
			}
		}
		if sh.Rest[v] != again.Rest[v] {
			t.Fatalf("vertex %d: not deterministic", v)
		}
	}
	if moved != (sh.NX-2)*(sh.NY-2) {
		t.Fatalf("%d interior vertices moved, want %d", moved, (sh.NX-2)*(sh.NY-2))
	}
	for f, tri := range sh.Faces {
		u := sh.FaceU[f]
		for k, v := range tri {
			if u[k] != sh.Rest[v] {
				t.Fatalf("face %d corner %d: U %v, vertex rest %v", f, k, u[k], sh.Rest[v])
			}
		}
		if a := (u[1][0]-u[0][0])*(u[2][1]-u[0][1]) - (u[1][1]-u[0][1])*(u[2][0]-u[0][0]); !(a > 0) {
			t.Fatalf("face %d turned over (2 area %g)", f, a)
		}
	}
	if err := sh.Jitter(b, 0.5, 1); err == nil {
		t.Fatal("amount 0.5 accepted")
	}
}
