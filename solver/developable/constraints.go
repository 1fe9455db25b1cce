package developable

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/loomsim/loom/solver/ldlt"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/sparse"
)

// Pin holds ghost vertex Vertex at Target: the three rows
// (A x_n)_v - Target = 0 of C, with A the ghost map, so a pinned corner is
// expressed through the midpoints of its faces.
type Pin struct {
	Vertex int32
	Target [3]float64
}

// Contact holds ghost vertex Vertex on an obstacle's surface: the row
// Normal . (A x_n)_v - Target = 0 of C, with Normal the obstacle's unit
// normal and Target Normal . p for the contact position p (the surface
// offset by the contact thickness). Like a pin it is expressed through the
// midpoints of the vertex's faces, so one projection makes the faces rigid
// and keeps the vertex out of the obstacle.
type Contact struct {
	Vertex int32
	Normal [3]float64
	Target float64
}

// linRow is a linear constraint row on coordinate c: sum w x_e[c] - target,
// already divided by the body's mean edge length.
type linRow struct {
	c    int8
	ents []entry
}

// conformPair makes the two faces on an interior edge (v, u) with v or u on
// the border conforming: their corner positions extrapolated at v agree
// (English & Bridson 2008's boundary constraint), which, the faces being
// rigid and sharing the midpoint of (v, u), holds exactly when their
// extrapolations of v - u agree: s = (v - u)_f - (v - u)_g = 0, with
// (v - u)_f = 2 (m_vp - m_up) in face (v, u, p). The component of s along
// the edge vanishes to first order by rigidity, so only the two components
// across it are rows (three would make J M^-1 J^T singular): s . n_k,
// with n_1, n_2 unit and orthogonal to the current edge direction, taken
// as constant within a projection step (exact at s = 0, where the
// derivative of n_k is multiplied by zero).
type conformPair struct {
	ents  []entry // weights of s, over the mean edge length
	dir   []entry // weights of the first face's v - u
	basis [2][3]float64
}

// Constraints is C(x) of English & Bridson 2008 for one mesh, and the
// matrix J M^-1 J^T of fast projection (Goldenthal et al. 2007) over it:
// 3F rigidity rows, then two rows per conforming pair, three per pin, and
// one per contact. The symbolic analysis of J M^-1 J^T is kept while the
// rows stay the same (the pinned and the contact vertices unchanged); the
// pattern without contacts is kept beside the last one with contacts, as
// a time step projects first without and then with them.
type Constraints struct {
	m      *Mesh
	invM   []float64 // per edge
	pairs  []conformPair
	pins   []Pin
	pinRow []linRow     // 3 per pin
	target []float64    // per pin row
	conN   [][3]float64 // per contact row, Normal (zero out of contact)
	conTgt []float64    // per contact row, Target over the mean edge length
	xPrev  []float64
	runner sparse.Runner // for the factorization; nil: serial
	run    projection    // the projection under way or paused

	pattern
	other pattern // the other pattern for the same pins (s nil if none)
}

// pattern is the layout of J and J M^-1 J^T for one set of pinned and
// contact vertices, with its analysis and factorization.
type pattern struct {
	// The vertices of the contact rows (increasing) and the rows:
	// entries of (A x_n)_v over the mean edge length.
	conVert []int32
	conRow  [][]entry

	// Jacobian in compressed rows: entries (edge, 3-vector).
	rowStart []int32
	entEdge  []int32
	jv       []float64

	// S = J M^-1 J^T (lower), and where each contribution lands: entry
	// pair (a, b) of a shared edge adds jv[a] . jv[b] / m_e to S.Val[tgt].
	s       *ldlt.Matrix
	contrib [][3]int32 // a, b, tgt
	sym     *ldlt.Symbolic
	num     *ldlt.Factor // the numeric factorization's storage
	factor  *ldlt.Factor // num while it holds a factorization valid for the chord steps, else nil
	diagPos []int

	c  []float64 // rows
	dl []float64 // rows
}

