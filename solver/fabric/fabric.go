package fabric

import (
	"fmt"
	"math"
	"sort"

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

// site is a point on a dense curve: segment I at fraction S.
type site struct {
	I int
	S float64
}

// raw is a crossing on the dense curves.
type raw struct {
	A, B   int
	SA, SB site
	Over   bool
}

// finish turns dense centrelines and their crossings into a Fabric: with
// meet, each pair of crossing curves is first bent out of plane so that both
// pass through the midpoint of their crossing (the shared contact point of
// SB2020 eq. 1): a curve's z is offset by dz_k at its k-th crossing and by a
// half-cosine blend of the two offsets between consecutive crossings (held
// constant beyond the first and last); then every curve is
// resampled with equal chords about spacing long, and each crossing's arc
// lengths are measured on the resampled yarns.
func finish(curves [][]dense.Vec3, names []string, xs []raw, spacing, radius float64, meet bool) (*Fabric, error) {
	at := func(y int, st site) dense.Vec3 {
		p := curves[y]
		if st.I+1 >= len(p) {
			return p[len(p)-1]
		}
		return p[st.I].Add(p[st.I+1].Sub(p[st.I]).Scale(st.S))
	}
	cumOf := func(pts []dense.Vec3) []float64 {
		c := make([]float64, len(pts))
		for i := 1; i < len(pts); i++ {
			c[i] = c[i-1] + pts[i].Sub(pts[i-1]).Norm()
		}
		return c
	}
	arc := func(cum []float64, st site) float64 {
		if st.I+1 >= len(cum) {
			return cum[len(cum)-1]
		}
		return cum[st.I] + st.S*(cum[st.I+1]-cum[st.I])
	}
	if meet {
		type bump struct{ u, dz float64 }
		bumps := make([][]bump, len(curves))
		cums := make([][]float64, len(curves))
		for y := range curves {
			cums[y] = cumOf(curves[y])
		}
		for _, x := range xs {
			za, zb := at(x.A, x.SA)[2], at(x.B, x.SB)[2]
			m := 0.5 * (za + zb)
			bumps[x.A] = append(bumps[x.A], bump{arc(cums[x.A], x.SA), m - za})
			bumps[x.B] = append(bumps[x.B], bump{arc(cums[x.B], x.SB), m - zb})
		}
		for y, bs := range bumps {
			if len(bs) == 0 {
				continue
			}
			sort.Slice(bs, func(i, j int) bool { return bs[i].u < bs[j].u })
			for k := 1; k < len(bs); k++ {
				if !(bs[k].u > bs[k-1].u) {
					return nil, fmt.Errorf("yarn %s: two crossings at one point (arc length %v)", names[y], bs[k].u)
				}
			}
			k := 0
			for i, u := range cums[y] {
				for k+1 < len(bs) && bs[k+1].u <= u {
					k++
				}
				dz := bs[k].dz
				if u > bs[k].u && k+1 < len(bs) {
					f := (u - bs[k].u) / (bs[k+1].u - bs[k].u)
					dz += (bs[k+1].dz - bs[k].dz) * (1 - math.Cos(math.Pi*f)) / 2
				}
				curves[y][i][2] += dz
			}
		}
	}
	f := &Fabric{Names: names, Radius: radius}
	for y, pts := range curves {
		n := max(2, int(math.Round(ArcLength(pts)/spacing))+1)
		r, err := Resample(pts, n)
		if err != nil {
			return nil, fmt.Errorf("yarn %s: %w", names[y], err)
		}
		f.Yarns = append(f.Yarns, r)
	}
	for _, x := range xs {
		f.Crossings = append(f.Crossings, Crossing{A: x.A, B: x.B, Over: x.Over,
			UA: project(f.Yarns[x.A], at(x.A, x.SA)), UB: project(f.Yarns[x.B], at(x.B, x.SB))})
	}
	return f, nil
}

// project returns the arc length along the polyline pts of the point of pts
// closest to x.
func project(pts []dense.Vec3, x dense.Vec3) float64 {
	best, bu, u := math.Inf(1), 0.0, 0.0
	for i := 0; i+1 < len(pts); i++ {
		e := pts[i+1].Sub(pts[i])
		l := e.Norm()
		t := math.Max(0, math.Min(1, x.Sub(pts[i]).Dot(e)/(l*l)))
		if d := pts[i].Add(e.Scale(t)).Sub(x).Norm(); d < best {
			best, bu = d, u+t*l
		}
		u += l
	}
	return bu
}

// planeCrossings returns the crossings of the curves' projections onto the
// fabric plane (z = 0) between the pairs of curves that pair allows, Over from
// the curves' z there. Segments are bucketed in a grid of cell size cell, so
// the search costs about the number of segments, not its square.
func planeCrossings(curves [][]dense.Vec3, cell float64, pair func(a, b int) bool) []raw {
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
	var out []raw
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
						out = append(out, raw{A: a, B: b, SA: site{i, s}, SB: site{j, t}, Over: za > zb})
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
