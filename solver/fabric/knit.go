package fabric

import (
	"fmt"
	"math"
	"strings"

	"github.com/loomsim/loom/solver/dense"
)

// Stitch instructions of a knit pattern row.
const (
	Knit = 'k' // the loop is pulled through the loop below from back to front
	Purl = 'p' // from front to back: a knit stitch mirrored through the fabric plane
	Slip = 's' // no loop: the yarn floats behind, the loop below is stretched up one row
)

// KnitParams sets a knitted patch.
type KnitParams struct {
	// Pattern is the grid of stitch instructions, one string per row from
	// the bottom (first knitted) up, one character (k, p, s) per stitch; it
	// is tiled over Columns x Rows stitches.
	Pattern       []string
	Columns, Rows int
	Width, Height float64 // stitch spacing along a course (x) and between rows (y), m
	Radius        float64 // yarn radius (m)
	NodeSpacing   float64 // m between rod nodes along a yarn
	Meet          bool    // bend crossing yarns to meet at their crossings (see finish)
}

// Loop shape: a loop's legs close in to a narrow neck low down and open
// again into a head wider than the neck (knitBulge, in stitch widths), so
// that the neck of the loop above passes through it; its legs stand out of
// the fabric plane by knitDepth yarn radii while its head and sinker lie in
// it.
const (
	knitBulge = 0.2
	knitDepth = 3.0 // legs' offset, yarn radii
	knitWrap  = 3.5 // head's and sinker's offset, yarn radii: on the far side of the loop wrapped around them
	// knitRecede is how far (in knitDepth) a loop's legs lie on its back
	// side where the loop passing through it is of the other kind (a purl
	// over a knit, a knit over a purl, as in garter and seed stitch): the
	// upper loop's sinker then lies on the lower loop's front, and the
	// legs between that sinker and the head below pass behind the one and
	// in front of the other (garter's legs recede into the fabric, its
	// heads and sinkers show on both faces). 0.25 threads stockinette,
	// garter, 1x1 and 2x2 rib, purl, seed and slip patterns
	// (TestKnitInterlock); the closest approach of two yarns then ranges
	// from 0.96 (stockinette) to 0.075 (seed) of the sum of radii.
	knitRecede = 0.25
	knitSamp   = 96 // dense samples per stitch
)

// ParsePattern checks a pattern grid and returns it as rows of stitches.
func ParsePattern(rows []string) ([][]byte, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("a knit pattern needs at least one row")
	}
	out := make([][]byte, len(rows))
	for r, row := range rows {
		row = strings.TrimSpace(row)
		if row == "" {
			return nil, fmt.Errorf("pattern row %d is empty", r)
		}
		for c := 0; c < len(row); c++ {
			switch row[c] {
			case Knit, Purl, Slip:
			default:
				return nil, fmt.Errorf("pattern row %d, stitch %d: %q is not k, p or s", r, c, row[c])
			}
		}
		if r == 0 && strings.ContainsRune(row, Slip) {
			return nil, fmt.Errorf("pattern row 0 slips a stitch: the first row has no loop below to slip")
		}
		out[r] = []byte(row)
	}
	return out, nil
}

