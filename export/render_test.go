package export

import (
	"bytes"
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestRenderTriangleByRayCasting draws a cloth triangle in the plane y = 0
// in front of an obstacle triangle in the plane y = 0.5, seen from
// (0, -5, 0), and compares every pixel with a ray cast through the pixel's
// centre (written here from the camera's definition, not with its code):
// the cloth where the ray meets the cloth triangle, the obstacle where it
// meets only the obstacle one, the background elsewhere. Pixels whose centre
// lies within 1e-9 of a triangle's edge may go either way.
func TestRenderTriangleByRayCasting(t *testing.T) {
	cam := Camera{Eye: dense.Vec3{0, -5, 0}, Target: dense.Vec3{}, Up: dense.Vec3{0, 0, 1}, FovY: math.Pi / 4, Width: 64, Height: 48}
	cloth := [][3]float64{{-1, 0, -0.8}, {1.2, 0, -0.5}, {0.1, 0, 1}}
	wall := [][3]float64{{-2, 0.5, -2}, {2, 0.5, -2}, {0, 0.5, 0.3}}
	meshes := []Mesh{
		{Name: "cloth", Role: RoleCloth, Pos: cloth, Faces: [][3]int32{{0, 2, 1}}},  // clockwise: two-sided
		{Name: "wall", Role: RoleObstacle, Pos: wall, Faces: [][3]int32{{0, 1, 2}}}, // drawn after, behind: the z-buffer keeps the cloth
	}
	pic := Render(&cam, meshes)
	s := float64(cam.Height) / 2 / math.Tan(cam.FovY/2)
	// inside reports whether (x, z) is inside triangle tri (in the xz plane)
	// and its distance to the nearest edge line.
	inside := func(tri [][3]float64, x, z float64) (bool, float64) {
		sign, near := 0.0, math.Inf(1)
		for k := range 3 {
			a, b := tri[k], tri[(k+1)%3]
			ex, ez := b[0]-a[0], b[2]-a[2]
			c := ex*(z-a[2]) - ez*(x-a[0])
			near = min(near, math.Abs(c)/math.Hypot(ex, ez))
			if sign == 0 {
				sign = c
			} else if sign*c < 0 {
				return false, near
			}
		}
		return true, near
	}
	counts := map[uint8]int{}
	for py := range cam.Height {
		for px := range cam.Width {
			// the ray through the pixel centre: right = +x, up = +z, forward = +y
			dx := (float64(px) + 0.5 - float64(cam.Width)/2) / s
			dz := -(float64(py) + 0.5 - float64(cam.Height)/2) / s
			want, ambiguous := uint8(matBackground), false
			for _, c := range []struct {
				tri [][3]float64
				y   float64
				mat uint8
			}{{wall, 0.5, matObstacle}, {cloth, 0, matCloth}} { // far to near: the nearer overrides
				tt := c.y - cam.Eye[1]
				in, d := inside(c.tri, tt*dx, tt*dz)
				if in {
					want = c.mat
				}
				ambiguous = ambiguous || d < 1e-9
			}
			got := pic.Mat[py*cam.Width+px]
			counts[got]++
			if got != want && !ambiguous {
				t.Fatalf("pixel (%d, %d): material %d, want %d", px, py, got, want)
			}
		}
	}
	if counts[matCloth] < 100 || counts[matObstacle] < 100 || counts[matBackground] < 100 {
		t.Fatalf("pixel counts %v", counts)
	}
	// The same input gives the same picture, in colour and paletted alike.
	again := Render(&cam, meshes)
	if !bytes.Equal(pic.Mat, again.Mat) || !bytes.Equal(pic.Shade, again.Shade) {
		t.Fatal("two renders differ")
	}
	rgba, pal := pic.RGBA(), pic.Paletted()
	for i := range pic.Mat {
		r, g, b, _ := rgba.At(i%cam.Width, i/cam.Width).RGBA()
		r2, g2, b2, _ := pal.At(i%cam.Width, i/cam.Width).RGBA()
		if r != r2 || g != g2 || b != b2 {
			t.Fatalf("pixel %d: RGBA and paletted colours differ", i)
		}
	}
}

// TestRenderClipsNearPlane: a ground square that reaches behind the camera
// is drawn up to the bottom of the picture (clipped, not dropped).
func TestRenderClipsNearPlane(t *testing.T) {
	cam := Camera{Eye: dense.Vec3{0, -1, 0.5}, Target: dense.Vec3{0, 2, 0}, Up: dense.Vec3{0, 0, 1}, FovY: math.Pi / 3, Width: 40, Height: 30}
	ground := Mesh{Name: "ground", Role: RoleObstacle, Pos: [][3]float64{{-10, -10, 0}, {10, -10, 0}, {10, 10, 0}, {-10, 10, 0}}, Faces: [][3]int32{{0, 1, 2}, {0, 2, 3}}}
	pic := Render(&cam, []Mesh{ground})
	for x := range cam.Width {
		if pic.Mat[(cam.Height-1)*cam.Width+x] != matObstacle {
			t.Fatalf("bottom row pixel %d is not the ground", x)
		}
	}
}

// TestDefaultCameraFramesTheSimulated: a 4 cm yarn square next to an
// obstacle triangle 1 m across is framed alone (the camera looks at the
// square's centre from the distance its bounding sphere needs); with an
// obstacle of about the square's size, both are framed.
func TestDefaultCameraFramesTheSimulated(t *testing.T) {
	yarn := Mesh{Name: "yarn", Role: RoleRod, Pos: [][3]float64{{0, 0, 0}, {0.04, 0, 0}, {0.04, 0.04, 0}, {0, 0.04, 0}}, Lines: [][]int32{{0, 1, 2, 3}}}
	for _, c := range []struct {
		size   float64 // the obstacle triangle's legs
		centre dense.Vec3
	}{
		{1, dense.Vec3{0.02, 0.02, 0}},
		{0.05, dense.Vec3{0.025, 0.025, -0.005}},
	} {
		s := c.size
		box := Mesh{Name: "table", Role: RoleObstacle, Pos: [][3]float64{{0, 0, -0.01}, {s, 0, -0.01}, {0, s, -0.01}}, Faces: [][3]int32{{0, 1, 2}}}
		cam := DefaultCamera([]Frame{{Meshes: []Mesh{yarn, box}}}, 64, 48)
		if d := cam.Target.Sub(c.centre).Norm(); d > 1e-12 {
			t.Errorf("obstacle %g m: camera looks at %v, want %v", s, cam.Target, c.centre)
		}
	}
}
