package systems

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/blockqp"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/qp"
)

// solve assembles and solves the QP of Weidner 2018 eq. 12 over the
// generalized velocities: vertex i's world velocity at 3i, EOL vertex k's
// Eulerian velocity at 3n + 2k.
//
// The matrix is M~ = (1 + h alpha) M + (h^2 + h beta) H mapped by eq. 10: the
// force fill's A (lumped mass plus element Hessians) for the Lagrangian
// blocks; on faces with an EOL corner the lumped mass is replaced by the
// generalized inertia of eq. 8 (so the Lagrangian-Eulerian cancelling
// motion is in its null space), and the stiffness blocks of an EOL vertex i
// are mapped through J_i = (I, -F_i) with its vertex deformation gradient.
// The right-hand side is M q' + h f, with the world force f at a vertex
// mapped to -F^T f for its Eulerian row (eq. 9).
func (c *EOLCloth) solve(w *ecs.World) error {
	t0 := time.Now()
	defer func() { c.QPTime += time.Since(t0) }()
	s := c.state
	n := s.NumVerts()
	m := len(c.verts)
	N := 3*n + 2*m
	soft, err := c.softContacts(&c.soft)
	if err != nil {
		return err
	}
	c.Soft += soft
	H, err := c.system(w.Pool, n)
	if err != nil {
		return err
	}
	fill := time.Since(t0)
	c.FillTime += fill
	t0 = t0.Add(fill)
	var hs *qp.CSR // the general solver takes H as scalar CSR
	if c.solver.Contact != model.ContactFilter {
		hs = H.CSR(c.groups, N)
	}
	// Like contact-response in the Lagrangian pipeline: vertices that the
	// solved velocities would carry into an obstacle without a row get one,
	// and the step is solved again.
	for round := 0; ; round++ {
		if hs == nil {
			err = c.solveFiltered(w, H, n, m)
		} else {
			err = c.solveQP(hs, n, N, m)
		}
		if err != nil || round == maxRefinements || !c.contact.refine(s) {
			return err
		}
	}
}

// system sets up the step's QP (eq. 12): the EOL constraint rows, the
// right-hand side M q' + h f with the world force mapped by eq. 9, the
// vertices' groups (groupOrder) and the system matrix by pairs of them
// (inertia, assemble). The matrix's buffers are reused by the next step.
func (c *EOLCloth) system(run *ecs.Pool, n int) (*blockqp.GroupMatrix, error) {
	if A := c.state.A; A.N != n {
		return nil, fmt.Errorf("EOL system matrix: force matrix has %d block rows for %d vertices", A.N, n)
	}
	// The group order needs only A's pattern: it is found while the rows,
	// the right-hand side and the inertia are built.
	err := concurrently(run, func() error {
		c.groupOrder(n)
		return nil
	}, func() error {
		return c.rowsAndRHS(n)
	})
	if err != nil {
		return nil, err
	}
	H, err := c.assemble(run, n)
	if err != nil {
		return nil, fmt.Errorf("EOL system matrix: %w", err)
	}
	return H, nil
}

// rowsAndRHS builds the EOL constraint rows, the right-hand side and the
// inertia's entries (see system).
func (c *EOLCloth) rowsAndRHS(n int) error {
	s := c.state
	h := s.H
	c.rows = c.rows[:0]
	for k := range c.verts {
		ev := &c.verts[k]
		var err error
		if ev.F, ev.flat, err = c.vertexF(ev.v, &c.solveF); err != nil {
			return err
		}
		ev.rowLo = len(c.rows)
		c.appendRows(ev, int32(k))
		ev.rowHi = len(c.rows)
	}

	c.rhs = resize(c.rhs, 3*n+2*len(c.verts))
	for i := 0; i < n; i++ {
		mi := s.Mass[i]
		for d := 0; d < 3; d++ {
			j := 3*i + d
			c.rhs[j] = mi*s.V[j] + h*(mi*c.gravity[d]+s.Ext[j]-s.Grad[j])
		}
	}
	for k := range c.verts {
		ev := &c.verts[k]
		i := int(ev.v)
		var f dense.Vec3
		for d := 0; d < 3; d++ {
			f[d] = s.Mass[i]*c.gravity[d] + s.Ext[3*i+d] - s.Grad[3*i+d]
		}
		fe := eol.EulerianForce(f, ev.F)
		c.rhs[3*n+2*k], c.rhs[3*n+2*k+1] = h*fe[0], h*fe[1]
	}
	c.inertia(n)
	return nil
}

