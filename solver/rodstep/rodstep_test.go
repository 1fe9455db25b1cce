package rodstep

import (
	"math"
	"math/rand"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
	"github.com/loomsim/loom/solver/rod"
)

// twoRods builds rod 0 along x and rod 1 along y crossing it at its middle,
// with a sliding contact (node 22 on rod 0 and 23 on rod 1), an anchor on
// each contact node, and the given extra free node on rod 0 close to the
// contact (so it may turn EIL).
func twoRods(eil bool) *State {
	s := &State{Gravity: dense.Vec3{0, 0, -9.81}, EIL: eil}
	add := func(r int32, x dense.Vec3, u float64, fixed bool) int32 { return addNode(s, r, x, u, fixed) }
	s.Rods = []Rod{{Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 1}, {Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 1}}
	for k := 0; k <= 10; k++ {
		add(0, dense.Vec3{-0.5 + 0.1*float64(k), 0, 0}, 0.1*float64(k), true)
	}
	for k := 0; k <= 10; k++ {
		add(1, dense.Vec3{0.05, -0.45 + 0.1*float64(k), 0.001}, 0.1*float64(k), true)
	}
	p := add(0, dense.Vec3{0.05, 0, 0.0005}, 0.55, false)
	q := add(1, dense.Vec3{0.05, 0, 0.0005}, 0.45, false)
	add(0, dense.Vec3{0.005, 0, 0}, 0.505, false) // within 0.1 x RestSeg of node 5: EIL candidate
	s.Contacts = []Contact{{P: p, Q: q, Normal: dense.Vec3{0, 0, 1}, K: rod.ContactStiffness(50, 0.1), Mu: 0.5}}
	s.Anchor[p] = rod.Anchor{U: 0.55, Kf: 20}
	s.Anchor[q] = rod.Anchor{U: 0.45, Kf: 20}
	s.Pinned[0], s.Target[0] = true, s.X[0]
	s.Pinned[10], s.Target[10] = true, s.X[10]
	s.Pinned[11], s.Target[11] = true, s.X[11]
	s.Pinned[21], s.Target[21] = true, s.X[21]
	s.Edges = []Edge{{Node: q, A: dense.Vec3{0, 0, 0.0005}, Dir: dense.Vec3{1, 0, 0}, K: 100}, {Node: 24, A: dense.Vec3{0, 0.001, 0}, Dir: dense.Vec3{0.6, 0.8, 0}, K: 100}}
	s.Obstacles = []Obstacle{{Shape: geom.Shape{Kind: geom.Plane, Center: dense.Vec3{0, 0, -0.01}, Normal: dense.Vec3{0, 0, 1}}}}
	s.Rods[0].Radius, s.Rods[1].Radius, s.ObstacleK = 0.02, 0.02, 1e3
	return s
}

// addNode appends a node of rod r.
func addNode(s *State, r int32, x dense.Vec3, u float64, fixed bool) int32 {
	s.X = append(s.X, x)
	s.V = append(s.V, dense.Vec3{})
	s.U = append(s.U, u)
	s.UDot = append(s.UDot, 0)
	s.Rod = append(s.Rod, r)
	s.FixedU = append(s.FixedU, fixed)
	s.Pinned = append(s.Pinned, false)
	s.Target = append(s.Target, dense.Vec3{})
	s.Anchor = append(s.Anchor, rod.Anchor{})
	s.Rods[r].Nodes = append(s.Rods[r].Nodes, int32(len(s.X)-1))
	return int32(len(s.X) - 1)
}

// withThirdRod adds rod 2 along y, 0.015 m above rod 0 at x = 0.25 (closer
// than the radii, 0.04: a non-persistent yarn contact), and obstacle and
// yarn-pair friction.
func withThirdRod(s *State) *State {
	s.Rods = append(s.Rods, Rod{Ks: 50, Kb: 1e-3, Rho: 0.01, RestSeg: 0.1, Length: 1, Radius: 0.02})
	for k := 0; k <= 10; k++ {
		addNode(s, 2, dense.Vec3{0.25, -0.5 + 0.1*float64(k), 0.015}, 0.1*float64(k), true)
	}
	s.ObstacleMu, s.PairMu = 0.4, 0.3
	return s
}

