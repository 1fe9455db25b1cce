package remesh

import (
	"fmt"
	"math"
	"slices"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/mesh"
)

// Params controls a remesh.
type Params struct {
	// Hysteresis h: a collapse may not create an edge of size above 1-h
	// (the paper uses 0.2), so that what a collapse makes is not split again
	// at the next remesh.
	Hysteresis float64
	// AspectMin is the smallest aspect ratio 4*sqrt(3)*area/(sum of squared
	// edge lengths), measured in material space, of a face created by a
	// collapse (1 is equilateral). 0 only forbids inverted and degenerate
	// faces.
	AspectMin float64
	// MaxPasses caps the passes of SPLITEDGES (each splits a maximal
	// independent set); <= 0 means 64.
	MaxPasses int
	// MaxFaces stops refinement once the mesh has this many faces
	// (Result.Truncated is then set); <= 0 means no limit.
	MaxFaces int
	// NoSizes leaves Result's edge size statistics (MinSize, MedianSize,
	// MaxSize) zero, for a caller that does not read them: they take a
	// pass over every edge of the new mesh.
	NoSizes bool
}

// DefaultParams returns h = 0.2 (the paper's value), AspectMin = 0.2 and
// MaxPasses = 64.
func DefaultParams() Params { return Params{Hysteresis: 0.2, AspectMin: 0.2, MaxPasses: 64} }

// Result describes what a remesh did and maps the new mesh back onto the old.
type Result struct {
	// NodeOld[i] is the input index of new node i, or -1 when a split
	// created it. Surviving nodes keep X, V, Extra and Locked bit for bit.
	NodeOld []int32
	// VertOld[i] is the input index of new vert i, or -1.
	VertOld []int32
	// FaceOld[i] is the input index of new face i when the input had a face
	// with the same three verts (same orientation; the new face then lists
	// them in the input's order), else -1.
	FaceOld []int32
	// Src[SrcStart[i]:SrcStart[i+1]] gives new node i as a linear
	// combination of input nodes: V and Extra of the new node are
	// sum_k W_k * (input value of node k) (to rounding), and sum_k W_k x_k
	// is its linearly interpolated position (the quadric placement moved it
	// off that point by X - sum W_k x_k). A surviving node has the single
	// term (itself, 1). A node created by splitting an edge between two
	// input nodes a, b has the two terms (a, 1/2), (b, 1/2); a node split off
	// an edge that itself ended at a created node has more terms (dyadic
	// weights, summing to 1). Entries are sorted by input node.
	SrcStart []int32
	Src      []Source
	// M is the sizing tensor at each new vert (input value, or the midpoint
	// interpolation at created verts).
	M []dense.Mat2

	Splits, Flips, Collapses int
	// Edge sizes (eq. 1, seam edges averaged with their partner and counted
	// once) over the new mesh. MedianSize is the upper median. Zero with
	// Params.NoSizes.
	MinSize, MedianSize, MaxSize float64
	// Truncated is set when refinement stopped at Params.MaxFaces or
	// Params.MaxPasses with edges still invalid.
	Truncated bool
}

// Sources returns the input-node combination of new node i (see Src).
func (res *Result) Sources(i int) []Source { return res.Src[res.SrcStart[i]:res.SrcStart[i+1]] }

// Remesh runs one adaptive remesh of m (Algorithm 1 of Narain et al. 2012,
// preceded by a FLIPEDGES pass over all faces so that the whole mesh, not only
// the parts touched, is Delaunay in the sizing metric) against the per-vert
// sizing tensors M (symmetric positive semi-definite, material space,
// len(M) == len(m.U)). m and M are not modified; the new mesh is returned.
// See Remesher.Remesh.
func Remesh(m *Mesh, M []dense.Mat2, p Params) (*Mesh, Result, error) {
	var r Remesher
	return r.Remesh(m, M, p)
}

// Remesh is the package-level Remesh reusing r's buffers.
//
// Steps: every edge of size (eq. 1) above 1 is split (longest first, a
// maximal independent set per pass, each split followed by flips around
// it); then edges are collapsed wherever the result keeps every new edge at
// size <= 1-h, faces uninverted with aspect ratio >= AspectMin, the panel
// boundaries and seams unchanged and no locked node removed, each collapse
// followed by flips. Flips follow eq. 3 but never create an edge of size
// above 1, so that every edge of the result has size <= 1 unless Truncated.
func (r *Remesher) Remesh(m *Mesh, M []dense.Mat2, p Params) (*Mesh, Result, error) {
	return r.remesh(m, M, p, true)
}

