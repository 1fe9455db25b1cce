package remesh

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// gridMesh is an nx x ny cell grid over [0,w]x[0,h] in material space, flat in
// world space (X = (u, 0)). Interior points are jittered by jit cells;
// diagonals are random when rng is non-nil, else all the same way.
func gridMesh(nx, ny int, w, h, jit float64, rng *rand.Rand) *Mesh {
	m := &Mesh{}
	id := func(i, j int) int32 { return int32(j*(nx+1) + i) }
	for j := 0; j <= ny; j++ {
		for i := 0; i <= nx; i++ {
			u := dense.Vec2{w * float64(i) / float64(nx), h * float64(j) / float64(ny)}
			if rng != nil && jit > 0 && i > 0 && i < nx && j > 0 && j < ny {
				u[0] += jit * w / float64(nx) * (2*rng.Float64() - 1)
				u[1] += jit * h / float64(ny) * (2*rng.Float64() - 1)
			}
			m.U = append(m.U, u)
			m.Node = append(m.Node, int32(len(m.X)))
			m.X = append(m.X, dense.Vec3{u[0], u[1], 0})
			m.V = append(m.V, dense.Vec3{})
		}
	}
	for j := 0; j < ny; j++ {
		for i := 0; i < nx; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			alt := rng != nil && rng.IntN(2) == 0
			if alt && (triArea2(m.U[a], m.U[b], m.U[d]) <= 0 || triArea2(m.U[b], m.U[c], m.U[d]) <= 0) {
				alt = false
			}
			if !alt && (triArea2(m.U[a], m.U[b], m.U[c]) <= 0 || triArea2(m.U[a], m.U[c], m.U[d]) <= 0) {
				alt = true
			}
			if alt {
				m.F = append(m.F, [3]int32{a, b, d}, [3]int32{b, c, d})
			} else {
				m.F = append(m.F, [3]int32{a, b, c}, [3]int32{a, c, d})
			}
		}
	}
	return m
}

// seamMesh is two n x n panels: A over [0,1]^2 and B over [2,3]x[0,1] in
// material space, stitched along A's right side and B's left side (shared
// nodes). In world space A is flat at z = 0 and B is folded up to the plane
// x = 1, or, when flat, continues A in the plane z = 0.
func seamMesh(n int) *Mesh { return seamMeshW(n, false) }

func seamMeshW(n int, flat bool) *Mesh {
	m := &Mesh{}
	ida := func(i, j int) int32 { return int32(j*(n+1) + i) }
	nA := (n + 1) * (n + 1)
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			u := dense.Vec2{float64(i) / float64(n), float64(j) / float64(n)}
			m.U = append(m.U, u)
			m.Node = append(m.Node, int32(len(m.X)))
			m.X = append(m.X, dense.Vec3{u[0], u[1], 0})
			m.V = append(m.V, dense.Vec3{})
		}
	}
	idb := func(i, j int) int32 { return int32(nA + j*(n+1) + i) }
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			u := dense.Vec2{2 + float64(i)/float64(n), float64(j) / float64(n)}
			m.U = append(m.U, u)
			if i == 0 {
				m.Node = append(m.Node, m.Node[ida(n, j)])
				continue
			}
			m.Node = append(m.Node, int32(len(m.X)))
			if flat {
				m.X = append(m.X, dense.Vec3{u[0] - 1, u[1], 0})
			} else {
				m.X = append(m.X, dense.Vec3{1, u[1], u[0] - 2})
			}
			m.V = append(m.V, dense.Vec3{})
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a, b, c, d := ida(i, j), ida(i+1, j), ida(i+1, j+1), ida(i, j+1)
			m.F = append(m.F, [3]int32{a, b, c}, [3]int32{a, c, d})
			a, b, c, d = idb(i, j), idb(i+1, j), idb(i+1, j+1), idb(i, j+1)
			m.F = append(m.F, [3]int32{a, b, d}, [3]int32{b, c, d})
		}
	}
	return m
}

