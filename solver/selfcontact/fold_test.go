package selfcontact

import (
	"testing"
)

// foldPair is a sharp 90 degree fold over the line x = z = 0 (along y)
// with two vertices on it, F0 at y = 0 and F1 at y = 4 mm (0, 1): two
// triangles reach 20 mm along +x (T0 2, T1 3) and two 20 mm down -z (S0 4,
// S1 5), every one holding F0. F1 is 2.2 mm from the side triangle
// (F0, S1, S0), and the edge F0-T0 as near the edge F1-S1; every other
// pair is at least 20 mm apart.
func foldPair() (x0 []float64, faces []int32) {
	x0 = []float64{0, 0, 0, 0, 0.004, 0, 0.02, -0.01, 0, 0.02, 0.03, 0, 0, -0.01, -0.02, 0, 0.03, -0.02}
	faces = []int32{0, 2, 3, 0, 3, 1, 0, 1, 5, 0, 5, 4}
	return x0, faces
}

// TestFoldLabels: across a sharp fold whose vertices share a Fold label,
// a vertex and an edge on the fold are within the thickness (8 mm) of the
// other side's face and edge (foldPair), and only Fold keeps those pairs
// from being repelled; a loose triangle 3 mm over the fold is still
// repelled from it.
func TestFoldLabels(t *testing.T) {
	const h, th = 0.01, 0.008
	x0, faces := foldPair()
	nv := len(x0) / 3
	fold := make([]int32, nv)
	for i := range fold {
		fold[i] = -1
	}
	fold[0], fold[1] = 7, 7
	if st := solve(t, nil, x0, make([]float64, 3*nv), ones(nv), faces, h, Params{Thickness: th}); st.Proximities == 0 {
		t.Fatalf("setup: no proximity across the fold without labels: %+v", st)
	}
	v := make([]float64, 3*nv)
	if st := solve(t, nil, x0, v, ones(nv), faces, h, Params{Thickness: th, Fold: fold}); st.Proximities != 0 {
		t.Fatalf("%d proximities across the labelled fold", st.Proximities)
	}
	for i, vi := range v {
		if vi != 0 {
			t.Fatalf("velocity %d is %v after a solve with nothing to repel", i, vi)
		}
	}

	// A loose triangle 3 mm over the fold, unlabelled.
	x0 = append(x0, 0.001, 0.004, 0.003, 0.011, 0.004, 0.003, 0.001, 0.014, 0.003)
	faces = append(faces, int32(nv), int32(nv+1), int32(nv+2))
	fold = append(fold, -1, -1, -1)
	v = make([]float64, 3*(nv+3))
	st := solve(t, nil, x0, v, ones(nv+3), faces, h, Params{Thickness: th, Fold: fold})
	if st.Proximities == 0 || !(v[3*nv+2] > 0) {
		t.Fatalf("the triangle over the fold was not repelled: %+v, v_z %v", st, v[3*nv+2])
	}

	var s Solver
	if err := s.SetTopology(nil, nv+3, faces, x0, Kinematic{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(nil, x0, v, ones(nv+3), h, Params{Thickness: th, Fold: fold[:nv]}, Kinematic{}); err == nil {
		t.Fatal("no error for a Fold of the wrong length")
	}
}