// RemeshValid is Remesh for a mesh m whose connectivity is known to be
// valid: m is the output of Remesh or of conformal.Preprocess (which keep a
// valid mesh valid), and the caller has changed at most its per-node state
// (X, V, Extra), Locked, LockedClearance and Preserved. It checks what
// Remesh checks except what only a change of connectivity could break
// (manifoldness, orientation, fans, duplicate faces, face areas, seams;
// see Mesh.Validate), so that a caller that has just validated and
// preprocessed a mesh does not rebuild its adjacency a second time.
// Preserved pairs are still checked to be edges.
func (r *Remesher) RemeshValid(m *Mesh, M []dense.Mat2, p Params) (*Mesh, Result, error) {
	return r.remesh(m, M, p, false)
}

// remesh is Remesh, validating m in full when validate is set and otherwise
// as RemeshValid does.
func (r *Remesher) remesh(m *Mesh, M []dense.Mat2, p Params, validate bool) (*Mesh, Result, error) {
	if err := r.start(m, M, p, validate); err != nil {
		return nil, Result{}, err
	}

	all := r.act[:0]
	for f := range r.live.F {
		all = append(all, int32(f))
	}
	created := r.flipNew[:0]
	r.flipEdges(all, &created)
	r.act, r.flipNew = all, created

	r.splitEdges()
	r.flipMax2 = 1
	r.collapseEdges()
	out, res := r.output(m.Locked != nil)
	if m.Preserved != nil {
		out.Preserved = make([][2]int32, len(m.Preserved))
		for i, pr := range m.Preserved {
			// Preserved nodes are never removed.
			out.Preserved[i] = [2]int32{r.nodeNew[pr[0]], r.nodeNew[pr[1]]}
		}
	}
	return out, res, nil
}

// start checks the input (in full with validate, else as RemeshValid) and
// loads it into the working mesh.
func (r *Remesher) start(m *Mesh, M []dense.Mat2, p Params, validate bool) error {
	if err := checkParams(p); err != nil {
		return err
	}
	if validate {
		if err := m.Validate(); err != nil {
			return err
		}
	} else if err := m.CheckShape(); err != nil {
		return err
	}
	if err := checkSizing(M, len(m.U)); err != nil {
		return err
	}
	if p.MaxPasses <= 0 {
		p.MaxPasses = 64
	}
	r.p = p
	h := 1 - p.Hysteresis
	r.maxSize2 = h * h
	r.load(m, M)
	r.flipMax2 = math.Inf(1)
	if !validate {
		// The working mesh's face lists stand in for the adjacency.
		return checkPreservedEdges(m.Preserved, r.live.F, r.vnode,
			func(n int32) []int32 { return r.nodeVerts[n] }, func(v int32) []int32 { return r.live.VF[v] })
	}
	return nil
}

func checkParams(p Params) error {
	if !(p.Hysteresis >= 0 && p.Hysteresis < 1) {
		return fmt.Errorf("remesh: Params.Hysteresis = %v, want in [0, 1)", p.Hysteresis)
	}
	if !(p.AspectMin >= 0 && p.AspectMin <= 1) {
		return fmt.Errorf("remesh: Params.AspectMin = %v, want in [0, 1]", p.AspectMin)
	}
	return nil
}

func checkSizing(M []dense.Mat2, nv int) error {
	if len(M) != nv {
		return fmt.Errorf("remesh: len(M) = %d, want one sizing tensor per vert (%d)", len(M), nv)
	}
	for v, t := range M {
		if !finite(t[0][0]) || !finite(t[0][1]) || !finite(t[1][0]) || !finite(t[1][1]) {
			return fmt.Errorf("remesh: vert %d: sizing tensor %v is not finite", v, t)
		}
		sc := math.Abs(t[0][0]) + math.Abs(t[1][1]) + math.Abs(t[0][1]) + math.Abs(t[1][0])
		if math.Abs(t[0][1]-t[1][0]) > 1e-9*sc {
			return fmt.Errorf("remesh: vert %d: sizing tensor %v is not symmetric", v, t)
		}
		if t[0][0] < 0 || t[1][1] < 0 || t.Det() < -1e-9*sc*sc {
			return fmt.Errorf("remesh: vert %d: sizing tensor %v is not positive semi-definite", v, t)
		}
	}
	return nil
}

// forEachEdge calls fn once per live edge (a seam pair once, from the side
// whose face comes first), with a->b directed as in the face that reports
// it.
func (r *Remesher) forEachEdge(fn func(a, b int32, boundary bool)) {
	for f := range r.live.F {
		if !r.live.Alive[f] {
			continue
		}
		t := r.live.F[f]
		for e := 0; e < 3; e++ {
			a, b := t[e], t[(e+1)%3]
			g := r.live.FaceWith(b, a)
			if g >= 0 && g < int32(f) {
				continue
			}
			if g < 0 && r.hasSeams {
				if pa, pb, n := r.partner(a, b); n == 1 {
					fp := r.live.FaceWith(pa, pb)
					if fp < 0 {
						fp = r.live.FaceWith(pb, pa)
					}
					if fp < int32(f) {
						continue
					}
				}
			}
			fn(a, b, g < 0)
		}
	}
}

