package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// TestFeatureEnds: featureEnds (which reads each edge's corner IDs,
// geom.Feature.Ends) joins the same corners to the same edges as a brute
// force over every pair of an obstacle's edge and corner (a corner on the
// edge's line, 1e-9 relative, before its start or past its end), on a
// turned box, the same box as a triangle mesh and a 60-degree wedge prism
// (two obstacles in one list, so the indices are offset); every box and
// cube edge has both ends.
func TestFeatureEnds(t *testing.T) {
	R := dense.QuatExp(dense.Vec3{0.3, -0.7, 1.1}).Mat()
	box := geom.Shape{Kind: geom.Box, HalfExtents: dense.Vec3{0.4, 0.25, 0.1}, Rotated: true, R: R}
	p, faces, _, ok := geom.ShapeMesh(&geom.Shape{Kind: geom.Box, HalfExtents: dense.Vec3{0.4, 0.25, 0.1}}, 1e-3)
	if !ok {
		t.Fatal("no box mesh")
	}
	mesh := func(p []dense.Vec3, faces []int32) *geom.Shape {
		var pos []float64
		for _, x := range p {
			pos = append(pos, x[:]...)
		}
		m, err := geom.NewMeshSurface(nil, pos, faces)
		if err != nil {
			t.Fatal(err)
		}
		m.MarkSharpEdges(geom.DefaultFeatureAngle)
		return &geom.Shape{Kind: geom.Mesh, Mesh: m, Rotated: true, R: R}
	}
	s60 := math.Sqrt(3) / 2
	poly := [][2]float64{{0, 0}, {0.5, -s60}, {1.2, 0}}
	var wp []dense.Vec3
	for _, y := range []float64{-0.25, 1.25} {
		for _, q := range poly {
			wp = append(wp, dense.Vec3{q[0], y, q[1]})
		}
	}
	wf := []int32{0, 1, 2, 3, 5, 4}
	for i := range int32(3) {
		j := (i + 1) % 3
		wf = append(wf, i, 3+j, j, i, 3+i, 3+j)
	}
	const th = 0.002
	for _, c := range []struct {
		name   string
		shapes []*geom.Shape
		both   bool
	}{
		{"box", []*geom.Shape{&box}, true},
		{"cube mesh", []*geom.Shape{mesh(p, faces)}, true},
		{"wedge and box", []*geom.Shape{mesh(wp, wf), &box}, false},
	} {
		var fs []geom.Feature
		for oi, s := range c.shapes {
			fs = geom.AppendMovingFeatures(fs, s, dense.Vec3{0.1, 0.2, 0.3}, dense.Vec3{}, dense.Vec3{}, int32(oi), th)
		}
		got := featureEnds(nil, fs)
		want := map[int32]conformal.EdgeEnds{}
		edges := 0
		for fi := range fs {
			f := &fs[fi]
			if f.Kind != components.FeatureEdge || f.Wire {
				continue
			}
			edges++
			e := conformal.EdgeEnds{Start: -1, End: -1, T0: 0, T1: f.Length}
			for ci := range fs {
				k := &fs[ci]
				if k.Kind != components.FeatureCorner || k.Obstacle != f.Obstacle {
					continue
				}
				r := k.P0.Sub(f.P0)
				tt := r.Dot(f.Dir)
				if r.Sub(f.Dir.Scale(tt)).Norm() > 1e-9*(1+f.Length) {
					continue
				}
				switch {
				case tt <= 0:
					e.Start, e.T0 = int32(ci), tt
				case tt >= f.Length:
					e.End, e.T1 = int32(ci), tt
				}
			}
			if e.Start >= 0 || e.End >= 0 {
				want[int32(fi)] = e
			}
			if c.both && (e.Start < 0 || e.End < 0) {
				t.Errorf("%s: edge %d has ends %+v, want both", c.name, fi, e)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d edges with ends, brute force %d (of %d edges)", c.name, len(got), len(want), edges)
		}
		for fi, w := range want {
			if g := got[fi]; g != w {
				t.Errorf("%s: edge %d ends %+v, brute force %+v", c.name, fi, g, w)
			}
		}
	}
}
