package systems

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
)

// The yarn pass-through checker of issue 18, written apart from the solver
// (it shares no code with solver/rodcontact, solver/geom or solver/rodstep's
// detection): after every step, no two segments of different yarns, and no
// two segments of one yarn more than 4 radii apart along it, may be closer
// than half the sum of their radii, and no such pair may have passed through
// each other since the last step (the signed volume of their four end
// points changing sign at a moment when the two segments meet). Exempt are
// segment pairs within 4 (r_a + r_b) of arc on both yarns of a persistent
// contact between the two (there the model joins the centrelines), and
// yarns layered by persistent contacts on opposite sides of a third yarn
// (see rodstep's yarn.go: the model puts such layers in one surface).
// A persistent contact that goes away (its yarns pulled apart or one slid
// off the other's end: SB2020 sec. 5) leaves the two centrelines meeting at
// its point; the same pairs near it are given releaseSteps steps to get
// half the sum of the radii apart; meanwhile a crossing of such a pair
// counts only if it starts with them at least that far apart (two
// centrelines just released from one point have no side yet: the end of
// a yarn that slid off the other one retracting and lifting within a
// halved step reads as a crossing on the straight path between frames).

// checkSeg is a segment between consecutive nodes (in u) of one strand.
type checkSeg struct {
	rod    int
	ea, eb ecs.Entity
	a, b   dense.Vec3
	u0, u1 float64 // the arc it spans, u0 <= u1
}

// checkFrame is the state the checker sees after a step.
type checkFrame struct {
	segs  []checkSeg
	index map[[2]ecs.Entity]int
}

func snapshotSegments(sim *Sim) checkFrame {
	st := &sim.Rods.Step
	f := checkFrame{index: map[[2]ecs.Entity]int{}}
	for r := range st.Rods {
		nodes := st.Rods[r].Nodes
		for k := 0; k+1 < len(nodes); k++ {
			i, j := nodes[k], nodes[k+1]
			// The nodes are in the order of the solver's last assignment;
			// two that slid past each other within the step (an edge node
			// and a crossing's node at a table edge) are out of u order
			// until the next, so u0 <= u1 is not assumed.
			s := checkSeg{rod: r, ea: sim.Rods.Nodes[i], eb: sim.Rods.Nodes[j], a: st.X[i], b: st.X[j], u0: min(st.U[i], st.U[j]), u1: max(st.U[i], st.U[j])}
			f.index[[2]ecs.Entity{s.ea, s.eb}] = len(f.segs)
			f.segs = append(f.segs, s)
		}
	}
	return f
}

// segDist is the distance between segments p0-p1 and q0-q1: the smaller of
// the interior critical point of |p(s) - q(t)|^2 (if inside the unit square)
// and the four end-point-to-segment distances.
func segDist(p0, p1, q0, q1 dense.Vec3) float64 {
	pointSeg := func(x, a, b dense.Vec3) float64 {
		ab := b.Sub(a)
		l2 := ab.Dot(ab)
		s := 0.0
		if l2 > 0 {
			s = math.Max(0, math.Min(1, x.Sub(a).Dot(ab)/l2))
		}
		return x.Sub(a.Add(ab.Scale(s))).Norm()
	}
	best := math.Min(math.Min(pointSeg(p0, q0, q1), pointSeg(p1, q0, q1)), math.Min(pointSeg(q0, p0, p1), pointSeg(q1, p0, p1)))
	u, v, w := p1.Sub(p0), q1.Sub(q0), p0.Sub(q0)
	a, b, c, d, e := u.Dot(u), u.Dot(v), v.Dot(v), u.Dot(w), v.Dot(w)
	if den := a*c - b*b; den > 1e-12*a*c {
		s, t := (b*e-c*d)/den, (a*e-b*d)/den
		if s >= 0 && s <= 1 && t >= 0 && t <= 1 {
			best = math.Min(best, p0.Add(u.Scale(s)).Sub(q0.Add(v.Scale(t))).Norm())
		}
	}
	return best
}

