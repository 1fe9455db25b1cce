package remesh

import (
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

func sqrt(x float64) float64 { return math.Sqrt(x) }

func cross2(a, b dense.Vec2) float64 { return a[0]*b[1] - a[1]*b[0] }

func dot2(a, b dense.Vec2) float64 { return a[0]*b[0] + a[1]*b[1] }

func quad(a dense.Vec2, M *dense.Mat2, b dense.Vec2) float64 {
	return a[0]*(M[0][0]*b[0]+M[0][1]*b[1]) + a[1]*(M[1][0]*b[0]+M[1][1]*b[1])
}

// shapeOK reports whether the triangle (a, b, c) is counter-clockwise with
// aspect ratio 4*sqrt(3)*area / (sum of squared edge lengths) (1 for an
// equilateral triangle) at least amin, and not degenerate to rounding.
func shapeOK(a, b, c dense.Vec2, amin float64) bool {
	ar2 := triArea2(a, b, c)
	e0, e1, e2 := b.Sub(a), c.Sub(b), a.Sub(c)
	l := dot2(e0, e0) + dot2(e1, e1) + dot2(e2, e2)
	if !(ar2 > 1e-12*l) {
		return false
	}
	return 2*math.Sqrt(3)*ar2 >= amin*l
}

// ---------------------------------------------------------------- split

// split splits the edge a-b (and its seam partner) at its material midpoint,
// appending the new faces to *newFaces. It returns false when the edge no
// longer exists.
func (r *Remesher) split(a, b int32, newFaces *[]int32) bool {
	fl, fr := r.live.FaceWith(a, b), r.live.FaceWith(b, a)
	if fl < 0 && fr < 0 {
		return false
	}
	if fl < 0 { // orient so that a->b has a face
		a, b = b, a
		fl, fr = fr, fl
	}
	pa, pb := int32(-1), int32(-1)
	if fr < 0 {
		if x, y, n := r.partner(a, b); n == 1 {
			pa, pb = x, y
		}
	}
	na, nb := r.vnode[a], r.vnode[b]
	n := r.addNode(na, nb)
	r.splitSide(a, b, n, newFaces)
	if pa >= 0 {
		r.splitSide(pa, pb, n, newFaces)
	}
	r.placeSplit(n, na, nb)
	r.splits++
	return true
}

// splitKeepsPreserved reports whether splitting the edge a-b leaves every
// face that holds a preserved edge, or an edge a split was refused for
// (frozen), with aspect ratio at least preservedAspect (or AspectMin, if
// larger); when not, a-b is frozen for the rest of the refinement. A
// preserved edge is never split, so a sizing field finer than it cannot be
// met around it: splitting the other edges of its faces again and again
// would only push their third vert onto it, down to degenerate faces, and
// an edge left long for that reason does the same to its own neighbours.
// Such edges stay longer than the sizing asks instead.
func (r *Remesher) splitKeepsPreserved(a, b int32) bool {
	if len(r.pres[r.vnode[a]]) == 0 && len(r.pres[r.vnode[b]]) == 0 && len(r.frozen) == 0 {
		return true
	}
	amin := max(r.p.AspectMin, preservedAspect)
	w := mid2(r.u[a], r.u[b])
	for _, f := range [2]int32{r.live.FaceWith(a, b), r.live.FaceWith(b, a)} {
		if f < 0 {
			continue
		}
		t := r.live.F[f]
		c := mesh.Third(t, a, b)
		// The new face next to c-x keeps c, x and the midpoint, with t's
		// orientation.
		for _, x := range [2]int32{a, b} {
			if !r.preservedEdge(c, x) && !r.isFrozen(c, x) {
				continue
			}
			nt := t
			nt[mesh.Corner(t, a+b-x)] = -1
			var u [3]dense.Vec2
			for k, v := range nt {
				if v < 0 {
					u[k] = w
				} else {
					u[k] = r.u[v]
				}
			}
			if !shapeOK(u[0], u[1], u[2], amin) {
				r.frozen[[2]int32{min(a, b), max(a, b)}] = struct{}{}
				return false
			}
		}
	}
	return true
}

// splitClearsLocked reports whether the midpoint of a-b lies at least
// Mesh.LockedClearance (material) from every locked node among a, b and the
// third verts of its faces, and, when a and b are both locked, from the
// third verts too; when not, a-b is frozen for the rest of the refinement.
func (r *Remesher) splitClearsLocked(a, b int32) bool {
	if r.clearance <= 0 {
		return true
	}
	w := mid2(r.u[a], r.u[b])
	vs := [4]int32{a, b, -1, -1}
	for k, f := range [2]int32{r.live.FaceWith(a, b), r.live.FaceWith(b, a)} {
		if f >= 0 {
			vs[2+k] = mesh.Third(r.live.F[f], a, b)
		}
	}
	// Between two locked nodes (conformal nodes on two features, a corner's
	// edges: a preserved chain edge is never split) the new node has only
	// conformal neighbours along a-b, so its edges to the third verts are
	// what the next preprocessing measures: shorter than the clearance, it
	// collapses the node, and this split would come back every step.
	between := r.locked[r.vnode[a]] && r.locked[r.vnode[b]]
	for _, v := range vs {
		if v < 0 || !(between || r.locked[r.vnode[v]]) {
			continue
		}
		if d := w.Sub(r.u[v]); math.Hypot(d[0], d[1]) < r.clearance {
			r.frozen[[2]int32{min(a, b), max(a, b)}] = struct{}{}
			return false
		}
	}
	return true
}

func (r *Remesher) isFrozen(a, b int32) bool {
	if len(r.frozen) == 0 {
		return false
	}
	_, ok := r.frozen[[2]int32{min(a, b), max(a, b)}]
	return ok
}

// preservedAspect is the smallest aspect ratio a split may leave a face
// holding a preserved (or frozen) edge with.
const preservedAspect = 0.1

func (r *Remesher) splitSide(a, b, n int32, newFaces *[]int32) {
	w := r.addVert(mid2(r.u[a], r.u[b]), midM(r.m[a], r.m[b]), n)
	if fl := r.live.FaceWith(a, b); fl >= 0 {
		c := mesh.Third(r.live.F[fl], a, b)
		r.live.KillFace(fl)
		*newFaces = append(*newFaces, r.live.AddFace(a, w, c), r.live.AddFace(w, b, c))
	}
	if fr := r.live.FaceWith(b, a); fr >= 0 {
		d := mesh.Third(r.live.F[fr], a, b)
		r.live.KillFace(fr)
		*newFaces = append(*newFaces, r.live.AddFace(b, w, d), r.live.AddFace(w, a, d))
	}
}

// nodeNormal is the unit normal at node n: the average of the normals of the
// faces around all its verts with the weights of Max (1999),
// (e1 x e2) / (|e1|^2 |e2|^2) for the two edges e1, e2 leaving the vertex.
func (r *Remesher) nodeNormal(n int32) dense.Vec3 {
	var s dense.Vec3
	for _, v := range r.nodeVerts[n] {
		for _, f := range r.live.VF[v] {
			t := r.live.F[f]
			p := mesh.Corner(t, v)
			x0 := r.x[n]
			e1 := r.x[r.vnode[t[(p+1)%3]]].Sub(x0)
			e2 := r.x[r.vnode[t[(p+2)%3]]].Sub(x0)
			d := e1.Dot(e1) * e2.Dot(e2)
			if d > 0 {
				s = s.Add(e1.Cross(e2).Scale(1 / d))
			}
		}
	}
	l := s.Norm()
	if !(l > 0) {
		return dense.Vec3{}
	}
	return s.Scale(1 / l)
}

// placeSplit sets the world position of the new node n (split between nodes
// p and q, currently at their midpoint) to the minimiser of the quadric of
// eq. 2: for each vert j adjacent to the new verts, ((x - x_j).n_j / |u -
// u_j|)^2, plus the squared Frobenius norm of the Green strain of each face
// around the new verts, linearised about the midpoint. The strain terms are
// weighted by face area over the mean area of those faces (so that a linear
// deformation is split at its interpolated position). Falls back to the
// midpoint when the 3x3 system is singular or the step exceeds the edge's
// world length.
func (r *Remesher) placeSplit(n, p, q int32) {
	xm := r.x[n]
	var A [3][3]float64
	var rhs [3]float64
	// Mean area of the faces around the new verts.
	var atot float64
	var nf int
	for _, w := range r.nodeVerts[n] {
		for _, f := range r.live.VF[w] {
			t := r.live.F[f]
			atot += triArea2(r.u[t[0]], r.u[t[1]], r.u[t[2]])
			nf++
		}
	}
	if nf == 0 || !(atot > 0) {
		return
	}
	amean := atot / float64(nf)
	for _, w := range r.nodeVerts[n] {
		for _, f := range r.live.VF[w] {
			t := r.live.F[f]
			pw := mesh.Corner(t, w)
			u0, u1, u2 := r.u[t[0]], r.u[t[1]], r.u[t[2]]
			dm := dense.Mat2{{u1[0] - u0[0], u2[0] - u0[0]}, {u1[1] - u0[1], u2[1] - u0[1]}}
			dmi, ok := dm.Inverse()
			if !ok {
				continue
			}
			x0 := r.x[r.vnode[t[0]]]
			d1 := r.x[r.vnode[t[1]]].Sub(x0)
			d2 := r.x[r.vnode[t[2]]].Sub(x0)
			// F0 = [d1 d2] dmi (3x2).
			var F [3][2]float64
			for i := 0; i < 3; i++ {
				F[i][0] = d1[i]*dmi[0][0] + d2[i]*dmi[1][0]
				F[i][1] = d1[i]*dmi[0][1] + d2[i]*dmi[1][1]
			}
			// Gradient of w's hat function: dmi^T c with c = (-1,-1), (1,0), (0,1).
			var c dense.Vec2
			switch pw {
			case 0:
				c = dense.Vec2{-1, -1}
			case 1:
				c = dense.Vec2{1, 0}
			default:
				c = dense.Vec2{0, 1}
			}
			g := dense.Vec2{dmi[0][0]*c[0] + dmi[1][0]*c[1], dmi[0][1]*c[0] + dmi[1][1]*c[1]}
			// E0 = (F^T F - I)/2.
			var E [2][2]float64
			for i := 0; i < 2; i++ {
				for j := 0; j < 2; j++ {
					E[i][j] = 0.5 * (F[0][i]*F[0][j] + F[1][i]*F[1][j] + F[2][i]*F[2][j])
				}
				E[i][i] -= 0.5
			}
			// dE/dx_k = S_k = sym(r_k g^T), r_k = row k of F.
			var S [3][2][2]float64
			for k := 0; k < 3; k++ {
				for i := 0; i < 2; i++ {
					for j := 0; j < 2; j++ {
						S[k][i][j] = 0.5 * (F[k][i]*g[j] + g[i]*F[k][j])
					}
				}
			}
			wt := triArea2(u0, u1, u2) / amean
			for k := 0; k < 3; k++ {
				ek := E[0][0]*S[k][0][0] + E[0][1]*S[k][0][1] + E[1][0]*S[k][1][0] + E[1][1]*S[k][1][1]
				rhs[k] -= wt * ek
				for l := 0; l < 3; l++ {
					A[k][l] += wt * (S[k][0][0]*S[l][0][0] + S[k][0][1]*S[l][0][1] + S[k][1][0]*S[l][1][0] + S[k][1][1]*S[l][1][1])
				}
			}
			// Normal-plane term of the neighbour across the outgoing edge
			// w->j (each neighbour once), plus the incoming one on a
			// boundary.
			r.addNormalTerm(&A, &rhs, w, t[(pw+1)%3], xm)
			if pv := t[(pw+2)%3]; r.live.FaceWith(w, pv) < 0 {
				r.addNormalTerm(&A, &rhs, w, pv, xm)
			}
		}
	}
	d, ok := solve3(A, rhs)
	if !ok {
		return
	}
	lim := r.x[q].Sub(r.x[p]).Norm()
	if !(dense.Vec3(d).Norm() <= lim) {
		return
	}
	r.x[n] = xm.Add(d)
}

func (r *Remesher) addNormalTerm(A *[3][3]float64, rhs *[3]float64, w, j int32, xm dense.Vec3) {
	nj := r.nodeNormal(r.vnode[j])
	du := r.u[w].Sub(r.u[j])
	l2 := dot2(du, du)
	if !(l2 > 0) || nj == (dense.Vec3{}) {
		return
	}
	off := xm.Sub(r.x[r.vnode[j]]).Dot(nj)
	for k := 0; k < 3; k++ {
		rhs[k] -= nj[k] * off / l2
		for l := 0; l < 3; l++ {
			A[k][l] += nj[k] * nj[l] / l2
		}
	}
}

// solve3 solves A x = b by Gaussian elimination with partial pivoting; false
// when A is singular relative to its largest entry.
func solve3(A [3][3]float64, b [3]float64) ([3]float64, bool) {
	var amax float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			amax = math.Max(amax, math.Abs(A[i][j]))
		}
	}
	if !(amax > 0) || math.IsInf(amax, 0) {
		return [3]float64{}, false
	}
	for c := 0; c < 3; c++ {
		p := c
		for i := c + 1; i < 3; i++ {
			if math.Abs(A[i][c]) > math.Abs(A[p][c]) {
				p = i
			}
		}
		if !(math.Abs(A[p][c]) > 1e-12*amax) {
			return [3]float64{}, false
		}
		A[c], A[p] = A[p], A[c]
		b[c], b[p] = b[p], b[c]
		for i := c + 1; i < 3; i++ {
			f := A[i][c] / A[c][c]
			for j := c; j < 3; j++ {
				A[i][j] -= f * A[c][j]
			}
			b[i] -= f * b[c]
		}
	}
	var x [3]float64
	for i := 2; i >= 0; i-- {
		s := b[i]
		for j := i + 1; j < 3; j++ {
			s -= A[i][j] * x[j]
		}
		x[i] = s / A[i][i]
	}
	if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) {
		return [3]float64{}, false
	}
	return x, true
}

