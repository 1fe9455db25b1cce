package systems

import (
	"math"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
)

// Wind applies a uniform air flow to every cloth face, explicitly: with the
// face's relative air velocity w = v_wind - (v0+v1+v2)/3 split into its normal
// part w_n = (w.n) n and tangential part w_t, the face feels
//
//	f = rho A |w.n| w_n + c A w_t
//
// (a pressure on the normal flow and a linear drag on the tangential one, A
// the world-space area), shared equally by its three vertices. It writes
// ClothState.Ext, which the implicit step adds to gravity.
type Wind struct {
	state *ClothState
	wind  model.Wind
}

// NewWind returns the system.
func NewWind(state *ClothState, w model.Wind) *Wind { return &Wind{state: state, wind: w} }

// Name implements ecs.System.
func (w *Wind) Name() string { return "wind" }

// Step implements ecs.System. It runs serially over faces: the per-face work
// is a few dozen flops, far below the cost of the implicit solve, and the
// fixed face order keeps the sums deterministic.
func (w *Wind) Step(_ *ecs.World) error {
	s := w.state
	clear(s.Ext)
	vw := dense.Vec3(w.wind.Velocity)
	for e := range s.FaceRest {
		f := s.Faces[3*e : 3*e+3]
		x0, x1, x2 := vec(s.X, f[0]), vec(s.X, f[1]), vec(s.X, f[2])
		c := x1.Sub(x0).Cross(x2.Sub(x0))
		a2 := c.Norm()
		if a2 == 0 {
			continue
		}
		n := c.Scale(1 / a2)
		area := a2 / 2
		vf := vec(s.V, f[0]).Add(vec(s.V, f[1])).Add(vec(s.V, f[2])).Scale(1.0 / 3)
		rel := vw.Sub(vf)
		wn := rel.Dot(n)
		wt := rel.Sub(n.Scale(wn))
		force := n.Scale(w.wind.Density * area * math.Abs(wn) * wn).Add(wt.Scale(w.wind.Drag * area))
		for _, v := range f {
			for k := range 3 {
				s.Ext[3*int(v)+k] += force[k] / 3
			}
		}
	}
	return nil
}