// splitEdges is SPLITEDGES of Algorithm 1. The candidates (edges of size
// above 1) are found once over the whole mesh; later passes only look at the
// candidates left over (not in the previous independent set) and at the edges
// of faces made since, which are the only edges that can have changed.
func (r *Remesher) splitEdges() {
	cands := r.cands[:0]
	r.forEachEdge(func(a, b int32, boundary bool) {
		if s := r.edgeSize(a, b, boundary); s > 1 && !r.preservedEdge(a, b) && !r.isFrozen(a, b) {
			cands = append(cands, mkCand(a, b, s))
		}
	})
	dirty := r.dirty[:0]
	for pass := 0; len(cands) > 0; pass++ {
		if pass >= r.p.MaxPasses || (r.p.MaxFaces > 0 && r.live.NLive >= r.p.MaxFaces) {
			r.truncated = true
			break
		}
		// Longest first; equal edges adjacent, then dropped.
		slices.SortFunc(cands, func(x, y cand) int {
			switch {
			case x.s > y.s:
				return -1
			case x.s < y.s:
				return 1
			case x.a != y.a:
				return int(x.a - y.a)
			}
			return int(x.b - y.b)
		})
		ep := r.live.NextVEpoch()
		sel, left := r.sel[:0], r.left[:0]
		for i, c := range cands {
			if i > 0 && c.a == cands[i-1].a && c.b == cands[i-1].b {
				continue
			}
			a, b := c.a, c.b
			if r.live.VMark[a] == ep || r.live.VMark[b] == ep {
				left = append(left, c)
				continue
			}
			if r.hasSeams && (r.live.FaceWith(a, b) < 0 || r.live.FaceWith(b, a) < 0) {
				if x, y, n := r.partner(a, b); n == 1 {
					if r.live.VMark[x] == ep || r.live.VMark[y] == ep {
						left = append(left, c)
						continue
					}
					r.live.VMark[x], r.live.VMark[y] = ep, ep
				}
			}
			r.live.VMark[a], r.live.VMark[b] = ep, ep
			sel = append(sel, c)
		}
		dirty = dirty[:0]
		for _, c := range sel {
			if !r.splitKeepsPreserved(c.a, c.b) || !r.splitClearsLocked(c.a, c.b) {
				continue
			}
			nf := r.act[:0]
			if !r.split(c.a, c.b, &nf) {
				r.act = nf
				continue
			}
			dirty = append(dirty, nf...)
			created := r.flipNew[:0]
			r.flipEdges(nf, &created)
			dirty = append(dirty, created...)
			r.act, r.flipNew = nf, created
		}
		// Next candidates: surviving leftovers and the edges of new faces.
		cands = cands[:0]
		for _, c := range left {
			if r.live.FaceWith(c.a, c.b) >= 0 || r.live.FaceWith(c.b, c.a) >= 0 {
				cands = append(cands, c)
			}
		}
		for _, f := range dirty {
			if !r.live.Alive[f] {
				continue
			}
			t := r.live.F[f]
			for e := 0; e < 3; e++ {
				a, b := t[e], t[(e+1)%3]
				if s := r.edgeSize(a, b, r.live.FaceWith(b, a) < 0); s > 1 && !r.preservedEdge(a, b) && !r.isFrozen(a, b) {
					cands = append(cands, mkCand(a, b, s))
				}
			}
		}
		r.sel, r.left = sel, left
	}
	r.cands, r.dirty = cands, dirty
}

func mkCand(a, b int32, s float64) cand {
	if a > b {
		a, b = b, a
	}
	return cand{a, b, s}
}

