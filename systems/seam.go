package systems

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// flatHingeRest returns the flat rest state of the hinge on edge (x0, x1)
// between face A = (x0, x1, x2) and face B = (x1, x0, x3), from each face's
// own material coordinates: a0, a1, a2 are x0, x1, x2 in A; b0, b1, b3 are
// x0, x1, x3 in B. Inside a panel the two faces agree on the edge (a0 = b0,
// a1 = b1) and the hinge is the four points lifted to z = 0. Across a seam
// (Narain et al. 2012 sec. 3) the faces lie in different panels' material
// frames, so B is first unfolded into A's frame: the rigid motion that takes
// B's edge midpoint to A's and B's edge direction to A's is applied to b3.
// Mixing the two frames instead would give the seam a spurious rest fold.
// The rest angle is then exactly 0 and the weight uses both faces' own areas.
func flatHingeRest(a0, a1, a2, b0, b1, b3 dense.Vec2) (elastic.HingeRest, error) {
	x3 := b3
	if a0 != b0 || a1 != b1 {
		ea, eb := a1.Sub(a0), b1.Sub(b0)
		// Rotation by the angle from eb to ea.
		c, s := ea[0]*eb[0]+ea[1]*eb[1], eb[0]*ea[1]-eb[1]*ea[0]
		if n := math.Hypot(c, s); n > 0 {
			c, s = c/n, s/n
		} else {
			c, s = 1, 0 // a degenerate edge: NewHingeRest rejects it
		}
		ma := dense.Vec2{(a0[0] + a1[0]) / 2, (a0[1] + a1[1]) / 2}
		mb := dense.Vec2{(b0[0] + b1[0]) / 2, (b0[1] + b1[1]) / 2}
		d := b3.Sub(mb)
		x3 = dense.Vec2{ma[0] + c*d[0] - s*d[1], ma[1] + s*d[0] + c*d[1]}
	}
	lift := func(u dense.Vec2) dense.Vec3 { return dense.Vec3{u[0], u[1], 0} }
	return elastic.NewHingeRest(lift(a0), lift(a1), lift(a2), lift(x3))
}

// cornerU returns the material coordinate of vertex v in a face with vertices
// f and corner coordinates u.
func cornerU(f [3]int32, u [3]dense.Vec2, v int32) dense.Vec2 {
	switch v {
	case f[0]:
		return u[0]
	case f[1]:
		return u[1]
	}
	return u[2]
}

// hingeRestFromFaces is flatHingeRest for hinge h = [x0, x1, x2, x3] whose
// faces (x0->x1 first) have vertices fa, fb and corner coordinates ua, ub.
func hingeRestFromFaces(h [4]int32, fa, fb [3]int32, ua, ub [3]dense.Vec2) (elastic.HingeRest, error) {
	return flatHingeRest(cornerU(fa, ua, h[0]), cornerU(fa, ua, h[1]), cornerU(fa, ua, h[2]),
		cornerU(fb, ub, h[0]), cornerU(fb, ub, h[1]), cornerU(fb, ub, h[3]))
}

// vertKey identifies a material-space vert: a vertex and its coordinate in a
// face. Panels do not overlap in material space (as in ARCSim's pattern
// layout), so the two sides of a seam vertex differ in U.
type vertKey struct {
	node int32
	u    dense.Vec2
}

// materialVerts returns ARCSim's verts of a body (Narain et al. 2012 sec. 3):
// the distinct (vertex, material coordinate) pairs of its face corners, with
// each vert's vertex and the faces over the verts. Verts are numbered by
// vertex, and the verts of one (seam) vertex by first appearance in face
// order, so the numbering depends only on the faces, and a body without
// seams has vert i on vertex i.
func materialVerts(faces [][3]int32, faceU [][3]dense.Vec2) (u []dense.Vec2, node []int32, uf [][3]int32) {
	index := make(map[vertKey]int32, len(faces))
	var keys []vertKey
	uf = make([][3]int32, len(faces))
	nn := int32(0)
	for fi, f := range faces {
		for k, n := range f {
			key := vertKey{n, faceU[fi][k]}
			v, ok := index[key]
			if !ok {
				v = int32(len(keys))
				index[key] = v
				keys = append(keys, key)
				nn = max(nn, n+1)
			}
			uf[fi][k] = v
		}
	}
	// Counting sort of the verts by vertex, stable.
	start := make([]int32, nn+1)
	for _, k := range keys {
		start[k.node+1]++
	}
	for i := range nn {
		start[i+1] += start[i]
	}
	perm := make([]int32, len(keys))
	u, node = make([]dense.Vec2, len(keys)), make([]int32, len(keys))
	for i, k := range keys {
		p := start[k.node]
		start[k.node]++
		perm[i] = p
		u[p], node[p] = k.u, k.node
	}
	for fi := range uf {
		for k := range 3 {
			uf[fi][k] = perm[uf[fi][k]]
		}
	}
	return u, node, uf
}

func vec2s(u []dense.Vec2) [][2]float64 {
	out := make([][2]float64, len(u))
	for i, x := range u {
		out[i] = x
	}
	return out
}
