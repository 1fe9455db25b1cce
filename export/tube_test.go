package export

import (
	"math"
	"testing"
)

// TestTube checks a tube about a bent polyline: every vertex lies at the
// radius from its point, in the plane normal to the tangent there, and the
// faces wind outward (their normals point away from the axis).
func TestTube(t *testing.T) {
	pts := [][3]float64{{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {2, 2, 1}}
	r := 0.1
	m := Tube("y", pts, r)
	if len(m.Pos) != 4*TubeSides || len(m.Faces) != 3*2*TubeSides {
		t.Fatalf("%d vertices, %d faces", len(m.Pos), len(m.Faces))
	}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
	for k, p := range pts {
		for j := range TubeSides {
			v := m.Pos[k*TubeSides+j]
			d := math.Sqrt((v[0]-p[0])*(v[0]-p[0]) + (v[1]-p[1])*(v[1]-p[1]) + (v[2]-p[2])*(v[2]-p[2]))
			if math.Abs(d-r) > 1e-12 {
				t.Fatalf("point %d vertex %d at %v from the axis, want %v", k, j, d, r)
			}
		}
	}
	for _, f := range m.Faces {
		a, b, c := m.Pos[f[0]], m.Pos[f[1]], m.Pos[f[2]]
		e1 := [3]float64{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
		e2 := [3]float64{c[0] - a[0], c[1] - a[1], c[2] - a[2]}
		n := [3]float64{e1[1]*e2[2] - e1[2]*e2[1], e1[2]*e2[0] - e1[0]*e2[2], e1[0]*e2[1] - e1[1]*e2[0]}
		k := int(f[0]) / TubeSides
		out := [3]float64{a[0] - pts[k][0], a[1] - pts[k][1], a[2] - pts[k][2]}
		if n[0]*out[0]+n[1]*out[1]+n[2]*out[2] <= 0 {
			t.Fatalf("face %v winds inward", f)
		}
	}
}
