package scenes

import (
	"fmt"
	"math"
)

// Sheet is the triangle mesh of a Body.
type Sheet struct {
	NX, NY int // vertices along local x and y
	// Rest holds material coordinates (m), origin at the lower-left corner:
	// grid vertex j*NX + i at (i*dx, j*dy), then, for the cross
	// triangulation, one vertex per cell at its centre (NX*NY + cj*(NX-1) + ci).
	Rest  [][2]float64
	Pos   [][3]float64 // world positions: R * (rest - size/2, 0) + position
	Faces [][3]int32   // CCW in material space: see Body.Triangulation
	// Hinges has one entry per interior edge: [x0, x1, x2, x3] where (x0, x1)
	// is the shared edge, x2 the opposite vertex of the face that has the
	// directed edge x0->x1 in its CCW order, and x3 the opposite vertex of the
	// other face (which has x1->x0). x0 < x1.
	Hinges [][4]int32
	Pinned []int32 // vertex indices of Body.Pins, in the same order
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
// count from the end (-1 = last). ok is false when out of range.
func (b *Body) Vertex(i, j int) (v int, ok bool) {
	nx, ny := b.Grid()
	i, oki := normIndex(i, nx)
	j, okj := normIndex(j, ny)
	if !oki || !okj {
		return -1, false
	}
	return j*nx + i, true
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
func BuildSheet(b *Body) (*Sheet, error) {
	if b.Resolution < 2 || b.Resolution > MaxResolution {
		return nil, fmt.Errorf("body %q: resolution must be in [2, %d], got %d", b.Name, MaxResolution, b.Resolution)
	}
	if !(b.Size[0] > 0 && b.Size[1] > 0) || math.IsInf(b.Size[0], 0) || math.IsInf(b.Size[1], 0) {
		return nil, fmt.Errorf("body %q: size must be finite and > 0, got %v", b.Name, b.Size)
	}
	nx, ny := b.Grid()
	n := nx * ny
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
	place := func(v int, u [2]float64) {
		sh.Rest[v] = u
		lx, ly, lz := u[0]-b.Size[0]/2, u[1]-b.Size[1]/2, 0.0
		if is := b.InitialStretch; is != nil {
			lx *= is.Bottom + (is.Top-is.Bottom)*u[1]/b.Size[1]
			lz = is.Wrinkle * math.Sin(2*math.Pi*7*u[0]/b.Size[0]) * math.Sin(2*math.Pi*5*u[1]/b.Size[1])
		}
		for k := range 3 {
			sh.Pos[v][k] = R[k][0]*lx + R[k][1]*ly + R[k][2]*lz + b.Position[k]
		}
	}
	for j := range ny {
		for i := range nx {
			u := [2]float64{float64(i) * dx, float64(j) * dy}
			if i == nx-1 {
				u[0] = b.Size[0] // exact corner
			}
			if j == ny-1 {
				u[1] = b.Size[1]
			}
			place(j*nx+i, u)
		}
	}

	sh.Faces = make([][3]int32, 0, 4*(nx-1)*(ny-1))
	for j := range ny - 1 {
		for i := range nx - 1 {
			v00 := int32(j*nx + i)
			v10 := v00 + 1
			v01 := v00 + int32(nx)
			v11 := v01 + 1
			if cross {
				c := int32(nx*ny + j*(nx-1) + i)
				r0, r1 := sh.Rest[v00], sh.Rest[v11]
				place(int(c), [2]float64{(r0[0] + r1[0]) / 2, (r0[1] + r1[1]) / 2})
				sh.Faces = append(sh.Faces, [3]int32{v00, v10, c}, [3]int32{v10, v11, c}, [3]int32{v11, v01, c}, [3]int32{v01, v00, c})
				continue
			}
			if (i+j)%2 == 0 { // diagonal v00-v11
				sh.Faces = append(sh.Faces, [3]int32{v00, v10, v11}, [3]int32{v00, v11, v01})
			} else { // diagonal v10-v01
				sh.Faces = append(sh.Faces, [3]int32{v00, v10, v01}, [3]int32{v10, v11, v01})
			}
		}
	}
	sh.Hinges = Hinges(sh.Faces, n)

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

// Hinges returns one hinge per interior edge of a consistently oriented
// manifold triangle mesh, in the layout of Sheet.Hinges.
func Hinges(faces [][3]int32, nverts int) [][4]int32 {
	key := func(a, b int32) int64 { return int64(a)*int64(nverts) + int64(b) }
	opp := make(map[int64]int32, 3*len(faces)) // directed edge -> opposite vertex
	for _, f := range faces {
		for e := range 3 {
			opp[key(f[e], f[(e+1)%3])] = f[(e+2)%3]
		}
	}
	hinges := make([][4]int32, 0, 3*len(faces)/2)
	for _, f := range faces {
		for e := range 3 {
			a, b := f[e], f[(e+1)%3]
			if a > b {
				continue // emitted from the other face (if interior)
			}
			if x3, ok := opp[key(b, a)]; ok {
				hinges = append(hinges, [4]int32{a, b, f[(e+2)%3], x3})
			}
		}
	}
	return hinges
}
