package systems

import (
	"math"
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
// EDGE, that the system matrix assemble builds is, structure and values bit
// for bit, the one the triplet assembly gives.
func TestEOLAssemblyMatchesTriplets(t *testing.T) {
	sim := build(t, load(t, "edge", edgeSets...), 2)
	c := sim.EOL
	withEOL, merged := 0, 0
	for step := 0; step < 50; step++ {
		for _, sys := range sim.Scheduler.Systems() {
			if sys.Name() == "eol-solve" {
				n := c.state.NumVerts()
				H, err := c.system(sim.World.Pool, n)
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
				if H.Rows != want.Rows || H.Cols != want.Cols || len(H.RowPtr) != len(want.RowPtr) {
					t.Fatalf("step %d: %dx%d with %d row pointers, want %dx%d with %d", step, H.Rows, H.Cols, len(H.RowPtr), want.Rows, want.Cols, len(want.RowPtr))
				}
				for i := 0; i < H.Rows; i++ {
					a, b := H.RowPtr[i], want.RowPtr[i]
					if a != b || H.RowPtr[i+1]-a != want.RowPtr[i+1]-b {
						t.Fatalf("step %d: row %d at %d..%d, want %d..%d", step, i, a, H.RowPtr[i+1], b, want.RowPtr[i+1])
					}
					for k := a; k < H.RowPtr[i+1]; k++ {
						if H.Col[k] != want.Col[k] || math.Float64bits(H.Val[k]) != math.Float64bits(want.Val[k]) {
							t.Fatalf("step %d: row %d entry %d: (%d, %v), want (%d, %v)", step, i, k-a, H.Col[k], H.Val[k], want.Col[k], want.Val[k])
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
