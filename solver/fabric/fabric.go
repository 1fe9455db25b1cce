package fabric

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// Fabric is a built patch: its yarns, evenly spaced in arc length, and the
// persistent crossings of its pattern.
type Fabric struct {
	Yarns     [][]dense.Vec3 // node positions of each yarn, evenly spaced in arc length
	Names     []string       // each yarn's name within the fabric ("warp3", "weft0", "course2")
	Crossings []Crossing
	Radius    float64 // yarn radius (m)
}

// Crossing is a persistent yarn-yarn contact of the pattern: yarn A at arc
// length UA on yarn B at arc length UB (both interior). Over says whether A
// passes over B (on the +z side of the fabric).
type Crossing struct {
	A, B   int
	UA, UB float64
	Over   bool
}

// Length returns yarn y's arc length.
func (f *Fabric) Length(y int) float64 { return ArcLength(f.Yarns[y]) }

// resampled returns each dense centreline resampled to nodes spaced about
// spacing apart, and each dense curve's cumulative arc length.
func resampled(curves [][]dense.Vec3, names []string, spacing float64) (yarns [][]dense.Vec3, cum [][]float64, err error) {
	cum = make([][]float64, len(curves))
	for y, pts := range curves {
		cum[y] = make([]float64, len(pts))
		for i := 1; i < len(pts); i++ {
			cum[y][i] = cum[y][i-1] + pts[i].Sub(pts[i-1]).Norm()
		}
		L := cum[y][len(pts)-1]
		n := max(2, int(math.Round(L/spacing))+1)
		r, err := Resample(pts, n)
		if err != nil {
			return nil, nil, fmt.Errorf("yarn %s: %w", names[y], err)
		}
		yarns = append(yarns, r)
	}
	return yarns, cum, nil
}

// planeCrossings returns the crossings of the curves' projections onto the
// fabric plane (z = 0) between the pairs of curves that pair allows, with arc
// lengths from cum and Over from the curves' z there. Segments are bucketed
// in a grid of cell size cell, so the search costs about the number of
// segments, not its square.
func planeCrossings(curves [][]dense.Vec3, cum [][]float64, cell float64, pair func(a, b int) bool) []Crossing {
	type seg struct{ y, i int }
	grid := map[[2]int][]seg{}
	cellOf := func(p dense.Vec3) [2]int {
		return [2]int{int(math.Floor(p[0] / cell)), int(math.Floor(p[1] / cell))}
	}
	for y, pts := range curves {
		for i := 0; i+1 < len(pts); i++ {
			lo, hi := cellOf(pts[i]), cellOf(pts[i+1])
			for cx := min(lo[0], hi[0]); cx <= max(lo[0], hi[0]); cx++ {
				for cy := min(lo[1], hi[1]); cy <= max(lo[1], hi[1]); cy++ {
					grid[[2]int{cx, cy}] = append(grid[[2]int{cx, cy}], seg{y, i})
				}
			}
		}
	}
	var out []Crossing
	seen := map[[4]int]bool{}
	for a, pa := range curves {
		for i := 0; i+1 < len(pa); i++ {
			lo, hi := cellOf(pa[i]), cellOf(pa[i+1])
			for cx := min(lo[0], hi[0]); cx <= max(lo[0], hi[0]); cx++ {
				for cy := min(lo[1], hi[1]); cy <= max(lo[1], hi[1]); cy++ {
					for _, sg := range grid[[2]int{cx, cy}] {
						b, j := sg.y, sg.i
						if b <= a || !pair(a, b) || seen[[4]int{a, i, b, j}] {
							continue
						}
						seen[[4]int{a, i, b, j}] = true
						pb := curves[b]
						s, t, ok := intersect2D(pa[i], pa[i+1], pb[j], pb[j+1])
						if !ok {
							continue
						}
						za := pa[i][2] + s*(pa[i+1][2]-pa[i][2])
						zb := pb[j][2] + t*(pb[j+1][2]-pb[j][2])
						out = append(out, Crossing{A: a, B: b,
							UA: cum[a][i] + s*(cum[a][i+1]-cum[a][i]), UB: cum[b][j] + t*(cum[b][j+1]-cum[b][j]), Over: za > zb})
					}
				}
			}
		}
	}
	return out
}

// intersect2D returns the parameters s, t in [0, 1) at which segments p0-p1
// and q0-q1 cross in the xy plane; half-open so that a crossing exactly at a
// shared vertex of two consecutive segments counts once.
func intersect2D(p0, p1, q0, q1 dense.Vec3) (s, t float64, ok bool) {
	dx, dy := p1[0]-p0[0], p1[1]-p0[1]
	ex, ey := q1[0]-q0[0], q1[1]-q0[1]
	den := dx*ey - dy*ex
	if den == 0 {
		return 0, 0, false
	}
	wx, wy := q0[0]-p0[0], q0[1]-p0[1]
	s = (wx*ey - wy*ex) / den
	t = (wx*dy - wy*dx) / den
	return s, t, s >= 0 && s < 1 && t >= 0 && t < 1
}

// MinSeparation returns the smallest distance between segments of two
// different yarns, and between segments of one yarn more than skip segments
// apart (a brute-force check, sharing no code with the builders' crossing
// search).
func MinSeparation(yarns [][]dense.Vec3, skip int) float64 {
	best := math.Inf(1)
	for a := range yarns {
		for b := a; b < len(yarns); b++ {
			pa, pb := yarns[a], yarns[b]
			for i := 0; i+1 < len(pa); i++ {
				j0 := 0
				if a == b {
					j0 = i + skip + 1
				}
				for j := j0; j+1 < len(pb); j++ {
					_, _, d := geom.SegmentClosest(pa[i], pa[i+1], pb[j], pb[j+1])
					best = math.Min(best, d)
				}
			}
		}
	}
	return best
}
