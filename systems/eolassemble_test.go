package systems

import (
	"math"
	"slices"
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

// TestEOLContactQP: the EOL step's QP (eq. 12) solved by the general QP
// solver (solver/qp, on the system matrix expanded to CSR) and by the
// filtered active-set solver (solver/blockqp) agree, on the same problem,
// in every one of 45 steps of the coarse EDGE (60 with LOOM_LONG_TESTS):
// the fall, the first EOL vertices at step 18, the pull from step 30. Each
// step runs the filtered solve (with its contact refinements); the general
// solver then solves the problem of its last round, and its velocities
// (world and material) must lie within 1e-3 of the filtered ones, relative
// to the largest (measured: 3e-4; both solve to the scene's relative
// tolerance 1e-4). The step then goes on with the filtered solution.
//
// Two runs, one per solver, cannot be compared vertex by vertex past the
// first EOL vertices: conformal insertion numbers the new vertices by
// where the feature crosses the mesh, and runs that differ by the
// solvers' tolerance can number them differently.
func TestEOLContactQP(t *testing.T) {
	t.Parallel()
	sim := build(t, load(t, "edge", append(append([][2]string{}, edgeSets...), [2]string{"solver.contact_solver", "filter"})...), 2)
	c := sim.EOL
	n := 45
	if long() {
		n = 60
	}
	eolSteps, worst := 0, 0.0
	for step := 0; step < n; step++ {
		for _, sys := range sim.Scheduler.Systems() {
			if err := sys.Step(sim.World); err != nil {
				t.Fatalf("step %d: %s: %v", step, sys.Name(), err)
			}
			if sys.Name() != "eol-solve" {
				continue
			}
			s := c.state
			nv, m := s.NumVerts(), len(c.verts)
			solved := func() []float64 { // world, then material velocities
				x := slices.Clone(s.VNew)
				for k := range c.verts {
					x = append(x, c.verts[k].xdotNew[0], c.verts[k].xdotNew[1])
				}
				return x
			}
			filtered := solved()
			keepImp, keepRows, keepStats := slices.Clone(s.Impulse), slices.Clone(c.rows), c.LastQP
			H, err := c.system(sim.World.Pool, nv)
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if err := c.solveQP(H.CSR(c.groups, 3*nv+2*m), nv, 3*nv+2*m, m); err != nil {
				t.Fatalf("step %d: general QP: %v", step, err)
			}
			d, big := 0.0, 0.0
			for i, g := range solved() {
				d, big = math.Max(d, math.Abs(g-filtered[i])), math.Max(big, math.Abs(filtered[i]))
			}
			if d > 1e-3*big {
				t.Fatalf("step %d (%d EOL vertices, %d contacts): the solvers' velocities differ by %.2e, largest %.2e", step, m, len(s.Contacts), d, big)
			}
			worst = math.Max(worst, d/big)
			if m > 0 {
				eolSteps++
			}
			copy(s.VNew, filtered)
			for k := range c.verts {
				c.verts[k].xdotNew = dense.Vec2{filtered[3*nv+2*k], filtered[3*nv+2*k+1]}
			}
			s.Impulse, c.rows, c.LastQP, s.LastQP = keepImp, keepRows, keepStats, keepStats
		}
	}
	if eolSteps < 20 {
		t.Fatalf("only %d steps with EOL vertices", eolSteps)
	}
	t.Logf("%d steps, %d with EOL vertices: the solvers differ by at most %.2e of the largest velocity", n, eolSteps, worst)
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
