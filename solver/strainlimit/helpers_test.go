package strainlimit

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// unevenRunner splits [0, n) into random-sized chunks (including empty ones
// skipped and chunks of one) and runs them concurrently, in random order.
type unevenRunner struct {
	mu  sync.Mutex
	rng *rand.Rand
}

func newUneven(seed uint64) *unevenRunner {
	return &unevenRunner{rng: rand.New(rand.NewPCG(seed, 7))}
}

func (u *unevenRunner) For(n int, body func(lo, hi int)) {
	u.mu.Lock()
	var cuts []int
	for lo := 0; lo < n; {
		hi := min(n, lo+1+u.rng.IntN(max(1, n/3)))
		cuts = append(cuts, lo, hi)
		lo = hi
	}
	u.rng.Shuffle(len(cuts)/2, func(i, j int) {
		cuts[2*i], cuts[2*j] = cuts[2*j], cuts[2*i]
		cuts[2*i+1], cuts[2*j+1] = cuts[2*j+1], cuts[2*i+1]
	})
	u.mu.Unlock()
	var wg sync.WaitGroup
	for k := 0; k < len(cuts); k += 2 {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			body(lo, hi)
		}(cuts[k], cuts[k+1])
	}
	wg.Wait()
}

// singleTriangle returns a one-face problem with rest corners X and current
// corners x.
func singleTriangle(t testing.TB, X [3]dense.Vec2, x [3]dense.Vec3, mass [3]float64) *Problem {
	t.Helper()
	r, err := elastic.NewMembraneRest(X[0], X[1], X[2])
	if err != nil {
		t.Fatal(err)
	}
	return &Problem{
		X:     x[:],
		Mass:  mass[:],
		Faces: [][3]int32{{0, 1, 2}},
		Rest:  []elastic.MembraneRest{r},
		Min:   -0.05,
		Max:   0.05,
	}
}

// randRotation returns a random 3x3 rotation.
func randRotation(rng *rand.Rand) dense.Mat3 {
	a := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	a = a.Scale(1 / a.Norm())
	b := dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	b = b.Sub(a.Scale(a.Dot(b)))
	b = b.Scale(1 / b.Norm())
	c := a.Cross(b)
	return dense.Mat3{{a[0], b[0], c[0]}, {a[1], b[1], c[1]}, {a[2], b[2], c[2]}}
}

// embed maps a material point through a 2x2 linear map, then a rotation and a
// translation into 3D.
func embed(R dense.Mat3, A dense.Mat2, t dense.Vec3, X dense.Vec2) dense.Vec3 {
	y := A.MulVec(X)
	return R.MulVec(dense.Vec3{y[0], y[1], 0}).Add(t)
}

func centroid(x []dense.Vec3, m []float64) dense.Vec3 {
	var c dense.Vec3
	M := 0.0
	for i := range x {
		c = c.Add(x[i].Scale(m[i]))
		M += m[i]
	}
	return c.Scale(1 / M)
}

func singular(p *Problem, j int) [2]float64 {
	f := p.Faces[j]
	_, s, _ := dense.SVD32(p.Rest[j].DeformationGradient(p.X[f[0]], p.X[f[1]], p.X[f[2]]))
	return s
}

// independentMaxViolation recomputes the maximum violation with elastic's
// PrincipalStrains, independently of this package's code.
func independentMaxViolation(p *Problem) float64 {
	worst := 0.0
	for j, f := range p.Faces {
		e := elastic.PrincipalStrains(p.Rest[j].DeformationGradient(p.X[f[0]], p.X[f[1]], p.X[f[2]]))
		for _, v := range e {
			worst = math.Max(worst, math.Max(v-p.Max, p.Min-v))
		}
	}
	return worst
}

func cloneProblem(p *Problem) *Problem {
	q := *p
	q.X = append([]dense.Vec3(nil), p.X...)
	q.ws = nil
	return &q
}