// NewConstraints returns the rigidity and boundary constraints of m with
// edge masses mass.
func NewConstraints(m *Mesh, mass []float64) (*Constraints, error) {
	if len(mass) != len(m.Edges) {
		return nil, fmt.Errorf("developable: %d edge masses for %d edges", len(mass), len(m.Edges))
	}
	k := &Constraints{m: m, invM: make([]float64, len(mass))}
	for e, me := range mass {
		if !(me > 0) || math.IsInf(me, 0) {
			return nil, fmt.Errorf("developable: edge %d has mass %g", e, me)
		}
		k.invM[e] = 1 / me
	}
	inv := 1 / m.MeanEdge
	for e, ef := range m.EdgeFaces {
		v, u := m.Edges[e][0], m.Edges[e][1]
		if ef[1] < 0 || !(m.Boundary[v] || m.Boundary[u]) {
			continue
		}
		var ents, dir []entry
		for side, f := range ef {
			sign := 1.0
			if side == 1 {
				sign = -1
			}
			kv, ku := int8(mesh.Corner(m.Faces[f], v)), int8(mesh.Corner(m.Faces[f], u))
			for _, en := range m.cornerWeights(f, kv) {
				ents = append(ents, entry{en.edge, sign * en.w * inv})
			}
			for _, en := range m.cornerWeights(f, ku) {
				ents = append(ents, entry{en.edge, -sign * en.w * inv})
			}
			if side == 0 {
				dir = mergeEntries(append([]entry(nil), ents...))
			}
		}
		k.pairs = append(k.pairs, conformPair{ents: mergeEntries(ents), dir: dir})
	}
	return k, nil
}

// NumRows returns the number of constraint rows.
func (k *Constraints) NumRows() int {
	return 3*len(k.m.Faces) + 2*len(k.pairs) + len(k.pinRow) + len(k.conRow)
}

// SetContacts sets the ghost vertices held on obstacle surfaces (rows
// after the pins'), in increasing vertex order, each vertex once. As the
// contact set changes every step or so while J M^-1 J^T must be analysed
// anew for each new pattern, a pattern has a row for each vertex of a
// superset of the contacts: a vertex out of contact has a zero row (zero
// normal and target: C and J vanish there, and the diagonal shift keeps
// its pivot positive, so the other rows' solution is that without it).
// The pattern is rebuilt only when a contact falls outside it, over the
// vertices of the contacts' faces (ring: where the contact spreads next)
// and the old pattern's vertices, unless those more than double them
// (paper-drape at resolution 21, 200 steps: 155 analyses with the
// contacts alone, 21 with their faces' vertices); the pattern without
// contacts is kept beside it for the projections without contacts.
func (k *Constraints) SetContacts(cs []Contact) error {
	for i, c := range cs {
		if c.Vertex < 0 || int(c.Vertex) >= k.m.NumVerts {
			return fmt.Errorf("developable: contact vertex %d out of range [0,%d)", c.Vertex, k.m.NumVerts)
		}
		if i > 0 && c.Vertex <= cs[i-1].Vertex {
			return fmt.Errorf("developable: contact vertices %d, %d not increasing", cs[i-1].Vertex, c.Vertex)
		}
	}
	fits := func(p *pattern) bool {
		return p.s != nil && covers(p.conVert, cs) && (len(cs) > 0) == (len(p.conVert) > 0)
	}
	switch {
	case fits(&k.pattern):
	case fits(&k.other):
		k.pattern, k.other = k.other, k.pattern
	default:
		if len(k.conVert) == 0 && k.s != nil {
			k.pattern, k.other = k.other, k.pattern // keep the pattern without contacts
		}
		near := k.m.ring(cs)
		verts := union(near, k.conVert)
		if len(verts) > 2*len(near) {
			verts = near
		}
		inv := 1 / k.m.MeanEdge
		k.conVert, k.conRow = verts, k.conRow[:0]
		for _, v := range verts {
			row := k.m.vertexRow(v)
			for i := range row {
				row[i].w *= inv
			}
			k.conRow = append(k.conRow, row)
		}
		if err := k.buildPattern(); err != nil {
			return err
		}
	}
	k.conN = resize3(k.conN, len(k.conVert))
	k.conTgt = resizeF(k.conTgt, len(k.conVert))
	clear(k.conN)
	clear(k.conTgt)
	j := 0
	for _, c := range cs {
		for k.conVert[j] != c.Vertex {
			j++
		}
		k.conN[j], k.conTgt[j] = c.Normal, c.Target/k.m.MeanEdge
	}
	k.contactJacobian()
	return nil
}

