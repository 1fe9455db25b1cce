package systems

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// nonPlanarity returns how far the vertices x (3n) lie from their
// least-squares plane: the largest distance to the plane through their
// centroid whose normal is the covariance's eigenvector of the smallest
// eigenvalue (gonum's symmetric eigensolver). A sheet that only translates
// and turns reads zero.
func nonPlanarity(t *testing.T, x []float64) float64 {
	t.Helper()
	n := len(x) / 3
	var c [3]float64
	for i := range n {
		for k := range 3 {
			c[k] += x[3*i+k] / float64(n)
		}
	}
	cov := mat.NewSymDense(3, nil)
	for i := range n {
		for a := range 3 {
			for b := a; b < 3; b++ {
				cov.SetSym(a, b, cov.At(a, b)+(x[3*i+a]-c[a])*(x[3*i+b]-c[b]))
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		t.Fatal("covariance eigendecomposition failed")
	}
	var vec mat.Dense
	eig.VectorsTo(&vec) // columns in ascending order of eigenvalue
	worst := 0.0
	for i := range n {
		d := 0.0
		for k := range 3 {
			d += (x[3*i+k] - c[k]) * vec.At(k, 0)
		}
		worst = math.Max(worst, math.Abs(d))
	}
	return worst
}

// TestFlagFlaps runs the built-in flag (coarsened: 0.1 m smallest edges) for
// 0.5 s and checks that it flaps, as in Narain 2012 Fig. 8: it starts turned
// 45 degrees to the wind, as ARCSim's flag.json sets it up, and the wind
// bends it out of any plane by more than 0.1 m (of a 3 m flag) and swings
// its free edge from one side of the plane of the pole and the wind (z = 0;
// it starts at z <= 0) more than 0.1 m to the other. The control is the old set-up, wind and gravity in the flag's
// plane, which stays flat to rounding: the measure tells a flat sheet from a
// flapping one.
func TestFlagFlaps(t *testing.T) {
	t.Parallel()
	const steps05 = 100 // 0.5 s
	t.Run("flaps", func(t *testing.T) {
		sim := build(t, load(t, "flag", [2]string{"bodies.0.remesh.size_min", "0.1"}), 2)
		worst, zmin, zmax := 0.0, math.Inf(1), math.Inf(-1)
		steps(t, sim, steps05, func(int) {
			x := sim.State.X
			worst = math.Max(worst, nonPlanarity(t, x))
			for i := 2; i < len(x); i += 3 {
				zmin, zmax = math.Min(zmin, x[i]), math.Max(zmax, x[i])
			}
		})
		t.Logf("largest distance from the least-squares plane %.3f m; z (normal to the wind and the pole) in [%.3f, %.3f] m", worst, zmin, zmax)
		if worst < 0.1 {
			t.Errorf("the flag stays flat: at most %.3g m from its least-squares plane in 0.5 s", worst)
		}
		if zmax < 0.1 { // it starts at z <= 0
			t.Errorf("the flag does not swing across the wind: z in [%.3g, %.3g] m", zmin, zmax)
		}
	})
	t.Run("in-plane wind stays flat", func(t *testing.T) {
		sim := build(t, load(t, "flag", [2]string{"bodies.0.remesh.size_min", "0.1"},
			[2]string{"gravity", "[0,0,-9.81]"}, [2]string{"bodies.0.orientation", "[90,0,0]"}, [2]string{"bodies.0.position", "[1.5,0,0]"}), 2)
		worst := 0.0
		steps(t, sim, steps05/2, func(int) { worst = math.Max(worst, nonPlanarity(t, sim.State.X)) })
		if worst > 1e-9 {
			t.Errorf("a flag in the wind's plane left it by %.3g m", worst)
		}
	})
}
