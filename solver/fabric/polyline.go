package fabric

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// ArcLength returns the length of the polyline pts.
func ArcLength(pts []dense.Vec3) float64 {
	l := 0.0
	for i := 1; i < len(pts); i++ {
		l += pts[i].Sub(pts[i-1]).Norm()
	}
	return l
}

// Resample returns n >= 2 points evenly spaced in arc length along the
// polyline pts (the first and last points kept exactly).
func Resample(pts []dense.Vec3, n int) ([]dense.Vec3, error) {
	if len(pts) < 2 {
		return nil, fmt.Errorf("a polyline needs at least 2 points, got %d", len(pts))
	}
	if n < 2 {
		return nil, fmt.Errorf("resampling needs at least 2 nodes, got %d", n)
	}
	cum := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		cum[i] = cum[i-1] + pts[i].Sub(pts[i-1]).Norm()
	}
	total := cum[len(pts)-1]
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("the polyline has length %v", total)
	}
	out := make([]dense.Vec3, n)
	out[0], out[n-1] = pts[0], pts[len(pts)-1]
	seg := 0
	for k := 1; k < n-1; k++ {
		s := total * float64(k) / float64(n-1)
		for seg+2 < len(pts) && cum[seg+1] < s {
			seg++
		}
		t := 0.0
		if d := cum[seg+1] - cum[seg]; d > 0 {
			t = (s - cum[seg]) / d
		}
		out[k] = pts[seg].Add(pts[seg+1].Sub(pts[seg]).Scale(t))
	}
	return out, nil
}

// CatmullRom returns the centripetal-free (uniform) Catmull-Rom spline through
// pts, sampled with per points per span (the end tangents by reflecting the
// second and second-to-last points), ending exactly on the last point.
func CatmullRom(pts []dense.Vec3, per int) []dense.Vec3 {
	n := len(pts)
	if n < 3 || per < 1 {
		return append([]dense.Vec3(nil), pts...)
	}
	at := func(i int) dense.Vec3 {
		switch {
		case i < 0:
			return pts[0].Scale(2).Sub(pts[1])
		case i >= n:
			return pts[n-1].Scale(2).Sub(pts[n-2])
		}
		return pts[i]
	}
	out := make([]dense.Vec3, 0, (n-1)*per+1)
	for i := 0; i+1 < n; i++ {
		p0, p1, p2, p3 := at(i-1), at(i), at(i+1), at(i+2)
		for k := 0; k < per; k++ {
			t := float64(k) / float64(per)
			t2, t3 := t*t, t*t*t
			var q dense.Vec3
			for c := 0; c < 3; c++ {
				q[c] = 0.5 * (2*p1[c] + (-p0[c]+p2[c])*t + (2*p0[c]-5*p1[c]+4*p2[c]-p3[c])*t2 + (-p0[c]+3*p1[c]-3*p2[c]+p3[c])*t3)
			}
			out = append(out, q)
		}
	}
	return append(out, pts[n-1])
}
