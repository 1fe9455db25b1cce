package developable

import (
	"testing"
)

// grid returns an n x n vertex grid of a w x w square in the plane z = 0
// (material coordinates = (x, y)), cells split along alternating
// diagonals, and the vertex positions standing vertically: x, 0, z = y.
func grid(t testing.TB, n int, w float64) (*Mesh, []float64) {
	t.Helper()
	var faces [][3]int32
	var fu [][3][2]float64
	at := func(i, j int) int32 { return int32(j*n + i) }
	uv := func(v int32) [2]float64 {
		return [2]float64{w * float64(int(v)%n) / float64(n-1), w * float64(int(v)/n) / float64(n-1)}
	}
	for j := 0; j < n-1; j++ {
		for i := 0; i < n-1; i++ {
			a, b, c, d := at(i, j), at(i+1, j), at(i+1, j+1), at(i, j+1)
			var tris [][3]int32
			if (i+j)%2 == 0 {
				tris = [][3]int32{{a, b, c}, {a, c, d}}
			} else {
				tris = [][3]int32{{a, b, d}, {b, c, d}}
			}
			for _, tr := range tris {
				faces = append(faces, tr)
				fu = append(fu, [3][2]float64{uv(tr[0]), uv(tr[1]), uv(tr[2])})
			}
		}
	}
	m, err := NewMesh(n*n, faces, fu)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, 3*n*n)
	for v := range n * n {
		u := uv(int32(v))
		x[3*v], x[3*v+1], x[3*v+2] = u[0], 0, u[1]
	}
	return m, x
}

// shifted calls eval with x[i] moved by +h (plus true), then by -h, and
// restores x[i]: the two evaluations of a central difference.
func shifted(x []float64, i int, h float64, eval func(plus bool)) {
	xi := x[i]
	x[i] = xi + h
	eval(true)
	x[i] = xi - h
	eval(false)
	x[i] = xi
}