// solveQP solves the step's QP with the general solver (solver/qp).
func (c *EOLCloth) solveQP(H *qp.CSR, n, N, m int) error {
	s := c.state
	c.constraints(n, N)

	c.warm.X = append(c.warm.X[:0], s.V...)
	for k := range c.verts {
		c.warm.X = append(c.warm.X, c.verts[k].xdot[0], c.verts[k].xdot[1])
	}
	c.warm.Yeq, c.warm.Yin = c.warm.Yeq[:0], c.warm.Yin[:0]
	if c.qpSolver == nil {
		c.qpSolver = qp.NewSolver()
	}
	p := &qp.Problem{H: H, F: c.rhs, Aeq: &c.eqM, Beq: c.beq, Ain: &c.inM, Bin: c.bin}
	res, err := c.qpSolver.Solve(p, &c.warm, qpSettings)
	if err != nil {
		return fmt.Errorf("EOL QP: %w", err)
	}
	c.LastQP = QPStats{Rows: len(c.bin) + len(c.beq), Iterations: res.Iterations, Factorizations: res.Factorizations, Residual: res.Residuals.Max()}
	s.LastQP = c.LastQP
	if res.Status != qp.Solved {
		return fmt.Errorf("EOL QP with %d EOL vertices, %d equality and %d inequality rows: %v after %d iterations (KKT %v)",
			m, len(c.beq), len(c.bin), res.Status, res.Iterations, res.Residuals)
	}
	copy(s.VNew, res.X[:3*n])
	for k := range c.verts {
		c.verts[k].xdotNew = dense.Vec2{res.X[3*n+2*k], res.X[3*n+2*k+1]}
	}
	nc := len(s.Contacts)
	s.Impulse = append(s.Impulse[:0], res.Yin[:nc]...)
	ie, ii := 3*len(s.Pins), nc
	for r := range c.rows {
		if c.rows[r].Eq {
			c.rows[r].Y = res.Yeq[ie]
			ie++
		} else {
			c.rows[r].Y = res.Yin[ii]
			ii++
		}
	}
	return nil
}

