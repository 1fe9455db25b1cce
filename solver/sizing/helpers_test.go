package sizing

import (
	"math"
	"math/rand/v2"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/internal/testrun"
	"github.com/loomsim/loom/solver/remesh"
	"github.com/loomsim/loom/solver/sparse"
)

// chunkRunner calls body serially on chunks of size k (allocation-free).
type chunkRunner struct{ k int }

func (g chunkRunner) For(n int, body func(lo, hi int)) {
	for lo := 0; lo < n; lo += g.k {
		body(lo, min(lo+g.k, n))
	}
}

var testRunners = []struct {
	name string
	r    sparse.Runner
}{
	{"serial", sparse.Serial{}},
	{"chunk7", chunkRunner{7}},
	{"pool3x5", testrun.Chunked{Workers: 3, Grain: 5}},
	{"pool4x64", testrun.Chunked{Workers: 4, Grain: 64}},
}

// grid returns an n x n cell grid on [0,L]^2 (one vert per node, node index
// i + j(n+1)), each cell split along its (i,j)-(i+1,j+1) diagonal, with X = (u, 0)
// and V = 0. If cut in (0, n), the cells with i >= cut form a second panel: the
// nodes of column cut get a second vert for it, and the second panel's
// material coordinates are rotated by rot about (cut h, 0) and shifted by
// (3L, L/3). vertNode maps every vert to the vert of the uncut grid on the
// same node, and vertRot to the rotation angle of its panel.
func grid(n int, L float64, cut int, rot float64) (m *remesh.Mesh, vertRot []float64) {
	h := L / float64(n)
	nn := (n + 1) * (n + 1)
	m = &remesh.Mesh{X: make([]dense.Vec3, nn), V: make([]dense.Vec3, nn)}
	id := func(i, j int) int { return i + j*(n+1) }
	for j := 0; j <= n; j++ {
		for i := 0; i <= n; i++ {
			u := dense.Vec2{float64(i) * h, float64(j) * h}
			m.X[id(i, j)] = dense.Vec3{u[0], u[1], 0}
			m.U = append(m.U, u)
			m.Node = append(m.Node, int32(id(i, j)))
			vertRot = append(vertRot, 0)
		}
	}
	right := make([]int32, nn) // vert of node in the right panel
	for k := range right {
		right[k] = int32(k)
	}
	if cut > 0 && cut < n {
		sn, cs := math.Sincos(rot)
		o := dense.Vec2{float64(cut) * h, 0}
		for j := 0; j <= n; j++ {
			for i := cut; i <= n; i++ {
				k := id(i, j)
				v := int32(k)
				if i == cut {
					v = int32(len(m.U))
					m.U = append(m.U, dense.Vec2{})
					m.Node = append(m.Node, int32(k))
					vertRot = append(vertRot, 0)
				}
				d := dense.Vec2{float64(i)*h - o[0], float64(j)*h - o[1]}
				m.U[v] = dense.Vec2{o[0] + cs*d[0] - sn*d[1] + 3*L, o[1] + sn*d[0] + cs*d[1] + L/3}
				vertRot[v] = rot
				right[k] = v
			}
		}
	}
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			p00, p10, p11, p01 := int32(id(i, j)), int32(id(i+1, j)), int32(id(i+1, j+1)), int32(id(i, j+1))
			if cut > 0 && cut < n && i >= cut {
				p00, p10, p11, p01 = right[p00], right[p10], right[p11], right[p01]
			}
			m.F = append(m.F, [3]int32{p00, p10, p11}, [3]int32{p00, p11, p01})
		}
	}
	return m, vertRot
}

// crumple gives the nodes of a grid mesh a smooth non-trivial embedding and
// velocity field (curved, stretched in places, compressed in others) plus a
// little noise.
func crumple(m *remesh.Mesh, rng *rand.Rand) {
	for i, x := range m.X {
		u, v := x[0], x[1]
		m.X[i] = dense.Vec3{
			0.8*u + 0.1*math.Sin(5*v),
			1.1*v + 0.05*math.Cos(3*u),
			0.2*math.Sin(4*u)*math.Cos(3*v) + 0.001*rng.NormFloat64(),
		}
		m.V[i] = dense.Vec3{math.Sin(2 * v), u * v, 0.3 * math.Cos(5*u+v)}
	}
}

// planeObstacles returns, per node, the nearest point and normal of the
// plane through o with unit normal n.
func planeObstacles(m *remesh.Mesh, o, n dense.Vec3, rng float64) Obstacles {
	obs := Obstacles{Point: make([]dense.Vec3, len(m.X)), Normal: make([]dense.Vec3, len(m.X)), Range: rng}
	for i, x := range m.X {
		d := x.Sub(o).Dot(n)
		obs.Point[i] = x.Sub(n.Scale(d))
		obs.Normal[i] = n
	}
	return obs
}

func loose() Params {
	// Every criterion on with unit weight, clamping bounds far away.
	return Params{RefineAngle: 1, RefineCompression: 1, RefineVelocity: 1, SizeMin: 1e-6, SizeMax: math.Inf(1), AspectMin: 0}
}

func only(which string) Params {
	p := loose()
	inf := math.Inf(1)
	if which != "crv" {
		p.RefineAngle = inf
	}
	if which != "cmp" {
		p.RefineCompression = inf
	}
	if which != "vel" {
		p.RefineVelocity = inf
	}
	return p
}

func matDiff(a, b dense.Mat2) float64 {
	return math.Max(math.Max(math.Abs(a[0][0]-b[0][0]), math.Abs(a[0][1]-b[0][1])),
		math.Max(math.Abs(a[1][0]-b[1][0]), math.Abs(a[1][1]-b[1][1])))
}

func matNorm(a dense.Mat2) float64 { return matDiff(a, dense.Mat2{}) }

// rotMat returns Q a Q^T for the rotation Q by angle t.
func rotMat(a dense.Mat2, t float64) dense.Mat2 {
	s, c := math.Sincos(t)
	return rotSym(a, c, s)
}