// covers reports whether the increasing vertex list vs holds every vertex
// of cs (also increasing).
func covers(vs []int32, cs []Contact) bool {
	j := 0
	for _, c := range cs {
		for j < len(vs) && vs[j] < c.Vertex {
			j++
		}
		if j == len(vs) || vs[j] != c.Vertex {
			return false
		}
	}
	return true
}

// union returns the increasing union of the increasing vertex lists a
// and b.
func union(a, b []int32) []int32 {
	out := make([]int32, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, b[j])
			i, j = i+1, j+1
		}
	}
	return out
}

// ring returns the vertices of the faces around the contact vertices of
// cs, increasing: the contacts and the vertices most likely to touch next.
func (m *Mesh) ring(cs []Contact) []int32 {
	var vs []int32
	for _, c := range cs {
		for _, f := range m.VertFaces[m.VertStart[c.Vertex]:m.VertStart[c.Vertex+1]] {
			vs = append(vs, m.Faces[f][:]...)
		}
	}
	slices.Sort(vs)
	return slices.Compact(vs)
}

func resize3(s [][3]float64, n int) [][3]float64 {
	if cap(s) < n {
		return make([][3]float64, n)
	}
	return s[:n]
}

// contactRows returns the index of the first contact row.
func (k *Constraints) contactRows() int { return 3*len(k.m.Faces) + 2*len(k.pairs) + len(k.pinRow) }

// contactJacobian writes the contact rows' entries of J: the weights of
// (A x_n)_v times the normal.
func (k *Constraints) contactJacobian() {
	r := k.contactRows()
	for i, row := range k.conRow {
		a := int(k.rowStart[r+i])
		n := k.conN[i]
		for j, en := range row {
			for c := range 3 {
				k.jv[3*(a+j)+c] = en.w * n[c]
			}
		}
	}
}

// SetRunner lets the factorizations of J M^-1 J^T run independent parts
// concurrently through r (ldlt.Factor.SetRunner; nil: serially). The
// factors, hence the results, are bitwise the same for any r.
func (k *Constraints) SetRunner(r sparse.Runner) {
	k.runner = r
	for _, p := range [2]*pattern{&k.pattern, &k.other} {
		if p.num != nil {
			p.num.SetRunner(r)
		}
	}
}

// SetPins sets the pinned ghost vertices and their targets. When the set
// of pinned vertices changes, the pattern of J M^-1 J^T is rebuilt and
// analysed again at the next projection; new targets alone keep it.
func (k *Constraints) SetPins(pins []Pin) error {
	same := len(pins) == len(k.pins)
	for i := 0; same && i < len(pins); i++ {
		same = pins[i].Vertex == k.pins[i].Vertex
	}
	for _, p := range pins {
		if p.Vertex < 0 || int(p.Vertex) >= k.m.NumVerts {
			return fmt.Errorf("developable: pinned vertex %d out of range [0,%d)", p.Vertex, k.m.NumVerts)
		}
	}
	k.pins = append(k.pins[:0], pins...)
	if !same || k.s == nil {
		k.pinRow = k.pinRow[:0]
		inv := 1 / k.m.MeanEdge
		for _, p := range pins {
			row := k.m.vertexRow(p.Vertex)
			for c := range 3 {
				ents := make([]entry, len(row))
				for i, en := range row {
					ents[i] = entry{en.edge, en.w * inv}
				}
				k.pinRow = append(k.pinRow, linRow{int8(c), ents})
			}
		}
		k.other.s = nil
		if err := k.buildPattern(); err != nil {
			return err
		}
		k.contactJacobian()
	}
	k.target = k.target[:0]
	for _, p := range pins {
		for c := range 3 {
			k.target = append(k.target, p.Target[c]/k.m.MeanEdge)
		}
	}
	return nil
}

