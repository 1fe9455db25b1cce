package developable

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/loomsim/loom/solver/ldlt"
)

// Ghost is the conforming "ghost" mesh of English & Bridson 2008: vertex
// positions x_c = A x_n, where row v of A averages the positions of v
// extrapolated from each incident face (a = m_b + m_c - m_a). A acts on each
// coordinate alike, so it is stored as a scalar V x E matrix in compressed
// rows; A A^T is factored once.
type Ghost struct {
	nv, ne int
	start  []int32
	ents   []entry
	aat    *ldlt.Factor
	rhs    []float64 // V, workspace
	lam    []float64 // V
	d      []float64 // 3V
}

// NewGhost builds A for m and factors A A^T.
func NewGhost(m *Mesh) (*Ghost, error) {
	g := &Ghost{nv: m.NumVerts, ne: len(m.Edges), start: make([]int32, m.NumVerts+1),
		rhs: make([]float64, m.NumVerts), lam: make([]float64, m.NumVerts), d: make([]float64, 3*m.NumVerts)}
	for v := range m.NumVerts {
		row := m.vertexRow(int32(v))
		g.ents = append(g.ents, row...)
		g.start[v+1] = int32(len(g.ents))
	}
	// A A^T: rows v, u couple where they share an edge.
	byEdge := make([][]int32, g.ne)
	for v := range g.nv {
		for _, en := range g.ents[g.start[v]:g.start[v+1]] {
			byEdge[en.edge] = append(byEdge[en.edge], int32(v))
		}
	}
	var ri, ci []int
	var vals []float64
	for e, vs := range byEdge {
		for _, v := range vs {
			for _, u := range vs {
				if u <= v {
					ri, ci = append(ri, int(v)), append(ci, int(u))
					vals = append(vals, g.coef(v, int32(e))*g.coef(u, int32(e)))
				}
			}
		}
	}
	aat, err := ldlt.FromTriplets(g.nv, ri, ci, vals)
	if err != nil {
		return nil, fmt.Errorf("developable: A A^T: %w", err)
	}
	sym, err := ldlt.Analyze(aat, ldlt.AMD)
	if err != nil {
		return nil, fmt.Errorf("developable: A A^T: %w", err)
	}
	if g.aat, err = sym.Factor(aat, nil); err != nil {
		return nil, fmt.Errorf("developable: A A^T is not positive definite: %w", err)
	}
	return g, nil
}

// vertexRow returns row v of A: the mean over v's faces of the corner
// extrapolation weights, duplicates merged, in increasing edge order.
func (m *Mesh) vertexRow(v int32) []entry {
	lo, hi := m.VertStart[v], m.VertStart[v+1]
	inv := 1 / float64(hi-lo)
	var row []entry
	for i := lo; i < hi; i++ {
		for _, en := range m.cornerWeights(m.VertFaces[i], m.VertCorner[i]) {
			row = append(row, entry{en.edge, en.w * inv})
		}
	}
	return mergeEntries(row)
}

// mergeEntries sorts entries by edge, sums duplicates and drops zeros.
func mergeEntries(row []entry) []entry {
	slices.SortStableFunc(row, func(a, b entry) int { return cmp.Compare(a.edge, b.edge) })
	out := row[:0]
	for _, en := range row {
		if n := len(out); n > 0 && out[n-1].edge == en.edge {
			out[n-1].w += en.w
			continue
		}
		out = append(out, en)
	}
	kept := out[:0]
	for _, en := range out {
		if en.w != 0 {
			kept = append(kept, en)
		}
	}
	return kept
}

// coef returns A[v][e].
func (g *Ghost) coef(v, e int32) float64 {
	for _, en := range g.ents[g.start[v]:g.start[v+1]] {
		if en.edge == e {
			return en.w
		}
	}
	return 0
}

// Map writes x_c = A x_n (3 per vertex) into xc.
func (g *Ghost) Map(xn, xc []float64) {
	for v := range g.nv {
		var s [3]float64
		for _, en := range g.ents[g.start[v]:g.start[v+1]] {
			for c := range 3 {
				s[c] += en.w * xn[3*int(en.edge)+c]
			}
		}
		copy(xc[3*v:3*v+3], s[:])
	}
}

// Correct pushes a change of the ghost mesh back to the nonconforming mesh
// (English & Bridson 2008): with d = xcNew - A xn it solves (A A^T) lambda
// = d per coordinate and adds A^T lambda to xn, and A^T lambda times vscale
// to v (the velocity update v' = v + (x' - x)/h has vscale = 1/h). Then A xn
// = xcNew up to rounding. It reports whether anything moved.
func (g *Ghost) Correct(xn, v, xcNew []float64, vscale float64) bool {
	xc := g.d
	g.Map(xn, xc)
	moved := false
	for i := range xc {
		xc[i] = xcNew[i] - xc[i]
		if xc[i] != 0 {
			moved = true
		}
	}
	if !moved {
		return false
	}
	for c := range 3 {
		for u := range g.nv {
			g.rhs[u] = xc[3*u+c]
		}
		g.aat.Solve(g.rhs, g.lam)
		for u := range g.nv {
			for _, en := range g.ents[g.start[u]:g.start[u+1]] {
				d := en.w * g.lam[u]
				xn[3*int(en.edge)+c] += d
				v[3*int(en.edge)+c] += d * vscale
			}
		}
	}
	return true
}
