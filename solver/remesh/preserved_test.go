package remesh

import (
	"math"
	"strings"
	"testing"
)

// preservedChains is, on gridMesh(n, n, 1, 1, 0, nil), the column of
// vertical edges at x = col/n from border to border and the main diagonal
// (whose edges the grid has), crossing it at node (col, col).
func preservedChains(n, col int) [][2]int32 {
	id := func(i, j int) int32 { return int32(j*(n+1) + i) }
	var p [][2]int32
	for j := 0; j < n; j++ {
		p = append(p, [2]int32{id(col, j), id(col, j+1)})
	}
	for k := 0; k < n; k++ {
		p = append(p, [2]int32{id(k, k), id(k+1, k+1)})
	}
	return p
}

// nodePairsShareEdge reports, per pair, whether the nodes share an edge in m.
func nodePairsShareEdge(m *Mesh, pairs [][2]int32) []bool {
	adj := map[[2]int32]bool{}
	for _, t := range m.F {
		for k := 0; k < 3; k++ {
			a, b := m.Node[t[k]], m.Node[t[(k+1)%3]]
			adj[[2]int32{min(a, b), max(a, b)}] = true
		}
	}
	out := make([]bool, len(pairs))
	for i, p := range pairs {
		out[i] = adj[[2]int32{min(p[0], p[1]), max(p[0], p[1])}]
	}
	return out
}

// checkPreserved checks that every input preserved pair is, in the output,
// the same two surviving nodes (unchanged in X and U), joined by an edge.
func checkPreserved(t *testing.T, in, out *Mesh, res Result) {
	t.Helper()
	checkValid(t, out) // Validate also checks that the pairs are edges
	if len(out.Preserved) != len(in.Preserved) {
		t.Fatalf("%d preserved edges in, %d out", len(in.Preserved), len(out.Preserved))
	}
	for i, p := range out.Preserved {
		for k := 0; k < 2; k++ {
			o := res.NodeOld[p[k]]
			if o != in.Preserved[i][k] {
				t.Fatalf("preserved edge %d: output node %d is input node %d, want %d", i, p[k], o, in.Preserved[i][k])
			}
			if out.X[p[k]] != in.X[o] {
				t.Fatalf("preserved node %d moved", o)
			}
		}
	}
	for i, ok := range nodePairsShareEdge(out, out.Preserved) {
		if !ok {
			t.Fatalf("preserved edge %d = %v lost", i, out.Preserved[i])
		}
	}
}

// A fine sizing field splits every edge of a 10x10 sheet (and flips around
// the splits); two preserved chains across it, one along grid lines and one
// along the diagonals, survive unsplit and unflipped, then survive a
// coarsening pass, whose collapses never remove their nodes.
func TestPreservedChainRefineCoarsen(t *testing.T) {
	base := gridMesh(10, 10, 1, 1, 0, nil)
	pres := preservedChains(10, 3)

	// Control: without Preserved the same remesh splits those edges.
	ctl, _, err := Remesh(base, isoM(len(base.U), 0.03), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	for i, ok := range nodePairsShareEdge(ctl, pres) {
		if ok {
			t.Fatalf("control: pair %d = %v still an edge after refining to 30 mm", i, pres[i])
		}
	}

	m := base.Clone()
	m.Preserved = pres
	fine, res, err := Remesh(m, isoM(len(m.U), 0.03), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkPreserved(t, m, fine, res)
	if res.Truncated {
		t.Fatal("refinement truncated: preserved edges kept as split candidates")
	}
	// Every other edge meets the sizing field, except in a band around the
	// preserved edges: a face holding a preserved edge longer than the
	// target size cannot have all its other edges short, so the remesher
	// leaves them long rather than squash the face (splitKeepsPreserved).
	presSize := math.Sqrt(0.02) / 0.03 // the diagonal ones, the longest
	long, worst := 0, 0.0
	sz := meshSizes(t, fine, res.M)
	for _, s := range sz {
		if s > 1+1e-12 {
			long++
			worst = max(worst, s)
		}
	}
	if long > 10*len(pres) || worst > presSize+1e-9 {
		t.Fatalf("%d edges of size > 1 (largest %.2f); want at most %d, none above the preserved diagonal's %.2f", long, worst, 10*len(pres), presSize)
	}
	amin := 1.0
	for _, f := range fine.F {
		u0, u1, u2 := fine.U[f[0]], fine.U[f[1]], fine.U[f[2]]
		e0, e1, e2 := u1.Sub(u0), u2.Sub(u1), u0.Sub(u2)
		amin = min(amin, 2*math.Sqrt(3)*triArea2(u0, u1, u2)/(dot2(e0, e0)+dot2(e1, e1)+dot2(e2, e2)))
	}
	t.Logf("refine: %d -> %d faces, splits %d flips %d collapses %d; %d of %d edges above size 1 (the %d preserved ones and their neighbours, largest %.2f); smallest aspect ratio %.3f",
		len(m.F), len(fine.F), res.Splits, res.Flips, res.Collapses, long, len(sz), len(pres), worst, amin)
	if amin < 0.05 {
		t.Fatalf("a face of aspect ratio %.3g", amin)
	}

	coarse, res2, err := Remesh(fine, isoM(len(fine.U), 0.5), DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	checkPreserved(t, fine, coarse, res2)
	t.Logf("coarsen: %d -> %d faces, collapses %d flips %d", len(fine.F), len(coarse.F), res2.Collapses, res2.Flips)
	if res2.Collapses == 0 {
		t.Fatal("no coarsening")
	}
}

// An anisotropic metric that makes the grid's diagonals the long diagonals
// of their cells flips them (eq. 3), but not preserved ones.
func TestPreservedNotFlipped(t *testing.T) {
	base := gridMesh(10, 10, 1, 1, 0, nil)
	M := isoM(len(base.U), 1)
	for i := range M {
		M[i] = anisoM(0.2, 0.5, math.Pi/4)
	}
	p := DefaultParams()
	diag := preservedChains(10, 3)[10:]
	ctl, rc, err := Remesh(base, M, p)
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, ok := range nodePairsShareEdge(ctl, diag) {
		if !ok {
			lost++
		}
	}
	if rc.Flips == 0 || lost == 0 {
		t.Fatalf("control: %d flips, %d of the diagonal edges gone; the test needs them flipped", rc.Flips, lost)
	}
	m := base.Clone()
	m.Preserved = diag
	out, res, err := Remesh(m, M, p)
	if err != nil {
		t.Fatal(err)
	}
	checkPreserved(t, m, out, res)
	t.Logf("control: %d flips, %d/%d diagonal edges gone; preserved: %d flips, none gone", rc.Flips, lost, len(diag), res.Flips)
}

func TestPreservedErrors(t *testing.T) {
	for _, tc := range []struct {
		pairs [][2]int32
		want  string
	}{
		{[][2]int32{{0, 13}}, "share no edge"},
		{[][2]int32{{0, 1}, {3, 3}}, "two different nodes"},
		{[][2]int32{{0, 121}}, "two different nodes"},
		{[][2]int32{{-1, 0}}, "two different nodes"},
	} {
		m := gridMesh(10, 10, 1, 1, 0, nil)
		m.Preserved = tc.pairs
		_, _, err := Remesh(m, isoM(len(m.U), 0.2), DefaultParams())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("Preserved %v: error %v, want %q", tc.pairs, err, tc.want)
		}
	}
}