// buildPattern lays out J in compressed rows and the pattern of
// J M^-1 J^T, and drops the old factorization.
func (k *Constraints) buildPattern() error {
	m := k.m
	n := k.NumRows()
	k.rowStart = append(k.rowStart[:0], 0)
	k.entEdge = k.entEdge[:0]
	for f := range m.Faces {
		fe := m.FaceEdges[f]
		for p := range 3 {
			k.entEdge = append(k.entEdge, fe[(p+1)%3], fe[(p+2)%3])
			k.rowStart = append(k.rowStart, int32(len(k.entEdge)))
		}
	}
	k.jv = k.jv[:0]
	k.jv = append(k.jv, make([]float64, 3*len(k.entEdge))...)
	for _, p := range k.pairs {
		for range 2 {
			for _, en := range p.ents {
				k.entEdge = append(k.entEdge, en.edge)
			}
			k.rowStart = append(k.rowStart, int32(len(k.entEdge)))
		}
	}
	k.jv = append(k.jv, make([]float64, 3*len(k.entEdge)-len(k.jv))...)
	for i := range k.pinRow {
		r := &k.pinRow[i]
		for _, en := range r.ents {
			k.entEdge = append(k.entEdge, en.edge)
			var j [3]float64
			j[r.c] = en.w
			k.jv = append(k.jv, j[:]...)
		}
		k.rowStart = append(k.rowStart, int32(len(k.entEdge)))
	}
	for _, row := range k.conRow {
		for _, en := range row {
			k.entEdge = append(k.entEdge, en.edge)
		}
		k.rowStart = append(k.rowStart, int32(len(k.entEdge)))
	}
	k.jv = append(k.jv, make([]float64, 3*len(k.entEdge)-len(k.jv))...)
	// Entries by edge, in row order (entries are numbered in row order):
	// edge e's are byEdge[edgeStart[e]:edgeStart[e+1]].
	edgeStart := make([]int32, len(m.Edges)+1)
	for _, e := range k.entEdge {
		edgeStart[e+1]++
	}
	for e := range m.Edges {
		edgeStart[e+1] += edgeStart[e]
	}
	byEdge, next := make([]int32, len(k.entEdge)), slices.Clone(edgeStart[:len(m.Edges)])
	for a, e := range k.entEdge {
		byEdge[next[e]] = int32(a)
		next[e]++
	}
	rowOf := make([]int32, len(k.entEdge))
	for r := range n {
		for a := k.rowStart[r]; a < k.rowStart[r+1]; a++ {
			rowOf[a] = int32(r)
		}
	}
	var ri, ci []int
	k.contrib = k.contrib[:0]
	for e := range m.Edges {
		ents := byEdge[edgeStart[e]:edgeStart[e+1]]
		for _, a := range ents {
			for _, b := range ents {
				if rowOf[b] <= rowOf[a] && k.couple(a, b) {
					ri, ci = append(ri, int(rowOf[a])), append(ci, int(rowOf[b]))
					k.contrib = append(k.contrib, [3]int32{a, b, -1})
				}
			}
		}
	}
	s, err := ldlt.FromTriplets(n, ri, ci, make([]float64, len(ri)))
	if err != nil {
		return fmt.Errorf("developable: J M^-1 J^T pattern: %w", err)
	}
	for i := range k.contrib {
		k.contrib[i][2] = int32(position(s, ri[i], ci[i]))
	}
	k.diagPos = k.diagPos[:0]
	for j := range n {
		k.diagPos = append(k.diagPos, s.ColPtr[j])
	}
	k.s, k.sym, k.num, k.factor = s, nil, nil, nil
	k.c = make([]float64, n)
	k.dl = make([]float64, n)
	return nil
}

// couple reports whether entries a and b can interact: always for a
// rigidity, conformity or contact entry (3-vector), and only on the same
// coordinate for two pin rows.
func (k *Constraints) couple(a, b int32) bool {
	lo, hi := k.rowStart[3*len(k.m.Faces)+2*len(k.pairs)], k.rowStart[k.contactRows()]
	if a < lo || b < lo || a >= hi || b >= hi {
		return true
	}
	ja, jb := k.jv[3*a:3*a+3], k.jv[3*b:3*b+3]
	return ja[0]*jb[0]+ja[1]*jb[1]+ja[2]*jb[2] != 0
}

