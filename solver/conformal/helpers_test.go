package conformal

import (
	"math"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/remesh"
)

// velField and extraField are linear in U, so that linear interpolation
// reproduces them exactly at every created node.
func velField(u dense.Vec2) dense.Vec3 { return dense.Vec3{0.3 + u[1], -2 * u[0], u[0] + 0.5*u[1]} }

func extraField(u dense.Vec2) [2]float64 { return [2]float64{u[0] - u[1], 0.25 + 3*u[1]} }

// grid is an n x n cell grid over the unit square in material space, with
// diagonals (i,j)-(i+1,j+1); the world position is the material one lifted
// by a gentle slope (X = (u, v, 0.1 u)), velocity and Extra linear fields.
func grid(n int) *remesh.Mesh {
	m := &remesh.Mesh{NExtra: 2}
	id := func(i, j int) int32 { return int32(j*(n+1) + i) }
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			u := dense.Vec2{float64(i) / float64(n), float64(j) / float64(n)}
			m.U = append(m.U, u)
			m.Node = append(m.Node, int32(len(m.X)))
			m.X = append(m.X, dense.Vec3{u[0], u[1], 0.1 * u[0]})
			m.V = append(m.V, velField(u))
			e := extraField(u)
			m.Extra = append(m.Extra, e[0], e[1])
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			a, b, c, d := id(i, j), id(i+1, j), id(i+1, j+1), id(i, j+1)
			m.F = append(m.F, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	return m
}

func noFeatures(nn int) Features {
	f := Features{Feature: make([]int32, nn), T: make([]float64, nn)}
	for i := range f.Feature {
		f.Feature[i] = -1
	}
	return f
}

func worldAt(u dense.Vec2) dense.Vec3 { return dense.Vec3{u[0], u[1], 0.1 * u[0]} }

// lineHits intersects the material-space line p + s d (|d| = 1) with every
// edge of m and returns an edge hit per crossing, with T = s and X the
// world point there; the line must not pass through a vert.
func lineHits(m *remesh.Mesh, p, d dense.Vec2, feature int32) []Hit {
	var hits []Hit
	nrm := dense.Vec2{-d[1], d[0]}
	side := func(u dense.Vec2) float64 { return dot2(u.Sub(p), nrm) }
	seen := map[[2]int32]bool{}
	for _, t := range m.F {
		for k := 0; k < 3; k++ {
			a, b := t[k], t[(k+1)%3]
			key := [2]int32{min(a, b), max(a, b)}
			if seen[key] {
				continue
			}
			seen[key] = true
			sa, sb := side(m.U[a]), side(m.U[b])
			if !(sa*sb < 0) {
				continue
			}
			s := sa / (sa - sb)
			u := lerp2(m.U[a], m.U[b], s)
			hits = append(hits, Hit{A: m.Node[a], B: m.Node[b], S: s, Face: -1, X: worldAt(u), Feature: feature, T: dot2(u.Sub(p), d)})
		}
	}
	return hits
}

// checkMesh checks validity, the velocity transfer and the maps of a
// Preprocess result. With linear, when U was not moved since the fields were
// set, V and Extra must equal the linear fields at every node.
func checkMesh(t *testing.T, in, out *remesh.Mesh, res Result, linear bool) {
	t.Helper()
	if err := out.Validate(); err != nil {
		t.Fatalf("output mesh invalid: %v", err)
	}
	nn := len(out.X)
	if len(res.Feature) != nn || len(res.T) != nn || len(res.Point) != nn || len(res.NodeOld) != nn || len(res.SrcStart) != nn+1 {
		t.Fatalf("result lengths: Feature %d T %d Point %d NodeOld %d SrcStart %d, want %d nodes", len(res.Feature), len(res.T), len(res.Point), len(res.NodeOld), len(res.SrcStart), nn)
	}
	if len(out.U) != nn {
		t.Fatalf("%d verts on %d nodes", len(out.U), nn)
	}
	if (in.Locked == nil) != (out.Locked == nil) {
		t.Fatalf("Locked presence changed")
	}
	for i := 0; i < nn; i++ {
		// Sources reproduce V and Extra.
		var v dense.Vec3
		var e [2]float64
		var ws float64
		for _, s := range res.Sources(i) {
			v = v.Add(in.V[s.Node].Scale(s.W))
			e[0] += s.W * in.Extra[2*s.Node]
			e[1] += s.W * in.Extra[2*s.Node+1]
			ws += s.W
		}
		if math.Abs(ws-1) > 1e-12 || v.Sub(out.V[i]).Norm() > 1e-12 || math.Abs(e[0]-out.Extra[2*i]) > 1e-12 || math.Abs(e[1]-out.Extra[2*i+1]) > 1e-12 {
			t.Fatalf("node %d: sources %v (sum %v) give V %v Extra %v, node has %v %v", i, res.Sources(i), ws, v, e, out.V[i], out.Extra[2*i:2*i+2])
		}
		if o := res.NodeOld[i]; o >= 0 {
			if out.V[i] != in.V[o] || out.Extra[2*i] != in.Extra[2*o] || out.Extra[2*i+1] != in.Extra[2*o+1] {
				t.Fatalf("surviving node %d (input %d) changed V/Extra", i, o)
			}
			if in.Locked != nil && out.Locked[i] != in.Locked[o] {
				t.Fatalf("surviving node %d (input %d) changed Locked", i, o)
			}
		}
		if res.Feature[i] < 0 && res.Point[i] {
			t.Fatalf("node %d: Point without Feature", i)
		}
	}
	for v := range out.U {
		if o := res.VertOld[v]; o >= 0 && out.U[v] != in.U[o] {
			t.Fatalf("surviving vert %d (input %d) moved in U", v, o)
		}
		if linear {
			n := out.Node[v]
			wv := velField(out.U[v])
			we := extraField(out.U[v])
			if wv.Sub(out.V[n]).Norm() > 1e-12 || math.Abs(we[0]-out.Extra[2*n]) > 1e-12 || math.Abs(we[1]-out.Extra[2*n+1]) > 1e-12 {
				t.Fatalf("node %d at U %v: V %v Extra %v, linear field gives %v %v", n, out.U[v], out.V[n], out.Extra[2*n:2*n+2], wv, we)
			}
		}
	}
	for f, o := range res.FaceOld {
		if o < 0 {
			continue
		}
		for k := 0; k < 3; k++ {
			if res.VertOld[out.F[f][k]] != in.F[o][k] {
				t.Fatalf("face %d = %v maps to input face %d = %v", f, out.F[f], o, in.F[o])
			}
		}
	}
}

// chainOf returns the nodes of feature f sorted by T.
func chainOf(out *remesh.Mesh, res Result, f int32) []int32 {
	var c []int32
	for i, g := range res.Feature {
		if g == f {
			c = append(c, int32(i))
		}
	}
	slices.SortStableFunc(c, func(a, b int32) int {
		switch {
		case res.T[a] < res.T[b]:
			return -1
		case res.T[a] > res.T[b]:
			return 1
		}
		return int(a - b)
	})
	return c
}

type edgeSet map[[2]int32]int

// meshEdges maps each node pair (low, high) to its number of faces.
func meshEdges(m *remesh.Mesh) edgeSet {
	es := edgeSet{}
	for _, t := range m.F {
		for k := 0; k < 3; k++ {
			a, b := m.Node[t[k]], m.Node[t[(k+1)%3]]
			es[[2]int32{min(a, b), max(a, b)}]++
		}
	}
	return es
}

func (es edgeSet) has(a, b int32) bool { return es[[2]int32{min(a, b), max(a, b)}] > 0 }

// border reports, per node, whether it is on a border edge.
func borderNodes(m *remesh.Mesh) []bool {
	es := meshEdges(m)
	b := make([]bool, len(m.X))
	for k, c := range es {
		if c == 1 {
			b[k[0]], b[k[1]] = true, true
		}
	}
	return b
}

// checkChain checks that consecutive nodes of feature f share an edge and,
// with ends, that the first and last are on the border.
func checkChain(t *testing.T, out *remesh.Mesh, res Result, f int32, ends bool) []int32 {
	t.Helper()
	c := chainOf(out, res, f)
	if len(c) < 2 {
		t.Fatalf("feature %d has %d nodes", f, len(c))
	}
	es := meshEdges(out)
	for i := 0; i+1 < len(c); i++ {
		if !es.has(c[i], c[i+1]) {
			t.Fatalf("feature %d: consecutive nodes %d (U %v, T %v) and %d (U %v, T %v) share no edge", f, c[i], out.U[c[i]], res.T[c[i]], c[i+1], out.U[c[i+1]], res.T[c[i+1]])
		}
	}
	if ends {
		bn := borderNodes(out)
		if !bn[c[0]] || !bn[c[len(c)-1]] {
			t.Fatalf("feature %d: chain ends %d (U %v) and %d (U %v) not both on the border", f, c[0], out.U[c[0]], c[len(c)-1], out.U[c[len(c)-1]])
		}
	}
	return c
}

// shapeStats describes the faces touching a conformal node.
type shapeStats struct {
	amin     float64 // smallest material angle, degrees
	nIll     int     // faces with an angle below MinAngle
	nShort   int     // edges touching a conformal node below MinEdge, ends not both on the border
	lmin     float64 // the shortest such edge
	aminNear float64 // smallest angle over the faces that are not trailing
	// nTrail counts the ill faces that are trailing: all their
	// non-conformal verts lie behind the chain, which slid away from them
	// and stretched them (refining them is the remesher's work; the paper's
	// split of a conformal edge would halve their small angle).
	nTrail int
}

// shape measures the faces touching a conformal node; behind (nil: none)
// says whether a material point lies behind a sliding chain.
func shape(out *remesh.Mesh, res Result, minAng, minEdge float64, behind func(dense.Vec2) bool) shapeStats {
	st := shapeStats{amin: 180, aminNear: 180, lmin: math.Inf(1)}
	bn := borderNodes(out)
	seen := map[[2]int32]bool{}
	for _, t := range out.F {
		conf := false
		for _, v := range t {
			if res.Feature[out.Node[v]] >= 0 {
				conf = true
			}
		}
		if !conf {
			continue
		}
		var ang [3]float64
		k0 := 0
		for k := 0; k < 3; k++ {
			ang[k] = angleAt(out.U[t[k]], out.U[t[(k+1)%3]], out.U[t[(k+2)%3]]) * 180 / math.Pi
			if ang[k] < ang[k0] {
				k0 = k
			}
		}
		a := ang[k0]
		st.amin = min(st.amin, a)
		trail := behind != nil
		for _, v := range t {
			if res.Feature[out.Node[v]] < 0 && trail {
				trail = behind(out.U[v])
			}
		}
		if a < minAng*180/math.Pi {
			st.nIll++
			if trail {
				st.nTrail++
			}
		}
		if !trail {
			st.aminNear = min(st.aminNear, a)
		}
		for k := 0; k < 3; k++ {
			p, q := out.Node[t[k]], out.Node[t[(k+1)%3]]
			key := [2]int32{min(p, q), max(p, q)}
			if seen[key] || (res.Feature[p] < 0 && res.Feature[q] < 0) {
				continue
			}
			seen[key] = true
			if l := dist2(out.U[t[k]], out.U[t[(k+1)%3]]); l < minEdge && !(bn[p] && bn[q]) {
				st.nShort++
				st.lmin = min(st.lmin, l)
			}
		}
	}
	return st
}
