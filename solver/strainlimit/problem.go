package strainlimit

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// Problem is one strain-limiting solve: a triangle mesh with rest shapes, node
// masses, current positions xhat and isotropic limits on the principal strains.
//
// The solvers keep per-Problem workspace (node-to-face incidence, per-face
// buffers) inside the Problem and reuse it across solves: Jacobi allocates
// only on a Problem's first solve; AugmentedLagrangian still allocates its
// iterate, multiplier and optimizer (CG or L-BFGS memory) buffers, O(n) each,
// once per call, though never inside its evaluations. The workspace is
// rebuilt automatically when len(X), len(Faces) or the Faces backing array
// change; call Invalidate after editing Faces in place.
type Problem struct {
	// X holds the node positions. On input they are the unconstrained
	// positions xhat of eq. 22; the solvers overwrite them with the limited
	// positions x.
	X []dense.Vec3
	// Mass holds the node masses m_i of eq. 22 (finite, > 0). LumpedMasses
	// computes them from a density.
	Mass []float64
	// Faces holds the node indices of each triangle.
	Faces [][3]int32
	// Rest holds the rest (material-space) shape of each face, parallel to
	// Faces: F = Ds Dm^-1 and the rest area.
	Rest []elastic.MembraneRest
	// Min and Max bound both principal strains eps = sigma - 1 of every face
	// (sigma the singular values of F), e.g. -0.05 and 0.05. They must satisfy
	// -1 < Min <= Max.
	Min, Max float64
	// Fixed marks pinned nodes, which the solvers never move. nil means none.
	Fixed []bool

	ws *workspace
}

// Invalidate drops the cached workspace; call it after changing Faces in
// place (the solvers notice new slices and length changes by themselves).
func (p *Problem) Invalidate() { p.ws = nil }

// Violation returns the amount by which the principal strains eps of F lie
// outside [min, max] (0 inside).
func Violation(s [2]float64, min, max float64) float64 {
	v := 0.0
	for _, sk := range s {
		e := sk - 1
		v = math.Max(v, math.Max(e-max, min-e))
	}
	return v
}

// MaxViolation returns the largest amount by which a principal strain of a
// face of p lies outside [p.Min, p.Max] at the current positions, and the
// face where it occurs (-1 when every face is within the limits). It does not
// validate p.
func (p *Problem) MaxViolation() (float64, int) {
	worst, at := 0.0, -1
	for j, f := range p.Faces {
		F := p.Rest[j].DeformationGradient(p.X[f[0]], p.X[f[1]], p.X[f[2]])
		_, s, _ := dense.SVD32(F)
		if v := Violation(s, p.Min, p.Max); v > worst || math.IsNaN(v) {
			worst, at = v, j
			if math.IsNaN(v) {
				break
			}
		}
	}
	return worst, at
}