// TestIncrementalPotentialDerivatives checks the assembled gradient and
// Hessian of the incremental potential against central finite differences, at
// a perturbed state with a shared-x contact (EIL off) and with an EIL soft
// contact (EIL on), both with a gap, plus edge, obstacle, anchor and crossing shear terms.
func TestIncrementalPotentialDerivatives(t *testing.T) {
	for _, eil := range []bool{false, true} {
		s := withThirdRod(twoRods(eil))
		// A crossing shear term away from its rest angle (rest cosine
		// 0.3; the rods cross at right angles).
		s.Contacts[0].Shear, s.Contacts[0].ShearCos0, s.Contacts[0].ShearRest = 0.02, 0.3, true
		// A gap kept along the normal (the EIL spring's rest point).
		s.Contacts[0].Gap = 7e-4
		s.Assign()
		wantEIL := eil
		if got := s.Kind[24] == rod.EIL; got != wantEIL {
			t.Fatalf("eil=%v: EIL node present = %v", eil, got)
		}
		rng := rand.New(rand.NewSource(3))
		for i := range s.X {
			s.V[i] = dense.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Scale(0.05)
		}
		h := 0.002
		// Twice: a pair found overlapping starts at its own distance (no
		// force, no friction) and is pressed from the next detection on,
		// its rest distance ramped by a step (restDistances).
		s.detect(h)
		s.detect(h)
		if len(s.ws.yarn.pairs) == 0 {
			t.Fatal("no yarn contact pair detected")
		}
		pf := 0
		for _, f := range s.ws.yarn.fric {
			if f.muN > 0 {
				pf++
			}
		}
		if pf == 0 {
			t.Fatal("no yarn pair has friction")
		}
		copy(s.ws.xn, s.X)
		copy(s.ws.un, s.U)
		s.number(func(i int) dense.Vec3 { return s.Target[i] })
		s.lagObstacles()
		nf := 0
		for _, m := range s.ws.yarn.obsMuN {
			if m > 0 {
				nf++
			}
		}
		if nf == 0 {
			t.Fatal("no node has obstacle friction")
		}
		q := append([]float64(nil), s.ws.q...)
		for k := range q {
			// Eulerian coordinates less: the 0.005 m segment next to the
			// contact must not invert (its energy is infinite there).
			scale := 0.01
			if k >= 3*s.ws.nx {
				scale = 0.001
			}
			q[k] += scale * rng.NormFloat64()
		}
		n := len(q)
		s.ws.exactHessian = true
		if err := s.buildTerms(); err != nil {
			t.Fatal(err)
		}
		s.lagMasses()
		if !slices.ContainsFunc(s.ws.asm.terms, func(t term) bool { return t.kind == termShear }) {
			t.Fatalf("eil=%v: no crossing shear term", eil)
		}
		s.eval(q, h, 2)
		grad := append([]float64(nil), s.ws.grad...)
		H := make([]float64, n*n)
		A := &s.ws.asm.A
		for j := 0; j < n; j++ {
			for k := A.ColPtr[j]; k < A.ColPtr[j+1]; k++ {
				i := A.RowIdx[k]
				H[i*n+j] += A.Val[k]
				if i != j {
					H[j*n+i] += A.Val[k]
				}
			}
		}
		if e2, e0 := s.eval(q, h, 2), s.eval(q, h, 0); e2 != e0 {
			t.Errorf("eil=%v: energy-only evaluation %.17g, full %.17g: the line search would compare unlike values", eil, e0, e2)
		}
		const eps = 1e-6
		worstG, worstH := 0.0, 0.0
		gp := make([]float64, n)
		for k := 0; k < n; k++ {
			q0 := q[k]
			q[k] = q0 + eps
			ep := s.eval(q, h, 1)
			copy(gp, s.ws.grad)
			q[k] = q0 - eps
			em := s.eval(q, h, 1)
			q[k] = q0
			fd := (ep - em) / (2 * eps)
			worstG = math.Max(worstG, math.Abs(fd-grad[k])/(1+math.Abs(grad[k])))
			for j := 0; j < n; j++ {
				fdH := (gp[j] - s.ws.grad[j]) / (2 * eps)
				worstH = math.Max(worstH, math.Abs(fdH-H[j*n+k])/(1+math.Abs(H[j*n+k])))
			}
		}
		t.Logf("eil=%v: %d unknowns, %d yarn pairs (%d with friction), %d nodes with obstacle friction, worst FD error gradient %.2e, Hessian %.2e", eil, n, len(s.ws.yarn.pairs), pf, nf, worstG, worstH)
		if worstG > 1e-5 || worstH > 1e-4 {
			t.Errorf("eil=%v: finite-difference mismatch: gradient %.3g, Hessian %.3g", eil, worstG, worstH)
		}
	}
}

