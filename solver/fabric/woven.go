package fabric

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/loomsim/loom/solver/dense"
)

// Weave is a woven pattern: which of warp i and weft j lies on top at their
// crossing.
type Weave struct {
	Kind string // "plain", "twill", "basket", "satin"
	N, M int    // twill N/M (N over, M under); basket N (groups of N); satin N (harness) with step M
}

// ParseWeave reads "plain", "twill N/M", "basket N" or "satin N" (step 2,
// or 3 where 2 divides N... any step coprime with N: "satin N/S").
func ParseWeave(s string) (Weave, error) {
	f := strings.Fields(s)
	bad := func(why string) (Weave, error) {
		return Weave{}, fmt.Errorf("weave %q: %s (want plain, twill N/M, basket N or satin N[/STEP])", s, why)
	}
	if len(f) == 0 {
		return bad("empty")
	}
	num := func(t string) (int, bool) {
		n, err := strconv.Atoi(t)
		return n, err == nil && n >= 1 && n <= 64
	}
	switch f[0] {
	case "plain":
		if len(f) != 1 {
			return bad("plain takes no numbers")
		}
		return Weave{Kind: "plain", N: 1, M: 1}, nil
	case "twill", "satin":
		if len(f) != 2 {
			return bad(f[0] + " needs its numbers")
		}
		a, b, two := strings.Cut(f[1], "/")
		n, ok1 := num(a)
		if !ok1 {
			return bad("bad number " + strconv.Quote(a))
		}
		if f[0] == "twill" {
			m, ok2 := num(b)
			if !two || !ok2 {
				return bad("twill needs N/M")
			}
			return Weave{Kind: "twill", N: n, M: m}, nil
		}
		step := 2
		if two {
			st, ok2 := num(b)
			if !ok2 {
				return bad("bad step " + strconv.Quote(b))
			}
			step = st
		}
		if n < 3 || gcd(n, step) != 1 || step%n == 1 || step%n == n-1 {
			return bad("satin needs N >= 3 and a step coprime with N other than +-1 (mod N), which would make a twill")
		}
		return Weave{Kind: "satin", N: n, M: step}, nil
	case "basket":
		if len(f) != 2 {
			return bad("basket needs N")
		}
		n, ok := num(f[1])
		if !ok {
			return bad("bad number " + strconv.Quote(f[1]))
		}
		return Weave{Kind: "basket", N: n, M: n}, nil
	}
	return bad("unknown kind " + strconv.Quote(f[0]))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// WarpOver reports whether warp i passes over weft j: plain (i + j even);
// twill N/M, each warp over N wefts and under M, shifted by one weft per warp
// (the diagonal); basket N, plain weave of groups of N yarns; satin N with
// step S, each warp under one weft of N and over the rest (warp-faced), the
// interlacings moving S wefts per warp.
func (w Weave) WarpOver(i, j int) bool {
	mod := func(a, n int) int { return ((a % n) + n) % n }
	switch w.Kind {
	case "twill":
		return mod(j-i, w.N+w.M) < w.N
	case "basket":
		return mod(i/w.N+j/w.N, 2) == 0
	case "satin":
		return mod(j-w.M*i, w.N) != 0
	}
	return mod(i+j, 2) == 0
}

// WovenParams sets a woven patch.
type WovenParams struct {
	Weave        Weave
	Warps, Wefts int     // yarn counts: warps run along y, wefts along x
	Spacing      float64 // m between neighbouring parallel yarns
	Radius       float64 // yarn radius (m)
	Crimp        float64 // in [0, 1]: out-of-plane offset at crossings, as a fraction of Radius
	NodeSpacing  float64 // m between rod nodes along a yarn (Spacing/2 puts the crossings of flat yarns on nodes)
	Meet         bool    // bend crossing yarns to meet at their crossings (see finish)
}

// samplesPerSpacing is the resolution of the dense centrelines.
const samplesPerSpacing = 16

// Woven builds a woven patch on [0, Warps Spacing] x [0, Wefts Spacing]: warp
// i at x = (i + 1/2) Spacing, weft j at y = (j + 1/2) Spacing, each running
// the patch's full width; at a crossing the yarn on top sits at z = +Crimp
// Radius and the other at -Crimp Radius, with a half-cosine between
// neighbouring crossings (Cirio et al. 2014's crimped yarns). Crossings are
// taken from the pattern (one per warp-weft pair), not searched.
func Woven(p WovenParams) (*Fabric, error) {
	switch {
	case p.Warps < 1 || p.Wefts < 1:
		return nil, fmt.Errorf("warps and wefts must be >= 1, got %d and %d", p.Warps, p.Wefts)
	case p.Warps*p.Wefts > 1<<24:
		return nil, fmt.Errorf("warps x wefts = %d crossings is over the limit of %d", p.Warps*p.Wefts, 1<<24)
	case !(p.Spacing > 0) || !(p.Radius > 0) || !(p.NodeSpacing > 0):
		return nil, fmt.Errorf("spacing, radius and node spacing must be > 0, got %v, %v, %v", p.Spacing, p.Radius, p.NodeSpacing)
	case !(p.Crimp >= 0 && p.Crimp <= 1):
		return nil, fmt.Errorf("crimp must be in [0, 1], got %v", p.Crimp)
	case p.Radius > p.Spacing/2:
		return nil, fmt.Errorf("yarn radius %v is over half the yarn spacing %v: neighbouring parallel yarns would overlap", p.Radius, p.Spacing)
	case p.NodeSpacing > p.Spacing:
		return nil, fmt.Errorf("node spacing %v is over the yarn spacing %v: a segment would span two crossings", p.NodeSpacing, p.Spacing)
	}
	s, h := p.Spacing, p.Crimp*p.Radius
	// line returns a yarn crossing n others at (k + 1/2) s along its length,
	// at z = zOf(k) there.
	line := func(n int, zOf func(k int) float64, at func(t, z float64) dense.Vec3) []dense.Vec3 {
		pts := make([]dense.Vec3, 0, n*samplesPerSpacing+1)
		for m := 0; m <= n*samplesPerSpacing; m++ {
			t := float64(m) / samplesPerSpacing // in yarn spacings
			c := t - 0.5                        // in crossings
			k0 := int(math.Floor(c))
			f := c - float64(k0)
			z0, z1 := zOf(max(0, min(k0, n-1))), zOf(max(0, min(k0+1, n-1)))
			z := z0 + (z1-z0)*(1-math.Cos(math.Pi*f))/2
			pts = append(pts, at(t*s, z))
		}
		return pts
	}
	var curves [][]dense.Vec3
	var names []string
	sign := func(b bool) float64 {
		if b {
			return 1
		}
		return -1
	}
	for i := 0; i < p.Warps; i++ {
		x := (float64(i) + 0.5) * s
		curves = append(curves, line(p.Wefts, func(j int) float64 { return h * sign(p.Weave.WarpOver(i, j)) },
			func(y, z float64) dense.Vec3 { return dense.Vec3{x, y, z} }))
		names = append(names, fmt.Sprintf("warp%d", i))
	}
	for j := 0; j < p.Wefts; j++ {
		y := (float64(j) + 0.5) * s
		curves = append(curves, line(p.Warps, func(i int) float64 { return -h * sign(p.Weave.WarpOver(i, j)) },
			func(x, z float64) dense.Vec3 { return dense.Vec3{x, y, z} }))
		names = append(names, fmt.Sprintf("weft%d", j))
	}
	var xs []raw
	for i := 0; i < p.Warps; i++ {
		for j := 0; j < p.Wefts; j++ {
			// dense sample (k + 1/2) s of either yarn
			xs = append(xs, raw{A: i, B: p.Warps + j, SA: site{(2*j + 1) * samplesPerSpacing / 2, 0},
				SB: site{(2*i + 1) * samplesPerSpacing / 2, 0}, Over: p.Weave.WarpOver(i, j)})
		}
	}
	return finish(curves, names, xs, p.NodeSpacing, p.Radius, p.Meet)
}
