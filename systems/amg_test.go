package systems

import (
	"math"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/activeset"
	"github.com/loomsim/loom/solver/amg"
	"github.com/loomsim/loom/solver/sparse"
)

// implicitSolve returns the sim's implicit-solve system.
func implicitSolve(t *testing.T, sim *Sim) *ImplicitSolve {
	t.Helper()
	for _, s := range sim.Scheduler.Systems() {
		if is, ok := s.(*ImplicitSolve); ok {
			return is
		}
	}
	t.Fatal("no implicit-solve system")
	return nil
}

// TestAMGOnClothMatrices solves real cloth step systems (the drape at 50 x
// 50, steps 5, 10 and 15, with its pins as filters) by PCG with the AMG
// V-cycle and with block-Jacobi from zero: the same solution to the
// tolerance, in fewer than a quarter of block-Jacobi's iterations (measured:
// block-Jacobi 631-647 at 1e-8, AMG 37-39).
func TestAMGOnClothMatrices(t *testing.T) {
	sim := build(t, load(t, "drape", [2]string{"bodies.0.resolution", "50"}, [2]string{"solver.preconditioner", "amg"}), 2)
	is := implicitSolve(t, sim)
	st := sim.State
	steps(t, sim, 15, func(i int) {
		if (i+1)%5 != 0 {
			return
		}
		n := st.NumVerts()
		var x [2][]float64
		var its [2]int
		for k := range x {
			pcg := sparse.NewPCG(n)
			if k == 1 {
				pcg.SetPreconditioner(is.solver.amg)
			}
			x[k] = make([]float64, 3*n)
			res, err := pcg.Solve(sim.World.Pool, st.A, st.B, x[k], st.PinFilter, st.PinZ, 1e-8, 5000)
			if err != nil || !res.Converged {
				t.Fatalf("step %d: %+v %v", i+1, res, err)
			}
			its[k] = res.Iterations
		}
		diff, norm := maxDiff(x[0], x[1])
		if diff > 1e-6*norm {
			t.Errorf("step %d: max |v_amg - v_bj| = %g, max |v| = %g", i+1, diff, norm)
		}
		if 4*its[1] >= its[0] {
			t.Errorf("step %d: AMG %d iterations, block-Jacobi %d: want fewer than a quarter", i+1, its[1], its[0])
		}
		t.Logf("step %d: block-Jacobi %d iterations, AMG %d, levels %v", i+1, its[0], its[1], is.solver.amg.Levels())
	})
}

// TestAMGRemeshedContact runs the sphere scene (adaptive remeshing, contacts
// on the filtered PCG), its cloth lowered onto the ball and coarsened so that
// 48 steps reach contact with a 742-vertex mesh, with the AMG
// preconditioner: the hierarchy is rebuilt as the mesh changes, the steps
// with contacts solve, and the trajectory is bitwise the same on 1, 2 and 8
// workers and close to block-Jacobi's.
func TestAMGRemeshedContact(t *testing.T) {
	t.Parallel()
	const n = 48
	run := func(pre string, workers int) (*Sim, *ImplicitSolve) {
		sim := build(t, load(t, "sphere", [2]string{"solver.preconditioner", pre},
			[2]string{"bodies.0.position", "[0,0,0.15]"}, [2]string{"bodies.0.remesh.size_min", "0.03"}), workers)
		steps(t, sim, n, nil)
		return sim, implicitSolve(t, sim)
	}
	ref, is := run("amg", 1)
	if len(is.solver.amg.Levels()) < 2 {
		t.Errorf("levels %v: the test needs a multilevel hierarchy", is.solver.amg.Levels())
	}
	if a := is.solver.amg.Analyses(); a < 2 {
		t.Errorf("%d AMG analyses in %d remeshing steps, want one per mesh", a, n)
	}
	if len(ref.State.Contacts) == 0 {
		t.Fatal("no contacts: the test needs the cloth on the sphere")
	}
	for _, w := range []int{2, 8} {
		sim, _ := run("amg", w)
		if stateHash(sim.World.ECS) != stateHash(ref.World.ECS) {
			t.Fatalf("%d workers: trajectory differs from 1 worker's", w)
		}
	}
	// Remeshing numbers the vertices differently once the solves differ by
	// the tolerance, so compare the cloth's centroids.
	bj, _ := run("block-jacobi", 1)
	c1, c2 := centroid(ref.State.X), centroid(bj.State.X)
	d := math.Sqrt(sq(c1[0]-c2[0]) + sq(c1[1]-c2[1]) + sq(c1[2]-c2[2]))
	t.Logf("centroids %.5f and %.5f, %.2g m apart after %d steps (%d and %d vertices)", c1, c2, d, n, len(ref.State.X)/3, len(bj.State.X)/3)
	if d > 1e-3 {
		t.Errorf("AMG and block-Jacobi centroids %g m apart after %d steps", d, n)
	}
}

