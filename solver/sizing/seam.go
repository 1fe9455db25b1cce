package sizing

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// avgKernel averages the face tensors onto the verts of nodes [lo, hi).
func (w *Workspace) avgKernel(lo, hi int) {
	for c := lo; c < hi; c++ {
		vs := w.nvIdx[w.nvPtr[c]:w.nvPtr[c+1]]
		if len(vs) > 1 && !w.noSeams && w.seamNode(c, vs) {
			continue
		}
		for _, v := range vs {
			w.plainVert(v)
		}
	}
}

// plainVert writes the area-weighted average of the tensors of v's faces.
func (w *Workspace) plainVert(v int32) {
	var acc dense.Mat2
	sa := 0.0
	for _, ic := range w.inc[w.vBeg[v]:w.vEnd[v]] {
		f := ic / 3
		a, mf := w.faceA[f], w.faceM[f]
		acc[0][0] += a * mf[0][0]
		acc[0][1] += a * mf[0][1]
		acc[1][1] += a * mf[1][1]
		sa += a
	}
	w.out[v] = w.finish(acc, sa)
}

// finish divides an area-weighted sum by its total area; no area gives the
// isotropic l_max^-2 I.
func (w *Workspace) finish(acc dense.Mat2, sa float64) dense.Mat2 {
	if sa == 0 {
		return dense.Mat2{{w.lo, 0}, {0, w.lo}}
	}
	off := acc[0][1] / sa
	return dense.Mat2{{acc[0][0] / sa, off}, {off, acc[1][1] / sa}}
}

// corner returns, for incidence ic (3*face + corner), the vert at the corner
// and the verts after and before it counter-clockwise.
func (w *Workspace) corner(ic int32) (v, next, prev int32) {
	t := w.m.F[ic/3]
	k := ic % 3
	return t[k], t[(k+1)%3], t[(k+2)%3]
}

// seamNode averages the faces around seam node c (with verts vs) in a common
// tangent plane and writes the tensors of vs. It returns false, writing
// nothing to out, when the node's fan is not a single chain or cycle.
func (w *Workspace) seamNode(c int, vs []int32) bool {
	m := w.m
	b, e := w.nBeg[c], w.nBeg[c+1]
	inc := w.inc
	for i := b; i < e; i++ {
		_, nx, pv := w.corner(inc[i])
		w.nxt[i], w.prv[i] = m.Node[nx], m.Node[pv]
		w.succ[i], w.pred[i] = -1, -1
	}
	// succ(i): the face counter-clockwise after i, whose next corner is i's
	// previous corner (as nodes).
	for i := b; i < e; i++ {
		for j := b; j < e; j++ {
			if w.nxt[j] != w.prv[i] {
				continue
			}
			if w.succ[i] != -1 || w.pred[j] != -1 {
				return false
			}
			w.succ[i], w.pred[j] = j, i
		}
	}
	starts, start := 0, b
	for i := b; i < e; i++ {
		if w.pred[i] == -1 {
			starts++
			start = i
		}
	}
	closed := starts == 0
	if starts > 1 {
		return false
	}
	vertOf := func(i int32) int32 { t := m.F[inc[i]/3]; return t[inc[i]%3] }
	if closed {
		// Start at the beginning of a vert's run so every run is contiguous.
		for i := b; i < e; i++ {
			if vertOf(w.pred[i]) != vertOf(i) {
				start = i
				break
			}
		}
	}

	// Corner angles and their sum.
	theta := 0.0
	for i := b; i < e; i++ {
		_, alpha := w.cornerAngles(inc[i])
		theta += alpha
	}
	s := 1.0
	if closed {
		s = 2 * math.Pi / theta
	}
	for _, v := range vs {
		w.vRuns[v], w.vAlp[v] = 0, 0
	}

	// Walk, laying the corners out in the tangent plane.
	i := start
	th := 0.0
	for step := int32(0); step < e-b; step++ {
		if i == -1 {
			return false
		}
		v := vertOf(i)
		phi, alpha := w.cornerAngles(inc[i])
		if step == 0 {
			th = phi
		}
		if w.pred[i] == -1 || vertOf(w.pred[i]) != v {
			w.vRuns[v]++
			if w.vRuns[v] > 1 {
				return false
			}
			w.vTheta0[v], w.vPhi0[v] = th, phi
		}
		w.vAlp[v] += alpha
		w.psi[i] = th + 0.5*s*alpha - phi - 0.5*alpha
		th += s * alpha
		i = w.succ[i]
	}
	if (closed && i != start) || (!closed && i != -1) {
		return false
	}

	// Average in the tangent plane, in incidence order.
	var acc dense.Mat2
	sa := 0.0
	for i := b; i < e; i++ {
		f := inc[i] / 3
		sn, cs := math.Sincos(w.psi[i])
		mf := rotSym(w.faceM[f], cs, sn)
		a := w.faceA[f]
		acc[0][0] += a * mf[0][0]
		acc[0][1] += a * mf[0][1]
		acc[1][1] += a * mf[1][1]
		sa += a
	}
	mt := w.finish(acc, sa)
	for _, v := range vs {
		if w.vRuns[v] == 0 {
			w.out[v] = w.finish(dense.Mat2{}, 0)
			continue
		}
		psi := w.vTheta0[v] + 0.5*s*w.vAlp[v] - w.vPhi0[v] - 0.5*w.vAlp[v]
		sn, cs := math.Sincos(psi)
		w.out[v] = rotSym(mt, cs, -sn) // R^T mt R
	}
	return true
}

// cornerAngles returns, for incidence ic, the material-space direction angle
// phi of the edge to the next corner and the corner angle alpha in (0, pi).
func (w *Workspace) cornerAngles(ic int32) (phi, alpha float64) {
	v, nx, pv := w.corner(ic)
	u := w.m.U[v]
	d1, d2 := w.m.U[nx].Sub(u), w.m.U[pv].Sub(u)
	phi = math.Atan2(d1[1], d1[0])
	alpha = math.Atan2(d1[0]*d2[1]-d1[1]*d2[0], d1[0]*d2[0]+d1[1]*d2[1])
	return phi, alpha
}
