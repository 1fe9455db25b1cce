package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/sparse"
)

// boxLayerGap is the brute-force reference for a soft contact's gap: the
// least distance from cloth edge a-b to the axis-aligned box (half extents
// h, centred at the origin), less the contact thickness, over 20001 points
// of the edge refined by golden-section search. It shares no code with
// softContacts.
func boxLayerGap(a, b dense.Vec3, h, thickness float64) float64 {
	dist := func(s float64) float64 {
		var o float64
		for k := range 3 {
			p := a[k] + s*(b[k]-a[k])
			if d := math.Abs(p) - h; d > 0 {
				o += d * d
			}
		}
		return math.Sqrt(o)
	}
	best, bs := math.Inf(1), 0.0
	for i := 0; i <= 20000; i++ {
		if d := dist(float64(i) / 20000); d < best {
			best, bs = d, float64(i)/20000
		}
	}
	lo, hi := math.Max(0, bs-1e-4), math.Min(1, bs+1e-4)
	g := (math.Sqrt(5) - 1) / 2
	for range 200 {
		m1, m2 := hi-g*(hi-lo), lo+g*(hi-lo)
		if dist(m1) < dist(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	return dist((lo+hi)/2) - thickness
}

// softCloth is a one-triangle EOL cloth next to a 0.2 m box (thickness
// 2 mm, reach 5 mm, h 5 ms) whose edge 0-1 crosses the box edge along x at
// y = z = 0.1 (offset by the thickness) at depth below that offset line along
// the faces' bisector; the box moves at vel. Every diagonal block of the
// matrix is the identity.
func softCloth(t *testing.T, depth float64, vel dense.Vec3) *EOLCloth {
	t.Helper()
	const h, th = 0.1, 0.002
	box := geom.Shape{Kind: geom.Box, HalfExtents: dense.Vec3{h, h, h}}
	bis := dense.Vec3{0, 1, 1}.Scale(1 / math.Sqrt2)
	line := dense.Vec3{0.003, h + th, h + th}.Sub(bis.Scale(depth))
	x := []dense.Vec3{
		line.Add(dense.Vec3{0, 0.006, -0.006}), // over the +y face
		line.Add(dense.Vec3{0.001, -0.006, 0.006}),
		line.Add(dense.Vec3{0.02, 0.01, 0.01}),
	}
	faces := []int32{0, 1, 2}
	pat, err := sparse.NewPattern(3, []sparse.ElementGroup{{Stride: 3, Verts: faces}})
	if err != nil {
		t.Fatal(err)
	}
	st := &ClothState{}
	st.Verts = make([]ecs.Entity, 3)
	st.Faces = faces
	st.H = 0.005
	st.A = pat.NewMatrix()
	for i := range 3 {
		d := st.A.Diag[i]
		st.A.Val[9*d], st.A.Val[9*d+4], st.A.Val[9*d+8] = 1, 1, 1
	}
	st.Grad = make([]float64, 9)
	for _, p := range x {
		st.X = append(st.X, p[:]...)
	}
	c := &EOLCloth{state: st, set: model.EOLSettings{Reach: 0.005}, thickness: th, faces: [][3]int32{{0, 1, 2}}}
	c.obstacles = []components.Obstacle{{Shape: box, Vel: vel}}
	c.features = geom.AppendFeatures(nil, &box, dense.Vec3{}, vel, 0, th)
	return c
}

// TestSoftContactGradient: a cloth edge that crosses a box edge inside the
// contact layer, with no node on the feature, gets one soft contact whose
// gradient is k g grad g and whose matrix blocks are h^2 k grad_i g
// grad_j g^T (Gauss-Newton), g being the brute-force gap to the box
// (boxLayerGap) and its gradient by central differences; outside the layer
// there is none, unless the box moves in by more than the gap within the
// step.
func TestSoftContactGradient(t *testing.T) {
	const h, th = 0.1, 0.002
	for _, tc := range []struct {
		name  string
		depth float64 // below the offset line, along the bisector
		vel   dense.Vec3
		want  int
	}{
		{"outside", -0.0005, dense.Vec3{}, 0},
		{"in-layer", 0.0015, dense.Vec3{}, 1},
		{"deep-in-layer", 0.0024, dense.Vec3{}, 1},
		{"box-moving-in", -0.0005, dense.Vec3{0, 0.2, 0.2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := softCloth(t, tc.depth, tc.vel)
			s := c.state
			x := func(i int) dense.Vec3 { return vec(s.X, int32(i)) }
			g0 := boxLayerGap(x(0), x(1), h, th)
			A0 := append([]float64(nil), s.A.Val...)
			var sc softScratch
			n, err := c.softContacts(&sc)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("gap %.4g mm (brute force, at rest), %d soft contacts", 1e3*g0, n)
			if n != tc.want {
				t.Fatalf("%d soft contacts, want %d", n, tc.want)
			}
			if n == 0 {
				for k, v := range s.Grad {
					if v != 0 {
						t.Fatalf("gradient entry %d is %g without a contact", k, v)
					}
				}
				return
			}
			// The gap at the end of the step: the box moves by h vel.
			shift := tc.vel.Scale(s.H)
			gap := func(a, b dense.Vec3) float64 { return boxLayerGap(a.Sub(shift), b.Sub(shift), h, th) }
			g := gap(x(0), x(1))
			if g >= 0 {
				t.Fatalf("setup: gap %g at the end of the step is not negative", g)
			}
			var grad [2]dense.Vec3
			const eps = 1e-7
			for i := range 2 {
				for d := range 3 {
					p := [2]dense.Vec3{x(0), x(1)}
					p[i][d] += eps
					gp := gap(p[0], p[1])
					p[i][d] -= 2 * eps
					grad[i][d] = (gp - gap(p[0], p[1])) / (2 * eps)
				}
			}
			k := softStiffness / (s.H * s.H) // the diagonal entries are 1
			for i := range 2 {
				for d := range 3 {
					want, got := k*g*grad[i][d], s.Grad[3*i+d]
					if math.Abs(got-want) > 1e-4*math.Abs(k*g) {
						t.Errorf("gradient of vertex %d, axis %d: %g, want %g", i, d, got, want)
					}
				}
			}
			if g2 := s.Grad[6:9]; g2[0] != 0 || g2[1] != 0 || g2[2] != 0 {
				t.Errorf("vertex 2 (not on the edge) got a gradient %v", g2)
			}
			A := s.A
			for i := range 2 {
				for b := A.RowPtr[i]; b < A.RowPtr[i+1]; b++ {
					j := int(A.Col[b])
					for r := range 3 {
						for q := range 3 {
							o := 9*int(b) + 3*r + q
							got := A.Val[o] - A0[o]
							want := 0.0
							if j < 2 {
								want = s.H * s.H * k * grad[i][r] * grad[j][q]
							}
							if math.Abs(got-want) > 1e-4*softStiffness {
								t.Errorf("matrix block (%d, %d) entry (%d, %d) grew by %g, want %g", i, j, r, q, got, want)
							}
						}
					}
				}
			}
		})
	}
}

// TestSoftContactCornerThroughFold runs FRICTION at mu 0.5 at full
// resolution through its landing (0.25 s). At 0.165 s a face of the cloth
// folded over the faces of a box corner's EOL vertex met that corner: a
// point feature touches the cloth at one node, so the hit was a duplicate,
// and the solve dragged the face 1.02 mm into the box within one step.
// With the soft contact (softContacts) no step may leave the cloth surface
// more than 0.1 mm inside an obstacle.
func TestSoftContactCornerThroughFold(t *testing.T) {
	t.Parallel()
	sc := frictionScene(t, "0.5", 0.25)
	sim := build(t, sc, 2)
	worst, at, soft := 0.0, 0, 0
	steps(t, sim, sc.NumSteps(), func(i int) {
		st := sim.Measure()
		if st.MaxPenetration > worst {
			worst, at = st.MaxPenetration, i
		}
		soft += *st.SoftContact
	})
	t.Logf("%d steps: %d soft contacts, deepest surface penetration %.3g mm (step %d)", sc.NumSteps(), soft, 1e3*worst, at)
	if worst > 1e-4 {
		t.Errorf("the cloth surface went %.3g mm into an obstacle at step %d, want at most 0.1 mm", 1e3*worst, at)
	}
}