// TestStepConverges takes steps of the crossing rods, with a free node 0.005
// m (a twentieth of a segment) from a Lagrangian node, and checks that with
// EIL nodes Newton converges without halvings, the pinned nodes land on their
// targets and the contact's shared position stays shared; with EIL disabled
// the degenerate segment makes the step halve, fail or stop unconverged
// (an unbalanced force above 1 N; which of them depends on rounding: it
// halves 8 times and leaves 2.4e11 N; with the triangular solve's sums
// grouped as ldlt's solveScheduled groups them it did not halve and left
// 1.35e13 N), as SB2020 sec. 3.2 predicts.
// Converged, the EIL steps leave no unbalanced force (Result.Residual
// under 1 mN).
func TestStepConverges(t *testing.T) {
	s := twoRods(false)
	halvings, residual := 0, 0.0
	var failed error
	for k := 0; k < 50 && failed == nil; k++ {
		var res Result
		res, failed = s.Step(0.002, DefaultSettings(), func(i int, dt float64) dense.Vec3 { return s.Target[i] })
		halvings += res.Halvings
		residual = max(residual, res.Residual)
	}
	t.Logf("pure EoL: %d halvings, largest residual force %.3g N, error %v", halvings, residual, failed)
	if halvings == 0 && failed == nil && residual < 1 {
		t.Error("pure EoL with a degenerate segment ran without trouble; the test setup is not degenerate")
	}
	for _, eil := range []bool{true} {
		s := twoRods(eil)
		residual := 0.0
		for k := 0; k < 50; k++ {
			res, err := s.Step(0.002, DefaultSettings(), func(i int, dt float64) dense.Vec3 { return s.Target[i] })
			if err != nil {
				t.Fatalf("eil=%v step %d: %v", eil, k, err)
			}
			if res.Halvings != 0 {
				t.Errorf("eil=%v step %d: %d halvings", eil, k, res.Halvings)
			}
			residual = max(residual, res.Residual)
		}
		// Converged: the unbalanced force left is that of an update of
		// Tol (1e-9 m) against stiffnesses of about 1e5 N/m.
		t.Logf("eil=%v: largest residual force %.3g N", eil, residual)
		if !(residual < 1e-3) {
			t.Errorf("eil=%v: a step left an unbalanced force of %.3g N, want under 1e-3 N", eil, residual)
		}
		if s.X[0] != s.Target[0] {
			t.Errorf("pinned node moved: %v", s.X[0])
		}
		c := s.Contacts[0]
		if s.shared(c) && s.X[c.P] != s.X[c.Q] {
			t.Errorf("eil=%v: shared contact nodes apart: %v %v", eil, s.X[c.P], s.X[c.Q])
		}
	}
}

// TestStepProjectBend runs the EIL two-rod setup with Settings.ProjectBend:
// projected Newton converges to the same states as exact Newton (the
// projection leaves the gradient, hence the solutions, unchanged).
func TestStepProjectBend(t *testing.T) {
	a, b := twoRods(true), twoRods(true)
	set := DefaultSettings()
	setP := set
	setP.ProjectBend = true
	for k := 0; k < 50; k++ {
		if _, err := a.Step(0.002, set, func(i int, dt float64) dense.Vec3 { return a.Target[i] }); err != nil {
			t.Fatalf("exact, step %d: %v", k, err)
		}
		if _, err := b.Step(0.002, setP, func(i int, dt float64) dense.Vec3 { return b.Target[i] }); err != nil {
			t.Fatalf("projected, step %d: %v", k, err)
		}
	}
	worst := 0.0
	for i := range a.X {
		worst = max(worst, a.X[i].Sub(b.X[i]).Norm(), math.Abs(a.U[i]-b.U[i]))
	}
	if worst > 1e-6 {
		t.Errorf("projected and exact Newton differ by %g after 50 steps", worst)
	}
	t.Logf("projected vs exact Newton after 50 steps: %.3g", worst)
}

