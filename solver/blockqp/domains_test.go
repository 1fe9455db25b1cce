package blockqp

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/sparse"
)

// dissected returns p with its groups in sparse.RCM order of H's group graph,
// cut by sparse.Dissect into parts domains (Problem.Domains).
func dissected(p *Problem, parts int) *Problem {
	ng := len(p.Groups)
	gof := make([]int32, len(p.F))
	for g, gr := range p.Groups {
		for _, v := range gr.Vars {
			gof[v] = int32(g)
		}
	}
	adj := make([][]int32, ng)
	for i := range p.F {
		for k := p.H.RowPtr[i]; k < p.H.RowPtr[i+1]; k++ {
			adj[gof[i]] = append(adj[gof[i]], gof[p.H.Col[k]])
		}
	}
	rowPtr, col := []int32{0}, []int32(nil)
	for g := range adj {
		slices.Sort(adj[g])
		col = append(col, slices.Compact(adj[g])...)
		rowPtr = append(rowPtr, int32(len(col)))
	}
	var r sparse.RCM
	var d sparse.Dissection
	order, bounds := d.Dissect(r.Order(ng, rowPtr, col), parts, rowPtr, col)
	q := *p
	q.Groups = make([]Group, ng)
	pos := make([]int32, ng)
	for k, g := range order {
		q.Groups[k] = p.Groups[g]
		pos[g] = int32(k)
	}
	q.Rows = slices.Clone(p.Rows)
	for i := range q.Rows {
		q.Rows[i].Group = pos[q.Rows[i].Group]
	}
	q.Domains = slices.Clone(bounds)
	return &q
}

// TestDomainSweeps: on the 30x30 cloth problem cut into 3 domains, the
// sweeps run on a pool of 2 write bitwise the vectors the sequential sweeps
// in the same group order write, and their sums differ only by rounding.
func TestDomainSweeps(t *testing.T) {
	p := dissected(clothProblem(t, rand.New(rand.NewSource(5)), 30, 30), 3)
	if sep := len(p.Groups) - p.Domains[3]; sep == 0 || sep > 100 {
		t.Fatalf("separator of %d groups", sep)
	}
	pool := ecs.NewPool(2)
	defer pool.Close()
	s := NewSolver()
	if res, err := s.Solve(pool, p, nil, Settings{}); err != nil || !res.Converged {
		t.Fatal(err, res.Message)
	}
	// Sweep from the final state, once with the domains and once with one
	// domain of all groups.
	s.p = p
	vecs := func() [][]float64 { return [][]float64{s.r, s.c, s.q, s.t, s.v, s.x} }
	var start [][]float64
	for _, v := range vecs() {
		start = append(start, slices.Clone(v))
	}
	sweep := func(run Runner, dom []int32) ([][]float64, [3]float64) {
		for k, v := range vecs() {
			copy(v, start[k])
		}
		s.run, s.dom = run, dom
		s.dpart = resize(s.dpart, len(dom)-1)
		var sums [3]float64
		sums[0] = s.sweepStart()
		s.sweepBack(0.3)
		sums[1] = s.sweepFwd()
		sums[2] = s.update(0.7)
		var out [][]float64
		for _, v := range vecs() {
			out = append(out, slices.Clone(v))
		}
		return out, sums
	}
	dom := slices.Clone(s.dom)
	got, gotSums := sweep(pool, dom)
	want, wantSums := sweep(nil, []int32{0, int32(s.ng)})
	for k := range want {
		for i := range want[k] {
			if math.Float64bits(got[k][i]) != math.Float64bits(want[k][i]) {
				t.Fatalf("vector %d, entry %d: %v with domains, %v sequentially", k, i, got[k][i], want[k][i])
			}
		}
	}
	for k := range wantSums {
		if d := math.Abs(gotSums[k] - wantSums[k]); d > 1e-13*math.Abs(wantSums[k]) {
			t.Errorf("sum %d: %v with domains, %v sequentially", k, gotSums[k], wantSums[k])
		}
	}
	s.p, s.run = nil, nil
}
