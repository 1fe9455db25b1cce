package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
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

// kineticCorrection is what the generalized inertia adds to the lumped
// kinetic energy sum m v^2 / 2 of the current state: over every face with a
// corner on a feature (an EOL vertex that stayed on it in the last step),
// the kinetic energy 1/2 q'^T M q' of eq. 7 with M of eq. 8 over its world
// and material velocities, less the lumped energy of its corners' world
// velocities that the solve replaces with it (EOLCloth.inertia). With it,
// kinetic_energy is that of the motion the step simulates: 0 when neither a
// vertex nor a material coordinate moves, and the same as the lumped sum
// for a face whose material stands still under a rigid motion.
func (c *EOLCloth) kineticCorrection() float64 {
	s := c.state
	var M [eol.InertiaDOFs * eol.InertiaDOFs]float64
	seen := map[int32]bool{}
	t := 0.0
	for k := range c.verts {
		if c.verts[k].lifted {
			continue
		}
		for _, f := range c.vfList[c.vfStart[c.verts[k].v]:c.vfStart[c.verts[k].v+1]] {
			if seen[f] {
				continue
			}
			seen[f] = true
			x, u := c.faceX(int(f))
			rho := c.density[s.FaceBody[f]]
			if !eol.Inertia(rho, x, u, &M) {
				continue
			}
			var q [eol.InertiaDOFs]float64
			lumped := 0.0
			for a := range 3 {
				v := s.Faces[3*int(f)+a]
				va := vec(s.V, v)
				copy(q[3*a:3*a+3], va[:])
				lumped += rho * s.FaceRest[f].Area / 3 * va.Dot(va)
				if e := c.eolOf[v]; e >= 0 && !c.verts[e].lifted {
					q[9+2*a], q[10+2*a] = c.verts[e].comp.XDot[0], c.verts[e].comp.XDot[1]
				}
			}
			for r := range q {
				for j := range q {
					t += 0.5 * q[r] * M[eol.InertiaDOFs*r+j] * q[j]
				}
			}
			t -= 0.5 * lumped
		}
	}
	return t
}
