package systems

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// ForceFill evaluates every element's elastic gradient and PSD Hessian
// (membrane: projected in deformation-gradient space, its upper blocks
// (sparse.Packed); hinge: Gauss-Newton, as its rank-one factor
// (sparse.Factor)), each Hessian times its weight in the implicit system, in
// parallel into flat per-element arrays (pass one), then assembles the gradient and the system
// matrix in parallel over rows from the pattern's contribution map (pass two).
// With K = -Hessian and Rayleigh damping (alpha M + beta(-K)) the linearly
// implicit Euler step of Weidner 2018 eq. 11 becomes
//
//	((1 + h alpha) M + (h^2 + h beta) H) v' = M v + h (f_ext - dE/dx),
//
// so each element Hessian enters A with weight h^2 + h beta.
type ForceFill struct {
	state    *ClothState
	fill     func(lo, hi int)
	diagonal func(lo, hi int)
}

// NewForceFill returns the system.
func NewForceFill(state *ClothState) *ForceFill {
	f := &ForceFill{state: state}
	f.fill = f.fillRange
	f.diagonal = f.addMass
	return f
}

// Name implements ecs.System.
func (f *ForceFill) Name() string { return "force-fill" }

// Step implements ecs.System.
func (f *ForceFill) Step(w *ecs.World) error {
	s := f.state
	w.Pool.For(len(s.FaceRest)+len(s.HingeRest), f.fill)
	s.Pattern.AssembleGradient(w.Pool, s.ElemGrad, s.Grad)
	s.Pattern.AssembleHessian(w.Pool, s.ElemHess, s.A)
	w.Pool.For(s.NumVerts(), f.diagonal)
	s.A.AddDiagonal(w.Pool, s.MassDiag)
	return nil
}

func (f *ForceFill) fillRange(lo, hi int) {
	s := f.state
	nf := len(s.FaceRest)
	h := s.H
	for e := lo; e < hi; e++ {
		if e < nf {
			v := s.Faces[3*e : 3*e+3]
			g := (*[9]float64)(s.ElemGrad[s.Pattern.GradOffset(0, e):])
			H := (*[54]float64)(s.ElemHess[s.Pattern.HessOffset(0, e):])
			elastic.MembraneGradHessPSD(&s.FaceRest[e], s.FaceLame[e], vec(s.X, v[0]), vec(s.X, v[1]), vec(s.X, v[2]), h*h+h*s.FaceBeta[e], g, H)
			continue
		}
		k := e - nf
		v := s.Hinges[4*k : 4*k+4]
		g := (*[12]float64)(s.ElemGrad[s.Pattern.GradOffset(1, k):])
		u := (*[12]float64)(s.ElemHess[s.Pattern.HessOffset(1, k):])
		elastic.HingeGradGN(&s.HingeRest[k], s.HingeKb[k], vec(s.X, v[0]), vec(s.X, v[1]), vec(s.X, v[2]), vec(s.X, v[3]), h*h+h*s.HingeBeta[k], g, u)
	}
}

// addMass sets the damped mass (1 + h alpha) m of vertices [lo, hi), the
// diagonal that joins the element Hessians in A.
func (f *ForceFill) addMass(lo, hi int) {
	s := f.state
	for i := lo; i < hi; i++ {
		m := (1 + s.H*s.Alpha[i]) * s.Mass[i]
		s.MassDiag[3*i], s.MassDiag[3*i+1], s.MassDiag[3*i+2] = m, m, m
	}
}

func vec(x []float64, i int32) dense.Vec3 {
	return dense.Vec3{x[3*i], x[3*i+1], x[3*i+2]}
}
