package systems

import (
	"math"
	"strings"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/qp"
)

// tripletSystem is the reference for EOLCloth.assemble: every entry of A,
// the EOL blocks mapped by eq. 10 and then the inertia's entries (as
// collected by inertia) as triplets, nonzero ones only, summed by
// qp.NewCSR.
func tripletSystem(c *EOLCloth, n int) (*qp.CSR, error) {
	s := c.state
	A := s.A
	var rs, cs []int
	var vs []float64
	add := func(r, c int, v float64) {
		if v != 0 {
			rs, cs, vs = append(rs, r), append(cs, c), append(vs, v)
		}
	}
	for i := 0; i < A.N; i++ {
		for b := A.RowPtr[i]; b < A.RowPtr[i+1]; b++ {
			j := int(A.Col[b])
			blk := A.Val[9*b : 9*b+9]
			var S dense.Mat3
			for r := 0; r < 3; r++ {
				for q := 0; q < 3; q++ {
					add(3*i+r, 3*j+q, blk[3*r+q])
					S[r][q] = blk[3*r+q]
				}
			}
			ei, ej := c.eolOf[i], c.eolOf[j]
			if ei < 0 && ej < 0 {
				continue
			}
			if i == j {
				for d := 0; d < 3; d++ {
					S[d][d] -= s.MassDiag[3*i+d]
				}
			}
			var Fi, Fj dense.Mat32
			if ei >= 0 {
				Fi = c.verts[ei].F
			}
			if ej >= 0 {
				Fj = c.verts[ej].F
			}
			LE, EL, EE := eol.MapStiffness(S, Fi, Fj)
			if ei >= 0 {
				for r := 0; r < 2; r++ {
					for q := 0; q < 3; q++ {
						add(3*n+2*int(ei)+r, 3*j+q, EL[r][q])
					}
				}
			}
			if ej >= 0 {
				for r := 0; r < 3; r++ {
					for q := 0; q < 2; q++ {
						add(3*i+r, 3*n+2*int(ej)+q, LE[r][q])
					}
				}
			}
			if ei >= 0 && ej >= 0 {
				for r := 0; r < 2; r++ {
					for q := 0; q < 2; q++ {
						add(3*n+2*int(ei)+r, 3*n+2*int(ej)+q, EE[r][q])
					}
				}
			}
		}
	}
	rs, cs, vs = append(rs, c.asm.r...), append(cs, c.asm.c...), append(vs, c.asm.v...)
	N := 3*n + 2*len(c.verts)
	return qp.NewCSR(N, N, rs, cs, vs)
}

// TestEOLAssemblyMatchesTriplets checks, before every solve of the coarse
// EDGE, that the system matrix assemble builds by pairs of vertices is, value
// for value and bit for bit, the one the triplet assembly gives (the blocks'
// entries that no triplet reaches are zero).
func TestEOLAssemblyMatchesTriplets(t *testing.T) {
	sim := build(t, load(t, "edge", edgeSets...), 2)
	c := sim.EOL
	withEOL, merged := 0, 0
	for step := 0; step < 50; step++ {
		for _, sys := range sim.Scheduler.Systems() {
			if sys.Name() == "eol-solve" {
				n := c.state.NumVerts()
				HG, err := c.system(sim.World.Pool, n)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				want, err := tripletSystem(c, n)
				if err != nil {
					t.Fatalf("step %d: reference: %v", step, err)
				}
				if len(c.verts) > 0 {
					withEOL++
				}
				merged += len(c.asm.r)
				N := 3*n + 2*len(c.verts)
				H := HG.CSR(c.groups, N)
				if H.Rows != want.Rows || H.Cols != want.Cols {
					t.Fatalf("step %d: %dx%d, want %dx%d", step, H.Rows, H.Cols, want.Rows, want.Cols)
				}
				// Row by row: each entry of the reference is the block
				// entry bit for bit, and the blocks' other entries are zero.
				got := map[int]float64{}
				for i := 0; i < N; i++ {
					clear(got)
					for k := H.RowPtr[i]; k < H.RowPtr[i+1]; k++ {
						if _, dup := got[H.Col[k]]; dup {
							t.Fatalf("step %d: row %d: column %d twice", step, i, H.Col[k])
						}
						got[H.Col[k]] = H.Val[k]
					}
					for k := want.RowPtr[i]; k < want.RowPtr[i+1]; k++ {
						v, ok := got[want.Col[k]]
						if !ok || math.Float64bits(v) != math.Float64bits(want.Val[k]) {
							t.Fatalf("step %d: row %d column %d: %v (in a block: %v), want %v", step, i, want.Col[k], v, ok, want.Val[k])
						}
						delete(got, want.Col[k])
					}
					for j, v := range got {
						if v != 0 {
							t.Fatalf("step %d: row %d column %d: %v, want 0", step, i, j, v)
						}
					}
				}
			}
			if err := sys.Step(sim.World); err != nil {
				t.Fatalf("step %d: %s: %v", step, sys.Name(), err)
			}
		}
	}
	if withEOL < 10 || merged == 0 {
		t.Fatalf("only %d steps with EOL vertices, %d inertia entries: the test checks too little", withEOL, merged)
	}
	t.Logf("%d of 50 steps with EOL vertices, %d inertia entries merged", withEOL, merged)
}

