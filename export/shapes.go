package export

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Obstacle tessellation: how finely curved surfaces are cut, and the size
// of the cone drawn for a nail point (which has no size of its own).
const (
	roundSegments = 24    // around a sphere's or capsule's axis
	roundRings    = 12    // from pole to pole of a sphere (half of them per capsule cap)
	nailHeight    = 0.04  // m, the cone below a nail tip
	nailRadius    = 0.004 // m, its base radius
)

// ObstacleMesh returns a triangle mesh of the surface of shape s at its pose
// translated by offset (the components.Obstacle convention: world point =
// centre + offset + R (local - centre) when Rotated). Spheres and capsules
// are cut into roundSegments x roundRings quads, a box into its 6 faces (24
// vertices, so each face keeps its own flat normal), a nail point into a cone
// of height nailHeight below its tip along -axis, a triangle mesh into its
// current triangles, and a plane, which is infinite, into a square of
// half-size planeHalf about its point.
func ObstacleMesh(name string, s *geom.Shape, offset dense.Vec3, planeHalf float64) Mesh {
	m := Mesh{Name: name, Role: RoleObstacle}
	c := s.RotationCenter()
	place := func(local dense.Vec3) [3]float64 {
		if s.Rotated {
			return c.Add(offset).Add(s.R.MulVec(local.Sub(c)))
		}
		return local.Add(offset)
	}
	switch s.Kind {
	case geom.Sphere:
		lathe(&m, s.Center, dense.Vec3{0, 0, 1}, s.Radius, 0, place)
	case geom.Capsule:
		axis := s.B.Sub(s.A)
		l := axis.Norm()
		if l == 0 {
			axis = dense.Vec3{0, 0, 1}
		} else {
			axis = axis.Scale(1 / l)
		}
		lathe(&m, s.A.Add(s.B).Scale(0.5), axis, s.Radius, l/2, place)
	case geom.Box:
		h := s.HalfExtents
		for axis := range 3 {
			for _, sign := range []float64{-1, 1} {
				u, v := (axis+1)%3, (axis+2)%3
				var corner [4]dense.Vec3
				for k, uv := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
					var p dense.Vec3
					p[axis] = sign * h[axis]
					p[u] = uv[0] * h[u]
					p[v] = uv[1] * h[v]
					corner[k] = s.Center.Add(p)
				}
				b := int32(len(m.Pos))
				for _, p := range corner {
					m.Pos = append(m.Pos, place(p))
				}
				if sign > 0 { // counter-clockwise seen from outside
					m.Faces = append(m.Faces, [3]int32{b, b + 1, b + 2}, [3]int32{b, b + 2, b + 3})
				} else {
					m.Faces = append(m.Faces, [3]int32{b, b + 2, b + 1}, [3]int32{b, b + 3, b + 2})
				}
			}
		}
	case geom.Plane:
		t1, t2 := dense.Tangents(s.Normal)
		for _, uv := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			m.Pos = append(m.Pos, place(s.Center.Add(t1.Scale(uv[0]*planeHalf)).Add(t2.Scale(uv[1]*planeHalf))))
		}
		m.Faces = [][3]int32{{0, 1, 2}, {0, 2, 3}}
	case geom.Mesh:
		for i := 0; i+2 < len(s.Mesh.Pos); i += 3 {
			m.Pos = append(m.Pos, place(dense.Vec3(s.Mesh.Pos[i:i+3])))
		}
		for i := 0; i+2 < len(s.Mesh.Faces); i += 3 {
			f := s.Mesh.Faces[i : i+3]
			m.Faces = append(m.Faces, [3]int32{f[0], f[1], f[2]})
		}
	case geom.Point:
		t1, t2 := dense.Tangents(s.Normal)
		m.Pos = append(m.Pos, place(s.Center))
		base := s.Center.Sub(s.Normal.Scale(nailHeight))
		for k := range roundSegments {
			a := 2 * math.Pi * float64(k) / roundSegments
			m.Pos = append(m.Pos, place(base.Add(t1.Scale(nailRadius*math.Cos(a))).Add(t2.Scale(nailRadius*math.Sin(a)))))
		}
		for k := range int32(roundSegments) {
			m.Faces = append(m.Faces, [3]int32{0, 1 + k, 1 + (k+1)%roundSegments})
		}
	}
	return m
}

// lathe appends a sphere of radius r about centre, cut at its equator and
// pulled apart by halfLength along axis each way (a capsule; 0: a sphere),
// as rings of roundSegments vertices between two poles, faces
// counter-clockwise seen from outside.
func lathe(m *Mesh, centre, axis dense.Vec3, r, halfLength float64, place func(dense.Vec3) [3]float64) {
	t1, t2 := dense.Tangents(axis)
	m.Pos = append(m.Pos, place(centre.Add(axis.Scale(-halfLength-r))))
	// Rings from the -axis pole to the +axis pole; a capsule repeats the
	// equator ring on both ends of its cylinder.
	var rings []struct{ z, rho float64 }
	for i := 1; i < roundRings; i++ {
		th := math.Pi * float64(i) / roundRings // from the -axis pole
		z, rho := -r*math.Cos(th), r*math.Sin(th)
		if halfLength > 0 && 2*i == roundRings {
			rings = append(rings, struct{ z, rho float64 }{z - halfLength, rho}, struct{ z, rho float64 }{z + halfLength, rho})
			continue
		}
		if 2*i < roundRings {
			z -= halfLength
		} else {
			z += halfLength
		}
		rings = append(rings, struct{ z, rho float64 }{z, rho})
	}
	for _, ring := range rings {
		for k := range roundSegments {
			a := 2 * math.Pi * float64(k) / roundSegments
			p := centre.Add(axis.Scale(ring.z)).Add(t1.Scale(ring.rho * math.Cos(a))).Add(t2.Scale(ring.rho * math.Sin(a)))
			m.Pos = append(m.Pos, place(p))
		}
	}
	m.Pos = append(m.Pos, place(centre.Add(axis.Scale(halfLength+r))))
	top := int32(len(m.Pos) - 1)
	ring := func(i, k int) int32 { return int32(1 + i*roundSegments + (k % roundSegments)) }
	n := len(rings)
	for k := range roundSegments {
		// t1 x t2 = axis, so increasing k turns counter-clockwise about axis.
		m.Faces = append(m.Faces, [3]int32{0, ring(0, k+1), ring(0, k)})
		for i := 0; i+1 < n; i++ {
			m.Faces = append(m.Faces, [3]int32{ring(i, k), ring(i, k+1), ring(i+1, k+1)}, [3]int32{ring(i, k), ring(i+1, k+1), ring(i+1, k)})
		}
		m.Faces = append(m.Faces, [3]int32{top, ring(n-1, k), ring(n-1, k+1)})
	}
}
