package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// bendAngleAtFeature measures how sharply the cloth bends across the box edge
// or wire it lies over (Weidner 2018 sec. 7: EOL cloth bends exactly at the
// feature): over the faces with a vertex within reach of an edge feature's
// line, it splits them by the side their centroid is on (a box edge's two faces; a wire's
// two sides across its vertical plane), and returns the angle in degrees
// between the two sides' area-weighted mean normals, for the feature with the
// most such faces on both sides. ok is false when no feature has faces on
// both sides.
func bendAngleAtFeature(w *ecs.World, st *ClothState, thickness, reach float64) (angle float64, ok bool) {
	var feats []geom.Feature
	q := generic.NewFilter1[components.Obstacle]().Query(w.ECS)
	i := int32(0)
	for q.Next() {
		o := q.Get()
		feats = geom.AppendMovingFeatures(feats, &o.Shape, o.Offset, o.Vel, o.Omega, i, thickness)
		i++
	}
	best := 0
	for fi := range feats {
		f := &feats[fi]
		if f.Kind != components.FeatureEdge {
			continue
		}
		var side [2]dense.Vec3
		var count [2]int
		for e := 0; e < len(st.Faces)/3; e++ {
			x0, x1, x2 := vec(st.X, st.Faces[3*e]), vec(st.X, st.Faces[3*e+1]), vec(st.X, st.Faces[3*e+2])
			c := x0.Add(x1).Add(x2).Scale(1.0 / 3)
			t := c.Sub(f.P0).Dot(f.Dir)
			if t < reach || t > f.Length-reach {
				continue
			}
			near := false
			for _, x := range [3]dense.Vec3{x0, x1, x2} {
				r := x.Sub(f.At(x.Sub(f.P0).Dot(f.Dir)))
				near = near || r.Norm() <= reach+f.Radius
			}
			if !near {
				continue
			}
			r := c.Sub(f.At(t))
			k := 0
			if f.Wire {
				if r.Dot(f.Dir.Cross(dense.Vec3{0, 0, 1})) > 0 {
					k = 1
				}
			} else if f.EdgeSide(c) {
				k = 1
			}
			side[k] = side[k].Add(x1.Sub(x0).Cross(x2.Sub(x0)))
			count[k]++
		}
		if count[0] == 0 || count[1] == 0 || count[0]+count[1] <= best {
			continue
		}
		best = count[0] + count[1]
		cos := side[0].Dot(side[1]) / (side[0].Norm() * side[1].Norm())
		angle, ok = math.Acos(math.Max(-1, math.Min(1, cos)))*180/math.Pi, true
	}
	return angle, ok
}