// position returns the index in s.Val of entry (i, j), i >= j, which
// FromTriplets created.
func position(s *ldlt.Matrix, i, j int) int {
	p := s.ColPtr[j]
	for s.RowIdx[p] != i {
		p++
	}
	return p
}

// Eval writes the scaled constraint values of x into c (NumRows) and
// returns the largest magnitude: rigidity rows (|x_i - x_j|^2 - d^2)/d^2,
// linear rows in units of the mean edge length.
func (k *Constraints) Eval(x []float64, c []float64) float64 {
	m := k.m
	worst := 0.0
	for f := range m.Faces {
		fe := m.FaceEdges[f]
		for p := range 3 {
			i, j := 3*int(fe[(p+1)%3]), 3*int(fe[(p+2)%3])
			dx, dy, dz := x[i]-x[j], x[i+1]-x[j+1], x[i+2]-x[j+2]
			d := m.Mid[f][p]
			v := (dx*dx + dy*dy + dz*dz - d*d) / (d * d)
			c[3*f+p] = v
			worst = math.Max(worst, math.Abs(v))
		}
	}
	base := 3 * len(m.Faces)
	for i := range k.pairs {
		p := &k.pairs[i]
		var s, d [3]float64
		for _, en := range p.ents {
			for c := range 3 {
				s[c] += en.w * x[3*int(en.edge)+c]
			}
		}
		for _, en := range p.dir {
			for c := range 3 {
				d[c] += en.w * x[3*int(en.edge)+c]
			}
		}
		p.basis = orthoBasis(d)
		for r := range 2 {
			n := p.basis[r]
			v := s[0]*n[0] + s[1]*n[1] + s[2]*n[2]
			c[base+2*i+r] = v
			worst = math.Max(worst, math.Abs(v))
		}
	}
	base += 2 * len(k.pairs)
	for i := range k.pinRow {
		r := &k.pinRow[i]
		v := -k.target[i]
		for _, en := range r.ents {
			v += en.w * x[3*int(en.edge)+int(r.c)]
		}
		c[base+i] = v
		worst = math.Max(worst, math.Abs(v))
	}
	base += len(k.pinRow)
	for i, row := range k.conRow {
		n := k.conN[i]
		v := -k.conTgt[i]
		for _, en := range row {
			e := 3 * int(en.edge)
			v += en.w * (n[0]*x[e] + n[1]*x[e+1] + n[2]*x[e+2])
		}
		c[base+i] = v
		worst = math.Max(worst, math.Abs(v))
	}
	return worst
}

// jacobian fills the rigidity rows' entries of J at x: 2(x_i - x_j)/d^2
// and its negative (the linear rows' are constant; the contact rows' are
// set with the contacts).
func (k *Constraints) jacobian(x []float64) {
	m := k.m
	for f := range m.Faces {
		fe := m.FaceEdges[f]
		for p := range 3 {
			i, j := 3*int(fe[(p+1)%3]), 3*int(fe[(p+2)%3])
			d := m.Mid[f][p]
			s := 2 / (d * d)
			a := 3 * k.rowStart[3*f+p]
			for c := range 3 {
				g := s * (x[i+c] - x[j+c])
				k.jv[int(a)+c] = g
				k.jv[int(a)+3+c] = -g
			}
		}
	}
	r := 3 * len(m.Faces)
	for i := range k.pairs {
		p := &k.pairs[i]
		for q := range 2 {
			a := int(k.rowStart[r])
			for j, en := range p.ents {
				for c := range 3 {
					k.jv[3*(a+j)+c] = en.w * p.basis[q][c]
				}
			}
			r++
		}
	}
}

// regularization is the relative shift added to the diagonal of
// J M^-1 J^T: where constraints are redundant to first order the matrix is
// singular, and the shift keeps every pivot positive without changing the
// converged x, only the path to it. Two such places are common: a flat
// sheet, where the rigidity rows and the border rows' in-plane parts
// outnumber the in-plane coordinates (TestFlatRedundancy), and a straight
// edge pinned at its rest length, whose rows cannot balance a load across
// it (J^T lambda has no component across the edge). Near them the
// eigenvalues of J M^-1 J^T fall with the square of the distance from
// flat or straight, and the projection converges linearly and unevenly
// below |C| ~ 1e-5 (measured on pinned-square: tolerance 3e-6 stalls at
// some steps within 200 projection steps; a 1e-13 shift, refactoring at
// every step, a Levenberg-Marquardt shift proportional to |C| and an exact
// line search on |C|^2 along the step, which C's being quadratic allows,
// did no better).
const regularization = 1e-8

