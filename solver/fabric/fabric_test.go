package fabric

import (
	"fmt"
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestWeavePatterns checks the over/under rule of each weave against its
// definition counted directly: a twill N/M warp is over N of every N+M
// consecutive wefts and the float shifts by one weft per warp; a satin warp
// is under exactly one weft of N; plain alternates; basket N in N x N blocks.
func TestWeavePatterns(t *testing.T) {
	tw, err := ParseWeave("twill 2/1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		for j0 := 0; j0 < 9; j0++ {
			over := 0
			for j := j0; j < j0+3; j++ {
				if tw.WarpOver(i, j) {
					over++
				}
			}
			if over != 2 {
				t.Fatalf("twill 2/1: warp %d over %d of wefts %d..%d, want 2", i, over, j0, j0+2)
			}
			if tw.WarpOver(i, j0) != tw.WarpOver(i+1, j0+1) {
				t.Fatalf("twill 2/1: no diagonal at warp %d weft %d", i, j0)
			}
		}
	}
	sat, err := ParseWeave("satin 5")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		under := 0
		for j := 0; j < 5; j++ {
			if !sat.WarpOver(i, j) {
				under++
			}
		}
		if under != 1 {
			t.Fatalf("satin 5: warp %d under %d of 5 wefts, want 1", i, under)
		}
	}
	pl, _ := ParseWeave("plain")
	bk, _ := ParseWeave("basket 2")
	for i := 0; i < 8; i++ {
		for j := 0; j < 8; j++ {
			if pl.WarpOver(i, j) == pl.WarpOver(i, j+1) || pl.WarpOver(i, j) == pl.WarpOver(i+1, j) {
				t.Fatalf("plain does not alternate at %d,%d", i, j)
			}
			if bk.WarpOver(i, j) != bk.WarpOver(i/2*2, j/2*2) || bk.WarpOver(i, j) == bk.WarpOver(i+2, j) {
				t.Fatalf("basket 2 is not 2x2 blocks at %d,%d", i, j)
			}
		}
	}
	for _, bad := range []string{"", "twill", "twill 2", "twill 0/1", "satin 4", "satin 5/1", "weird", "plain 2", "basket x"} {
		if _, err := ParseWeave(bad); err == nil {
			t.Errorf("ParseWeave(%q) accepted", bad)
		}
	}
}

// TestWovenCrossings builds a twill 2/1 patch and checks: one crossing per
// warp-weft pair, at the two yarns' common point in the plane, with the warp on
// top exactly where the pattern says; the crossing points on the resampled
// yarns (found by arc length) lie over each other; and, at crimp 1, that no
// two yarns come closer than the sum of their radii.
func TestWovenCrossings(t *testing.T) {
	tw, _ := ParseWeave("twill 2/1")
	p := WovenParams{Weave: tw, Warps: 6, Wefts: 5, Spacing: 1, Radius: 0.05, Crimp: 1, NodeSpacing: 0.125}
	f, err := Woven(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Yarns) != 11 || len(f.Crossings) != 30 {
		t.Fatalf("%d yarns, %d crossings; want 11, 30", len(f.Yarns), len(f.Crossings))
	}
	seen := map[[2]int]bool{}
	for _, c := range f.Crossings {
		i, j := c.A, c.B-p.Warps
		if c.A >= p.Warps || j < 0 || seen[[2]int{i, j}] {
			t.Fatalf("crossing %+v is not a new warp-weft pair", c)
		}
		seen[[2]int{i, j}] = true
		if c.Over != tw.WarpOver(i, j) {
			t.Fatalf("warp %d weft %d: over %v, pattern says %v", i, j, c.Over, tw.WarpOver(i, j))
		}
		pa, pb := pointAt(f.Yarns[c.A], c.UA), pointAt(f.Yarns[c.B], c.UB)
		want := dense.Vec3{(float64(i) + 0.5) * p.Spacing, (float64(j) + 0.5) * p.Spacing}
		if math.Hypot(pa[0]-want[0], pa[1]-want[1]) > 0.02 || math.Hypot(pb[0]-want[0], pb[1]-want[1]) > 0.02 {
			t.Fatalf("warp %d weft %d: crossing at %v and %v, want over %v", i, j, pa, pb, want)
		}
		if (pa[2] > pb[2]) != c.Over || pa[2]-pb[2] == 0 {
			t.Fatalf("warp %d weft %d: z %v vs %v but over = %v", i, j, pa[2], pb[2], c.Over)
		}
	}
	// The dense centrelines touch at crossings (2 Crimp Radius apart); the
	// rod polylines are their chords, each sagging by at most kappa ds^2/8,
	// kappa = h pi^2/s^2 the crimp's largest curvature.
	h := p.Crimp * p.Radius
	sag := h * math.Pi * math.Pi / (p.Spacing * p.Spacing) * p.NodeSpacing * p.NodeSpacing / 8
	if d := MinSeparation(f.Yarns, 2); d < 2*p.Radius-2*sag {
		t.Fatalf("yarns %v apart at build, under the sum of radii %v less the chords' sag %v", d, 2*p.Radius, 2*sag)
	}
}

