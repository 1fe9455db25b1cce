package strainlimit

import (
	"fmt"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// Parameters of Figure7.
const (
	// Figure7Density is the areal density (kg/m^2) of the Figure 7 sheet.
	Figure7Density = 0.1
	// Figure7Limit is the symmetric strain limit: [-5%, 5%].
	Figure7Limit = 0.05
	// Figure7Bump is the amplitude (m) of the out-of-plane perturbation.
	Figure7Bump = 1e-4
)

// Figure7 builds the test of Narain et al. 2012 Fig. 7 on an n x n grid
// (n >= 1; n = 100 gives 20000 faces):
//
//   - Rest shape: the unit square (1 m x 1 m) in material coordinates (u, v),
//     nodes at (i/n, k/n), i, k = 0..n, node index k*(n+1) + i; each cell
//     split into two triangles along its (i,k)-(i+1,k+1) diagonal, counter-
//     clockwise in (u, v).
//   - Deformed positions x = (1/2 + (u - 1/2) s(v), v, z) with horizontal
//     scale s(v) = 1.5 - v: the side v = 0 is stretched to 1.5x its length and
//     the side v = 1 compressed to 0.5x, linearly in between. With the
//     shear of the trapezoid, F = [[s, (u - 1/2) s'], [0, 1]], the principal
//     strains range over [-0.563, +0.628] (extremes at the corners of the
//     compressed and stretched sides; about [-0.5, +0.5] along the middle). z is a deterministic
//     pseudo-random perturbation in [-Figure7Bump, Figure7Bump] (a hash of the
//     node index) so compressed faces can buckle out of plane.
//   - Masses lumped from the uniform density Figure7Density; limits
//     [-Figure7Limit, Figure7Limit]; no pinned nodes.
func Figure7(n int) (*Problem, error) {
	if n < 1 || n > 4096 {
		return nil, fmt.Errorf("strainlimit: Figure7 grid size %d out of range [1, 4096]", n)
	}
	nn := (n + 1) * (n + 1)
	uv := make([]dense.Vec2, nn)
	x := make([]dense.Vec3, nn)
	for k := 0; k <= n; k++ {
		for i := 0; i <= n; i++ {
			id := k*(n+1) + i
			u, v := float64(i)/float64(n), float64(k)/float64(n)
			uv[id] = dense.Vec2{u, v}
			x[id] = dense.Vec3{0.5 + (u-0.5)*(1.5-v), v, Figure7Bump * hashUnit(uint64(id))}
		}
	}
	faces := make([][3]int32, 0, 2*n*n)
	for k := 0; k < n; k++ {
		for i := 0; i < n; i++ {
			a := int32(k*(n+1) + i)
			b, c, d := a+1, a+int32(n+1)+1, a+int32(n+1)
			faces = append(faces, [3]int32{a, b, c}, [3]int32{a, c, d})
		}
	}
	rest := make([]elastic.MembraneRest, len(faces))
	for j, f := range faces {
		r, err := elastic.NewMembraneRest(uv[f[0]], uv[f[1]], uv[f[2]])
		if err != nil {
			return nil, fmt.Errorf("strainlimit: Figure7 face %d: %v", j, err)
		}
		rest[j] = r
	}
	return &Problem{
		X:     x,
		Mass:  LumpedMasses(nn, faces, rest, Figure7Density),
		Faces: faces,
		Rest:  rest,
		Min:   -Figure7Limit,
		Max:   Figure7Limit,
	}, nil
}

// hashUnit maps i to a pseudo-random number in [-1, 1] (splitmix64 finalizer).
func hashUnit(i uint64) float64 {
	z := i + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/float64(1<<52) - 1
}