// ProjectStats reports one projection.
type ProjectStats struct {
	Iterations int     // Newton steps taken
	Factors    int     // numeric factorizations of J M^-1 J^T among them
	Residual   float64 // the largest scaled |C| at the end
	// LDLT is the wall time spent factoring and solving J M^-1 J^T
	// (for the benchmark's share; it does not affect the result).
	LDLT   time.Duration
	Paused bool // ProjectUntil stopped at its pause tolerance, short of tol
}

// chordRate is the reduction of the largest |C| a step with a kept
// factorization must achieve; a slower step refactors at its end point.
const chordRate = 0.5

// Project moves x onto C(x) = 0 by fast projection (Goldenthal et al.
// 2007): while the largest scaled |C| exceeds tol it solves
// (J M^-1 J^T) dl = C(x_j) and sets x_{j+1} = x_j - M^-1 J(x_j)^T dl.
//
// The factorization of J M^-1 J^T is kept across steps and time steps (a
// chord, or simplified Newton, iteration, which moves along the same
// directions M^-1 J^T to the same C = 0): it is refactored at x_j only when
// a step with the kept factor fails to reduce the largest |C| by
// chordRate. A kept-factor step that raised |C| is taken back, and the
// rest of that projection refactors at every step (Newton), as near
// dependent rows (a pinned edge pulled straight) where an old factor is
// useless. The symbolic analysis is done once per constraint pattern. It
// fails when maxIter steps do not reach tol or the matrix loses
// definiteness.
func (k *Constraints) Project(x []float64, tol float64, maxIter int) (ProjectStats, error) {
	k.run = projection{prev: math.Inf(1)}
	return k.project(x, tol, tol, maxIter)
}

// ProjectUntil is Project paused as soon as the largest scaled |C| is at
// most pause (>= tol): Paused in the stats says whether it stopped there
// short of tol, and Resume goes on from that point with the same steps
// and factorizations Project would take, so that pausing and resuming
// changes nothing. A caller that only needs x roughly on the constraints
// (collision detection before a projection with contact rows) saves the
// last steps.
func (k *Constraints) ProjectUntil(x []float64, tol, pause float64, maxIter int) (ProjectStats, error) {
	k.run = projection{prev: math.Inf(1)}
	return k.project(x, tol, max(pause, tol), maxIter)
}

// Resume finishes a projection that ProjectUntil paused (x unchanged
// since), to tol, within maxIter steps in all; its stats count the steps
// since the pause.
func (k *Constraints) Resume(x []float64, tol float64, maxIter int) (ProjectStats, error) {
	if !k.run.paused {
		return ProjectStats{}, fmt.Errorf("developable: no paused projection to resume")
	}
	before := k.run.st
	st, err := k.project(x, tol, tol, maxIter)
	st.Iterations -= before.Iterations
	st.Factors -= before.Factors
	st.LDLT -= before.LDLT
	return st, err
}

// projection is the state of the fast projection under way, kept while it
// is paused.
type projection struct {
	st     ProjectStats
	fresh  bool    // the last step's factor was J M^-1 J^T at its x_j
	newton bool    // refactor at every step
	prev   float64 // the largest |C| before the last step
	paused bool
}

