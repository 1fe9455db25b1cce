package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Sweep is the motion over a step of the points of a rigidly moving body,
// given by their positions p in a reference frame (where a BVH was fitted
// once): x(0) = A0 p + B0 and x(1) = A1 p + B1, each point moving linearly
// between, every point within Pad of that (along each axis). A rigid pose
// is affine in p, and so is its linearised motion over a step (x0 = x1 - h
// (v + omega x (x1 - c))), so the boxes of a tree fitted at p are carried
// along by transforming them (Box) instead of refitting them.
type Sweep struct {
	A0, A1 dense.Mat3
	B0, B1 dense.Vec3
	Pad    float64

	abs0, abs1 dense.Mat3 // |A0|, |A1| elementwise (Prepare)
}

// Prepare readies s for Box after its maps are set.
func (s *Sweep) Prepare() {
	for i := range 3 {
		for j := range 3 {
			s.abs0[i][j], s.abs1[i][j] = math.Abs(s.A0[i][j]), math.Abs(s.A1[i][j])
		}
	}
}

// Box returns a box holding every point of the reference-frame box b at
// both ends of the sweep (so over the whole linear motion, which is convex
// in t), padded by Pad and margin: the image of b's centre c and half-size
// e under each map is A c + B, half-size |A| e. Prepare must have run.
func (s *Sweep) Box(b *AABB, margin float64) AABB {
	c0, c1, c2 := 0.5*(b.Lo[0]+b.Hi[0]), 0.5*(b.Lo[1]+b.Hi[1]), 0.5*(b.Lo[2]+b.Hi[2])
	e0, e1, e2 := 0.5*(b.Hi[0]-b.Lo[0]), 0.5*(b.Hi[1]-b.Lo[1]), 0.5*(b.Hi[2]-b.Lo[2])
	p := s.Pad + margin
	var out AABB
	for k := range 3 {
		a0, a1, m0, m1 := &s.A0[k], &s.A1[k], &s.abs0[k], &s.abs1[k]
		w0 := a0[0]*c0 + a0[1]*c1 + a0[2]*c2 + s.B0[k]
		w1 := a1[0]*c0 + a1[1]*c1 + a1[2]*c2 + s.B1[k]
		r0 := m0[0]*e0 + m0[1]*e1 + m0[2]*e2 + p
		r1 := m1[0]*e0 + m1[1]*e1 + m1[2]*e2 + p
		out.Lo[k], out.Hi[k] = min(w0-r0, w1-r1), max(w0+r0, w1+r1)
	}
	return out
}

// AffineFrame fits the affine map p -> A p + B that carries a body's
// reference positions p to its current ones x, from four of its vertices
// spread in all three directions (chosen once, from p).
type AffineFrame struct {
	ref [4]int32
	inv dense.Mat3 // the inverse of the matrix of columns p[ref[k]] - p[ref[0]]
	ok  bool       // false for a flat body: no affine map is determined
}

// NewAffineFrame chooses the reference vertices of the body of vertices
// verts at positions p (3 floats per vertex): the first vertex, the
// farthest from it, the farthest from their line and the farthest from the
// plane of the three. A body whose fourth vertex lies closer to that plane
// than 1e-6 times its size has no frame (Ok false).
func NewAffineFrame(p []float64, verts []int32) AffineFrame {
	var f AffineFrame
	if len(verts) < 4 {
		return f
	}
	at := func(i int32) dense.Vec3 { return dense.Vec3(p[3*i : 3*i+3]) }
	farthest := func(dist func(q dense.Vec3) float64) (int32, float64) {
		best, bd := verts[0], -1.0
		for _, v := range verts {
			if d := dist(at(v)); d > bd {
				best, bd = v, d
			}
		}
		return best, bd
	}
	o := at(verts[0])
	f.ref[0] = verts[0]
	var size float64
	f.ref[1], size = farthest(func(q dense.Vec3) float64 { return q.Sub(o).Norm() })
	u := at(f.ref[1]).Sub(o)
	f.ref[2], _ = farthest(func(q dense.Vec3) float64 { return q.Sub(o).Cross(u).Norm() })
	n := u.Cross(at(f.ref[2]).Sub(o))
	if nn := n.Norm(); nn > 0 {
		n = n.Scale(1 / nn)
	}
	var h float64
	f.ref[3], h = farthest(func(q dense.Vec3) float64 { return math.Abs(q.Sub(o).Dot(n)) })
	if !(size > 0) || !(h > 1e-6*size) {
		return f
	}
	a, b, c := u, at(f.ref[2]).Sub(o), at(f.ref[3]).Sub(o)
	det := a.Dot(b.Cross(c))
	if !(math.Abs(det) > 0) {
		return f
	}
	// The inverse of the matrix of columns a, b, c has rows b x c, c x a,
	// a x b over its determinant.
	f.inv = dense.Mat3{b.Cross(c).Scale(1 / det), c.Cross(a).Scale(1 / det), a.Cross(b).Scale(1 / det)}
	f.ok = true
	return f
}

// Ok reports whether the frame determines an affine map (the body is not
// flat).
func (f *AffineFrame) Ok() bool { return f.ok }

// Fit returns the affine map A p + B through the reference vertices' current
// positions x and the largest deviation, along an axis, of any vertex of
// verts from it (0 up to rounding for a rigid motion; NaN if x holds NaN).
func (f *AffineFrame) Fit(p, x []float64, verts []int32) (A dense.Mat3, B dense.Vec3, dev float64) {
	at := func(q []float64, i int32) dense.Vec3 { return dense.Vec3(q[3*i : 3*i+3]) }
	o := at(x, f.ref[0])
	var X dense.Mat3 // columns x[ref[k]] - x[ref[0]]
	for k := 1; k < 4; k++ {
		d := at(x, f.ref[k]).Sub(o)
		for r := range 3 {
			X[r][k-1] = d[r]
		}
	}
	A = X.Mul(f.inv)
	B = o.Sub(A.MulVec(at(p, f.ref[0])))
	// On scalars: Go keeps [3]float64 values in memory, which made the
	// vector form of this loop several times slower.
	a, b := &A, &B
	for _, v := range verts {
		i := 3 * int(v)
		q, y := p[i:i+3:i+3], x[i:i+3:i+3]
		d0 := a[0][0]*q[0] + a[0][1]*q[1] + a[0][2]*q[2] + b[0] - y[0]
		d1 := a[1][0]*q[0] + a[1][1]*q[1] + a[1][2]*q[2] + b[1] - y[1]
		d2 := a[2][0]*q[0] + a[2][1]*q[1] + a[2][2]*q[2] + b[2] - y[2]
		if math.IsNaN(d0 + d1 + d2) {
			return A, B, math.NaN()
		}
		dev = max(dev, math.Abs(d0), math.Abs(d1), math.Abs(d2))
	}
	return A, B, dev
}