// ---------------------------------------------------------------- flip

// flipTol is the margin of flipTest's criterion, relative to the size of its
// terms.
const flipTol = 1e-9

// flipTest evaluates eq. 3 for the edge a-b of live face fl, which holds
// a->b with opposite vert l; the face fr across it, if any, holds b->a with
// opposite vert k. It returns true when the edge should be flipped and the
// flip is allowed (interior edge, convex quad, new edge k-l not already
// present and not invalid, no world-space duplicate edge).
func (r *Remesher) flipTest(fl, a, b int32) (k, l int32, ok bool) {
	fr := r.live.FaceWith(b, a)
	if fr < 0 || r.preservedEdge(a, b) {
		return
	}
	l = mesh.Third(r.live.F[fl], a, b)
	k = mesh.Third(r.live.F[fr], a, b)
	ui, uj, uk, ul := r.u[a], r.u[b], r.u[k], r.u[l]
	var M dense.Mat2
	for _, v := range [4]int32{a, b, k, l} {
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				M[i][j] += 0.25 * r.m[v][i][j]
			}
		}
	}
	ujk, uik, uil, ujl := uj.Sub(uk), ui.Sub(uk), ui.Sub(ul), uj.Sub(ul)
	t1 := cross2(ujk, uik) * quad(uil, &M, ujl)
	t2 := quad(ujk, &M, uik) * cross2(uil, ujl)
	// Flip only when the sum is negative by more than r.flipTol of the size
	// its terms have when their edges are at right angles (products of the
	// edges' lengths, plain and in M): the two diagonals of four (nearly)
	// cocircular verts, whose sums are rounding noise of either sign, then
	// both stay, and a flip cannot undo another.
	margin := flipTol + r.flipSlack
	if margin >= 0 && !(t1+t2 < 0) {
		return // most edges: no flip, whatever the scale
	}
	n := func(v dense.Vec2) float64 { return math.Sqrt(dot2(v, v)) }
	nM := func(v dense.Vec2) float64 { return math.Sqrt(math.Max(quad(v, &M, v), 0)) }
	scale := n(ujk)*n(uik)*nM(uil)*nM(ujl) + nM(ujk)*nM(uik)*n(uil)*n(ujl)
	if !(t1+t2 < -margin*scale) {
		return
	}
	// New faces (k, b, l) and (l, a, k) must be well formed, and not flat
	// in world space.
	if !shapeOK(uk, uj, ul, 0) || !shapeOK(ul, ui, uk, 0) || r.flatInWorld(k, b, l) || r.flatInWorld(l, a, k) {
		return
	}
	if r.live.Adjacent(k, l) {
		return
	}
	if r.size2(k, l) > r.flipMax2 {
		return
	}
	if r.hasSeams {
		nk, nl := r.vnode[k], r.vnode[l]
		if len(r.nodeVerts[nk]) > 1 && len(r.nodeVerts[nl]) > 1 {
			for _, k2 := range r.nodeVerts[nk] {
				for _, f := range r.live.VF[k2] {
					t := r.live.F[f]
					if r.vnode[t[0]] == nl || r.vnode[t[1]] == nl || r.vnode[t[2]] == nl {
						return
					}
				}
			}
		}
	}
	ok = true
	return
}