// pointAt returns the point at arc length u along a polyline.
func pointAt(pts []dense.Vec3, u float64) dense.Vec3 {
	for i := 0; i+1 < len(pts); i++ {
		l := pts[i+1].Sub(pts[i]).Norm()
		if u <= l || i+2 == len(pts) {
			return pts[i].Add(pts[i+1].Sub(pts[i]).Scale(u / l))
		}
		u -= l
	}
	return pts[0]
}

// TestKnitInterlock checks stockinette, garter, 1x1 and 2x2 rib, purl, seed
// and a slip-stitch pattern: each stitch of a row above a knitted or purled
// (not slipped) stitch interlocks with it (two crossings with the upper loop on top at the head
// below, two with it underneath at its sinker, reversed for purl: 4 per
// stitch pair), and slipped stitches add their floats' crossings with the
// stretched loop. The closest approach of two yarns is logged, not checked:
// the loop shape does not keep them the sum of radii apart yet.
func TestKnitInterlock(t *testing.T) {
	for _, c := range []struct {
		name string
		pat  []string
	}{
		{"stockinette", []string{"k"}},
		{"slip", []string{"kkkk", "kksk"}},
		{"garter", []string{"k", "p"}},
		{"rib", []string{"kp"}},
		{"rib2", []string{"kkpp"}},
		{"purl", []string{"p"}},
		{"seed", []string{"kp", "pk"}},
	} {
		for _, e := range interlockErrors(c.pat) {
			t.Errorf("%s %s", c.name, e)
		}
		p := knitTestParams(c.pat)
		f, err := KnitFabric(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: closest yarns %.3g of the sum of radii apart", c.name, MinSeparation(f.Yarns, 3)/(2*p.Radius))
	}
}

func knitTestParams(pat []string) KnitParams {
	return KnitParams{Pattern: pat, Columns: 8, Rows: 5, Width: 1, Height: 0.8, Radius: 0.08, NodeSpacing: 0.1}
}

// interlockErrors lists the row pairs of pattern pat whose crossings are
// not those of threaded loops (see TestKnitInterlock).
func interlockErrors(pat0 []string) []string {
	p := knitTestParams(pat0)
	f, err := KnitFabric(p)
	if err != nil {
		return []string{err.Error()}
	}
	pat, _ := ParsePattern(pat0)
	st := func(i, j int) byte { return pat[j%len(pat)][i%len(pat[j%len(pat)])] }
	type key struct{ a, b int }
	over, under := map[key]int{}, map[key]int{}
	for _, x := range f.Crossings {
		if x.Over {
			over[key{x.A, x.B}]++
		} else {
			under[key{x.A, x.B}]++
		}
	}
	// Loop (i, j) is passed through by the first row above it that does
	// not slip stitch i; each passing makes 4 crossings, 2 with each yarn
	// on top (threaded: over at the head, under at the sinker). Each
	// float crosses the legs of the stretched loop under it twice, lying
	// behind them.
	want := map[key][2]int{} // over, under counts for A
	for j := 0; j < p.Rows; j++ {
		for i := 0; i < p.Columns; i++ {
			if j > 0 && st(i, j) == Slip {
				// the loop under a float is the last non-slip one below
				r := j - 1
				for st(i, r) == Slip {
					r--
				}
				o := want[key{r, j}]
				want[key{r, j}] = [2]int{o[0] + 2, o[1]}
				continue
			}
			if j == 0 || st(i, j) == Slip {
				continue
			}
			r := j - 1
			for st(i, r) == Slip {
				r--
			}
			o := want[key{r, j}]
			want[key{r, j}] = [2]int{o[0] + 2, o[1] + 2}
		}
	}
	var errs []string
	for k, wv := range want {
		if over[k] != wv[0] || under[k] != wv[1] {
			errs = append(errs, fmt.Sprintf("rows %d-%d: A over %d, under %d; want over %d, under %d", k.a, k.b, over[k], under[k], wv[0], wv[1]))
		}
	}
	for k := range over {
		if _, ok := want[k]; !ok {
			errs = append(errs, fmt.Sprintf("unexpected crossings between rows %d and %d", k.a, k.b))
		}
	}
	return errs
}

// TestResample checks that resampled points are evenly spaced in arc length
// and lie on the polyline, and that a Catmull-Rom spline passes through its
// control points.
func TestResample(t *testing.T) {
	pts := []dense.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 2, 0}, {3, 2, 1}}
	r, err := Resample(pts, 11)
	if err != nil {
		t.Fatal(err)
	}
	d0 := r[1].Sub(r[0]).Norm()
	for i := range 10 {
		if d := r[i+1].Sub(r[i]).Norm(); math.Abs(d-d0) > 1e-9*d0 {
			t.Fatalf("resampled chord %d: %v, chord 0 is %v", i, d, d0)
		}
		if dist := distToPolyline(pts, r[i]); dist > 1e-12 {
			t.Fatalf("resampled point %d is %v off the polyline", i, dist)
		}
	}
	if r[0] != pts[0] || r[10] != pts[3] {
		t.Fatalf("ends moved: %v %v", r[0], r[10])
	}
	cr := CatmullRom(pts, 8)
	for k, p := range pts {
		if cr[8*k] != p {
			t.Fatalf("spline misses control point %d: %v vs %v", k, cr[8*k], p)
		}
	}
	if _, err := Resample(pts[:1], 3); err == nil {
		t.Fatal("a one-point polyline was accepted")
	}
	if _, err := Resample([]dense.Vec3{{1, 1, 1}, {1, 1, 1}}, 3); err == nil {
		t.Fatal("a zero-length polyline was accepted")
	}
}

