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

// Resample returns n >= 2 points along the polyline pts, from its first
// point to its last, with equal chords between consecutive points (so a rod
// with these nodes and uniform rest spacing is unstretched): each point is
// where a sphere of radius d about the previous one first leaves the
// polyline, d found by bisection so that the last lands on pts' end.
func Resample(pts []dense.Vec3, n int) ([]dense.Vec3, error) {
	if len(pts) < 2 {
		return nil, fmt.Errorf("a polyline needs at least 2 points, got %d", len(pts))
	}
	if n < 2 {
		return nil, fmt.Errorf("resampling needs at least 2 nodes, got %d", n)
	}
	total := ArcLength(pts)
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, fmt.Errorf("the polyline has length %v", total)
	}
	out := make([]dense.Vec3, n)
	// walk places n-1 chords of length d and returns how far along the
	// polyline (in arc length) the last point is, or +Inf when the walk runs
	// off the end early.
	walk := func(d float64) float64 {
		out[0] = pts[0]
		seg, s := 0, 0.0 // current point lies on segment seg at fraction s
		for k := 1; k < n; k++ {
			c := out[k-1]
			found := false
			for ; seg+1 < len(pts); seg, s = seg+1, 0 {
				a, b := pts[seg], pts[seg+1]
				e := b.Sub(a)
				ee := e.Dot(e)
				if ee == 0 {
					continue
				}
				// |a + t e - c| = d for the largest t in [s, 1].
				f := a.Sub(c)
				B, C := e.Dot(f), f.Dot(f)-d*d
				disc := B*B - ee*C
				if disc < 0 {
					continue
				}
				t := (-B + math.Sqrt(disc)) / ee
				if t >= s && t <= 1 {
					out[k], s, found = a.Add(e.Scale(t)), t, true
					break
				}
			}
			if !found {
				return math.Inf(1)
			}
		}
		along := 0.0
		for i := 0; i < seg; i++ {
			along += pts[i+1].Sub(pts[i]).Norm()
		}
		return along + s*pts[seg+1].Sub(pts[seg]).Norm()
	}
	lo, hi := 0.0, total/float64(n-1)
	for range 100 {
		mid := 0.5 * (lo + hi)
		if mid == lo {
			break // lo and hi adjacent: no later halving would move lo
		}
		atHi := mid == hi
		if walk(mid) < total {
			lo = mid
		} else {
			hi = mid
		}
		if atHi {
			break // the same halving would repeat
		}
	}
	walk(lo)
	out[n-1] = pts[len(pts)-1]
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
