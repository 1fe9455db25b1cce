package main

import (
	"fmt"
	"image/gif"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/loomsim/loom/export"
	"github.com/loomsim/loom/scenes"
)

// TestRenderEveryScene runs every built-in scene for one step (strain-limit
// at 21 x 21), draws it with loom render at 96 x 72 and checks the last
// picture: it is not blank (it shows cloth, or for rod scenes yarn, in
// their colours), and every cloth (yarn) pixel lies within the bounding box
// of the cloth's (yarn's) vertices of that frame projected by the camera,
// whose centre lies within the box of those pixels. The GIF has a frame per
// picture.
func TestRenderEveryScene(t *testing.T) {
	for _, sc := range scenes.Builtins() {
		t.Run(sc.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "run")
			args := []string{"run", sc.Name, "--steps", "1", "--out", dir}
			if sc.Name == "strain-limit" {
				args = append(args, "--set", "bodies.0.resolution=21")
			}
			if out, err := runLoom(t, args...); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if out, err := runLoom(t, "render", dir, "--width", "96", "--height", "72"); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			frames, err := export.ReadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			last := len(frames) - 1
			f, err := os.Open(filepath.Join(dir, fmt.Sprintf("frame_%05d.png", last)))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			role := export.RoleCloth
			isRole := func(r, g, b float64) bool { return r > 30 && r > 1.5*g && r > 2*b } // orange
			for _, m := range frames[last].Meshes {
				if m.Role == export.RoleRod {
					role = export.RoleRod
					isRole = func(r, g, b float64) bool { return b > 30 && b > 2*r && b > 1.5*g } // blue
				}
			}
			cam := export.DefaultCamera(frames, 96, 72)
			lo, hi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
			for _, m := range frames[last].Meshes {
				if m.Role != role {
					continue
				}
				for _, p := range m.Pos {
					x, y, ok := cam.Project(p)
					if !ok {
						t.Fatalf("vertex %v behind the default camera", p)
					}
					lo = [2]float64{min(lo[0], x), min(lo[1], y)}
					hi = [2]float64{max(hi[0], x), max(hi[1], y)}
				}
			}
			n := 0
			plo, phi := [2]float64{math.Inf(1), math.Inf(1)}, [2]float64{math.Inf(-1), math.Inf(-1)}
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					r, g, bl, _ := img.At(x, y).RGBA()
					if !isRole(float64(r>>8), float64(g>>8), float64(bl>>8)) {
						continue
					}
					n++
					cx, cy := float64(x)+0.5, float64(y)+0.5
					plo = [2]float64{min(plo[0], cx), min(plo[1], cy)}
					phi = [2]float64{max(phi[0], cx), max(phi[1], cy)}
					// a 2-pixel yarn line may reach a pixel past its ends
					if cx < lo[0]-1.5 || cx > hi[0]+1.5 || cy < lo[1]-1.5 || cy > hi[1]+1.5 {
						t.Fatalf("%s pixel (%d, %d) outside the projected %s box %v-%v", role, x, y, role, lo, hi)
					}
				}
			}
			if n < 10 {
				t.Fatalf("%d %s pixels: the picture does not show the %s", n, role, role)
			}
			// the projected box's centre is among the drawn pixels' extent
			// (unless the cloth is seen edge-on)
			if c := [2]float64{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}; c[0] < plo[0]-1.5 || c[0] > phi[0]+1.5 || c[1] < plo[1]-1.5 || c[1] > phi[1]+1.5 {
				t.Fatalf("projected %s centre %v outside the drawn pixels' box %v-%v", role, c, plo, phi)
			}
			g, err := os.Open(filepath.Join(dir, gifName))
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			anim, err := gif.DecodeAll(g)
			if err != nil || len(anim.Image) != len(frames) {
				t.Fatalf("GIF: %v, %d pictures for %d frames", err, len(anim.Image), len(frames))
			}
		})
	}
}