// TestFollowNormal turns the two-rod crossing rigidly by 60 degrees about x:
// the contact's normal, +z at load, must turn with the yarns to the normal
// of their tangents' plane, R (0, 0, 1), on the side of the old normal; with
// the rods parallel at the contact it stays as it was.
func TestFollowNormal(t *testing.T) {
	s := twoRods(false)
	th := math.Pi / 3
	c, sn := math.Cos(th), math.Sin(th)
	for i, x := range s.X {
		s.X[i] = dense.Vec3{x[0], c*x[1] - sn*x[2], sn*x[1] + c*x[2]}
	}
	s.Assign()
	k := s.Contacts[0]
	s.followNormal(&k)
	want := dense.Vec3{0, -sn, c}
	if d := k.Normal.Sub(want).Norm(); d > 1e-3 {
		t.Errorf("normal after a 60 degree turn: %v, want %v", k.Normal, want)
	}
	k.Normal = k.Normal.Scale(-1)
	s.followNormal(&k)
	if d := k.Normal.Add(want).Norm(); d > 1e-3 {
		t.Errorf("normal started on the other side: %v, want %v (the side is kept)", k.Normal, want.Scale(-1))
	}
	// Rod 1 laid along rod 0: no plane, the normal is kept.
	s = twoRods(false)
	for _, i := range s.Rods[1].Nodes {
		s.X[i] = dense.Vec3{s.X[i][1], 0.001, s.X[i][2]}
	}
	s.Assign()
	k = s.Contacts[0]
	s.followNormal(&k)
	if k.Normal != (dense.Vec3{0, 0, 1}) {
		t.Errorf("parallel rods: normal %v, want it kept (0, 0, 1)", k.Normal)
	}
}

// TestSlidingAnchorWithoutBound checks the sliding anchor term where its
// friction bound mu N is zero (no friction, or the contact in tension): it
// exerts no force in either direction, so the node may turn back within the
// step. (The term used to keep the one-sided spring 1/2 Kf d^2 for a node
// turning back, a ratchet that held a frictionless node against any
// reversal: on knit-sphere's first 40 steps Newton needed 2.5x the
// iterations with it.) With a bound the turn-back spring stays.
func TestSlidingAnchorWithoutBound(t *testing.T) {
	s := &State{Anchor: []rod.Anchor{{U: 0.1, Kf: 1e6, Slip: 1}}}
	s.ws.un, s.ws.bound = []float64{0.1}, []float64{0}
	// contact sets node 0's bound as a contact with mu 0.5 would give it.
	contact := func(normal, cohesion float64) {
		s.ws.bound[0] = (&Contact{Mu: 0.5, NormalForce: normal, Cohesion: cohesion}).FrictionBound()
	}
	contact(-2, 0)
	for _, u := range []float64{0.099, 0.1, 0.101} {
		if e, f, k := s.anchorTerm(0, u); e != 0 || f != 0 || k != 0 {
			t.Errorf("normal force -2, u %g: energy %g, force %g, stiffness %g; want none", u, e, f, k)
		}
	}
	contact(2, 0) // bound 1
	if e, f, k := s.anchorTerm(0, 0.101); math.Abs(e-0.001) > 1e-15 || f != 1 || k != 0 {
		t.Errorf("sliding on: energy %g, force %g, stiffness %g; want the kinetic friction 1", e, f, k)
	}
	if _, f, k := s.anchorTerm(0, 0.099); k != 1e6 || !(f < 1) {
		t.Errorf("turning back: force %g, stiffness %g; want the spring", f, k)
	}
	// A cohesion of 0.3 N bounds the friction even in tension.
	contact(-2, 0.3)
	if e, f, k := s.anchorTerm(0, 0.101); math.Abs(e-0.0003) > 1e-15 || f != 0.3 || k != 0 {
		t.Errorf("cohesion 0.3, in tension, sliding on: energy %g, force %g, stiffness %g; want the kinetic friction 0.3", e, f, k)
	}
	contact(2, 0.3) // bound 0.3 + 0.5 * 2
	if _, f, _ := s.anchorTerm(0, 0.101); math.Abs(f-1.3) > 1e-15 {
		t.Errorf("cohesion 0.3, normal force 2: force %g, want 1.3", f)
	}
}

// TestHybridNewton runs the EIL two-rod setup with rest-curved rods (0.3 rad
// at every interior rest node, whose bend Hessians are projected) ten
// steps on the projected Hessians only (Settings.AlwaysProject) and with
// the default hybrid (exact Hessians once the line search takes full
// steps): the same states to within the Newton tolerance's reach, in fewer
// iterations.
func TestHybridNewton(t *testing.T) {
	run := func(project bool) (*State, int) {
		s := twoRods(true)
		for r := range s.Rods {
			th := make([]float64, 11)
			for k := 1; k < 10; k++ {
				th[k] = 0.3
			}
			s.Rods[r].Rest = rod.NewRestCurve(0.1, th)
		}
		set := DefaultSettings()
		set.AlwaysProject = project
		it := 0
		for k := 0; k < 10; k++ {
			res, err := s.Step(0.002, set, func(i int, dt float64) dense.Vec3 { return s.Target[i] })
			if err != nil {
				t.Fatalf("AlwaysProject %v, step %d: %v", project, k, err)
			}
			it += res.Iterations
		}
		return s, it
	}
	p, itP := run(true)
	h, itH := run(false)
	diff := 0.0
	for i := range p.X {
		diff = math.Max(diff, p.X[i].Sub(h.X[i]).Norm())
		diff = math.Max(diff, math.Abs(p.U[i]-h.U[i]))
	}
	t.Logf("Newton iterations: projected %d, hybrid %d; largest difference %.3g m", itP, itH, diff)
	if !(itH < itP) {
		t.Errorf("hybrid Newton took %d iterations, projected %d", itH, itP)
	}
	if diff > 1e-7 {
		t.Errorf("states differ by %.3g m", diff)
	}
}