func (r *Remesher) doFlip(a, b, fl, fr, k, l int32, newFaces *[]int32) {
	r.live.KillFace(fl)
	r.live.KillFace(fr)
	f1 := r.live.AddFace(k, b, l)
	f2 := r.live.AddFace(l, a, k)
	*newFaces = append(*newFaces, f1, f2)
	r.flips++
}

// flipEdges runs FLIPEDGES of Algorithm 1 on the active faces act: repeatedly
// flip a maximal independent set (no shared verts) of flippable edges of the
// active faces, the new faces becoming the active set (together with faces
// whose flippable edge lost out in the independent set). Faces created are
// appended to *created.
//
// Flips could cycle until maxFlipPasses: flipTest's margin keeps a flip from
// undoing another, but a longer chain of flips over different quads, each
// measured in its own averaged metric, may still come back to where it
// started. Once the passes repeat (see flipCycle), the selections of the
// cycle's passes are reused instead of being made again; the flips
// themselves are done as before, so the result is the same.
func (r *Remesher) flipEdges(act []int32, created *[]int32) {
	cur := append(r.flipCur[:0], act...)
	next := r.flipNext[:0]
	cyc := &r.flipCycle
	cyc.period, cyc.live = 0, 0
	for pass := 0; pass < maxFlipPasses && len(cur) > 0; pass++ {
		ep := r.live.NextVEpoch()
		sel := r.flipSel[:0]
		next = next[:0]
		rec := cyc.record(r, cur, pass)
		if rec == nil {
			rep := cyc.repeated(pass)
			sel = append(sel, rep.sel...)
			for _, ci := range rep.losers {
				next = append(next, cur[ci])
			}
		} else {
			for ci, f := range cur {
				if !r.live.Alive[f] {
					continue
				}
				t := r.live.F[f]
				for e := 0; e < 3; e++ {
					a, b := t[e], t[(e+1)%3]
					if r.live.VMark[a] == ep || r.live.VMark[b] == ep {
						// Possibly flippable but not independent: keep
						// active.
						if _, _, ok := r.flipTest(f, a, b); ok {
							next = append(next, f)
							rec.losers = append(rec.losers, int32(ci))
						}
						continue
					}
					k, l, ok := r.flipTest(f, a, b)
					if !ok {
						continue
					}
					r.live.VMark[a], r.live.VMark[b] = ep, ep
					sel = append(sel, [4]int32{a, b, k, l})
					break // the face's other edges share a or b
				}
			}
			rec.sel = append(rec.sel, sel...)
		}
		for _, s := range sel {
			a, b, k, l := s[0], s[1], s[2], s[3]
			fl, fr := r.live.FaceWith(a, b), r.live.FaceWith(b, a)
			if fl < 0 || fr < 0 || r.live.Adjacent(k, l) {
				continue
			}
			if rec != nil {
				cyc.flip(rec, r.live.F[fl], r.live.F[fr], [3]int32{k, b, l}, [3]int32{l, a, k})
			}
			n0 := len(next)
			r.doFlip(a, b, fl, fr, k, l, &next)
			*created = append(*created, next[n0:]...)
		}
		r.flipSel = sel
		cur, next = next, cur
	}
	r.flipCur, r.flipNext = cur, next
}