// solveFiltered solves the step's QP by the active-set filtered PCG of
// solver/blockqp: every constraint row lies in one vertex's variables (its
// world velocity, and for an EOL vertex its material velocity too).
func (c *EOLCloth) solveFiltered(w *ecs.World, H *blockqp.GroupMatrix, n, m int) error {
	s := c.state
	// Row coefficients go into one reused buffer, sliced once it is full.
	c.brows, c.coefs, c.coefAt = c.brows[:0], c.coefs[:0], c.coefAt[:0]
	add := func(v int32, eq, warm bool, target float64, coef ...float64) {
		c.coefAt = append(c.coefAt, len(c.coefs))
		c.coefs = append(c.coefs, coef...)
		c.brows = append(c.brows, blockqp.Row{Group: c.groupOf[v], Eq: eq, Warm: warm, Target: target})
	}
	for _, p := range s.Pins {
		for d := 0; d < 3; d++ {
			var e [3]float64
			e[d] = 1
			add(p.Vertex, true, false, s.PinZ[3*int(p.Vertex)+d], e[:]...)
		}
	}
	for _, r := range s.Contacts {
		warm := c.lastActive.get(s.Verts[r.Vertex])&activeContact != 0
		add(r.Vertex, false, warm, r.Target, r.Normal[0], r.Normal[1], r.Normal[2])
	}
	for i, r := range c.rows {
		warm := c.lastActive.get(s.Verts[r.V])&(1<<(i-c.verts[r.K].rowLo)) != 0
		add(r.V, r.Eq, warm, r.Target, r.L[0], r.L[1], r.L[2], r.E[0], r.E[1])
	}
	for k := range c.brows {
		end := len(c.coefs)
		if k+1 < len(c.coefAt) {
			end = c.coefAt[k+1]
		}
		c.brows[k].Coef = c.coefs[c.coefAt[k]:end:end]
	}
	c.warm.X = append(c.warm.X[:0], s.V...)
	for k := range c.verts {
		c.warm.X = append(c.warm.X, c.verts[k].xdot[0], c.verts[k].xdot[1])
	}
	set := blockqp.DefaultSettings()
	set.Tol = c.solver.Tolerance
	set.MaxCG = c.solver.MaxIterations
	res, err := c.block.Solve(w.Pool, &blockqp.Problem{HG: H, F: c.rhs, Groups: c.groups, Rows: c.brows, Domains: c.domains}, c.warm.X, set)
	if err != nil {
		return fmt.Errorf("EOL filtered QP: %w", err)
	}
	c.LastQP = QPStats{Rows: len(c.brows), Iterations: res.CGIterations, Residual: res.Residual}
	s.LastQP = c.LastQP
	if !res.Converged {
		return fmt.Errorf("EOL filtered QP with %d EOL vertices and %d rows: %s", m, len(c.brows), res.Message)
	}
	copy(s.VNew, res.X[:3*n])
	for k := range c.verts {
		c.verts[k].xdotNew = dense.Vec2{res.X[3*n+2*k], res.X[3*n+2*k+1]}
	}
	nc := len(s.Contacts)
	s.Impulse = append(s.Impulse[:0], res.Y[3*len(s.Pins):3*len(s.Pins)+nc]...)
	for r := range c.rows {
		c.rows[r].Y = res.Y[3*len(s.Pins)+nc+r]
	}
	c.lastActive.reset()
	for k, r := range s.Contacts {
		if res.Active[3*len(s.Pins)+k] {
			c.lastActive.add(s.Verts[r.Vertex], activeContact)
		}
	}
	for i, r := range c.rows {
		if !r.Eq && res.Active[3*len(s.Pins)+nc+i] {
			c.lastActive.add(s.Verts[r.V], 1<<(i-c.verts[r.K].rowLo))
		}
	}
	return nil
}

// groupOrder sets the vertices' groups of generalized velocities for
// blockqp, one per vertex (its world velocity, then an EOL vertex's
// material velocity), in c.groups, c.order (vertex by group), c.groupOf and
// c.domains.
//
// The order is the reverse Cuthill-McKee order of A's pattern: blockqp's
// Gauss-Seidel sweeps follow the group order, and a banded order carries a
// correction across the cloth in fewer iterations than the remesher's
// numbering (edge: about a fifth fewer). sparse.Dissect cuts it into domains
// whose sweeps run at once (blockqp.Problem.Domains; edge, 2 domains: 6%
// more iterations, about 3.4 instead of 4.8 ms of sweeps a step on 2
// workers).
func (c *EOLCloth) groupOrder(n int) {
	s := c.state
	c.order, c.domains = c.dissect.Dissect(c.rcm.Order(n, s.A.RowPtr, s.A.Col), c.set.QPDomains, s.A.RowPtr, s.A.Col)
	c.groupOf = slices.Grow(c.groupOf[:0], n)[:n]
	c.groups = c.groups[:0]
	c.vars = c.vars[:0]
	for g, i := range c.order {
		c.groupOf[i] = int32(g)
		off := len(c.vars)
		c.vars = append(c.vars, 3*i, 3*i+1, 3*i+2)
		if k := c.eolOf[i]; k >= 0 {
			c.vars = append(c.vars, int32(3*n)+2*k, int32(3*n)+2*k+1)
		}
		c.groups = append(c.groups, blockqp.Group{Vars: c.vars[off:len(c.vars):len(c.vars)]})
	}
}

