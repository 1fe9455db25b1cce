package scenes

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/loomsim/loom/solver/mesh"
)

// Sheet is the triangle mesh of a Body, with ARCSim's two levels of points
// (Narain et al. 2012 sec. 3): vertices are world-space points (the DOFs);
// each face corner also has its own material-space coordinate, so that a
// vertex on a seam can have a different material coordinate in the faces of
// either side.
type Sheet struct {
	NX, NY int // grid vertices along local x and y (for a tube, column NX-1 is column 0)
	// Rest holds each vertex's material coordinates (m), origin at the
	// lower-left corner: grid vertex j*NC + i at (i*dx, j*dy), where NC = NX,
	// or NX-1 for a tube, then, for the cross triangulation, one vertex per
	// cell at its centre (NC*NY + cj*(NX-1) + ci). A seam vertex of a tube
	// has two material coordinates, (0, y) and (size[0], y); Rest holds the
	// first.
	Rest  [][2]float64
	Pos   [][3]float64 // world positions: R * local + position (see BuildSheet)
	Faces [][3]int32   // CCW in material space: see Body.Triangulation
	// FaceU[f][k] is the material coordinate of corner k of face f: Rest of
	// the vertex, except for the faces next to a tube's seam on its right,
	// whose seam corners lie at u0 = size[0].
	FaceU [][3][2]float64
	// Hinges has one entry per interior edge: [x0, x1, x2, x3] where (x0, x1)
	// is the shared edge, x2 the opposite vertex of the face that has the
	// directed edge x0->x1 in its CCW order, and x3 the opposite vertex of the
	// other face (which has x1->x0). x0 < x1. A tube's seam edges are interior.
	Hinges [][4]int32
	// HingeFaces[h] are the two faces of hinge h: the one with x0->x1, then
	// the one with x1->x0.
	HingeFaces [][2]int32
	Pinned     []int32 // vertex indices of Body.Pins, in the same order
}

// Grid returns the number of vertices along the local x and y axes: the
// longer side gets Resolution vertices, the shorter max(2, round(res*short/long)).
func (b *Body) Grid() (nx, ny int) {
	sx, sy := b.Size[0], b.Size[1]
	res := b.Resolution
	if sx >= sy {
		return res, max(2, int(math.Round(float64(res)*sy/sx)))
	}
	return max(2, int(math.Round(float64(res)*sx/sy))), res
}

// Vertex returns the vertex index of the grid point (i, j); negative indices
// count from the end (-1 = last). ok is false when out of range. On a tube,
// column nx-1 is the seam column 0.
func (b *Body) Vertex(i, j int) (v int, ok bool) {
	nx, ny := b.Grid()
	i, oki := normIndex(i, nx)
	j, okj := normIndex(j, ny)
	if !oki || !okj {
		return -1, false
	}
	nc := nx
	if b.Tube {
		nc = nx - 1
		i %= nc
	}
	return j*nc + i, true
}

// sincosDeg returns sin and cos of an angle in degrees, exact for multiples
// of 90 degrees.
func sincosDeg(deg float64) (s, c float64) {
	if q := deg / 90; q == math.Trunc(q) && math.Abs(q) < 1<<52 {
		switch ((int64(q) % 4) + 4) % 4 {
		case 0:
			return 0, 1
		case 1:
			return 1, 0
		case 2:
			return 0, -1
		default:
			return -1, 0
		}
	}
	return math.Sincos(deg * math.Pi / 180)
}

// Rotation returns R = Rz*Ry*Rx for Orientation (degrees about world x, then
// y, then z), as a row-major matrix.
func (b *Body) Rotation() [3][3]float64 {
	return rotationXYZ(b.Orientation)
}

func rotationXYZ(deg [3]float64) [3][3]float64 {
	sa, ca := sincosDeg(deg[0])
	sb, cb := sincosDeg(deg[1])
	sg, cg := sincosDeg(deg[2])
	rx := [3][3]float64{{1, 0, 0}, {0, ca, -sa}, {0, sa, ca}}
	ry := [3][3]float64{{cb, 0, sb}, {0, 1, 0}, {-sb, 0, cb}}
	rz := [3][3]float64{{cg, -sg, 0}, {sg, cg, 0}, {0, 0, 1}}
	return matMul(rz, matMul(ry, rx))
}

