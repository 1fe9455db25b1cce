package rodcontact

import (
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Crossed reports whether segments x[0]-x[1] and x[2]-x[3], moving linearly
// from x0 to x1 over the step, pass within tol of each other at a moment
// when their four end points are coplanar: the roots of the signed volume
// det[x1-x0, x2-x0, x3-x0](t), a cubic in t (Provot 1997; Bridson et al.
// 2002 sec. 6.1). Two segments that pass through each other do so at such a
// root, with distance zero there.
func Crossed(x0, x1 *[4]dense.Vec3, tol float64) bool {
	var d [4]dense.Vec3
	for i := range d {
		d[i] = x1[i].Sub(x0[i])
	}
	_, hit := geom.EdgeEdgeCCD(x0, &d, tol)
	return hit
}