// activeSet remembers, by vertex entity, which inequality rows were in the
// working set when the last step's QP was solved: bit j for row j of an EOL
// vertex's rows (Alg. 2 order, at most four), activeContact for its obstacle
// contact row. The next step marks the same rows Warm (blockqp.Row.Warm), so
// the active-set search starts from last step's contacts: a resting contact's
// last velocity meets its new row with a little slack, and a warm start from
// velocities alone would find it again only after a round of PCG. On the
// edge scene this saves about a quarter of the CG iterations.
type activeSet struct {
	gen  []uint32 // per entity ID, the generation its mask belongs to
	mask []uint8
}

// activeContact marks a vertex's obstacle contact row in activeSet.
const activeContact = 1 << 4

func (a *activeSet) reset() { clear(a.mask) }

// get returns e's mask, 0 for an entity not seen at the last step.
func (a *activeSet) get(e ecs.Entity) uint8 {
	id := e.ID()
	if int(id) >= len(a.mask) || a.gen[id] != e.Generation() {
		return 0
	}
	return a.mask[id]
}

// add sets bits in e's mask.
func (a *activeSet) add(e ecs.Entity, bits uint8) {
	id := int(e.ID())
	if id >= len(a.mask) {
		a.gen = append(a.gen, make([]uint32, id+1-len(a.gen))...)
		a.mask = append(a.mask, make([]uint8, id+1-len(a.mask))...)
	}
	if a.gen[id] != e.Generation() {
		a.gen[id], a.mask[id] = e.Generation(), 0
	}
	a.mask[id] |= bits
}

// appendRows appends EOL vertex ev's constraint rows (Alg. 2, errata Alg. 1
// and sec. 3). A Lagrangian row L^T v >= (or =) -L^T (x - ref)/h closes the
// vertex's drift off its feature within the step, ref being where x is held
// on the feature (hold) at its end-of-step pose (ScriptedMotion has moved the
// obstacle there), so the feature's motion is in the drift already, as in
// the obstacle contact rows (addRow); adding L^T of the feature's velocity
// as well counted it twice (TestEOLMovingBox).
func (c *EOLCloth) appendRows(ev *eolVertex, k int32) {
	s := c.state
	f := &c.features[ev.feature]
	x := vec(s.X, ev.v)
	var rules [4]eol.Row
	rs := rules[:0]
	border := c.border[ev.v]
	ref := c.hold(ev, x)
	switch {
	case f.Kind == components.FeatureEdge && f.Wire:
		nw := f.WireNormal(ref)
		rs = append(rs, eol.Row{L: nw, Eq: ev.flat}, eol.Row{L: f.Dir.Cross(nw), Eq: true})
		rs = append(rs, eol.Row{E: c.eulerianDir(ev, border), Eq: true})
	case f.Kind == components.FeatureEdge:
		rs = eol.AppendEdgeRows(rs, f.N[0], f.N[1], ev.flat, c.eulerianDir(ev, border))
	case f.Kind == components.FeatureCorner:
		rs = eol.AppendCornerRows(rs, f.N[0], f.N[1], f.N[2])
		if border {
			rs = append(rs, eol.BorderRow(c.borderNormal[ev.v]))
		}
	default:
		rs, _ = eol.AppendPointRows(rs, f.N[0])
		if border {
			rs = append(rs, eol.BorderRow(c.borderNormal[ev.v]))
		}
	}
	for _, r := range rs {
		row := eolRow{V: ev.v, K: k, L: r.L, E: r.E, Eq: r.Eq}
		if r.L != (dense.Vec3{}) {
			row.Target = -r.L.Dot(x.Sub(ref)) / s.H
		}
		c.rows = append(c.rows, row)
	}
}

// eulerianDir is the direction whose Eulerian velocity an edge EOL vertex
// must not have: the border normal b-bar for a border vertex (the material
// stays on the border), the averaged material tangent t-bar otherwise (motion
// along the edge is Lagrangian).
func (c *EOLCloth) eulerianDir(ev *eolVertex, border bool) dense.Vec2 {
	if border {
		return c.borderNormal[ev.v]
	}
	return c.materialTangent(ev)
}

