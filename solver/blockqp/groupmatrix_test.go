package blockqp

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/loomsim/loom/ecs"
)

// groupMatrix returns p.H by pairs of groups (Problem.HG), each block row's
// blocks in the order their groups first appear in the row's entries.
func groupMatrix(p *Problem) *GroupMatrix {
	gof, loc := map[int32]int32{}, map[int32]int{}
	for g, grp := range p.Groups {
		for a, v := range grp.Vars {
			gof[v], loc[v] = int32(g), a
		}
	}
	m := &GroupMatrix{Ptr: []int32{0}}
	h := p.H
	for _, grp := range p.Groups {
		at := map[int32]int32{} // group -> its block's offset
		for a, i := range grp.Vars {
			for k := h.RowPtr[i]; k < h.RowPtr[i+1]; k++ {
				o := gof[int32(h.Col[k])]
				off, ok := at[o]
				if !ok {
					off = int32(len(m.Val))
					at[o] = off
					m.Col, m.Off = append(m.Col, o), append(m.Off, off)
					m.Val = append(m.Val, make([]float64, len(grp.Vars)*len(p.Groups[o].Vars))...)
				}
				m.Val[int(off)+a*len(p.Groups[o].Vars)+loc[int32(h.Col[k])]] += h.Val[k]
			}
		}
		m.Ptr = append(m.Ptr, int32(len(m.Col)))
	}
	return m
}

// TestGroupMatrix: a cloth problem with EOL groups solved with H by pairs of
// groups (HG) gives the same answer, bit for bit, as with H in CSR, serially
// and on a pool; HG.CSR gives back the same matrix.
func TestGroupMatrix(t *testing.T) {
	p := clothProblem(t, rand.New(rand.NewSource(5)), 14, 11)
	q := *p
	q.H, q.HG = nil, groupMatrix(p)
	pool := ecs.NewPool(3)
	defer pool.Close()
	for _, run := range []Runner{nil, pool} {
		s1, s2 := NewSolver(), NewSolver()
		r1, err := s1.Solve(run, p, nil, Settings{})
		if err != nil || !r1.Converged {
			t.Fatalf("CSR: %v %s", err, r1.Message)
		}
		r2, err := s2.Solve(run, &q, nil, Settings{})
		if err != nil || !r2.Converged {
			t.Fatalf("HG: %v %s", err, r2.Message)
		}
		if !slices.Equal(r1.X, r2.X) || !slices.Equal(r1.Y, r2.Y) || r1.CGIterations != r2.CGIterations {
			t.Fatalf("HG and CSR differ: %d and %d CG iterations", r1.CGIterations, r2.CGIterations)
		}
	}
	// Expanded back, HG is H: every entry of H, and zeros elsewhere.
	n := len(p.F)
	dense := func(rp, col []int, val []float64) []float64 {
		d := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for k := rp[i]; k < rp[i+1]; k++ {
				d[i*n+col[k]] += val[k]
			}
		}
		return d
	}
	e := q.HG.CSR(p.Groups, n)
	if !slices.Equal(dense(e.RowPtr, e.Col, e.Val), dense(p.H.RowPtr, p.H.Col, p.H.Val)) {
		t.Fatal("HG.CSR is not H")
	}
}

// TestGroupMatrixBadInput: malformed HG gives errors naming the block and
// what is wrong.
func TestGroupMatrixBadInput(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(p *Problem)
	}{
		{"both", "both H and HG are given", func(p *Problem) { p.H = small(t).H }},
		{"short Ptr", "HG: len(Ptr) = 2, want 3", func(p *Problem) { p.HG.Ptr = p.HG.Ptr[:2] }},
		{"Ptr decreases", "HG: Ptr decreases at group 0", func(p *Problem) { p.HG.Ptr[1] = -1 }},
		{"short Col", "HG: Ptr[2] = 4 but len(Col) = 3", func(p *Problem) { p.HG.Col = p.HG.Col[:3] }},
		{"group outside", "block 1 (of group 0): its group 2 is outside the 2 groups", func(p *Problem) { p.HG.Col[1] = 2 }},
		{"group twice", "block 1 (of group 0): group 0 is listed twice", func(p *Problem) { p.HG.Col[1] = 0 }},
		{"values outside", "block 3 (of group 1): its 3x3 values at Off 30 are outside len(Val) = 36", func(p *Problem) { p.HG.Off[3] = 30 }},
		{"NaN", "block 2 (of group 1): value 4 is NaN", func(p *Problem) { p.HG.Val[p.HG.Off[2]+4] = math.NaN() }},
	}
	s := NewSolver()
	for _, c := range cases {
		p := small(t)
		p.HG, p.H = groupMatrix(p), nil
		c.edit(p)
		_, err := s.Solve(nil, p, nil, Settings{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	p := small(t)
	p.HG, p.H = groupMatrix(p), nil
	if res, err := s.Solve(nil, p, nil, Settings{}); err != nil || !res.Converged {
		t.Errorf("after errors: %v %s", err, res.Message)
	}
}
