package export

import (
	"image"
	"image/color"
	"image/gif"
	"io"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Materials of the rasterizer: a picture stores per pixel one of these and a
// shade level, and both its RGBA and its paletted (GIF) forms come from that
// exactly, so the two agree and need no colour quantization.
const (
	matBackground = iota
	matCloth
	matObstacle
	matRod
	numMaterials
)

// shadeLevels is the number of shades of a material (the GIF palette holds
// numMaterials-1 ramps of this many colours plus the background).
const shadeLevels = 80

// materialColor is each material's colour at full light.
var materialColor = [numMaterials][3]float64{
	matBackground: {236, 239, 243},
	matCloth:      {230, 110, 60},
	matObstacle:   {175, 180, 188},
	matRod:        {40, 70, 200},
}

// ambient is the light a face turned away from the light still gets.
const ambient = 0.3

// Camera is a pinhole camera looking from Eye at Target with Up roughly up in
// the picture, a vertical field of view FovY (radians), and a picture of
// Width x Height pixels.
type Camera struct {
	Eye, Target, Up dense.Vec3
	FovY            float64
	Width, Height   int
}

// DefaultCamera returns a camera that frames every cloth and rod vertex of
// every frame, and the finite obstacles with them unless that would more
// than double the framed size (a 3 cm yarn patch on a 0.6 m table is
// framed alone; the obstacles still show where they reach into the
// picture; planes are never framed: they are drawn as large squares): it
// looks at the centre of the framed bounding box from azimuth -60 degrees
// and elevation 25 degrees (z is up), at the distance at which the box's
// bounding sphere fits the narrower field of view with a margin of 5%.
func DefaultCamera(frames []Frame, width, height int) Camera {
	var all []Mesh
	for _, f := range frames {
		all = append(all, f.Meshes...)
	}
	lo, hi, ok := bounds(all, func(m *Mesh) bool { return !(m.Role == RoleObstacle && isPlane(m)) })
	if !ok {
		lo, hi = [3]float64{-0.5, -0.5, -0.5}, [3]float64{0.5, 0.5, 0.5}
	}
	radius := func(lo, hi [3]float64) float64 { return dense.Vec3(hi).Sub(dense.Vec3(lo)).Norm() / 2 }
	if slo, shi, ok := bounds(all, func(m *Mesh) bool { return m.Role != RoleObstacle }); ok && radius(lo, hi) > 2*radius(slo, shi) {
		lo, hi = slo, shi
	}
	centre := dense.Vec3(lo).Add(dense.Vec3(hi)).Scale(0.5)
	r := max(radius(lo, hi), 1e-3)
	fovY := 40 * math.Pi / 180
	fov := fovY
	if width < height {
		fov = 2 * math.Atan(math.Tan(fovY/2)*float64(width)/float64(height))
	}
	d := 1.05 * r / math.Sin(fov/2)
	az, el := -60*math.Pi/180, 25*math.Pi/180
	dir := dense.Vec3{math.Cos(el) * math.Cos(az), math.Cos(el) * math.Sin(az), math.Sin(el)}
	return Camera{Eye: centre.Add(dir.Scale(d)), Target: centre, Up: dense.Vec3{0, 0, 1}, FovY: fovY, Width: width, Height: height}
}

// isPlane reports whether m is a plane obstacle as ObstacleMesh draws it
// (one square of two triangles).
func isPlane(m *Mesh) bool { return len(m.Pos) == 4 && len(m.Faces) == 2 }

// frame returns the camera's right, up and forward unit vectors.
func (c *Camera) frame() (right, up, fwd dense.Vec3) {
	fwd = c.Target.Sub(c.Eye)
	fwd = fwd.Scale(1 / fwd.Norm())
	right = fwd.Cross(c.Up)
	right = right.Scale(1 / right.Norm())
	return right, right.Cross(fwd), fwd
}

// view returns p in camera coordinates: (right, up, depth along the view).
func (c *Camera) view(p dense.Vec3) dense.Vec3 {
	r, u, f := c.frame()
	d := p.Sub(c.Eye)
	return dense.Vec3{d.Dot(r), d.Dot(u), d.Dot(f)}
}

// toPixel maps a camera-space point in front of the camera to pixel
// coordinates (x right, y down, pixel centres at +0.5).
func (c *Camera) toPixel(v dense.Vec3) (x, y float64) {
	s := float64(c.Height) / 2 / math.Tan(c.FovY/2)
	return float64(c.Width)/2 + s*v[0]/v[2], float64(c.Height)/2 - s*v[1]/v[2]
}

// Project returns the pixel coordinates of world point p (x right, y
// down) and whether it lies in front of the camera.
func (c *Camera) Project(p [3]float64) (x, y float64, ok bool) {
	v := c.view(dense.Vec3(p))
	if v[2] <= nearPlane {
		return 0, 0, false
	}
	x, y = c.toPixel(v)
	return x, y, true
}

// nearPlane is the depth (m) in front of the camera below which geometry is
// clipped.
const nearPlane = 1e-3

// Picture is a rendered image: per pixel a material and a shade level.
type Picture struct {
	Width, Height int
	Mat, Shade    []uint8
	depth         []float64
}

// Render draws the meshes as seen by c: triangles filled with a z-buffer and
// Lambert shading of their vertex normals (interpolated; two-sided, lit from
// a light above and behind the camera's left shoulder, plus ambient),
// polylines as 2-pixel lines. Triangles are clipped at the near plane. The
// result depends only on the inputs (no concurrency, no randomness).
func Render(c *Camera, meshes []Mesh) *Picture {
	n := c.Width * c.Height
	p := &Picture{Width: c.Width, Height: c.Height, Mat: make([]uint8, n), Shade: make([]uint8, n), depth: make([]float64, n)}
	for i := range p.depth {
		p.depth[i] = math.Inf(1)
	}
	right, up, fwd := c.frame()
	light := up.Scale(0.8).Sub(right.Scale(0.4)).Sub(fwd.Scale(0.45))
	light = light.Scale(1 / light.Norm())
	for mi := range meshes {
		m := &meshes[mi]
		mat := uint8(matCloth)
		switch m.Role {
		case RoleObstacle:
			mat = matObstacle
		case RoleRod:
			mat = matRod
		}
		if len(m.Faces) > 0 {
			normals := VertexNormals(m.Pos, m.Faces)
			view := make([]dense.Vec3, len(m.Pos))
			for i, x := range m.Pos {
				view[i] = c.view(dense.Vec3(x))
			}
			for _, f := range m.Faces {
				var tri [3]vert
				for k, v := range f {
					tri[k] = vert{view[v], math.Abs(dense.Vec3(normals[v]).Dot(light))}
				}
				for _, t := range clipNear(tri) {
					p.fill(c, t, mat)
				}
			}
		}
		for _, l := range m.Lines {
			for k := 0; k+1 < len(l); k++ {
				p.line(c, c.view(dense.Vec3(m.Pos[l[k]])), c.view(dense.Vec3(m.Pos[l[k+1]])), uint8(matRod))
			}
		}
	}
	return p
}

// vert is a camera-space vertex with its light intensity |n . l|.
type vert struct {
	v     dense.Vec3
	light float64
}

// clipNear clips a triangle to depth > nearPlane: none, one or two
// triangles.
func clipNear(t [3]vert) [][3]vert {
	var poly []vert
	for k := range 3 {
		a, b := t[k], t[(k+1)%3]
		ina, inb := a.v[2] > nearPlane, b.v[2] > nearPlane
		if ina {
			poly = append(poly, a)
		}
		if ina != inb {
			s := (nearPlane - a.v[2]) / (b.v[2] - a.v[2])
			poly = append(poly, vert{a.v.Add(b.v.Sub(a.v).Scale(s)), a.light + s*(b.light-a.light)})
		}
	}
	var out [][3]vert
	for k := 1; k+1 < len(poly); k++ {
		out = append(out, [3]vert{poly[0], poly[k], poly[k+1]})
	}
	return out
}

// fill rasterizes a camera-space triangle: pixels whose centre is inside
// (edge functions, both windings), depth and light interpolated with
// perspective-correct barycentric weights.
func (p *Picture) fill(c *Camera, t [3]vert, mat uint8) {
	var x, y [3]float64
	for k := range 3 {
		x[k], y[k] = c.toPixel(t[k].v)
	}
	area := (x[1]-x[0])*(y[2]-y[0]) - (x[2]-x[0])*(y[1]-y[0])
	if area == 0 || math.IsNaN(area) {
		return
	}
	x0 := max(0, int(math.Floor(min(x[0], x[1], x[2]))))
	x1 := min(p.Width-1, int(math.Ceil(max(x[0], x[1], x[2]))))
	y0 := max(0, int(math.Floor(min(y[0], y[1], y[2]))))
	y1 := min(p.Height-1, int(math.Ceil(max(y[0], y[1], y[2]))))
	for py := y0; py <= y1; py++ {
		cy := float64(py) + 0.5
		for px := x0; px <= x1; px++ {
			cx := float64(px) + 0.5
			var w [3]float64
			for k := range 3 {
				a, b := (k+1)%3, (k+2)%3
				w[k] = ((x[b]-x[a])*(cy-y[a]) - (y[b]-y[a])*(cx-x[a])) / area
			}
			if w[0] < 0 || w[1] < 0 || w[2] < 0 {
				continue
			}
			// Perspective-correct: weights over depth, renormalized.
			var iz, l float64
			for k := range 3 {
				w[k] /= t[k].v[2]
				iz += w[k]
			}
			for k := range 3 {
				l += w[k] * t[k].light
			}
			p.plot(px, py, 1/iz, l/iz, mat)
		}
	}
}

// line draws a camera-space segment, clipped at the near plane, two pixels
// wide, at full light.
func (p *Picture) line(c *Camera, a, b dense.Vec3, mat uint8) {
	if a[2] <= nearPlane && b[2] <= nearPlane {
		return
	}
	if a[2] <= nearPlane || b[2] <= nearPlane {
		if a[2] <= nearPlane {
			a, b = b, a
		}
		s := (nearPlane - a[2]) / (b[2] - a[2])
		b = a.Add(b.Sub(a).Scale(s))
	}
	xa, ya := c.toPixel(a)
	xb, yb := c.toPixel(b)
	steps := int(math.Ceil(max(math.Abs(xb-xa), math.Abs(yb-ya)))) + 1
	if steps > 4*(p.Width+p.Height) {
		steps = 4 * (p.Width + p.Height)
	}
	for i := 0; i <= steps; i++ {
		s := float64(i) / float64(steps)
		x, y := xa+s*(xb-xa), ya+s*(yb-ya)
		z := 1 / ((1-s)/a[2] + s/b[2])
		for _, d := range [4][2]int{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
			p.plot(int(math.Floor(x-0.5))+d[0], int(math.Floor(y-0.5))+d[1], z*(1-1e-6), 1, mat)
		}
	}
}

// plot sets pixel (x, y) to the material at light l if it is nearer than
// what is there.
func (p *Picture) plot(x, y int, depth, l float64, mat uint8) {
	if x < 0 || y < 0 || x >= p.Width || y >= p.Height {
		return
	}
	i := y*p.Width + x
	if !(depth < p.depth[i]) {
		return
	}
	p.depth[i] = depth
	p.Mat[i] = mat
	level := ambient + (1-ambient)*min(max(l, 0), 1)
	p.Shade[i] = uint8(math.Round(level * (shadeLevels - 1)))
}

// Palette returns the GIF palette: the background, then for each material
// its shadeLevels shades from dark to full light.
func Palette() color.Palette {
	pal := color.Palette{rgb(materialColor[matBackground], 1)}
	for m := matCloth; m < numMaterials; m++ {
		for s := range shadeLevels {
			pal = append(pal, rgb(materialColor[m], float64(s)/(shadeLevels-1)))
		}
	}
	return pal
}

func rgb(c [3]float64, level float64) color.RGBA {
	return color.RGBA{uint8(math.Round(c[0] * level)), uint8(math.Round(c[1] * level)), uint8(math.Round(c[2] * level)), 255}
}

// index returns pixel i's palette index.
func (p *Picture) index(i int) uint8 {
	if p.Mat[i] == matBackground {
		return 0
	}
	return uint8(1 + (int(p.Mat[i])-1)*shadeLevels + int(p.Shade[i]))
}

// Paletted returns the picture with Palette's colours.
func (p *Picture) Paletted() *image.Paletted {
	img := image.NewPaletted(image.Rect(0, 0, p.Width, p.Height), Palette())
	for i := range p.Mat {
		img.Pix[i] = p.index(i)
	}
	return img
}

// RGBA returns the picture in colour (the same colours as Paletted).
func (p *Picture) RGBA() *image.RGBA {
	pal := Palette()
	img := image.NewRGBA(image.Rect(0, 0, p.Width, p.Height))
	for i := range p.Mat {
		c := pal[p.index(i)].(color.RGBA)
		copy(img.Pix[4*i:], []uint8{c.R, c.G, c.B, c.A})
	}
	return img
}

// EncodeGIF writes the pictures as a looping animated GIF, picture k shown
// for delays[k] hundredths of a second.
func EncodeGIF(w io.Writer, pics []*Picture, delays []int) error {
	g := &gif.GIF{}
	for k, p := range pics {
		g.Image = append(g.Image, p.Paletted())
		g.Delay = append(g.Delay, delays[k])
	}
	return gif.EncodeAll(w, g)
}

// GIFDelays returns each frame's display time in hundredths of a second: the
// simulated time to the next frame (the last frame as long as the one
// before), at least 2 (browsers show shorter delays as 10).
func GIFDelays(frames []Frame) []int {
	d := make([]int, len(frames))
	for k := range frames {
		dt := 0.04
		switch {
		case k+1 < len(frames):
			dt = frames[k+1].Time - frames[k].Time
		case k > 0:
			dt = frames[k].Time - frames[k-1].Time
		}
		d[k] = max(2, int(math.Round(100*dt)))
	}
	return d
}