// constraints builds the equality rows (pins, EOL equalities) and inequality
// rows (Lagrangian contacts, EOL inequalities) over N generalized velocities.
func (c *EOLCloth) constraints(n, N int) {
	s := c.state
	c.eqM = qp.CSR{Rows: 0, Cols: N, RowPtr: append(c.eqM.RowPtr[:0], 0), Col: c.eqM.Col[:0], Val: c.eqM.Val[:0]}
	c.inM = qp.CSR{Rows: 0, Cols: N, RowPtr: append(c.inM.RowPtr[:0], 0), Col: c.inM.Col[:0], Val: c.inM.Val[:0]}
	c.beq, c.bin = c.beq[:0], c.bin[:0]
	for _, p := range s.Pins {
		for d := 0; d < 3; d++ {
			j := 3*int(p.Vertex) + d
			c.eqM.Col, c.eqM.Val = append(c.eqM.Col, j), append(c.eqM.Val, 1)
			c.eqM.RowPtr = append(c.eqM.RowPtr, len(c.eqM.Col))
			c.beq = append(c.beq, s.PinZ[j])
		}
	}
	for _, r := range s.Contacts {
		for d := 0; d < 3; d++ {
			c.inM.Col, c.inM.Val = append(c.inM.Col, 3*int(r.Vertex)+d), append(c.inM.Val, r.Normal[d])
		}
		c.inM.RowPtr = append(c.inM.RowPtr, len(c.inM.Col))
		c.bin = append(c.bin, r.Target)
	}
	for _, r := range c.rows {
		M, b := &c.inM, &c.bin
		if r.Eq {
			M, b = &c.eqM, &c.beq
		}
		if r.L != (dense.Vec3{}) {
			for d := 0; d < 3; d++ {
				if r.L[d] != 0 {
					M.Col, M.Val = append(M.Col, 3*int(r.V)+d), append(M.Val, r.L[d])
				}
			}
		}
		for d := 0; d < 2; d++ {
			if r.E[d] != 0 {
				M.Col, M.Val = append(M.Col, 3*n+2*int(r.K)+d), append(M.Val, r.E[d])
			}
		}
		M.RowPtr = append(M.RowPtr, len(M.Col))
		*b = append(*b, r.Target)
	}
	c.eqM.Rows, c.inM.Rows = len(c.beq), len(c.bin)
}

// liftTolerance (m/s) is the separating normal velocity above which an EOL
// vertex whose inequality rows carry no impulse lifts off its feature.
const liftTolerance = 1e-4

// lifts reports whether EOL vertex ev leaves its feature this step: the
// solved velocity separates from the feature along one of its inequality
// rows, or it would move past an end of its edge.
//
// One separating row is enough, whether or not the others push. The rows of
// an edge or corner (Alg. 2) are the faces' half-spaces intersected at the
// feature, a cone that holds the vertex there: a velocity off one of the
// faces' planes leaves the feature into free space (past the edge, the other
// face's plane no longer bounds the obstacle). Held on with such a velocity,
// the vertex is projected back onto the feature each step while its
// velocity grows without bound (up to 16 m/s seen in `throw`), and its faces
// stretch without limit: most of the strain spikes (up to 1e5) in the EOL
// scenes came from that.
func (c *EOLCloth) lifts(ev *eolVertex) bool {
	s := c.state
	v := vec(s.VNew, ev.v)
	if f := &c.features[ev.feature]; f.Kind == components.FeatureEdge {
		// Off the end of its edge after this step: it leaves the feature.
		if t := vec(s.X, ev.v).Add(v.Scale(s.H)).Sub(f.P0).Dot(f.Dir); t < 0 || t > f.Length {
			return true
		}
	}
	for _, r := range c.rows[ev.rowLo:ev.rowHi] {
		if r.Eq || r.L == (dense.Vec3{}) {
			continue
		}
		if r.L.Dot(v)-r.Target > liftTolerance {
			return true
		}
	}
	return false
}

// normalImpulse returns the total normal impulse (N s) of ev's Lagrangian rows.
func (c *EOLCloth) normalImpulse(ev *eolVertex) float64 {
	var l float64
	for _, r := range c.rows[ev.rowLo:ev.rowHi] {
		if r.L != (dense.Vec3{}) {
			l += math.Abs(r.Y)
		}
	}
	return l
}