func matMul(a, b [3][3]float64) [3][3]float64 {
	var c [3][3]float64
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				c[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return c
}

// BuildSheet meshes a body. The body should be valid (Scene.Validate); the
// few rules BuildSheet depends on are re-checked.
//
// A flat sheet's world positions are R * (rest - size/2, 0) + position. A
// tube is the same grid with its right edge sewn to its left one: the grid
// columns 0..nx-2 are placed on a regular prism of perimeter size[0] around
// the local y axis (column i at angle 2 pi i/(nx-1) from local +z towards
// local +x, so that the faces' normals point outwards), local y = u1 -
// size[1]/2; column nx-1 is column 0 again, and the faces of the last column
// keep their own material coordinates (size[0], y) at the seam.
func BuildSheet(b *Body) (*Sheet, error) {
	if b.Resolution < 2 || b.Resolution > MaxResolution {
		return nil, fmt.Errorf("body %q: resolution must be in [2, %d], got %d", b.Name, MaxResolution, b.Resolution)
	}
	if !(b.Size[0] > 0 && b.Size[1] > 0) || math.IsInf(b.Size[0], 0) || math.IsInf(b.Size[1], 0) {
		return nil, fmt.Errorf("body %q: size must be finite and > 0, got %v", b.Name, b.Size)
	}
	nx, ny := b.Grid()
	nc := nx // distinct columns of vertices
	if b.Tube {
		nc = nx - 1
		if nc < 3 {
			return nil, fmt.Errorf("body %q: a tube needs at least 4 grid vertices around, got %d", b.Name, nx)
		}
		if b.InitialStretch != nil {
			return nil, fmt.Errorf("body %q: initial_stretch is not supported on a tube", b.Name)
		}
	}
	n := nc * ny
	cross := b.Triangulation == Cross
	if cross {
		n += (nx - 1) * (ny - 1)
	}
	dx := b.Size[0] / float64(nx-1)
	dy := b.Size[1] / float64(ny-1)
	R := b.Rotation()
	sh := &Sheet{
		NX:   nx,
		NY:   ny,
		Rest: make([][2]float64, n),
		Pos:  make([][3]float64, n),
	}
	world := func(l [3]float64) (p [3]float64) {
		for k := range 3 {
			p[k] = R[k][0]*l[0] + R[k][1]*l[1] + R[k][2]*l[2] + b.Position[k]
		}
		return p
	}
	// Flat placement of material point u.
	flat := func(u [2]float64) [3]float64 {
		lx, ly, lz := u[0]-b.Size[0]/2, u[1]-b.Size[1]/2, 0.0
		if is := b.InitialStretch; is != nil {
			lx *= is.Bottom + (is.Top-is.Bottom)*u[1]/b.Size[1]
			lz = is.Wrinkle * math.Sin(2*math.Pi*7*u[0]/b.Size[0]) * math.Sin(2*math.Pi*5*u[1]/b.Size[1])
		}
		return world([3]float64{lx, ly, lz})
	}
	// The prism's circumradius makes each ring edge exactly dx long, so the
	// tube starts unstretched.
	radius := dx / (2 * math.Sin(math.Pi/float64(nc)))
	gridU := func(i, j int) [2]float64 {
		u := [2]float64{float64(i) * dx, float64(j) * dy}
		if i == nx-1 {
			u[0] = b.Size[0] // exact corner
		}
		if j == ny-1 {
			u[1] = b.Size[1]
		}
		return u
	}
	node := func(i, j int) int32 { return int32(j*nc + i%nc) }
	// Panels of a tube: cell column i belongs to panel i/cpp, whose material
	// coordinates are shifted by panel*dx so the panels are disjoint pieces.
	cpp := nx - 1
	if b.Tube && b.Panels > 1 {
		if (nx-1)%b.Panels != 0 {
			return nil, fmt.Errorf("body %q: %d cells around are not a multiple of %d panels", b.Name, nx-1, b.Panels)
		}
		cpp = (nx - 1) / b.Panels
	}
	inPanel := func(u [2]float64, cell int) [2]float64 {
		return [2]float64{u[0] + float64(cell/cpp)*dx, u[1]}
	}
	for j := range ny {
		for i := range nc {
			v, u := node(i, j), gridU(i, j)
			sh.Rest[v] = inPanel(u, min(i, nx-2))
			if b.Tube {
				s, c := math.Sincos(2 * math.Pi * float64(i) / float64(nc))
				sh.Pos[v] = world([3]float64{radius * s, u[1] - b.Size[1]/2, radius * c})
			} else {
				sh.Pos[v] = flat(u)
			}
		}
	}

	sh.Faces = make([][3]int32, 0, 4*(nx-1)*(ny-1))
	sh.FaceU = make([][3][2]float64, 0, 4*(nx-1)*(ny-1))
	face := func(a, b, c int32, ua, ub, uc [2]float64) {
		sh.Faces = append(sh.Faces, [3]int32{a, b, c})
		sh.FaceU = append(sh.FaceU, [3][2]float64{ua, ub, uc})
	}
	for j := range ny - 1 {
		for i := range nx - 1 {
			v00, v10, v01, v11 := node(i, j), node(i+1, j), node(i, j+1), node(i+1, j+1)
			u00, u10, u01, u11 := inPanel(gridU(i, j), i), inPanel(gridU(i+1, j), i), inPanel(gridU(i, j+1), i), inPanel(gridU(i+1, j+1), i)
			if cross {
				c := int32(nc*ny + j*(nx-1) + i)
				uc := [2]float64{(u00[0] + u11[0]) / 2, (u00[1] + u11[1]) / 2}
				sh.Rest[c] = uc
				if b.Tube {
					// The centre of the planar quad: unstretched.
					for k := range 3 {
						sh.Pos[c][k] = (sh.Pos[v00][k] + sh.Pos[v10][k] + sh.Pos[v01][k] + sh.Pos[v11][k]) / 4
					}
				} else {
					sh.Pos[c] = flat(uc)
				}
				face(v00, v10, c, u00, u10, uc)
				face(v10, v11, c, u10, u11, uc)
				face(v11, v01, c, u11, u01, uc)
				face(v01, v00, c, u01, u00, uc)
				continue
			}
			if (i+j)%2 == 0 { // diagonal v00-v11
				face(v00, v10, v11, u00, u10, u11)
				face(v00, v11, v01, u00, u11, u01)
			} else { // diagonal v10-v01
				face(v00, v10, v01, u00, u10, u01)
				face(v10, v11, v01, u10, u11, u01)
			}
		}
	}
	sh.Hinges, sh.HingeFaces = mesh.HingesWithFaces(sh.Faces, n)

	sh.Pinned = make([]int32, len(b.Pins))
	seen := make(map[int32]int, len(b.Pins))
	for k, p := range b.Pins {
		v, ok := b.Vertex(p.At[0], p.At[1])
		if !ok {
			return nil, fmt.Errorf("body %q: pins[%d].at %v out of range for a %dx%d grid", b.Name, k, p.At, nx, ny)
		}
		if prev, dup := seen[int32(v)]; dup {
			return nil, fmt.Errorf("body %q: pins[%d] pins the same vertex as pins[%d]", b.Name, k, prev)
		}
		seen[int32(v)] = k
		sh.Pinned[k] = int32(v)
	}
	return sh, nil
}

// Jitter makes a flat sheet's mesh irregular (the "static irregular
// discretization" of Weidner 2018 sec. 7): every interior vertex moves, in
// material space and with it in world space, by a pseudo-random offset of up
// to amount times the grid spacing along each axis (amount < 0.5 keeps every
// face counter-clockwise). The offsets depend only on seed. Border vertices
// stay, so the sheet's outline and its pins do not change.
func (sh *Sheet) Jitter(b *Body, amount float64, seed uint64) error {
	if b.Tube {
		return fmt.Errorf("body %q: an irregular mesh is not supported on a tube", b.Name)
	}
	if !(amount >= 0 && amount < 0.5) {
		return fmt.Errorf("body %q: jitter amount must be in [0, 0.5), got %v", b.Name, amount)
	}
	dx := b.Size[0] / float64(sh.NX-1)
	dy := b.Size[1] / float64(sh.NY-1)
	R := b.Rotation()
	rng := rand.New(rand.NewPCG(seed, 0x10e9))
	moved := make([][2]float64, len(sh.Rest))
	for v := range sh.Rest {
		d := [2]float64{amount * dx * (2*rng.Float64() - 1), amount * dy * (2*rng.Float64() - 1)}
		if v < sh.NX*sh.NY {
			if i, j := v%sh.NX, v/sh.NX; i == 0 || j == 0 || i == sh.NX-1 || j == sh.NY-1 {
				continue
			}
		}
		moved[v] = d
		sh.Rest[v][0] += d[0]
		sh.Rest[v][1] += d[1]
		for k := range 3 {
			sh.Pos[v][k] += R[k][0]*d[0] + R[k][1]*d[1]
		}
	}
	for f, t := range sh.Faces {
		for k, v := range t {
			sh.FaceU[f][k][0] += moved[v][0]
			sh.FaceU[f][k][1] += moved[v][1]
		}
	}
	return nil
}
