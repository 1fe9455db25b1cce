package geom

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// ShapeMesh triangulates the surface of an obstacle shape in its initial,
// unturned pose (the frame of Shape's data; a caller places a vertex p at
// RotationCenter + offset + R (p - RotationCenter) when the shape is
// Rotated, at p + offset otherwise), for collision tests against an
// obstacle's edges and corners: a box exactly (its 8 corners, 12 triangles,
// outward), a sphere or capsule with every vertex on its surface, so the
// triangles lie inside it by at most maxErr (the chordal error, also
// returned). Planes and nail points have no edges or corners to mesh: ok is
// false.
//
// A round shape is meshed in rings about its axis (a capsule's segment; z
// for a sphere): n vertices a ring, poles closed by fans. Each triangle's
// vertices lie on the surface within an angle 2 pi / n of each other along
// both the rings and the meridians, so the triangle lies within r (1 -
// cos(pi sqrt(2) / n)) of the surface, and n is the smallest multiple of 4
// that brings this below maxErr (at most 256).
func ShapeMesh(s *Shape, maxErr float64) (pos []dense.Vec3, faces []int32, err float64, ok bool) {
	switch s.Kind {
	case Box:
		c, h := s.Center, s.HalfExtents
		for i := range 8 {
			p := c
			for k := range 3 {
				if i>>k&1 == 1 {
					p[k] += h[k]
				} else {
					p[k] -= h[k]
				}
			}
			pos = append(pos, p)
		}
		// Two triangles per face, wound outward: corner i has bit k set
		// when it is on the + side of axis k.
		faces = []int32{
			0, 2, 3, 0, 3, 1, // -z
			4, 5, 7, 4, 7, 6, // +z
			0, 1, 5, 0, 5, 4, // -y
			2, 6, 7, 2, 7, 3, // +y
			0, 4, 6, 0, 6, 2, // -x
			1, 3, 7, 1, 7, 5, // +x
		}
		return pos, faces, 0, true
	case Sphere:
		pos, faces, err = roundMesh(s.Center, s.Center, s.Radius, maxErr)
		return pos, faces, err, true
	case Capsule:
		pos, faces, err = roundMesh(s.A, s.B, s.Radius, maxErr)
		return pos, faces, err, true
	}
	return nil, nil, 0, false
}

// roundMesh meshes the capsule of segment a b and radius r (a sphere when a
// == b) as ShapeMesh describes.
func roundMesh(a, b dense.Vec3, r, maxErr float64) ([]dense.Vec3, []int32, float64) {
	n := 4
	chord := func(n int) float64 { return r * (1 - math.Cos(math.Pi*math.Sqrt2/float64(n))) }
	for n < 256 && !(chord(n) <= maxErr) {
		n += 4
	}
	axis := b.Sub(a)
	if l := axis.Norm(); l > 0 {
		axis = axis.Scale(1 / l)
	} else {
		axis = dense.Vec3{0, 0, 1}
	}
	// u, w: unit vectors perpendicular to axis.
	u := dense.Vec3{1, 0, 0}
	if math.Abs(axis[0]) > 0.9 {
		u = dense.Vec3{0, 1, 0}
	}
	u = u.Sub(axis.Scale(u.Dot(axis)))
	u = u.Scale(1 / u.Norm())
	w := axis.Cross(u)
	// Rings from b's pole to a's: latitude angles 0 (equator) to pi/2 (pole)
	// in n/4 steps on each cap; the cylinder between the two equators.
	var pos []dense.Vec3
	pos = append(pos, b.Add(axis.Scale(r)))
	ring := func(c dense.Vec3, lat float64, sign float64) {
		for j := range n {
			phi := 2 * math.Pi * float64(j) / float64(n)
			d := u.Scale(math.Cos(phi)).Add(w.Scale(math.Sin(phi))).Scale(r * math.Cos(lat))
			pos = append(pos, c.Add(d).Add(axis.Scale(sign*r*math.Sin(lat))))
		}
	}
	q := n / 4
	rings := 0
	for i := q - 1; i >= 0; i-- { // b's cap, pole side first
		ring(b, math.Pi/2*float64(i)/float64(q), 1)
		rings++
	}
	first := 1
	if a != b {
		ring(a, 0, -1)
		rings++
	}
	for i := 1; i < q; i++ { // a's cap
		ring(a, math.Pi/2*float64(i)/float64(q), -1)
		rings++
	}
	pos = append(pos, a.Sub(axis.Scale(r)))
	last := int32(len(pos) - 1)
	at := func(k, j int) int32 { return int32(first + k*n + (j % n)) }
	var faces []int32
	for j := range n {
		faces = append(faces, 0, at(0, j), at(0, j+1))
	}
	for k := 0; k+1 < rings; k++ {
		for j := range n {
			faces = append(faces, at(k, j), at(k+1, j), at(k+1, j+1), at(k, j), at(k+1, j+1), at(k, j+1))
		}
	}
	for j := range n {
		faces = append(faces, last, at(rings-1, j+1), at(rings-1, j))
	}
	return pos, faces, chord(n)
}