// passedThrough reports whether the two segments, moving linearly from
// (a0, b0) to (a1, b1), pass through each other: the signed volume
// det[x1 - x0, x2 - x0, x3 - x0] changes sign on one of 32 sub-intervals,
// and at the root (by bisection) the segments are closer than tol.
func passedThrough(a0, b0, a1, b1 checkSeg, tol float64) bool {
	at := func(t float64) [4]dense.Vec3 {
		l := func(x, y dense.Vec3) dense.Vec3 { return x.Add(y.Sub(x).Scale(t)) }
		return [4]dense.Vec3{l(a0.a, a1.a), l(a0.b, a1.b), l(b0.a, b1.a), l(b0.b, b1.b)}
	}
	vol := func(t float64) float64 {
		x := at(t)
		return x[1].Sub(x[0]).Dot(x[2].Sub(x[0]).Cross(x[3].Sub(x[0])))
	}
	const n = 32
	for k := 0; k < n; k++ {
		lo, hi := float64(k)/n, float64(k+1)/n
		vl, vh := vol(lo), vol(hi)
		if vl*vh > 0 || (vl == 0 && vh == 0) {
			continue
		}
		for it := 0; it < 60; it++ {
			mid := (lo + hi) / 2
			if vm := vol(mid); (vm < 0) == (vl < 0) {
				lo, vl = mid, vm
			} else {
				hi = mid
			}
		}
		x := at((lo + hi) / 2)
		if segDist(x[0], x[1], x[2], x[3]) < tol {
			return true
		}
	}
	return false
}

// releaseSteps is how many steps after a persistent contact goes away its
// yarns may stay closer than half the sum of their radii near its point.
const releaseSteps = 50

// checkContact is a persistent contact: its two rods and its point's u on
// each, and for a released one the step of its release.
type checkContact struct {
	rp, rq int
	up, uq float64
	step   int
}

// passChecker holds what the checker needs across steps.
type passChecker struct {
	radius   float64
	layers   map[[2]int]bool
	prev     checkFrame
	step     int
	contacts map[[2]ecs.Entity]checkContact // the live contacts of the last check
	released []checkContact
}

func newPassChecker(sim *Sim) *passChecker {
	c := &passChecker{radius: sim.Model.Rods.ContactDistance / 2, layers: map[[2]int]bool{}}
	st := &sim.Rods.Step
	// Rods on opposite sides of a common rod (normals from it to them apart).
	type side struct {
		rod int
		n   dense.Vec3
	}
	sides := map[int][]side{}
	for _, ct := range st.Contacts {
		rp, rq := int(st.Rod[ct.P]), int(st.Rod[ct.Q])
		sides[rq] = append(sides[rq], side{rp, ct.Normal})
		sides[rp] = append(sides[rp], side{rq, ct.Normal.Scale(-1)})
	}
	for _, ss := range sides {
		for _, a := range ss {
			for _, b := range ss {
				if a.rod != b.rod && a.n.Dot(b.n) < 0 {
					c.layers[[2]int{a.rod, b.rod}] = true
				}
			}
		}
	}
	c.prev = snapshotSegments(sim)
	c.contacts = liveContacts(sim)
	return c
}

// liveContacts lists the persistent contacts by their node entities.
func liveContacts(sim *Sim) map[[2]ecs.Entity]checkContact {
	st := &sim.Rods.Step
	m := map[[2]ecs.Entity]checkContact{}
	for _, ct := range st.Contacts {
		m[[2]ecs.Entity{sim.Rods.Nodes[ct.P], sim.Rods.Nodes[ct.Q]}] = checkContact{rp: int(st.Rod[ct.P]), rq: int(st.Rod[ct.Q]), up: st.U[ct.P], uq: st.U[ct.Q]}
	}
	return m
}

// noteReleases records the contacts of the last check that are not among
// the live ones now, and forgets releases older than releaseSteps.
func (c *passChecker) noteReleases(live map[[2]ecs.Entity]checkContact) {
	for k, ct := range c.contacts {
		if _, ok := live[k]; !ok {
			ct.step = c.step
			c.released = append(c.released, ct)
		}
	}
	c.contacts = live
	c.released = slices.DeleteFunc(c.released, func(ct checkContact) bool { return c.step-ct.step > releaseSteps })
}

// near says whether u is within reach of segment sg's arc.
func (c *passChecker) near(sg checkSeg, u float64) bool {
	reach := 4 * 2 * c.radius
	return u >= sg.u0-reach && u <= sg.u1+reach
}

// joins says whether contact ct is between the rods of s and t and within
// reach of both.
func (c *passChecker) joins(ct checkContact, s, t checkSeg) bool {
	return ct.rp == s.rod && ct.rq == t.rod && c.near(s, ct.up) && c.near(t, ct.uq) ||
		ct.rp == t.rod && ct.rq == s.rod && c.near(t, ct.up) && c.near(s, ct.uq)
}

// releasing says whether segments s and t are near a contact released
// within the last releaseSteps steps.
func (c *passChecker) releasing(s, t checkSeg) bool {
	for _, ct := range c.released {
		if c.joins(ct, s, t) {
			return true
		}
	}
	return false
}