// KnitFabric builds a knitted patch on about [0, Columns Width] x [0, (Rows+1)
// Height]: one yarn (course) per row. In row j a stitch i with instruction k
// follows, for theta in [0, 2 pi),
//
//	x = Width (i + 1/2 - cos(theta/2)/2 + bulge sin 2 theta),
//	y = Height (j + (1 + s/2)(1 - cos theta)),  z = depth Radius sin^2 theta
//
// (a purl stitch has -z; the legs' depth is -knitRecede depth where the
// loop above is of the other kind), so its head reaches row j+2 and
// interlocks with the loop of row j+1 (Kaldor et al. 2008's stitch
// structure); a slip stitch is a
// float at y = j Height behind the fabric, z = -depth Radius sin^2(theta/2),
// and the loop of row j-1 below it is raised (s above: the number of
// consecutive slips over it). Crossings are the intersections of the courses' projections onto the
// plane, between courses up to (1 + the longest run of slips) rows apart.
//
// Known defects: slipped stitches in rows with purls do not always thread
// (the float lies behind, as for knit rows), and the closest approach of
// two yarns is under the sum of radii: 0.96 of it for stockinette, down to
// 0.075 for seed stitch (TestKnitInterlock logs it).
func KnitFabric(p KnitParams) (*Fabric, error) {
	pat, err := ParsePattern(p.Pattern)
	if err != nil {
		return nil, err
	}
	switch {
	case p.Columns < 1 || p.Rows < 1:
		return nil, fmt.Errorf("columns and rows must be >= 1, got %d and %d", p.Columns, p.Rows)
	case p.Columns*p.Rows > 1<<22:
		return nil, fmt.Errorf("columns x rows = %d stitches is over the limit of %d", p.Columns*p.Rows, 1<<22)
	case !(p.Width > 0) || !(p.Height > 0) || !(p.Radius > 0) || !(p.NodeSpacing > 0):
		return nil, fmt.Errorf("stitch width, height, yarn radius and node spacing must be > 0, got %v, %v, %v, %v", p.Width, p.Height, p.Radius, p.NodeSpacing)
	}
	at := func(i, j int) byte {
		row := pat[j%len(pat)]
		return row[i%len(row)]
	}
	// raise[j][i]: rows a loop is stretched up by slips above it.
	maxRaise := 0
	raise := func(i, j int) int {
		n := 0
		for r := j + 1; r < p.Rows && at(i, r) == Slip; r++ {
			n++
		}
		return n
	}
	// side is +1 where a stitch's legs stand in front (knit, and the
	// float of a slip, whose ends join the sinkers like a knit's), -1 behind
	// (purl); above is the side of the loop that passes through loop (i, j).
	side := func(i, j int) float64 {
		if i < 0 || i >= p.Columns || at(i, j) != Purl {
			return 1
		}
		return -1
	}
	above := func(i, j int) float64 {
		r := j + 1 + raise(i, j)
		if r >= p.Rows {
			return side(i, j)
		}
		return side(i, r)
	}
	w, h, d, e := p.Width, p.Height, knitDepth*p.Radius, knitWrap*p.Radius
	var curves [][]dense.Vec3
	var names []string
	for j := 0; j < p.Rows; j++ {
		var pts []dense.Vec3
		for i := 0; i < p.Columns; i++ {
			st := at(i, j)
			up := raise(i, j)
			maxRaise = max(maxRaise, up)
			s := side(i, j)
			// The sinkers at the stitch's two ends, shared with its
			// neighbours: behind a knit, in front of a purl.
			skL, skR := -e*(side(i-1, j)+s)/2, -e*(s+side(i+1, j))/2
			for m := 0; m < knitSamp; m++ {
				th := 2 * math.Pi * float64(m) / knitSamp
				sn := math.Sin(th)
				hd, sk := (1-math.Cos(th))/2, (1+math.Cos(th))/2 // head and sinker weights
				skz := skL
				if th > math.Pi {
					skz = skR
				}
				switch st {
				case Slip:
					pts = append(pts, dense.Vec3{w * (float64(i) + th/(2*math.Pi)), h * float64(j), skz*sk*sk - d*hd})
				default:
					legs := s * d
					if above(i, j) != s {
						legs *= -knitRecede
					}
					z := legs*sn*sn - above(i, j)*e*hd*hd + skz*sk*sk
					pts = append(pts, dense.Vec3{w * (float64(i) + 0.5 - 0.5*math.Cos(th/2) + knitBulge*math.Sin(2*th)),
						h * (float64(j) + (1+float64(up)/2)*(1-math.Cos(th))), z})
				}
			}
		}
		pts = append(pts, dense.Vec3{w * float64(p.Columns), h * float64(j), -e * side(p.Columns-1, j)})
		curves = append(curves, pts)
		names = append(names, fmt.Sprintf("course%d", j))
	}
	xs := planeCrossings(curves, w/2, func(a, b int) bool { return b-a <= 1+maxRaise })
	return finish(curves, names, xs, p.NodeSpacing, p.Radius, p.Meet)
}