// distToPolyline is the distance from x to the polyline pts.
func distToPolyline(pts []dense.Vec3, x dense.Vec3) float64 {
	best := math.Inf(1)
	for i := 0; i+1 < len(pts); i++ {
		e := pts[i+1].Sub(pts[i])
		t := math.Max(0, math.Min(1, x.Sub(pts[i]).Dot(e)/e.Dot(e)))
		best = math.Min(best, pts[i].Add(e.Scale(t)).Sub(x).Norm())
	}
	return best
}

// TestMeet checks that with Meet the two yarns of every crossing pass through
// one point there (SB2020 eq. 1's shared contact point), to within the
// resampled chords' sag (none for the twill, whose crossings are on nodes; 2% of
// a stitch for the knit), for a crimped twill and a stockinette.
func TestMeet(t *testing.T) {
	tw, _ := ParseWeave("twill 2/1")
	w, err := Woven(WovenParams{Weave: tw, Warps: 5, Wefts: 4, Spacing: 1, Radius: 0.1, Crimp: 1, NodeSpacing: 0.25, Meet: true})
	if err != nil {
		t.Fatal(err)
	}
	k, err := KnitFabric(KnitParams{Pattern: []string{"k"}, Columns: 4, Rows: 3, Width: 1, Height: 0.8, Radius: 0.08, NodeSpacing: 0.1, Meet: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    *Fabric
		tol  float64
	}{{"twill", w, 1e-6}, {"stockinette", k, 0.02}} {
		if len(c.f.Crossings) == 0 {
			t.Fatalf("%s: no crossings", c.name)
		}
		worst := 0.0
		for _, x := range c.f.Crossings {
			d := pointAt(c.f.Yarns[x.A], x.UA).Sub(pointAt(c.f.Yarns[x.B], x.UB)).Norm()
			worst = math.Max(worst, d)
		}
		if worst > c.tol {
			t.Errorf("%s: crossing points up to %v apart, want under %v", c.name, worst, c.tol)
		}
		t.Logf("%s: crossing points at most %.3g apart", c.name, worst)
	}
}