// exempt says whether segments s and t of frame f are not checked.
func (c *passChecker) exempt(sim *Sim, s, t checkSeg) bool {
	st := &sim.Rods.Step
	if s.rod == t.rod {
		return s.ea == t.ea || s.ea == t.eb || s.eb == t.ea || s.eb == t.eb ||
			math.Max(t.u0-s.u1, s.u0-t.u1) < 4*c.radius
	}
	if c.layers[[2]int{s.rod, t.rod}] || st.Rods[s.rod].Fixed && st.Rods[t.rod].Fixed {
		return true
	}
	for _, ct := range c.contacts {
		if c.joins(ct, s, t) {
			return true
		}
	}
	return false
}

// boxesMeet says whether the bounding boxes of s and t (with their previous
// positions ps, pt when withPrev), grown by r, overlap.
func boxesMeet(r float64, s, t checkSeg, withPrev bool, ps, pt checkSeg) bool {
	pts := func(x, p checkSeg) []dense.Vec3 {
		if withPrev {
			return []dense.Vec3{x.a, x.b, p.a, p.b}
		}
		return []dense.Vec3{x.a, x.b}
	}
	ps1, pt1 := pts(s, ps), pts(t, pt)
	for k := 0; k < 3; k++ {
		lo1, hi1, lo2, hi2 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range ps1 {
			lo1, hi1 = math.Min(lo1, p[k]), math.Max(hi1, p[k])
		}
		for _, p := range pt1 {
			lo2, hi2 = math.Min(lo2, p[k]), math.Max(hi2, p[k])
		}
		if lo1 > hi2+r || lo2 > hi1+r {
			return false
		}
	}
	return true
}

// check examines the state after a step and returns a description of the
// first violation, or "".
func (c *passChecker) check(sim *Sim) string {
	cur := snapshotSegments(sim)
	defer func() { c.prev = cur }()
	c.step++
	c.noteReleases(liveContacts(sim))
	for i := range cur.segs {
		for j := i + 1; j < len(cur.segs); j++ {
			s, t := cur.segs[i], cur.segs[j]
			pi, ok1 := c.prev.index[[2]ecs.Entity{s.ea, s.eb}]
			pj, ok2 := c.prev.index[[2]ecs.Entity{t.ea, t.eb}]
			// Boxes over both frames, grown by the radius: pairs apart
			// can neither be close nor have crossed.
			if !boxesMeet(c.radius, s, t, ok1 && ok2, c.prev.segs[max(pi, 0)], c.prev.segs[max(pj, 0)]) || c.exempt(sim, s, t) {
				continue
			}
			releasing := c.releasing(s, t)
			if d := segDist(s.a, s.b, t.a, t.b); d < c.radius && !releasing {
				return fmt.Sprintf("segments of strands %d and %d %.3g m apart, under half the sum of the radii", s.rod, t.rod, d)
			}
			if !ok1 || !ok2 {
				continue
			}
			ps, pt := c.prev.segs[pi], c.prev.segs[pj]
			if releasing && segDist(ps.a, ps.b, pt.a, pt.b) < c.radius {
				continue
			}
			if passedThrough(ps, pt, s, t, 1e-3*c.radius) {
				return fmt.Sprintf("segments of strands %d and %d passed through each other", s.rod, t.rod)
			}
		}
	}
	return ""
}

// TestPassThroughChecker checks the checker itself on two segments crossing
// and passing beside each other, and closer than half the radii.
func TestPassThroughChecker(t *testing.T) {
	seg := func(a, b dense.Vec3) checkSeg { return checkSeg{a: a, b: b} }
	a := seg(dense.Vec3{-1, 0, 0}, dense.Vec3{1, 0, 0})
	b0 := seg(dense.Vec3{0, -1, 0.1}, dense.Vec3{0, 1, 0.1})
	b1 := seg(dense.Vec3{0, -1, -0.1}, dense.Vec3{0, 1, -0.1})
	if !passedThrough(a, b0, a, b1, 1e-6) {
		t.Error("crossing not detected")
	}
	b1 = seg(dense.Vec3{3, -1, -0.1}, dense.Vec3{3, 1, -0.1})
	if passedThrough(a, b0, a, b1, 1e-6) {
		t.Error("segments passing beside each other reported")
	}
	if d := segDist(a.a, a.b, b0.a, b0.b); math.Abs(d-0.1) > 1e-15 {
		t.Errorf("distance %g, want 0.1", d)
	}
	if d := segDist(a.a, a.b, dense.Vec3{2, 1, 0}, dense.Vec3{3, 1, 0}); math.Abs(d-math.Sqrt2) > 1e-15 {
		t.Errorf("end-point distance %g, want sqrt 2", d)
	}
	// A contact of rods 0 (u 0.5) and 1 (u 2) released at step 10 covers
	// segments near both points until step 10 + releaseSteps.
	c := &passChecker{radius: 0.01, released: []checkContact{{rp: 0, rq: 1, up: 0.5, uq: 2, step: 10}}}
	s0, s1 := checkSeg{rod: 0, u0: 0.4, u1: 0.45}, checkSeg{rod: 1, u0: 2.02, u1: 2.1}
	if !c.releasing(s1, s0) {
		t.Error("segments 0.05 and 0.02 of arc from a released contact not covered")
	}
	if s1.u0 = 2.1; c.releasing(s0, s1) {
		t.Error("a segment 0.1 of arc from a released contact covered (reach 0.08)")
	}
	c.step = 10 + releaseSteps + 1
	c.noteReleases(nil)
	if s1.u0 = 2.02; c.releasing(s0, s1) {
		t.Errorf("a contact released %d steps ago still covers its segments", releaseSteps+1)
	}
}

