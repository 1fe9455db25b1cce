package strainlimit

import (
	"fmt"
	"math"
	"time"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/sparse"
)

// DefaultJacobiIterations is the default cap on Jacobi sweeps.
const DefaultJacobiIterations = 1000

// JacobiSettings configures Jacobi. The zero value gives the defaults.
type JacobiSettings struct {
	// Tolerance stops the sweeps once the maximum violation is at most
	// Tolerance (0: DefaultTolerance).
	Tolerance float64
	// MaxIterations caps the sweeps (0: DefaultJacobiIterations).
	MaxIterations int
	// MaxTime bounds the wall time (0: no bound), checked between sweeps.
	MaxTime time.Duration
	// Trace, when non-nil, is called with iter = 0 and the initial maximum
	// violation and after every sweep with the number of sweeps so far, the
	// time since the call started and the maximum violation after the sweep.
	Trace func(iter int, elapsed time.Duration, maxViolation float64)
}

// Jacobi limits the strains of p by nonlinear Jacobi iterations, the baseline
// of Narain et al. 2012 (Fig. 6, 7), and overwrites p.X with the result.
//
// One sweep: every face whose singular values lie outside [1+Min, 1+Max] is
// projected on its own: F = U S V^T becomes F' = U clamp(S) V^T and the face's
// corners are moved to x'_a = c + F'(X_a - C), where X_a are the rest
// (material) corners, C their mass-weighted centroid and c the mass-weighted
// centroid of the current corners, which the projection keeps (a face with
// pinned corners instead keeps the centroid of its pinned corners, so they do
// not move). Faces within the limits propose zero displacement. Each free
// node then moves by the average of the displacements proposed by all its
// incident faces. Sweeps repeat until the maximum violation is at most
// s.Tolerance or the iteration or time budget is spent. Per-face proposals
// are computed in parallel into a flat array and averaged per node in
// ascending face order, so results are bitwise identical for any Runner (nil:
// sparse.Serial).
//
// Errors as for AugmentedLagrangian.
func Jacobi(p *Problem, s JacobiSettings, r sparse.Runner) (Result, error) {
	start := time.Now()
	if r == nil {
		r = sparse.Serial{}
	}
	if s.Tolerance == 0 {
		s.Tolerance = DefaultTolerance
	}
	if s.MaxIterations == 0 {
		s.MaxIterations = DefaultJacobiIterations
	}
	if !finite(s.Tolerance) || s.Tolerance <= 0 || s.MaxIterations < 0 || s.MaxTime < 0 {
		return Result{}, fmt.Errorf("strainlimit: bad JacobiSettings %+v", s)
	}
	if err := p.validate(); err != nil {
		return Result{}, err
	}
	j := &jacobi{p: p, ws: p.ws}
	j.faceBody, j.nodeBody = j.faceBlocks, j.nodeBlocks
	var res Result
	viol, bad := j.sweep(r)
	res.FunctionEvaluations++
	if s.Trace != nil {
		s.Trace(0, time.Since(start), viol)
	}
	for bad < 0 && viol > s.Tolerance && res.OuterIterations < s.MaxIterations &&
		(s.MaxTime == 0 || time.Since(start) < s.MaxTime) {
		r.For(nblocks(j.ws.n), j.nodeBody)
		res.OuterIterations++
		viol, bad = j.sweep(r)
		res.FunctionEvaluations++
		if s.Trace != nil {
			s.Trace(res.OuterIterations, time.Since(start), viol)
		}
	}
	if bad >= 0 {
		return res, fmt.Errorf("strainlimit: Jacobi sweep %d: face %d: non-finite deformation gradient", res.OuterIterations, bad)
	}
	res.MaxViolation, res.WorstFace = p.MaxViolation()
	res.Converged = res.MaxViolation <= s.Tolerance
	res.Elapsed = time.Since(start)
	return res, nil
}

type jacobi struct {
	p                  *Problem
	ws                 *workspace
	faceBody, nodeBody func(lo, hi int)
}