// collapseEdges is COLLAPSEEDGES of Algorithm 1: a FIFO of active faces,
// starting with all faces; a face leaves it when none of its edges can be
// collapsed (trying, for its edges in order, the removal of the first vert
// and then of the second); faces made by a collapse or by the flips after it
// enter it.
func (r *Remesher) collapseEdges() {
	ep := r.live.NextFEpoch()
	queue := r.queue[:0]
	for f := range r.live.F {
		if r.live.Alive[f] {
			queue = append(queue, int32(f))
			r.live.FMark[f] = ep
		}
	}
	push := func(f int32) {
		if r.live.Alive[f] && r.live.FMark[f] != ep {
			r.live.FMark[f] = ep
			queue = append(queue, f)
		}
	}
	for head := 0; head < len(queue); {
		f := queue[head]
		head++
		if head > 4096 && 2*head > len(queue) {
			n := copy(queue, queue[head:])
			queue, head = queue[:n], 0
		}
		r.live.FMark[f] = 0
		if !r.live.Alive[f] {
			continue
		}
		t := r.live.F[f]
		nf := r.act[:0]
		done := false
		for e := 0; e < 3 && !done; e++ {
			a, b := t[e], t[(e+1)%3]
			done = r.tryCollapse(a, b, &nf) || r.tryCollapse(b, a, &nf)
		}
		if !done {
			r.act = nf
			continue
		}
		created := r.flipNew[:0]
		r.flipEdges(nf, &created)
		for _, g := range nf {
			push(g)
		}
		for _, g := range created {
			push(g)
		}
		r.act, r.flipNew = nf, created
	}
	r.queue = queue
}

// output compacts the working mesh into a new Mesh and its Result.
func (r *Remesher) output(withLocked bool) (*Mesh, Result) {
	var res Result
	out := &Mesh{NExtra: r.nex}
	nn := 0
	for _, a := range r.nodeAlive {
		if a {
			nn++
		}
	}
	nodeNew := growI32(r.nodeNew, len(r.x))
	r.nodeNew = nodeNew
	out.X = make([]dense.Vec3, 0, nn)
	out.V = make([]dense.Vec3, 0, nn)
	out.Extra = make([]float64, 0, nn*r.nex)
	if withLocked {
		out.Locked = make([]bool, 0, nn)
	}
	res.NodeOld = make([]int32, 0, nn)
	res.SrcStart = make([]int32, 1, nn+1)
	for n := range r.x {
		if !r.nodeAlive[n] {
			nodeNew[n] = -1
			continue
		}
		nodeNew[n] = int32(len(out.X))
		out.X = append(out.X, r.x[n])
		out.V = append(out.V, r.v[n])
		out.Extra = append(out.Extra, r.extra[n*r.nex:(n+1)*r.nex]...)
		if withLocked {
			out.Locked = append(out.Locked, r.locked[n])
		}
		if n < r.nN0 {
			res.NodeOld = append(res.NodeOld, int32(n))
			res.Src = append(res.Src, Source{Node: int32(n), W: 1})
		} else {
			res.NodeOld = append(res.NodeOld, -1)
			i := n - r.nN0
			res.Src = append(res.Src, r.src[r.srcOff[i]:r.srcOff[i]+r.srcLen[i]]...)
		}
		res.SrcStart = append(res.SrcStart, int32(len(res.Src)))
	}
	nv := 0
	for _, a := range r.vertAlive {
		if a {
			nv++
		}
	}
	out.U, out.Node = make([]dense.Vec2, 0, nv), make([]int32, 0, nv)
	res.M, res.VertOld = make([]dense.Mat2, 0, nv), make([]int32, 0, nv)
	out.F, res.FaceOld = make([][3]int32, 0, r.live.NLive), make([]int32, 0, r.live.NLive)
	var vertNew []int32
	vertNew, res.VertOld = mesh.Renumber(r.vertAlive, r.nV0, nil, res.VertOld)
	for v := range r.u {
		if vertNew[v] < 0 {
			continue
		}
		out.U = append(out.U, r.u[v])
		out.Node = append(out.Node, nodeNew[r.vnode[v]])
		res.M = append(res.M, r.m[v])
	}
	out.F, res.FaceOld = r.live.AppendLive(out.F, res.FaceOld, vertNew)

	sizes := r.sizes[:0]
	if !r.p.NoSizes {
		r.forEachEdge(func(a, b int32, boundary bool) {
			sizes = append(sizes, r.edgeSize(a, b, boundary))
		})
	}
	r.sizes = sizes
	if len(sizes) > 0 {
		res.MinSize, res.MaxSize = sizes[0], sizes[0]
		for _, s := range sizes {
			res.MinSize = math.Min(res.MinSize, s)
			res.MaxSize = math.Max(res.MaxSize, s)
		}
		res.MedianSize = selectK(sizes, len(sizes)/2)
	}
	res.Splits, res.Flips, res.Collapses = r.splits, r.flips, r.collapses
	res.Truncated = r.truncated
	return out, res
}

// selectK returns the k-th smallest of s (reordering s), by quickselect with
// a deterministic median-of-three pivot.
func selectK(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		m := lo + (hi-lo)/2
		if s[m] < s[lo] {
			s[m], s[lo] = s[lo], s[m]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[m] {
			s[hi], s[m] = s[m], s[hi]
		}
		p := s[m]
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for s[j] > p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}
