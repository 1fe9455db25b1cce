package systems

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDirectSolveOnClothSteps checks the LDL^T path of the unconstrained step
// on real cloth matrices (a swinging drape, pins eliminated): against a gonum
// dense solve of the same system, and against PCG run to a tight tolerance.
func TestDirectSolveOnClothSteps(t *testing.T) {
	sc := load(t, "drape", [2]string{"bodies.0.resolution", "8"}, [2]string{"solver.linear", "ldlt"}, [2]string{"solver.tolerance", "1e-12"})
	sim := build(t, sc, 2)
	steps(t, sim, 30, nil) // into the swing
	st := sim.State
	// Recompute this step's system and solve it both ways.
	var rhs *ImplicitSolve
	for _, sys := range sim.Scheduler.Systems() {
		if s, ok := sys.(*ImplicitSolve); ok {
			rhs = s
			break
		}
		if err := sys.Step(sim.World); err != nil {
			t.Fatal(err)
		}
	}
	if rhs == nil {
		t.Fatal("no implicit solve in the pipeline")
	}
	sim.World.Pool.For(st.NumVerts(), rhs.rhs)
	if err := rhs.solver.direct.solve(st); err != nil {
		t.Fatal(err)
	}
	direct := append([]float64(nil), st.VNew...)

	// Dense reference: the same elimination of pinned coordinates.
	n := 3 * st.NumVerts()
	dense := mat.NewDense(n, n, nil)
	for bi := 0; bi < st.A.N; bi++ {
		for b := st.A.RowPtr[bi]; b < st.A.RowPtr[bi+1]; b++ {
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					dense.Set(3*bi+r, 3*int(st.A.Col[b])+q, st.A.Val[9*int(b)+3*r+q])
				}
			}
		}
	}
	b := append([]float64(nil), st.B...)
	for j := 0; j < n; j++ {
		if !st.pinnedMask[j/3] {
			continue
		}
		for i := 0; i < n; i++ {
			if !st.pinnedMask[i/3] {
				b[i] -= dense.At(i, j) * st.PinZ[j]
			}
			dense.Set(i, j, 0)
			dense.Set(j, i, 0)
		}
		dense.Set(j, j, 1)
		b[j] = st.PinZ[j]
	}
	var ref mat.VecDense
	if err := ref.SolveVec(dense, mat.NewVecDense(n, b)); err != nil {
		t.Fatal(err)
	}
	if e := relErr(direct, ref.RawVector().Data); e > 1e-10 {
		t.Errorf("LDL^T vs dense solve: relative error %.3g", e)
	}

	copy(st.VNew, st.V)
	res, err := rhs.solver.pcg.Solve(sim.World.Pool, st.A, st.B, st.VNew, st.PinFilter, st.PinZ, 1e-12, 10000)
	if err != nil || !res.Converged {
		t.Fatalf("PCG: %v %+v", err, res)
	}
	if e := relErr(direct, st.VNew); e > 1e-8 {
		t.Errorf("LDL^T vs PCG(1e-12): relative error %.3g", e)
	}
}

func relErr(a, b []float64) float64 {
	var d, m float64
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
		m = math.Max(m, math.Abs(b[i]))
	}
	return d / m
}
