// Command dressgen writes the body that the built-in scene `dress` puts a
// skirt on: a coarse walking figure as an OBJ sequence of one topology
// (scenes/dress/body_NN.obj), 24 frames of a 1 s loop at 24 fps. The body
// is three closed surfaces that never touch: a trunk (a surface of
// revolution with elliptical cross-sections: rounded crotch, hips, waist,
// chest, shoulders) and two legs (capsules, r 6.5 cm, hanging from hip
// joints at z = 0.765 m, feet at z = 0) swinging in opposite phase by
// 22 deg sin(2 pi t) about the joints' x axis (walking along y). Each leg
// turns about the centre of its top hemisphere, so that hemisphere stays
// where it is and the legs never cut into the trunk. x is lateral, y
// forward, z up; triangles wind counter-clockwise seen from outside.
//
// Run from the repository root: go run ./scenes/internal/dressgen
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

const (
	frames   = 24
	fps      = 24.0
	around   = 24 // vertices per ring
	legR     = 0.065
	legLen   = 0.70 // between the centres of the capsule's hemispheres
	hipX     = 0.09
	hipZ     = 0.765
	swingDeg = 22
)

// trunk is the trunk's profile: height and the semi-axes (x, y) of its
// elliptical cross-section, between two poles.
var trunk = [][3]float64{
	{0.83, 0, 0},
	{0.845, 0.10, 0.07},
	{0.87, 0.15, 0.105},
	{0.91, 0.19, 0.13},
	{0.96, 0.20, 0.14},
	{1.02, 0.165, 0.115},
	{1.08, 0.13, 0.095},
	{1.20, 0.15, 0.105},
	{1.32, 0.16, 0.11},
	{1.40, 0.12, 0.09},
	{1.44, 0.05, 0.04},
	{1.45, 0, 0},
}

type mesh struct {
	pos   [][3]float64
	faces [][3]int
}

// lathe appends a closed surface of revolution through rings (z, ax, ay),
// the first and last of zero size being poles, each vertex mapped by place.
func (m *mesh) lathe(rings [][3]float64, place func([3]float64) [3]float64) {
	base := len(m.pos)
	bottom := base
	m.pos = append(m.pos, place([3]float64{0, 0, rings[0][0]}))
	for _, r := range rings[1 : len(rings)-1] {
		for i := range around {
			phi := 2 * math.Pi * float64(i) / around
			m.pos = append(m.pos, place([3]float64{r[1] * math.Cos(phi), r[2] * math.Sin(phi), r[0]}))
		}
	}
	top := len(m.pos)
	m.pos = append(m.pos, place([3]float64{0, 0, rings[len(rings)-1][0]}))
	ring := func(j, i int) int { return base + 1 + j*around + i%around }
	nr := len(rings) - 2
	for i := range around {
		m.faces = append(m.faces, [3]int{bottom, ring(0, i+1), ring(0, i)})
		m.faces = append(m.faces, [3]int{top, ring(nr-1, i), ring(nr-1, i+1)})
	}
	for j := range nr - 1 {
		for i := range around {
			a, b, c, d := ring(j, i), ring(j, i+1), ring(j+1, i+1), ring(j+1, i)
			m.faces = append(m.faces, [3]int{a, b, c}, [3]int{a, c, d})
		}
	}
}

// capsule is a leg's profile about its joint (z = 0 at the top
// hemisphere's centre), from the foot's pole up.
func capsule() [][3]float64 {
	var rings [][3]float64
	const nCap = 4
	for k := 0; k <= nCap; k++ { // bottom hemisphere
		a := -math.Pi/2 + math.Pi/2*float64(k)/nCap
		rings = append(rings, [3]float64{-legLen + legR*math.Sin(a), legR * math.Cos(a), legR * math.Cos(a)})
	}
	for k := 1; k < 8; k++ {
		z := -legLen + legLen*float64(k)/8
		rings = append(rings, [3]float64{z, legR, legR})
	}
	for k := 0; k <= nCap; k++ { // top hemisphere
		a := math.Pi / 2 * float64(k) / nCap
		rings = append(rings, [3]float64{legR * math.Sin(a), legR * math.Cos(a), legR * math.Cos(a)})
	}
	rings[0][1], rings[0][2] = 0, 0
	rings[len(rings)-1][1], rings[len(rings)-1][2] = 0, 0
	return rings
}

// resample adds n-1 rings between consecutive profile rings.
func resample(p [][3]float64, n int) [][3]float64 {
	out := [][3]float64{p[0]}
	for k := 1; k < len(p); k++ {
		for s := 1; s <= n; s++ {
			w := float64(s) / float64(n)
			var r [3]float64
			for c := range 3 {
				r[c] = (1-w)*p[k-1][c] + w*p[k][c]
			}
			out = append(out, r)
		}
	}
	return out
}

func body(t float64) *mesh {
	m := &mesh{}
	prof := resample(trunk, 2)
	// Keep the poles single points: the resampled rings next to them are
	// proper rings.
	m.lathe(prof, func(p [3]float64) [3]float64 { return p })
	for side, phase := range []float64{0, math.Pi} {
		x := hipX * float64(2*side-1)
		a := swingDeg * math.Pi / 180 * math.Sin(2*math.Pi*t+phase)
		m.lathe(capsule(), func(p [3]float64) [3]float64 {
			// Turn about the joint's x axis: the foot swings along y.
			y := p[1]*math.Cos(a) - p[2]*math.Sin(a)
			z := p[1]*math.Sin(a) + p[2]*math.Cos(a)
			return [3]float64{x + p[0], y, hipZ + z}
		})
	}
	return m
}

func write(path string, m *mesh) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "# loom dress body (scenes/internal/dressgen)\n")
	for _, p := range m.pos {
		fmt.Fprintf(w, "v %.4f %.4f %.4f\n", p[0], p[1], p[2])
	}
	for _, t := range m.faces {
		fmt.Fprintf(w, "f %d %d %d\n", t[0]+1, t[1]+1, t[2]+1)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func main() {
	dir := filepath.Join("scenes", "dress")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for k := range frames {
		m := body(float64(k) / fps)
		if err := write(filepath.Join(dir, fmt.Sprintf("body_%02d.obj", k)), m); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if k == 0 {
			fmt.Printf("%d vertices, %d triangles per frame\n", len(m.pos), len(m.faces))
		}
	}
}
