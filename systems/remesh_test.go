package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
)

// TestSphereRemesh runs the start of the sphere scene (Narain 2012 Fig. 2)
// with a coarser smallest edge: the cloth swings down from its two pinned
// corners into the sphere. After every remeshing pass the body's mesh must
// be a valid manifold with positive material-space area covering the whole
// square, every edge valid (size <= 1, eq. 1), the pinned corners kept, and
// no vertex inside the sphere; once the cloth touches the sphere the faces
// near it must be finer than those far from it.
func TestSphereRemesh(t *testing.T) {
	sc := load(t, "sphere", [2]string{"bodies.0.remesh.size_min", "0.03"})
	sim := build(t, sc, 2)
	pins := generic.NewMap[components.Pinned](sim.World.ECS)
	n := 100
	if testing.Short() {
		n = 80
	}
	touched := false
	steps(t, sim, n, func(i int) {
		if i%8 != 0 {
			return
		}
		st := sim.Measure()
		if st.EdgeSizeMax == nil || *st.EdgeSizeMax > 1+1e-9 {
			t.Fatalf("step %d: largest edge size %v after remeshing, want <= 1", i, st.EdgeSizeMax)
		}
		if st.MaxPenetration > 1e-4 {
			t.Fatalf("step %d: penetration %.3g mm", i, 1e3*st.MaxPenetration)
		}
		m := sim.Remesh.bodies[0]
		mesh := sim.Remesh.gather(&m)
		if err := mesh.Validate(); err != nil {
			t.Fatalf("step %d: remeshed body is not a valid mesh: %v", i, err)
		}
		area := 0.0
		for _, f := range mesh.F {
			area += cross2v(mesh.U[f[0]], mesh.U[f[1]], mesh.U[f[2]]) / 2
		}
		if math.Abs(area-1) > 1e-9 {
			t.Fatalf("step %d: material-space area %v, want 1", i, area)
		}
		np := 0
		for _, e := range sim.Bodies[0].Verts {
			if pins.Has(e) {
				np++
			}
		}
		if np != 2 {
			t.Fatalf("step %d: %d pinned vertices, want 2", i, np)
		}
		if st.Contacts > 0 {
			touched = true
		}
	})
	if !touched {
		t.Fatal("the cloth never touched the sphere; the test saw no contact")
	}
	m := sim.Remesh.bodies[0]
	mesh := sim.Remesh.gather(&m)
	near, far := edgeLengths(sim, mesh.X, mesh.F)
	t.Logf("after %d steps: %d faces; mean edge near the sphere %.1f mm, far from it %.1f mm", n, len(mesh.F), 1e3*near, 1e3*far)
	if !(near < 0.6*far) {
		t.Errorf("no refinement near the obstacle: mean edge near the sphere %.1f mm, far from it %.1f mm", 1e3*near, 1e3*far)
	}
}

func cross2v(a, b, c dense.Vec2) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// edgeLengths returns the mean world edge length of faces within 2 cm of the
// obstacle and of faces more than 25 cm from it.
func edgeLengths(sim *Sim, x []dense.Vec3, faces [][3]int32) (near, far float64) {
	o := sim.Remesh.obstacles[0]
	var sn, sf float64
	var nn, nf int
	for _, f := range faces {
		c := x[f[0]].Add(x[f[1]]).Add(x[f[2]]).Scale(1.0 / 3)
		d, _ := signedDistance(&o, c)
		l := (x[f[0]].Sub(x[f[1]]).Norm() + x[f[1]].Sub(x[f[2]]).Norm() + x[f[2]].Sub(x[f[0]]).Norm()) / 3
		switch {
		case d < 0.02:
			sn, nn = sn+l, nn+1
		case d > 0.25:
			sf, nf = sf+l, nf+1
		}
	}
	return sn / float64(max(nn, 1)), sf / float64(max(nf, 1))
}
