package systems

import (
	"math"
	"testing"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/conformal"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/remesh"
)

// refDetect is detect as it was before the bounding-box pruning: every
// edge (visited once through a map) against every edge feature, every face
// against every point feature.
func refDetect(c *EOLCloth, m *remesh.Mesh, feature []int32) []conformal.Hit {
	reach := c.set.Reach
	var hits []conformal.Hit
	seen := map[[2]int32]bool{}
	for _, t := range m.F {
		for k := range 3 {
			a, b := m.Node[t[k]], m.Node[t[(k+1)%3]]
			if a > b {
				a, b = b, a
			}
			if seen[[2]int32{a, b}] {
				continue
			}
			seen[[2]int32{a, b}] = true
			var lo, hi dense.Vec3
			for j := range 3 {
				lo[j], hi[j] = math.Min(m.X[a][j], m.X[b][j]), math.Max(m.X[a][j], m.X[b][j])
			}
			margin := reach + m.X[b].Sub(m.X[a]).Norm()
			for fi := range c.features {
				f := &c.features[fi]
				if f.Kind != components.FeatureEdge || feature[a] == int32(fi) || feature[b] == int32(fi) || !refNear(f, lo, hi, margin) {
					continue
				}
				if hs, ht, hx, ok := f.EdgeHit(m.X[a], m.X[b], reach); ok {
					hits = append(hits, conformal.Hit{A: a, B: b, Face: -1, Feature: int32(fi), S: hs, X: hx, T: ht})
				}
			}
		}
	}
	for fi := range c.features {
		f := &c.features[fi]
		if f.Kind == components.FeatureEdge {
			continue
		}
		for face, t := range m.F {
			a, b, d := m.Node[t[0]], m.Node[t[1]], m.Node[t[2]]
			if feature[a] == int32(fi) || feature[b] == int32(fi) || feature[d] == int32(fi) {
				continue
			}
			if bary, ok := f.PointHit(m.X[a], m.X[b], m.X[d], reach); ok {
				hits = append(hits, conformal.Hit{Face: int32(face), Bary: bary, X: f.P0, Feature: int32(fi), Point: true})
			}
		}
	}
	return hits
}

// refNear is the old pretest of refDetect.
func refNear(f *geom.Feature, lo, hi dense.Vec3, margin float64) bool {
	q := f.At(f.Length)
	m := margin + f.Radius
	for k := range 3 {
		if lo[k] > math.Max(f.P0[k], q[k])+m || hi[k] < math.Min(f.P0[k], q[k])-m {
			return false
		}
	}
	return true
}

// TestEOLDetectMatchesReference steps coarse EOL scenes with box edges and
// corners, wires and nails, and at every 10th step (every 5th with
// LOOM_LONG_TESTS; refDetect is the cost) compares detect's hits
// with refDetect's, element by element (bitwise): on the body's mesh with
// its EOL vertices' features, with no features (every pair tested), with
// the mesh moved down by up to twice the reach in small steps (more
// crossings near the features' ends, reaches and sides), and with a face
// moved onto each point feature and box corner.
func TestEOLDetectMatchesReference(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name             string
		duration         float64
		sizeMin, sizeMax float64
	}{
		{"edge", 0.45, 0.06, 0.12},
		{"wire", 0.6, 0.06, 0.12},
		{"nails", 0.6, 0.08, 0.15},
		{"jaws", 0.6, 0.08, 0.15},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := build(t, eolShort(t, tc.name, tc.duration, tc.sizeMin, tc.sizeMax), 2)
			c, e := sim.EOL, sim.Conformal
			var s detectScratch
			compared, edgeHits, pointHits := 0, 0, 0
			check := func(step int, m *remesh.Mesh, feature []int32) {
				want := refDetect(c, m, feature)
				got := c.detect(m, feature, &s)
				if len(got) != len(want) {
					t.Fatalf("step %d: %d hits, want %d", step, len(got), len(want))
				}
				for k := range want {
					if got[k] != want[k] {
						t.Fatalf("step %d: hit %d is %+v, want %+v", step, k, got[k], want[k])
					}
					if want[k].Point {
						pointHits++
					} else {
						edgeHits++
					}
				}
				compared++
			}
			steps(t, sim, sim.Model.Steps, func(i int) {
				if i%5 != 4 {
					return
				}
				if i%10 != 9 && !long() {
					return
				}
				if err := c.gather(sim.World); err != nil {
					t.Fatal(err)
				}
				for bi := range e.rm.bodies {
					b := &e.rm.bodies[bi]
					m := e.rm.gather(b)
					feature := eolFeatures(c, b)
					check(i, m, feature)
					none := make([]int32, len(m.X))
					for vi := range none {
						none[vi] = -1
					}
					check(i, m, none)
					x := m.X
					for d := 1; d <= 4; d++ {
						m.X = make([]dense.Vec3, len(x))
						for vi, p := range x {
							m.X[vi] = p.Sub(dense.Vec3{0, 0, float64(d) * c.set.Reach / 2})
						}
						check(i, m, none)
					}
					// Faces moved onto the point features and box corners.
					for fi, f := range c.features {
						if f.Kind == components.FeatureEdge || len(m.F) == 0 {
							continue
						}
						t := m.F[(7*i+fi)%len(m.F)]
						mid := x[m.Node[t[0]]].Add(x[m.Node[t[1]]]).Add(x[m.Node[t[2]]]).Scale(1.0 / 3)
						for vi, p := range x {
							m.X[vi] = p.Add(f.P0.Sub(mid))
						}
						check(i, m, none)
					}
				}
			})
			t.Logf("%d detections compared: %d edge hits, %d point hits", compared, edgeHits, pointHits)
			if edgeHits+pointHits == 0 {
				t.Errorf("no hits compared")
			}
		})
	}
}