// project runs or resumes (k.run) the projection to tol, pausing when the
// largest |C| is at most pause. A resumed projection evaluates C again at
// the same x and repeats the kept-factor check, which has already acted
// and acts the same way again.
func (k *Constraints) project(x []float64, tol, pause float64, maxIter int) (ProjectStats, error) {
	if k.s == nil {
		if err := k.SetPins(nil); err != nil {
			return ProjectStats{}, err
		}
	}
	r := &k.run
	r.paused = false
	k.xPrev = resizeF(k.xPrev, len(x))
	for {
		r.st.Residual = k.Eval(x, k.c)
		if math.IsNaN(r.st.Residual) {
			return r.st, fmt.Errorf("developable: constraint values are not finite after %d projection steps", r.st.Iterations)
		}
		if !r.fresh && r.st.Iterations > 0 && r.st.Residual > chordRate*r.prev {
			if r.st.Residual > r.prev {
				copy(x, k.xPrev)
				r.st.Residual = k.Eval(x, k.c)
				r.newton = true
			}
			k.factor = nil
		}
		if r.st.Residual <= tol {
			return r.st, nil
		}
		if r.st.Residual <= pause {
			r.paused = true
			r.st.Paused = true
			return r.st, nil
		}
		r.st.Paused = false
		if r.st.Iterations == maxIter {
			return r.st, fmt.Errorf("developable: projection did not reach tolerance %g in %d steps (largest |C| %g)", tol, maxIter, r.st.Residual)
		}
		k.jacobian(x)
		if r.newton {
			k.factor = nil
		}
		r.fresh = k.factor == nil
		t0 := time.Now()
		if r.fresh {
			if err := k.factorS(); err != nil {
				return r.st, err
			}
			r.st.Factors++
		}
		k.factor.Solve(k.c, k.dl)
		r.st.LDLT += time.Since(t0)
		copy(k.xPrev, x)
		for row := range len(k.c) {
			dl := k.dl[row]
			for a := k.rowStart[row]; a < k.rowStart[row+1]; a++ {
				e := int(k.entEdge[a])
				s := dl * k.invM[e]
				for c := range 3 {
					x[3*e+c] -= s * k.jv[3*int(a)+c]
				}
			}
		}
		r.prev = r.st.Residual
		r.st.Iterations++
	}
}

func resizeF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// factorS assembles J M^-1 J^T at the current J and factors it,
// analysing the pattern the first time.
func (k *Constraints) factorS() error {
	k.factor = nil
	clear(k.s.Val)
	for _, p := range k.contrib {
		a, b := 3*int(p[0]), 3*int(p[1])
		e := k.entEdge[p[0]]
		k.s.Val[p[2]] += k.invM[e] * (k.jv[a]*k.jv[b] + k.jv[a+1]*k.jv[b+1] + k.jv[a+2]*k.jv[b+2])
	}
	mean := 0.0
	for _, p := range k.diagPos {
		mean += k.s.Val[p]
	}
	shift := regularization * mean / float64(len(k.diagPos))
	for _, p := range k.diagPos {
		k.s.Val[p] += shift
	}
	if k.sym == nil {
		sym, err := ldlt.Analyze(k.s, ldlt.AMD)
		if err != nil {
			return fmt.Errorf("developable: J M^-1 J^T: %w", err)
		}
		k.sym = sym
	}
	if k.num == nil {
		f, err := k.sym.Factor(k.s, nil)
		if err != nil {
			return fmt.Errorf("developable: J M^-1 J^T: %w", err)
		}
		f.SetRunner(k.runner)
		k.num, k.factor = f, f
		return nil
	}
	if err := k.num.Refactor(k.s, nil); err != nil {
		return fmt.Errorf("developable: J M^-1 J^T: %w", err)
	}
	k.factor = k.num
	return nil
}

// orthoBasis returns two unit vectors orthogonal to d and to each other
// (any two when d is zero): n_1 from the coordinate axis least aligned with
// d, n_2 = d x n_1 / |d|.
func orthoBasis(d [3]float64) [2][3]float64 {
	l := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
	if l == 0 {
		return [2][3]float64{{1, 0, 0}, {0, 1, 0}}
	}
	for c := range 3 {
		d[c] /= l
	}
	ax := 0
	for c := 1; c < 3; c++ {
		if math.Abs(d[c]) < math.Abs(d[ax]) {
			ax = c
		}
	}
	var e [3]float64
	e[ax] = 1
	n1 := cross(d, e)
	l1 := math.Sqrt(n1[0]*n1[0] + n1[1]*n1[1] + n1[2]*n1[2])
	for c := range 3 {
		n1[c] /= l1
	}
	return [2][3]float64{n1, cross(d, n1)}
}

func cross(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}