func isoM(nv int, l float64) []dense.Mat2 {
	M := make([]dense.Mat2, nv)
	for i := range M {
		M[i] = dense.Mat2{{1 / (l * l), 0}, {0, 1 / (l * l)}}
	}
	return M
}

// anisoM is R diag(1/l1^2, 1/l2^2) R^T with R the rotation by th.
func anisoM(l1, l2, th float64) dense.Mat2 {
	c, s := math.Cos(th), math.Sin(th)
	a, b := 1/(l1*l1), 1/(l2*l2)
	return dense.Mat2{{a*c*c + b*s*s, (a - b) * c * s}, {(a - b) * c * s, a*s*s + b*c*c}}
}

// meshSizes computes eq. 1 for every edge of m from scratch (seam pairs
// averaged and counted once).
func meshSizes(t *testing.T, m *Mesh, M []dense.Mat2) []float64 {
	t.Helper()
	a, err := NewAdjacency(m)
	if err != nil {
		t.Fatal(err)
	}
	sz := func(e Edge) float64 {
		d := m.U[e.V[0]].Sub(m.U[e.V[1]])
		var s float64
		for i := 0; i < 2; i++ {
			for j := 0; j < 2; j++ {
				s += d[i] * 0.5 * (M[e.V[0]][i][j] + M[e.V[1]][i][j]) * d[j]
			}
		}
		return math.Sqrt(s)
	}
	var out []float64
	for i, e := range a.Edges {
		if e.Partner >= 0 {
			if e.Partner < int32(i) {
				continue
			}
			out = append(out, 0.5*(sz(e)+sz(a.Edges[e.Partner])))
			continue
		}
		out = append(out, sz(e))
	}
	return out
}

// boundarySegs returns the boundary edges of m as material-space segments.
func boundarySegs(t *testing.T, m *Mesh) [][2]dense.Vec2 {
	t.Helper()
	a, err := NewAdjacency(m)
	if err != nil {
		t.Fatal(err)
	}
	var s [][2]dense.Vec2
	for _, e := range a.Edges {
		if e.Boundary() {
			s = append(s, [2]dense.Vec2{m.U[e.V[0]], m.U[e.V[1]]})
		}
	}
	return s
}

func distSeg(p dense.Vec2, s [2]dense.Vec2) float64 {
	d := s[1].Sub(s[0])
	l2 := dot2(d, d)
	t := dot2(p.Sub(s[0]), d) / l2
	t = math.Max(0, math.Min(1, t))
	q := dense.Vec2{s[0][0] + t*d[0], s[0][1] + t*d[1]}
	e := p.Sub(q)
	return math.Sqrt(dot2(e, e))
}

// checkBoundary checks that the panel boundaries of nw are those of old: every
// new boundary edge lies on the old boundary (sampled at 5 points), the
// boundary lengths match, and every old boundary corner (a boundary vert whose
// two boundary edges are not collinear) is still a vert at the same place.
func checkBoundary(t *testing.T, old, nw *Mesh) {
	t.Helper()
	os, ns := boundarySegs(t, old), boundarySegs(t, nw)
	var lo, ln float64
	for _, s := range os {
		d := s[1].Sub(s[0])
		lo += math.Sqrt(dot2(d, d))
	}
	for _, s := range ns {
		d := s[1].Sub(s[0])
		ln += math.Sqrt(dot2(d, d))
		for k := 0; k <= 4; k++ {
			w := float64(k) / 4
			p := dense.Vec2{s[0][0] + w*d[0], s[0][1] + w*d[1]}
			best := math.Inf(1)
			for _, o := range os {
				best = math.Min(best, distSeg(p, o))
			}
			if best > 1e-9 {
				t.Fatalf("new boundary edge %v-%v leaves the old boundary (point %v off by %g)", s[0], s[1], p, best)
			}
		}
	}
	if math.Abs(lo-ln) > 1e-9*lo {
		t.Fatalf("boundary length changed: %v -> %v", lo, ln)
	}
	// Corners.
	for _, c := range corners(t, old) {
		found := false
		for _, u := range nw.U {
			if u == c {
				found = true
				break
			}
		}
		if !found {
			t.Fatalf("boundary corner %v lost", c)
		}
	}
}