// shortPassSteps shortens TestNoPassThrough for scenes whose steps are slow
// (without LOOM_LONG_TESTS). knit-sphere is no longer among them: with the
// rod Newton's entering marks (rods.predict_contacts) its first 80 steps,
// through the patch's landing on the ball, take about 4 s on 1 worker
// (they were 10 steps when its Newton halved 0.2 times a step, about 0.5 s a
// step; with rods.degenerate_restart, stop 49, about 10 s); the long form
// checks all its 1000 steps (clean: 87 s with 1 worker at stop 47, 397 s
// with the restarts). tablecloth's short form stops at step 44 (TestTableclothLayers checks
// its first 200, without and with friction between the layers). pocket's
// long form once failed at step 277: a segment whose nodes had slid past
// each other within the step spanned a reversed arc, and the checker missed
// the crossing that exempts it (see snapshotSegments). tablecloth's earlier
// layout (all three layers centred on the edge, no cohesion) fails it at
// step 175 still: bottom- and top-layer strands 10 and 26 0.21 mm apart.
var shortPassSteps = map[string]int{"tablecloth": 44}

// weavesHold names the scenes in which TestNoPassThrough also checks that
// every woven crossing is still there at the end: tag and pocket, with their
// cohesion. Without it this fails: by step 80 tag's label/warp3 had slid out
// of all but one of its six contacts (it falls out of the weave later), and
// pocket had 50 of its 61 woven crossings left.
var weavesHold = map[string]bool{"tag": true, "pocket": true}

// persistentContacts counts the woven crossings among the rod contacts.
func persistentContacts(sim *Sim) int {
	n := 0
	q := generic.NewFilter1[components.RodContact]().Query(sim.World.ECS)
	for q.Next() {
		if c := q.Get(); c.Persistent && !c.Stitched {
			n++
		}
	}
	return n
}

// TestNoPassThrough runs every built-in rod scene (the first 80 steps;
// LOOM_LONG_TESTS: all of every scene, 7,350 steps in all, 800 s with 1
// worker) under the checker. TestRodCrossing checks all of rod-crossing,
// through the yarns' meeting at 2.15 s. (knit-sphere's long form failed at
// step 980, two yarns 0.045 mm apart, while a step whose Newton solve
// stalled reset the contacts' pull counts: see RodContactRemoval.)
func TestNoPassThrough(t *testing.T) {
	t.Parallel()
	for _, info := range scenes.Builtins() {
		sc, err := scenes.Builtin(info.Name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := sc.Model()
		if err != nil || m.Rods == nil {
			continue
		}
		n := sc.NumSteps()
		if !long() {
			n = min(n, 80)
			if k, ok := shortPassSteps[info.Name]; ok {
				n = min(n, k)
			}
		}
		sim := build(t, sc, 1)
		c := newPassChecker(sim)
		found := ""
		for i := 0; i < n && found == ""; i++ {
			if err := sim.Step(); err != nil {
				found = fmt.Sprintf("step %d: %v", i, err)
				break
			}
			if msg := c.check(sim); msg != "" {
				found = fmt.Sprintf("step %d: %s", i, msg)
			}
		}
		if found == "" && weavesHold[info.Name] {
			if kept, want := persistentContacts(sim), len(m.Rods.Crossings); kept != want {
				found = fmt.Sprintf("after %d steps %d of the %d woven crossings are left: yarns slipped out of their weaves", n, kept, want)
			}
		}
		if found != "" {
			t.Errorf("%s %s", info.Name, found)
		} else {
			t.Logf("%s: %d steps checked", info.Name, n)
		}
	}
}