// TestFactorNewtonProjectsFoldedBends folds a straight rod back on itself
// (four nodes 0.1 m apart in a zigzag 0.01 m wide: turning angles near pi,
// whose bend Hessians are indefinite far beyond the masses and the soft
// stretch): no regularization up to the matrix's largest diagonal entry
// factors it, and factorNewton, with no yarn pairs to project, projects the
// straight bends (as Settings.ProjectBend does) and factors that.
func TestFactorNewtonProjectsFoldedBends(t *testing.T) {
	const h = 1e-3
	s := &State{Gravity: dense.Vec3{0, 0, -9.81}}
	s.Rods = []Rod{{Ks: 1e-3, Kb: 1, Rho: 1e-6, RestSeg: 0.1, Length: 0.3}}
	for k, x := range []dense.Vec3{{0, 0, 0}, {0.1, 0, 0}, {0, 0.01, 0}, {0.1, 0.02, 0}} {
		addNode(s, 0, x, 0.1*float64(k), true)
	}
	s.Kind = make([]rod.Kind, len(s.X))
	s.ws.size(len(s.X))
	s.Assign()
	s.detect(h)
	if err := s.begin(DefaultSettings(), func(i int) dense.Vec3 { return s.Target[i] }); err != nil {
		t.Fatal(err)
	}
	s.eval(s.ws.q, h, 2)
	if _, err := s.factorRegularized(); err == nil {
		t.Fatal("the folded rod's Newton matrix factored with regularization: the test is not indefinite enough")
	}
	s.eval(s.ws.q, h, 2)
	if _, err := s.factorNewton(h); err != nil || !s.ws.projectBend {
		t.Errorf("factorNewton: %v, bends projected %v", err, s.ws.projectBend)
	}
}

// TestDegenerateRestart moves the EoL contact node of the two-rod setup,
// within a Newton iterate, 0.001 m of material short of its Lagrangian
// neighbour at u = 0.6 (safety distance 0.01 m): markDegenerate marks it,
// and the restart state (restore) has it EIL at its start u, out of the
// non-EIL nodes, so the iterate is no longer degenerate. A node 0.008 m
// short is left alone.
func TestDegenerateRestart(t *testing.T) {
	for _, c := range []struct {
		du     float64
		marked bool
	}{{0.001, true}, {0.008, false}} {
		s := twoRods(true)
		target := func(i int) dense.Vec3 { return s.Target[i] }
		s.Assign()
		saved := s.snapshot(0)
		s.detect(0.002)
		if err := s.begin(DefaultSettings(), target); err != nil {
			t.Fatal(err)
		}
		p := s.Contacts[0].P
		if s.Kind[p] != rod.EoL {
			t.Fatalf("contact node %d is %v at the start, want EoL", p, s.Kind[p])
		}
		s.ws.q[s.ws.udof[p]] = 0.6 - c.du
		if got := s.markDegenerate(s.ws.q); got != c.marked {
			t.Fatalf("du %g: marked %v, want %v", c.du, got, c.marked)
		}
		if !c.marked {
			continue
		}
		s.restore(saved)
		if s.Kind[p] != rod.EIL || s.U[p] != 0.55 {
			t.Errorf("restart: node %d is %v at u %g, want EIL at 0.55", p, s.Kind[p], s.U[p])
		}
		if slices.Contains(s.Rods[0].nonEIL, p) {
			t.Errorf("restart: node %d still among the non-EIL nodes %v", p, s.Rods[0].nonEIL)
		}
		s.detect(0.002)
		if err := s.begin(DefaultSettings(), target); err != nil {
			t.Fatal(err)
		}
		if s.markDegenerate(s.ws.q) {
			t.Error("degenerate again at the restart's start")
		}
	}
	if DefaultSettings().DegenerateRestart {
		t.Error("DegenerateRestart on by default")
	}
}