// sweep computes every face's proposed displacement into ws.faceBuf and
// returns the maximum violation at the current positions and the first face
// with a non-finite deformation gradient (-1 if none).
func (j *jacobi) sweep(r sparse.Runner) (float64, int) {
	r.For(nblocks(j.ws.nf), j.faceBody)
	viol, bad := 0.0, -1
	for b := range j.ws.faceViol {
		viol = math.Max(viol, j.ws.faceViol[b])
		if bad < 0 && j.ws.faceBad[b] >= 0 {
			bad = int(j.ws.faceBad[b])
		}
	}
	return viol, bad
}

func (j *jacobi) faceBlocks(lo, hi int) {
	p, ws := j.p, j.ws
	smin, smax := 1+p.Min, 1+p.Max
	for b := lo; b < hi; b++ {
		f1 := min((b+1)*block, ws.nf)
		viol, bad := 0.0, int32(-1)
		for fi := b * block; fi < f1; fi++ {
			out := ws.faceBuf[9*fi : 9*fi+9 : 9*fi+9]
			f := p.Faces[fi]
			rest := &p.Rest[fi]
			x := [3]dense.Vec3{p.X[f[0]], p.X[f[1]], p.X[f[2]]}
			U, s, V := dense.SVD32(rest.DeformationGradient(x[0], x[1], x[2]))
			v := Violation(s, p.Min, p.Max)
			if !finite(v) {
				if bad < 0 {
					bad = int32(fi)
				}
				v = 0
			}
			viol = math.Max(viol, v)
			if v == 0 {
				clear(out)
				continue
			}
			// Centroid weights: masses, or only the pinned corners if any.
			var wt [3]float64
			pinned := false
			if p.Fixed != nil {
				for a, i := range f {
					if p.Fixed[i] {
						wt[a], pinned = 1, true
					}
				}
			}
			if !pinned {
				for a, i := range f {
					wt[a] = p.Mass[i]
				}
			}
			wsum := wt[0] + wt[1] + wt[2]
			// Rest corners relative to corner 0: 0, Dm e0, Dm e1 (Dm = DmInv^-1).
			Dm, _ := rest.DmInv.Inverse()
			X := [3]dense.Vec2{{}, {Dm[0][0], Dm[1][0]}, {Dm[0][1], Dm[1][1]}}
			var C dense.Vec2
			var c dense.Vec3
			for a := 0; a < 3; a++ {
				t := wt[a] / wsum
				C[0] += t * X[a][0]
				C[1] += t * X[a][1]
				c = c.Add(x[a].Scale(t))
			}
			S := dense.Mat2{{math.Min(math.Max(s[0], smin), smax), 0}, {0, math.Min(math.Max(s[1], smin), smax)}}
			Fp := U.MulMat2(S).MulMat2(V.T())
			for a := 0; a < 3; a++ {
				d := c.Add(Fp.MulVec(X[a].Sub(C))).Sub(x[a])
				copy(out[3*a:3*a+3], d[:])
			}
		}
		ws.faceViol[b], ws.faceBad[b] = viol, bad
	}
}

// nodeBlocks moves each free node by the mean of its incident faces'
// proposals, summed in ascending face order.
func (j *jacobi) nodeBlocks(lo, hi int) {
	p, ws := j.p, j.ws
	for b := lo; b < hi; b++ {
		i1 := min((b+1)*block, ws.n)
		for i := b * block; i < i1; i++ {
			inc := ws.inc[ws.incStart[i]:ws.incStart[i+1]]
			if len(inc) == 0 || (p.Fixed != nil && p.Fixed[i]) {
				continue
			}
			var d dense.Vec3
			for _, c := range inc {
				fd := ws.faceBuf[3*c : 3*c+3 : 3*c+3]
				d[0] += fd[0]
				d[1] += fd[1]
				d[2] += fd[2]
			}
			k := 1 / float64(len(inc))
			p.X[i] = p.X[i].Add(d.Scale(k))
		}
	}
}