// TestEOLDetectAllocs checks that detect allocates nothing once its buffers
// have grown.
func TestEOLDetectAllocs(t *testing.T) {
	sim := build(t, eolShort(t, "edge", 0.45, 0.06, 0.12), 2)
	steps(t, sim, sim.Model.Steps, nil)
	c, e := sim.EOL, sim.Conformal
	if err := c.gather(sim.World); err != nil {
		t.Fatal(err)
	}
	m := e.rm.gather(&e.rm.bodies[0])
	feature := make([]int32, len(m.X))
	for i := range feature {
		feature[i] = -1
	}
	var s detectScratch
	if len(c.detect(m, feature, &s)) == 0 {
		t.Fatal("no hits")
	}
	if n := testing.AllocsPerRun(10, func() { c.detect(m, feature, &s) }); n != 0 {
		t.Errorf("%v allocations per detect", n)
	}
}

// BenchmarkEOLDetect times detect and refDetect on the full EDGE, NAILS and
// JAWS scenes' meshes after 150 steps (the cloth on the box's edge, the
// nails, the jaws), with their EOL vertices' features.
func BenchmarkEOLDetect(b *testing.B) {
	for _, name := range []string{"edge", "nails", "jaws"} {
		sc, err := scenes.Builtin(name)
		if err != nil {
			b.Fatal(err)
		}
		sim, err := buildScene(sc, 2)
		if err != nil {
			b.Fatal(err)
		}
		defer sim.Close()
		for range 150 {
			if err := sim.Step(); err != nil {
				b.Fatal(err)
			}
		}
		c, e := sim.EOL, sim.Conformal
		if err := c.gather(sim.World); err != nil {
			b.Fatal(err)
		}
		body := &e.rm.bodies[0]
		m := e.rm.gather(body)
		feature := eolFeatures(c, body)
		b.Logf("%s: %d faces, %d features, %d hits", name, len(m.F), len(c.features), len(refDetect(c, m, feature)))
		b.Run(name+"/ref", func(b *testing.B) {
			for range b.N {
				refDetect(c, m, feature)
			}
		})
		b.Run(name+"/new", func(b *testing.B) {
			var s detectScratch
			for range b.N {
				c.detect(m, feature, &s)
			}
		})
	}
}

// eolFeatures returns, per vert of body's mesh, the feature its EOL vertex
// lies on, -1 for Lagrangian verts (what detect takes).
func eolFeatures(c *EOLCloth, body *remeshBody) []int32 {
	feature := make([]int32, len(body.mesh.Verts))
	for vi, ent := range body.mesh.Verts {
		feature[vi] = -1
		if k := c.eolOf[c.dof[ent]]; k >= 0 {
			feature[vi] = c.verts[k].feature
		}
	}
	return feature
}
