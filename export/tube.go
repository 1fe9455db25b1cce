package export

import "math"

// TubeSides is the number of vertices around a swept tube's circle.
const TubeSides = 8

// Tube returns the swept tube of radius r along the polyline pts (at least 2
// points) as a closed-sided triangle mesh (open at its ends), so viewers show
// a yarn's thickness: a circle of TubeSides vertices about each point, in the
// plane normal to the tangent there (the average of the neighbouring segments'
// directions), its frame carried from point to point by parallel transport
// (the previous frame's normal projected off the new tangent), which does not
// twist the tube.
func Tube(name string, pts [][3]float64, r float64) Mesh {
	m := Mesh{Name: name, Role: RoleRod}
	n := len(pts)
	if n < 2 {
		return m
	}
	sub := func(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
	dot := func(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
	cross := func(a, b [3]float64) [3]float64 {
		return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
	}
	unit := func(a [3]float64) ([3]float64, bool) {
		l := math.Sqrt(dot(a, a))
		if !(l > 0) {
			return a, false
		}
		return [3]float64{a[0] / l, a[1] / l, a[2] / l}, true
	}
	tangent := func(k int) [3]float64 {
		var t [3]float64
		if k > 0 {
			if d, ok := unit(sub(pts[k], pts[k-1])); ok {
				t = d
			}
		}
		if k+1 < n {
			if d, ok := unit(sub(pts[k+1], pts[k])); ok {
				t = [3]float64{t[0] + d[0], t[1] + d[1], t[2] + d[2]}
			}
		}
		if u, ok := unit(t); ok {
			return u
		}
		return [3]float64{0, 0, 1}
	}
	t := tangent(0)
	normal := [3]float64{1, 0, 0}
	if math.Abs(t[0]) > 0.9 {
		normal = [3]float64{0, 1, 0}
	}
	for k := range n {
		t = tangent(k)
		p := sub(normal, [3]float64{t[0] * dot(normal, t), t[1] * dot(normal, t), t[2] * dot(normal, t)})
		if u, ok := unit(p); ok {
			normal = u
		} else if u, ok := unit(cross(t, [3]float64{0, 0, 1})); ok {
			normal = u
		} else {
			normal = [3]float64{1, 0, 0}
		}
		b := cross(t, normal)
		for j := range TubeSides {
			a := 2 * math.Pi * float64(j) / TubeSides
			c, s := r*math.Cos(a), r*math.Sin(a)
			q := pts[k]
			m.Pos = append(m.Pos, [3]float64{q[0] + c*normal[0] + s*b[0], q[1] + c*normal[1] + s*b[1], q[2] + c*normal[2] + s*b[2]})
		}
	}
	for k := 0; k+1 < n; k++ {
		for j := range TubeSides {
			a, b := int32(k*TubeSides+j), int32(k*TubeSides+(j+1)%TubeSides)
			c, d := a+TubeSides, b+TubeSides
			m.Faces = append(m.Faces, [3]int32{a, b, d}, [3]int32{a, d, c})
		}
	}
	return m
}