func corners(t *testing.T, m *Mesh) []dense.Vec2 {
	t.Helper()
	a, err := NewAdjacency(m)
	if err != nil {
		t.Fatal(err)
	}
	in := make([]int32, len(m.U))
	out := make([]int32, len(m.U))
	for i := range in {
		in[i], out[i] = -1, -1
	}
	for _, e := range a.Edges {
		if e.Boundary() {
			out[e.V[0]] = e.V[1]
			in[e.V[1]] = e.V[0]
		}
	}
	var c []dense.Vec2
	for v := range m.U {
		if in[v] < 0 {
			continue
		}
		e1, e2 := m.U[in[v]].Sub(m.U[v]), m.U[out[v]].Sub(m.U[v])
		if math.Abs(cross2(e1, e2)) > 1e-9*math.Sqrt(dot2(e1, e1)*dot2(e2, e2)) || dot2(e1, e2) > 0 {
			c = append(c, m.U[v])
		}
	}
	return c
}

// checkSeam checks a seamMesh-derived mesh: every node with several verts has
// exactly one vert in each panel at the same height, on A's right side and
// B's left side; every boundary edge on those sides has a seam partner; and
// the seam's verts match one to one.
func checkSeam(t *testing.T, m *Mesh) {
	t.Helper()
	a, err := NewAdjacency(m)
	if err != nil {
		t.Fatal(err)
	}
	nA, nB := 0, 0
	for v, u := range m.U {
		onA, onB := u[0] == 1, u[0] == 2
		if onA {
			nA++
		}
		if onB {
			nB++
		}
		vs := a.VertsOf(int(m.Node[v]))
		if onA || onB {
			if len(vs) != 2 {
				t.Fatalf("seam vert %d at %v: node %d has %d verts", v, u, m.Node[v], len(vs))
			}
			p, q := m.U[vs[0]], m.U[vs[1]]
			if p[1] != q[1] || !(p[0] == 1 && q[0] == 2 || p[0] == 2 && q[0] == 1) {
				t.Fatalf("seam node %d verts at %v and %v do not match", m.Node[v], p, q)
			}
		} else if len(vs) != 1 {
			t.Fatalf("vert %d at %v off the seam shares node %d", v, u, m.Node[v])
		}
	}
	if nA != nB {
		t.Fatalf("seam sides have %d and %d verts", nA, nB)
	}
	for i, e := range a.Edges {
		u0, u1 := m.U[e.V[0]], m.U[e.V[1]]
		onSeam := (u0[0] == 1 && u1[0] == 1) || (u0[0] == 2 && u1[0] == 2)
		if onSeam != (e.Partner >= 0) {
			t.Fatalf("edge %d %v-%v: on seam %v but partner %d", i, u0, u1, onSeam, e.Partner)
		}
	}
}

// checkFacesPositive checks material-space area and world-space consistency
// of the X array.
func checkValid(t *testing.T, m *Mesh) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
}

func meshEqual(a, b *Mesh) bool {
	if len(a.X) != len(b.X) || len(a.U) != len(b.U) || len(a.F) != len(b.F) || len(a.Extra) != len(b.Extra) {
		return false
	}
	for i := range a.X {
		if a.X[i] != b.X[i] || a.V[i] != b.V[i] {
			return false
		}
	}
	for i := range a.Extra {
		if math.Float64bits(a.Extra[i]) != math.Float64bits(b.Extra[i]) {
			return false
		}
	}
	for i := range a.U {
		if a.U[i] != b.U[i] || a.Node[i] != b.Node[i] {
			return false
		}
	}
	for i := range a.F {
		if a.F[i] != b.F[i] {
			return false
		}
	}
	return true
}

func totalArea(m *Mesh) float64 {
	var s float64
	for _, t := range m.F {
		s += 0.5 * triArea2(m.U[t[0]], m.U[t[1]], m.U[t[2]])
	}
	return s
}