// maxDiff returns max |a_j - b_j| and max |a_j|.
func maxDiff(a, b []float64) (diff, norm float64) {
	for j := range a {
		diff = max(diff, math.Abs(a[j]-b[j]))
		norm = max(norm, math.Abs(a[j]))
	}
	return diff, norm
}

func centroid(x []float64) (c [3]float64) {
	for i := 0; i < len(x); i += 3 {
		c[0], c[1], c[2] = c[0]+x[i], c[1]+x[i+1], c[2]+x[i+2]
	}
	for k := range c {
		c[k] /= float64(len(x) / 3)
	}
	return c
}

// TestAMGContactPrepare: sphere-arcsim's contact steps as the sphere lifts
// the cloth (steps 110-120: 2,500-3,900 vertices, 70-120 contact rows),
// each solved by the active set, then once more by PCG from the step's
// start velocities with the active rows as filters, preconditioned by the
// AMG hierarchy of the pin-filtered matrix and by the one implicitSolver's
// Prepare sets up for the operator filtered by the pins and the active rows
// (what activeset.Preparer is for): the same velocities to the tolerance in
// at most three quarters of the iterations (measured: 232 and 118).
func TestAMGContactPrepare(t *testing.T) {
	t.Parallel()
	sim := build(t, load(t, "sphere-arcsim"), 2)
	st := sim.State
	set := implicitSolve(t, sim).solver.set
	var its [2]int
	steps(t, sim, 120, func(i int) {
		if i+1 < 110 {
			return
		}
		n := st.NumVerts()
		rows := make([]activeset.Row, 0, len(st.Contacts))
		for _, r := range st.Contacts {
			rows = append(rows, activeset.Row(r))
		}
		if len(rows) == 0 {
			t.Fatalf("step %d: no contact rows", i+1)
		}
		// The active set, and its filter.
		pcg := sparse.NewPCG(n)
		p := activeset.Problem{A: st.A, B: st.B, PinFilter: st.PinFilter, PinZ: st.PinZ, Rows: rows,
			Tolerance: set.Tolerance, MaxIterations: set.MaxIterations}
		imp := make([]float64, len(rows))
		var as activeset.Solver
		if _, err := as.Solve(sim.World.Pool, pcg, &p, slices.Clone(st.V), imp); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		filter, z := slices.Clone(st.PinFilter), slices.Clone(st.PinZ)
		held := 0
		for k, r := range rows {
			if imp[k] == 0 {
				continue
			}
			held++
			j := int(r.Vertex)
			for a := range 3 {
				for b := range 3 {
					filter[9*j+3*a+b] -= r.Normal[a] * r.Normal[b]
				}
				z[3*j+a] = r.Target * r.Normal[a]
			}
		}
		if held == 0 {
			t.Fatalf("step %d: no active row", i+1)
		}
		var v [2][]float64
		for k := range v {
			pcg := sparse.NewPCG(n)
			if k == 0 {
				pre, err := amg.New(amg.DefaultOptions())
				if err != nil {
					t.Fatal(err)
				}
				if err := pre.SetupFiltered(sim.World.Pool, st.A, st.PinFilter, nil); err != nil {
					t.Fatal(err)
				}
				pcg.SetPreconditioner(pre)
			} else {
				is := &implicitSolver{set: set, pcg: pcg}
				if err := is.Prepare(sim.World.Pool, st.A, filter); err != nil {
					t.Fatal(err)
				}
			}
			v[k] = slices.Clone(st.V)
			res, err := pcg.Solve(sim.World.Pool, st.A, st.B, v[k], filter, z, set.Tolerance, set.MaxIterations)
			if err != nil || !res.Converged {
				t.Fatalf("step %d: %+v %v", i+1, res, err)
			}
			its[k] += res.Iterations
		}
		diff, norm := maxDiff(v[0], v[1])
		if diff > 1e-3*norm {
			t.Errorf("step %d: velocities %g apart, max |v| %g", i+1, diff, norm)
		}
	})
	t.Logf("PCG iterations over steps 110-120 on the final active sets: %d with the pin-filtered hierarchy, %d with the contact-filtered one", its[0], its[1])
	if 4*its[1] > 3*its[0] {
		t.Errorf("contact-filtered hierarchy %d iterations, pin-filtered %d: want at most three quarters", its[1], its[0])
	}
}
