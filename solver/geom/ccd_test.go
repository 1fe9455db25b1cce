package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// refMotion samples the motion x + t d densely: the reference's first time
// at which the four points are coplanar (a sign change of the sampled signed
// volume, refined by bisection) with the primitives within tol/10 there, and
// the minimum sampled distance over [0, 1].
func refMotion(x, d *[4]dense.Vec3, edge bool, tol float64) (first float64, crossed bool, minDist float64) {
	at := func(t float64) (p [4]dense.Vec3) {
		for i := range 4 {
			p[i] = dense.Vec3{x[i][0] + t*d[i][0], x[i][1] + t*d[i][1], x[i][2] + t*d[i][2]}
		}
		return
	}
	vol := func(t float64) float64 {
		p := at(t)
		return rdot(rsub(p[1], p[0]), rcross(rsub(p[2], p[0]), rsub(p[3], p[0])))
	}
	dist := func(t float64) float64 {
		p := at(t)
		if edge {
			return refSegSeg(p[0], p[1], p[2], p[3])
		}
		return refPointTriangle(p[0], p[1], p[2], p[3])
	}
	const n = 4000
	minDist = math.Inf(1)
	prev := vol(0)
	for i := 1; i <= n; i++ {
		t := float64(i) / n
		minDist = math.Min(minDist, dist(t))
		v := vol(t)
		if !crossed && (prev < 0) != (v < 0) {
			lo, hi := float64(i-1)/n, t
			for range 60 {
				m := 0.5 * (lo + hi)
				if (vol(m) < 0) == (prev < 0) {
					lo = m
				} else {
					hi = m
				}
			}
			if dist(hi) < tol/10 {
				first, crossed = hi, true
			}
		}
		prev = v
	}
	minDist = math.Min(minDist, dist(0))
	return
}

func TestCCDMatchesDenseSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	const tol = 1e-6
	for _, edge := range []bool{false, true} {
		hits, misses := 0, 0
		for range 1000 {
			var x, d [4]dense.Vec3
			for i := range 4 {
				x[i] = rv(rng, 1)
				d[i] = rv(rng, 0.3)
			}
			// The first primitive moves across the second.
			d[0] = d[0].Add(x[2].Sub(x[0]).Scale(1.6))
			if edge {
				d[1] = d[1].Add(x[3].Sub(x[1]).Scale(1.6))
			}
			first, crossed, minDist := refMotion(&x, &d, edge, tol)
			imp, ok := ccd(&x, &d, tol, edge)
			switch {
			case crossed:
				hits++
				if !ok {
					t.Fatalf("edge=%v: missed a crossing at t=%v", edge, first)
				}
				if imp.T > first+1e-9 {
					t.Fatalf("edge=%v: impact at %v after the first crossing %v", edge, imp.T, first)
				}
			case minDist > 3*tol+1e-3:
				misses++
				if ok {
					t.Fatalf("edge=%v: impact at %v but the primitives stay %v apart", edge, imp.T, minDist)
				}
			}
			if ok {
				var p [4]dense.Vec3
				var r, r0 [3]float64
				for i := range 4 {
					p[i] = x[i].Add(d[i].Scale(imp.T))
					for k := range 3 {
						r[k] += imp.W[i] * p[i][k]
						r0[k] += imp.W[i] * x[i][k]
					}
				}
				var dd float64
				if edge {
					dd = refSegSeg(p[0], p[1], p[2], p[3])
				} else {
					dd = refPointTriangle(p[0], p[1], p[2], p[3])
				}
				if dd > tol*(1+1e-6) || math.Sqrt(rdot(r, r)) > tol*(1+1e-6) {
					t.Fatalf("edge=%v: impact at %v with distance %v (weights give %v)", edge, imp.T, dd, math.Sqrt(rdot(r, r)))
				}
				if n := imp.N.Norm(); math.Abs(n-1) > 1e-12 || rdot([3]float64(imp.N), r0) < 0 {
					t.Fatalf("edge=%v: normal %v not unit or not towards the start side", edge, imp.N)
				}
			}
		}
		if hits < 100 || misses < 100 {
			t.Fatalf("edge=%v: unbalanced sample: %d crossings, %d misses", edge, hits, misses)
		}
	}
}

func TestCCDKnownMotions(t *testing.T) {
	// A vertex falling through a triangle's middle hits at t = 0.25.
	x := [4]dense.Vec3{{0.25, 0.25, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	d := [4]dense.Vec3{{0, 0, -4}}
	imp, ok := VertexFaceCCD(&x, &d, 1e-9)
	if !ok || math.Abs(imp.T-0.25) > 1e-12 || imp.N != (dense.Vec3{0, 0, 1}) {
		t.Fatalf("vertex-face: %+v, %v", imp, ok)
	}
	if w := imp.W; math.Abs(w[1]+0.5) > 1e-12 || math.Abs(w[2]+0.25) > 1e-12 || math.Abs(w[3]+0.25) > 1e-12 {
		t.Fatalf("weights %v", w)
	}
	// The same vertex passing beside the triangle is no impact.
	x[0] = dense.Vec3{0.8, 0.8, 1}
	if _, ok := VertexFaceCCD(&x, &d, 1e-9); ok {
		t.Fatal("vertex beside the triangle reported")
	}
	// Crossed edges: x edge at z=1 falling onto a y edge, hitting at 0.5.
	e := [4]dense.Vec3{{-1, 0, 1}, {1, 0, 1}, {0, -1, 0}, {0, 1, 0}}
	de := [4]dense.Vec3{{0, 0, -2}, {0, 0, -2}}
	imp, ok = EdgeEdgeCCD(&e, &de, 1e-9)
	if !ok || math.Abs(imp.T-0.5) > 1e-12 || imp.N != (dense.Vec3{0, 0, 1}) {
		t.Fatalf("edge-edge: %+v, %v", imp, ok)
	}
	// Moving in the triangle's plane (the cubic vanishes identically):
	// a vertex sliding into the triangle is found where the end points are
	// checked, at t = 1.
	x = [4]dense.Vec3{{-1, 0.2, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	d = [4]dense.Vec3{{1.5, 0, 0}}
	if imp, ok := VertexFaceCCD(&x, &d, 1e-9); !ok || imp.T != 1 {
		t.Fatalf("coplanar slide: %+v %v", imp, ok)
	}
}
