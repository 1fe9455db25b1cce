package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/remesh"
)

// TestEOLTransferAtFirstHit checks the wiring of the velocity transfer of
// Weidner 2018 sec. 6.2 in the conformal-remesh system: at the step where the
// coarse EDGE cloth first reaches the box edge, the systems are run one by one
// and the ECS is read right after "conformal-remesh". Every new EOL vertex
// that a hit inserted on a cloth edge A-B of the step's input mesh (found
// from its material coordinate, U = (1-s) U_A + s U_B) must have
//
//  1. the world velocity of its material point, LiftOffVelocity(xdot, Xdot,
//     F) = xdot - F Xdot (eq. 2), equal to (1-s) v_A + s v_B, the world
//     velocities the vertices had before the system ran (all Lagrangian then);
//  2. its Eulerian velocity on the equality row of eq. 13: Xdot . a = 0 with
//     a the material border normal for a border vertex, else the material
//     tangent of the edge feature;
//  3. as much of that world velocity as possible in Xdot: (xdot, Xdot) equal
//     to eol.TransferVelocity on the same inputs, and xdot orthogonal to F q
//     for the free material direction q (q . a = 0), the stationarity of
//     min |xdot|^2 (eq. 13).
//
// F is the vertex deformation gradient assign uses (nodeF over the vertex's
// faces of the written-back mesh). New EOL vertices not on an old cloth edge
// (made by the cleanup or the remesher, not by a hit) keep the interpolated
// Eulerian velocity, zero at the first hit; old vertices that became EOL keep
// their velocity and Xdot = 0.
func TestEOLTransferAtFirstHit(t *testing.T) {
	sc := eolShort(t, "edge", 0.3, 0.06, 0.12)
	sim := build(t, sc, 2)
	if sim.Conformal == nil || sim.EOL == nil {
		t.Fatal("the edge scene has no EOL pipeline")
	}
	e := sim.Conformal
	b := &e.rm.bodies[0]
	vel := generic.NewMap1[components.Velocity](sim.World.ECS)
	eolMap := generic.NewMap[components.EOL](sim.World.ECS)
	w := sim.World
	for step := 0; step < sc.NumSteps(); step++ {
		for _, sys := range sim.Scheduler.Systems() {
			if sys.Name() != "conformal-remesh" {
				if err := sys.Step(w); err != nil {
					t.Fatalf("step %d: system %s: %v", step, sys.Name(), err)
				}
				continue
			}
			// The step's input mesh and world velocities.
			old := e.rm.gather(b)
			oldOf := map[ecs.Entity]int{}
			for i, ent := range b.mesh.Verts {
				oldOf[ent] = i
				if eolMap.Has(ent) {
					t.Fatalf("step %d: vertex %d is EOL before the first insertion", step, i)
				}
			}
			before := e.Inserted
			if err := sys.Step(w); err != nil {
				t.Fatalf("step %d: system %s: %v", step, sys.Name(), err)
			}
			if checkFirstTransfer(t, sim, step, sc.TimeStep, old, e.Inserted-before, oldOf, vel, eolMap) {
				return
			}
		}
	}
	t.Fatalf("no EOL vertex within %d steps", sc.NumSteps())
}