// flipCycle finds the passes of a flipEdges call repeating. A pass's
// selection depends only on the active faces' vert triples (as stored: their
// edges are tried in order) and liveness, on the set of live faces (which
// flipTest reads through which faces hold which edges) and on the verts'
// fixed data; and its flips, and so the next pass's active faces, depend on
// the selection and that set alone. So when a pass starts with the same
// active triples as the pass T passes earlier, and the flips of those T
// passes made the faces that they killed (the same set of live faces), the
// passes from there on repeat the selections of those T passes, in turn.
type flipCycle struct {
	recs   [maxFlipPeriod + 1]flipRecord // by pass, modulo their number
	period int                           // T once found, else 0
	first  int                           // the first pass that repeats
	// live is the sum of faceHash over the faces made less that over the
	// faces killed so far: passes that start with the same set of live
	// faces start with the same sum.
	live uint64
	// For tests: off turns the finding off; replayed counts the passes
	// whose selection was reused.
	off      bool
	replayed int
	// Scratch of sameFaces.
	killed, made [][3]int32
}

// maxFlipPeriod is the longest cycle of flip passes that flipCycle finds.
const maxFlipPeriod = 16

// flipRecord is what a pass of flipEdges started with and did.
type flipRecord struct {
	active []faceState // the active faces
	sel    [][4]int32  // the selection
	losers []int32     // the active faces (indices into them) kept active
	// The faces killed and made by the flips, rotated to start at their
	// smallest vert.
	killed, made [][3]int32
	live         uint64 // flipCycle.live at the start of the pass
}

