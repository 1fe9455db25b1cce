package export

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// VertexNormals returns the unit normal of every vertex: the sum of the
// (unnormalized) cross products (b-a) x (c-a) of its faces, which weights each
// face by twice its area, normalized. A vertex in no face, or whose faces
// cancel, gets +z.
func VertexNormals(pos [][3]float64, faces [][3]int32) [][3]float64 {
	n := make([]dense.Vec3, len(pos))
	for _, f := range faces {
		a, b, c := dense.Vec3(pos[f[0]]), dense.Vec3(pos[f[1]]), dense.Vec3(pos[f[2]])
		cr := b.Sub(a).Cross(c.Sub(a))
		for _, v := range f {
			n[v] = n[v].Add(cr)
		}
	}
	out := make([][3]float64, len(pos))
	for i, v := range n {
		l := v.Norm()
		if l == 0 || math.IsNaN(l) || math.IsInf(l, 0) {
			out[i] = [3]float64{0, 0, 1}
			continue
		}
		out[i] = v.Scale(1 / l)
	}
	return out
}