// LumpedMasses returns node masses for a mesh of uniform areal density (kg/m^2):
// each face gives a third of density*rest area to each of its nodes.
func LumpedMasses(nodes int, faces [][3]int32, rest []elastic.MembraneRest, density float64) []float64 {
	m := make([]float64, nodes)
	for j, f := range faces {
		a := density * rest[j].Area / 3
		for _, i := range f {
			m[i] += a
		}
	}
	return m
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// validate checks p and (re)builds its workspace.
func (p *Problem) validate() error {
	n, nf := len(p.X), len(p.Faces)
	if len(p.Mass) != n {
		return fmt.Errorf("strainlimit: len(Mass) = %d, want len(X) = %d", len(p.Mass), n)
	}
	if len(p.Rest) != nf {
		return fmt.Errorf("strainlimit: len(Rest) = %d, want len(Faces) = %d", len(p.Rest), nf)
	}
	if p.Fixed != nil && len(p.Fixed) != n {
		return fmt.Errorf("strainlimit: len(Fixed) = %d, want len(X) = %d (or nil)", len(p.Fixed), n)
	}
	if !finite(p.Min) || !finite(p.Max) || !(p.Min > -1) || !(p.Min <= p.Max) {
		return fmt.Errorf("strainlimit: limits [Min, Max] = [%g, %g]: need -1 < Min <= Max, finite", p.Min, p.Max)
	}
	for i, x := range p.X {
		if !finite(x[0]) || !finite(x[1]) || !finite(x[2]) {
			return fmt.Errorf("strainlimit: node %d: position %v is not finite", i, x)
		}
		if m := p.Mass[i]; !finite(m) || !(m > 0) {
			return fmt.Errorf("strainlimit: node %d: mass %g must be finite and > 0", i, m)
		}
	}
	for j, f := range p.Faces {
		for k, i := range f {
			if i < 0 || int(i) >= n {
				return fmt.Errorf("strainlimit: face %d: node index %d out of range [0, %d)", j, i, n)
			}
			if f[(k+1)%3] == i {
				return fmt.Errorf("strainlimit: face %d: repeated node %d", j, i)
			}
		}
		r := &p.Rest[j]
		if !finite(r.Area) || r.Area <= elastic.MinRestArea {
			return fmt.Errorf("strainlimit: face %d: degenerate rest triangle (area %g)", j, r.Area)
		}
		B := r.DmInv
		if !finite(B[0][0]) || !finite(B[0][1]) || !finite(B[1][0]) || !finite(B[1][1]) {
			return fmt.Errorf("strainlimit: face %d: degenerate rest triangle (Dm^-1 = %v)", j, B)
		}
	}
	if p.ws == nil || !p.ws.matches(p) {
		p.ws = newWorkspace(p)
	}
	return nil
}

// workspace is the per-Problem precomputation and scratch shared by both
// solvers.
type workspace struct {
	n, nf    int
	faces0   *[3]int32 // identity of the Faces backing array
	incStart []int32   // node i's incident corners are inc[incStart[i]:incStart[i+1]]
	inc      []int32   // 3*face + corner, faces ascending
	faceBuf  []float64 // 9 per face: per-face gradients (AL) or displacements (Jacobi)
	facePart []float64 // per face block: partial sums
	faceViol []float64 // per face block: max violation
	faceBad  []int32   // per face block: first face with a non-finite F (or -1)
	nodePart []float64 // per node block: partial sums
}

func (w *workspace) matches(p *Problem) bool {
	var f0 *[3]int32
	if len(p.Faces) > 0 {
		f0 = &p.Faces[0]
	}
	return w.n == len(p.X) && w.nf == len(p.Faces) && w.faces0 == f0
}

// block is the number of faces or nodes per work item handed to the Runner
// and per partial sum; fixed, so reductions do not depend on the Runner.
const block = 256

func nblocks(n int) int { return (n + block - 1) / block }

func newWorkspace(p *Problem) *workspace {
	n, nf := len(p.X), len(p.Faces)
	w := &workspace{n: n, nf: nf}
	if nf > 0 {
		w.faces0 = &p.Faces[0]
	}
	w.incStart = make([]int32, n+1)
	for _, f := range p.Faces {
		for _, i := range f {
			w.incStart[i+1]++
		}
	}
	for i := 0; i < n; i++ {
		w.incStart[i+1] += w.incStart[i]
	}
	w.inc = make([]int32, 3*nf)
	fill := make([]int32, n)
	copy(fill, w.incStart[:n])
	for j, f := range p.Faces {
		for k, i := range f {
			w.inc[fill[i]] = int32(3*j + k)
			fill[i]++
		}
	}
	w.faceBuf = make([]float64, 9*nf)
	w.facePart = make([]float64, nblocks(nf))
	w.faceViol = make([]float64, nblocks(nf))
	w.faceBad = make([]int32, nblocks(nf))
	w.nodePart = make([]float64, nblocks(n))
	return w
}

// cRows returns the rows of Delta*beta (eq. 25) for a face: dF/dx_a = c[a]
// (row vector) for every spatial component, i.e. F = sum_a x_a c[a]^T.
func cRows(B *dense.Mat2) [3][2]float64 {
	return [3][2]float64{
		{-B[0][0] - B[1][0], -B[0][1] - B[1][1]},
		{B[0][0], B[0][1]},
		{B[1][0], B[1][1]},
	}
}

// PrincipalStrainGrad returns the principal strains eps_k = sigma_k - 1 of the
// face with rest shape r and corners x0, x1, x2 (sigma_0 >= sigma_1), and
// their gradients: grad[k][3a+m] = d eps_k / d x_a[m]. By eq. 26 d sigma_k /
// dF = u_k v_k^T, and with F = X Delta beta (eq. 25) this gives eq. 27:
// grad_{x_a} sigma_k = ((Delta beta)_a . v_k) u_k. The gradient is undefined
// where sigma_0 = sigma_1 (the singular vectors are not unique there); any
// valid SVD is then used.
func PrincipalStrainGrad(r *elastic.MembraneRest, x0, x1, x2 dense.Vec3) (eps [2]float64, grad [2][9]float64) {
	U, s, V := dense.SVD32(r.DeformationGradient(x0, x1, x2))
	c := cRows(&r.DmInv)
	for k := 0; k < 2; k++ {
		eps[k] = s[k] - 1
		for a := 0; a < 3; a++ {
			cv := c[a][0]*V[0][k] + c[a][1]*V[1][k]
			for m := 0; m < 3; m++ {
				grad[k][3*a+m] = cv * U[m][k]
			}
		}
	}
	return eps, grad
}