// faceState is an active face's verts as stored and whether it is live.
type faceState struct {
	t     [3]int32
	alive bool
}

// record returns, for pass number pass with active faces cur, the record
// to fill, or nil when the passes repeat from here on (repeated then gives
// the pass's selection).
func (c *flipCycle) record(r *Remesher, cur []int32, pass int) *flipRecord {
	if c.period > 0 {
		c.replayed++
		return nil
	}
	rec := &c.recs[pass%len(c.recs)]
	rec.active = rec.active[:0]
	for _, f := range cur {
		rec.active = append(rec.active, faceState{r.live.F[f], r.live.Alive[f]})
	}
	rec.sel, rec.losers, rec.killed, rec.made = rec.sel[:0], rec.losers[:0], rec.killed[:0], rec.made[:0]
	rec.live = c.live
	for T := 1; T <= min(maxFlipPeriod, pass) && !c.off; T++ {
		old := &c.recs[(pass-T)%len(c.recs)]
		if old.live == rec.live && slices.Equal(rec.active, old.active) && c.sameFaces(pass-T, pass) {
			c.period, c.first = T, pass
			c.replayed++
			return nil
		}
	}
	return rec
}

// flip records in rec a flip that killed faces k1 and k2 and made m1 and
// m2.
func (c *flipCycle) flip(rec *flipRecord, k1, k2, m1, m2 [3]int32) {
	k1, k2, m1, m2 = rotated(k1), rotated(k2), rotated(m1), rotated(m2)
	rec.killed = append(rec.killed, k1, k2)
	rec.made = append(rec.made, m1, m2)
	c.live += faceHash(m1) + faceHash(m2) - faceHash(k1) - faceHash(k2)
}