// TestEOLContactQP: the EOL step solved by the general QP solver
// (solver.contact_solver qp, which takes the system matrix expanded to CSR)
// runs 45 steps of the coarse EDGE (60 with LOOM_LONG_TESTS; the QP's steps
// grow costly as the pull, from step 30, adds EOL vertices), and over the
// first 20 (the fall, and the first EOL vertices at step 18) its velocities
// stay within 1e-3 of the filtered solver's, relative to the largest
// (measured: 3e-4; both solve to the scene's relative tolerance 1e-4, and
// the steps after the first contacts diverge by remeshing).
func TestEOLContactQP(t *testing.T) {
	t.Parallel()
	sims := [2]*Sim{}
	for k, solver := range []string{"qp", "filter"} {
		sims[k] = build(t, load(t, "edge", append(append([][2]string{}, edgeSets...), [2]string{"solver.contact_solver", solver})...), 2)
	}
	n := 45
	if long() {
		n = 60
	}
	eolSteps := 0
	for step := 0; step < n; step++ {
		for k, sim := range sims {
			if err := sim.Step(); err != nil {
				t.Fatalf("%d: step %d: %v", k, step, err)
			}
		}
		a, b := sims[0], sims[1]
		if len(a.EOL.verts) > 0 {
			eolSteps++
		}
		if step >= 20 {
			continue
		}
		if len(a.State.V) != len(b.State.V) {
			t.Fatalf("step %d: %d and %d velocities", step, len(a.State.V), len(b.State.V))
		}
		d, m := 0.0, 0.0
		for i := range b.State.V {
			d = math.Max(d, math.Abs(a.State.V[i]-b.State.V[i]))
			m = math.Max(m, math.Abs(b.State.V[i]))
		}
		if d > 1e-3*m {
			t.Fatalf("step %d: velocities differ by %.2e, largest %.2e", step, d, m)
		}
	}
	if eolSteps < 20 {
		t.Fatalf("only %d steps with EOL vertices under the QP solver", eolSteps)
	}
}

// TestEOLAssemblyBadForceMatrix: a force matrix whose size or row order the
// assembly cannot use gives an error naming it, not a wrong matrix.
func TestEOLAssemblyBadForceMatrix(t *testing.T) {
	sim := build(t, load(t, "edge", edgeSets...), 2)
	for step := 0; step < 3; step++ {
		if err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	c := sim.EOL
	n := c.state.NumVerts()
	if _, err := c.system(sim.World.Pool, n-1); err == nil || !strings.Contains(err.Error(), "block rows for") {
		t.Errorf("wrong size: %v", err)
	}
	A := c.state.A
	i := 5
	lo := A.RowPtr[i]
	A.Col[lo], A.Col[lo+1] = A.Col[lo+1], A.Col[lo]
	if _, err := c.system(sim.World.Pool, n); err == nil || !strings.Contains(err.Error(), "row 5 is not sorted by column") {
		t.Errorf("unsorted row: %v", err)
	}
}