// checkFirstTransfer runs the checks of TestEOLTransferAtFirstHit on the
// state right after conformal-remesh and reports whether there were EOL
// vertices to check.
func checkFirstTransfer(t *testing.T, sim *Sim, step int, h float64, old *remesh.Mesh, inserted int, oldOf map[ecs.Entity]int,
	vel generic.Map1[components.Velocity], eolMap generic.Map[components.EOL]) bool {
	t.Helper()
	e := sim.Conformal
	c := e.c
	b := &e.rm.bodies[0]
	nm := e.rm.gather(b)
	var vf mesh.Incidence
	vf.Build(nm.F, nm.Node, len(nm.X))
	var bw borderWork
	bn, _ := bw.borderNormals(nm.F, nm.U, nm.Node, len(nm.X))
	vertOf := make([]int32, len(nm.X))
	for v, node := range nm.Node {
		vertOf[node] = int32(v)
	}
	// The input mesh's edges, each once.
	type edge struct{ a, b int32 }
	var edges []edge
	seen := map[[2]int32]bool{}
	for _, f := range old.F {
		for k := range 3 {
			a, c := old.Node[f[k]], old.Node[f[(k+1)%3]]
			key := [2]int32{min(a, c), max(a, c)}
			if !seen[key] {
				seen[key] = true
				edges = append(edges, edge{key[0], key[1]})
			}
		}
	}
	oldU := make([]dense.Vec2, len(old.X))
	for v, node := range old.Node {
		oldU[node] = old.U[v]
	}
	// onEdge finds the input edge whose material segment holds u strictly
	// inside, and the parameter there.
	onEdge := func(u dense.Vec2) (edge, float64, bool) {
		for _, ed := range edges {
			ua, ub := oldU[ed.a], oldU[ed.b]
			d := ub.Sub(ua)
			l2 := d[0]*d[0] + d[1]*d[1]
			r := u.Sub(ua)
			s := (r[0]*d[0] + r[1]*d[1]) / l2
			if s <= 1e-9 || s >= 1-1e-9 {
				continue
			}
			if math.Abs(r[0]*d[1]-r[1]*d[0]) <= 1e-10*l2 {
				return ed, s, true
			}
		}
		return edge{}, 0, false
	}

	var hitN, borderN, otherN, oldN int
	var maxWorld, maxRow, maxKKT, maxStat, xdFrac float64
	for i, ent := range b.mesh.Verts {
		if !eolMap.Has(ent) {
			continue
		}
		comp := *eolMap.Get(ent)
		xdot := dense.Vec3(*vel.Get(ent))
		if o, ok := oldOf[ent]; ok {
			oldN++
			if xdot != old.V[o] || comp.XDot != (dense.Vec2{}) {
				t.Errorf("step %d: old vertex %d became EOL with velocity %v (was %v), Xdot %v (want 0)", step, o, xdot, old.V[o], comp.XDot)
			}
			continue
		}
		u := nm.U[vertOf[i]]
		ed, s, ok := onEdge(u)
		if !ok {
			otherN++
			if comp.XDot != (dense.Vec2{}) {
				t.Errorf("step %d: new EOL vertex %d, not made by a hit, has Xdot %v; want the interpolated 0", step, i, comp.XDot)
			}
			continue
		}
		hitN++
		F, ok := nodeF(nm, vf.Of(i), int32(i), new(fScratch))
		if !ok {
			t.Fatalf("step %d: EOL vertex %d has no non-degenerate face", step, i)
		}
		fi, err := c.featureOf(&comp)
		if err != nil {
			t.Fatal(err)
		}
		f := &c.features[fi]
		var a dense.Vec2
		switch {
		case bn[i] != (dense.Vec2{}):
			a = bn[i]
			borderN++
		case f.Kind == components.FeatureEdge:
			a = featureTangent(F, f.Dir)
		default:
			t.Fatalf("step %d: hit vertex %d is on feature kind %v off the border: no equality row", step, i, f.Kind)
		}
		// (1) eq. 2: the material point keeps the interpolated world velocity.
		vw := old.V[ed.a].Scale(1 - s).Add(old.V[ed.b].Scale(s))
		scale := math.Max(vw.Norm(), 1e-12)
		lift := eol.LiftOffVelocity(xdot, comp.XDot, F)
		dw := lift.Sub(vw).Norm() / scale
		maxWorld = math.Max(maxWorld, dw)
		if dw > 1e-9 {
			t.Errorf("step %d: hit vertex %d (edge %d-%d at s=%.6f): xdot - F Xdot = %v, want the interpolated world velocity %v (rel. error %.3g)",
				step, i, ed.a, ed.b, s, lift, vw, dw)
		}
		// (2) the equality row of eq. 13.
		fn := math.Sqrt(F.FrobDot(F))
		na := math.Hypot(a[0], a[1])
		row := math.Abs(comp.XDot[0]*a[0]+comp.XDot[1]*a[1]) / na * fn / scale
		maxRow = math.Max(maxRow, row)
		if row > 1e-9 {
			t.Errorf("step %d: hit vertex %d: Xdot %v off its equality row %v (|Xdot.a| |F| / |v| = %.3g)", step, i, comp.XDot, a, row)
		}
		// (3) as much as possible in Xdot: the KKT solution of eq. 13 ...
		wantXd, wantXD, err := eol.TransferVelocity(vw, F, []dense.Vec2{a})
		if err != nil {
			t.Fatalf("step %d: hit vertex %d: %v", step, i, err)
		}
		dk := math.Max(xdot.Sub(wantXd).Norm(), F.MulVec(dense.Vec2{comp.XDot[0] - wantXD[0], comp.XDot[1] - wantXD[1]}).Norm()) / scale
		maxKKT = math.Max(maxKKT, dk)
		if dk > 1e-9 {
			t.Errorf("step %d: hit vertex %d: (xdot, Xdot) = (%v, %v), eq. 13 gives (%v, %v) (rel. difference %.3g)",
				step, i, xdot, comp.XDot, wantXd, wantXD, dk)
		}
		// ... and its stationarity: the Lagrangian rest is orthogonal to
		// what any admissible Xdot could still take up.
		q := dense.Vec2{-a[1] / na, a[0] / na}
		st := math.Abs(F.MulVec(q).Dot(xdot)) / (fn * scale)
		maxStat = math.Max(maxStat, st)
		if st > 1e-9 {
			t.Errorf("step %d: hit vertex %d: xdot %v not orthogonal to F q (rel. %.3g): Xdot did not take all it could", step, i, xdot, st)
		}
		xdFrac = math.Max(xdFrac, F.MulVec(comp.XDot).Norm()/scale)
	}
	if hitN+otherN+oldN == 0 {
		return false
	}
	t.Logf("step %d (t = %.3f s): %d hit vertices checked (%d on the border; %d inserted this step), %d other new and %d old EOL vertices; max rel. deviations: world velocity %.2g, equality row %.2g, vs eq. 13 %.2g, stationarity %.2g; largest |F Xdot|/|v| %.3g",
		step, float64(step)*h, hitN, borderN, inserted, otherN, oldN, maxWorld, maxRow, maxKKT, maxStat, xdFrac)
	if hitN == 0 {
		t.Errorf("step %d: EOL vertices appeared but none on an input cloth edge", step)
	}
	if xdFrac < 1e-3 {
		t.Errorf("step %d: no hit vertex put world velocity into Xdot (largest |F Xdot|/|v| %.3g)", step, xdFrac)
	}
	return true
}