// faceHash mixes the verts of a face rotated to start at its smallest.
func faceHash(t [3]int32) uint64 {
	h := uint64(uint32(t[0])) | uint64(uint32(t[1]))<<32
	h ^= uint64(uint32(t[2])) * 0x9e3779b97f4a7c15
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

// sameFaces reports whether the flips of passes from to to-1 made the faces
// that they killed.
func (c *flipCycle) sameFaces(from, to int) bool {
	killed, made := c.killed[:0], c.made[:0]
	for p := from; p < to; p++ {
		rec := &c.recs[p%len(c.recs)]
		killed, made = append(killed, rec.killed...), append(made, rec.made...)
	}
	c.killed, c.made = killed, made
	order := func(a, b [3]int32) int { return slices.Compare(a[:], b[:]) }
	slices.SortFunc(killed, order)
	slices.SortFunc(made, order)
	return slices.Equal(killed, made)
}

// repeated returns the record of the pass that pass repeats.
func (c *flipCycle) repeated(pass int) *flipRecord {
	return &c.recs[(c.first-c.period+(pass-c.first)%c.period)%len(c.recs)]
}

// rotated returns face t rotated to start at its smallest vert.
func rotated(t [3]int32) [3]int32 {
	for t[0] > t[1] || t[0] > t[2] {
		t = [3]int32{t[1], t[2], t[0]}
	}
	return t
}

const maxFlipPasses = 200

// ---------------------------------------------------------------- collapse

// tryCollapse removes vert i (and, on a seam, every vert of i's node) by
// collapsing it onto j (onto the verts of j's node) if allowed; faces created
// are appended to *newFaces.
func (r *Remesher) tryCollapse(i, j int32, newFaces *[]int32) bool {
	ni, nj := r.vnode[i], r.vnode[j]
	if ni == nj || r.locked[ni] || len(r.pres[ni]) > 0 {
		return false
	}
	pairs := r.pairs[:0]
	if len(r.nodeVerts[ni]) == 1 {
		pairs = append(pairs, [2]int32{i, j})
	} else {
		for _, i2 := range r.nodeVerts[ni] {
			j2, bad := int32(-1), false
			for _, f := range r.live.VF[i2] {
				for _, x := range r.live.F[f] {
					if r.vnode[x] == nj {
						if j2 < 0 {
							j2 = x
						} else if x != j2 {
							bad = true // two different verts of nj
						}
					}
				}
			}
			if j2 < 0 || bad {
				r.pairs = pairs
				return false
			}
			pairs = append(pairs, [2]int32{i2, j2})
		}
	}
	r.pairs = pairs
	multi := len(pairs) > 1
	for _, pr := range pairs {
		if !r.collapseSideOK(pr[0], pr[1], multi) {
			return false
		}
	}
	if r.hasSeams && !r.nodeLinkOK(ni, nj, pairs) {
		return false
	}
	for _, pr := range pairs {
		i2, j2 := pr[0], pr[1]
		fs := append(r.tmpFaces[:0], r.live.VF[i2]...)
		for _, f := range fs {
			t := r.live.F[f]
			if mesh.Corner(t, j2) >= 0 {
				r.live.KillFace(f)
				continue
			}
			p := mesh.Corner(t, i2)
			t[p] = j2
			r.live.KillFace(f)
			*newFaces = append(*newFaces, r.live.AddFace(t[0], t[1], t[2]))
		}
		r.tmpFaces = fs
		r.vertAlive[i2] = false
	}
	r.nodeVerts[ni] = r.nodeVerts[ni][:0]
	r.nodeAlive[ni] = false
	r.collapses++
	return true
}

// collapseSideOK checks the collapse of vert i onto vert j within one panel.
func (r *Remesher) collapseSideOK(i, j int32, multi bool) bool {
	// New edges j-x must not be close to invalid. This is the test that
	// usually fails, so it runs first and cheaply: an x already adjacent to
	// j is not a new edge (or breaks the link condition, checked below).
	for _, f := range r.live.VF[i] {
		t := r.live.F[f]
		for _, x := range t {
			if x == i || x == j {
				continue
			}
			if r.size2(j, x) > r.maxSize2 && !r.live.Adjacent(j, x) {
				return false
			}
		}
	}
	fl, fr, l, k := r.live.Wings(i, j)
	if fl < 0 && fr < 0 {
		return false
	}
	// Panel boundary: a boundary vert only moves along a straight piece of
	// boundary, and seams must stay seams (and free edges free).
	nOut, nIn, out, in := r.live.BorderInfo(i)
	if nOut > 0 || nIn > 0 {
		if nOut != 1 || nIn != 1 || (j != out && j != in) || fl >= 0 && fr >= 0 {
			return false
		}
		e1, e2 := r.u[in].Sub(r.u[i]), r.u[out].Sub(r.u[i])
		if !(math.Abs(cross2(e1, e2)) <= 1e-9*math.Sqrt(dot2(e1, e1)*dot2(e2, e2))) || !(dot2(e1, e2) < 0) {
			return false
		}
		_, _, n1 := r.partner(in, i)
		_, _, n2 := r.partner(i, out)
		if multi {
			if n1 != 1 || n2 != 1 {
				return false
			}
		} else if n1 != 0 || n2 != 0 {
			return false
		}
	}
	// Link condition: the common neighbours of i and j are exactly k and l.
	if !r.live.LinkCondition(i, j, k, l) {
		return false
	}
	// Changed faces: not inverted, aspect ratio at least AspectMin, and not
	// flat in world space (where the nodes, unlike the verts, may be
	// collinear: cloth lying on a sharp feature).
	for t := range r.live.Moved(i, j) {
		if !shapeOK(r.u[t[0]], r.u[t[1]], r.u[t[2]], r.p.AspectMin) {
			return false
		}
		if r.flatInWorld(t[0], t[1], t[2]) {
			return false
		}
	}
	return true
}

// minWorldArea is the smallest ratio of world-space to material-space area
// a collapse or flip may leave a face with.
const minWorldArea = 0.01

// flatInWorld reports whether the face of verts (a, b, c) is flat in world
// space: its world area below minWorldArea times its material area.
func (r *Remesher) flatInWorld(a, b, c int32) bool {
	x0, x1, x2 := r.x[r.vnode[a]], r.x[r.vnode[b]], r.x[r.vnode[c]]
	return x1.Sub(x0).Cross(x2.Sub(x0)).Norm() < minWorldArea*math.Abs(cross2(r.u[b].Sub(r.u[a]), r.u[c].Sub(r.u[a])))
}

// nodeLinkOK is the link condition at the node level (world space): the
// nodes adjacent to both ni and nj must be the opposite nodes of the faces
// being collapsed.
func (r *Remesher) nodeLinkOK(ni, nj int32, pairs [][2]int32) bool {
	ep := r.nextNEpoch()
	for _, v := range r.nodeVerts[nj] {
		for _, f := range r.live.VF[v] {
			for _, x := range r.live.F[f] {
				r.nmark[r.vnode[x]] = ep
			}
		}
	}
	// Allowed: opposite nodes.
	for _, pr := range pairs {
		for _, f := range r.live.VF[pr[0]] {
			t := r.live.F[f]
			if mesh.Corner(t, pr[1]) >= 0 {
				r.nmark2[r.vnode[mesh.Third(t, pr[0], pr[1])]] = ep
			}
		}
	}
	for _, v := range r.nodeVerts[ni] {
		for _, f := range r.live.VF[v] {
			for _, x := range r.live.F[f] {
				nx := r.vnode[x]
				if nx != ni && nx != nj && r.nmark[nx] == ep && r.nmark2[nx] != ep {
					return false
				}
			}
		}
	}
	return true
}
