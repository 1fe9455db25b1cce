package rodstep

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// TestSharedContactBlocks checks the DOF map of a shared contact (both
// nodes EoL): its two nodes have one x block, and every x block belongs to
// a node (an unused block is a zero row of the Newton matrix). The Newton
// matrix at the start then factors without regularization.
func TestSharedContactBlocks(t *testing.T) {
	s := twoRods(false)
	s.Obstacles = nil
	s.Assign()
	s.number(func(i int) dense.Vec3 { return s.Target[i] })
	c := s.Contacts[0]
	if !s.shared(c) || s.ws.xdof[c.P] < 0 || s.ws.xdof[c.P] != s.ws.xdof[c.Q] {
		t.Fatalf("contact nodes %d, %d: x blocks %d, %d, want one shared block", c.P, c.Q, s.ws.xdof[c.P], s.ws.xdof[c.Q])
	}
	used := make([]bool, s.ws.nx)
	for i := range s.X {
		if b := s.ws.xdof[i]; b >= 0 {
			used[b] = true
		}
	}
	for b, u := range used {
		if !u {
			t.Errorf("x block %d of %d belongs to no node", b, s.ws.nx)
		}
	}
	copy(s.ws.xn, s.X)
	copy(s.ws.un, s.U)
	s.detect(1e-3)
	if err := s.buildTerms(); err != nil {
		t.Fatal(err)
	}
	s.lagMasses()
	s.eval(s.ws.q, 1e-3, 2)
	if mu, err := s.factorRegularized(); err != nil || mu != 0 {
		t.Errorf("Newton matrix at the start: regularization %g, error %v; want none", mu, err)
	}
}

// TestContactGapOffsets joins three nodes of three rods by two shared
// contacts with gaps, one union each way round (the block root on P's and on
// Q's side), and a third contact closing a cycle: every node keeps its own
// position through the DOF map (x = q_block + offset), all three share one
// block, and a pin on one places its partners at their gaps from the target,
// along a chain of contacts too.
func TestContactGapOffsets(t *testing.T) {
	s := withThirdRod(twoRods(false))
	s.Obstacles, s.Edges = nil, nil
	p, q := s.Contacts[0].P, s.Contacts[0].Q
	r := addNode(s, 2, dense.Vec3{0.25, 0, 0.015}, 0.5, false)
	// Rod 0 at z 0, rod 1 at 1 mm, rod 2 at 3 mm: the normals point from
	// Q's rod to P's.
	s.X[p], s.X[q], s.X[r] = dense.Vec3{0.05, 0, 0}, dense.Vec3{0.05, 0, 0.001}, dense.Vec3{0.05, 0, 0.003}
	s.Contacts[0].Normal, s.Contacts[0].Gap = dense.Vec3{0, 0, -1}, 0.001
	s.Contacts = append(s.Contacts,
		Contact{P: r, Q: q, Normal: dense.Vec3{0, 0, 1}, Gap: 0.002, K: s.Contacts[0].K},
		Contact{P: p, Q: r, Normal: dense.Vec3{0, 0, -1}, Gap: 0.5, K: s.Contacts[0].K}) // inconsistent: closes the cycle
	s.Assign()
	s.number(func(i int) dense.Vec3 { return s.Target[i] })
	w := &s.ws
	if w.xdof[p] < 0 || w.xdof[p] != w.xdof[q] || w.xdof[q] != w.xdof[r] {
		t.Fatalf("x blocks %d, %d, %d: want one shared block", w.xdof[p], w.xdof[q], w.xdof[r])
	}
	for i := range s.X {
		if x := s.x(w.q, int32(i)); x.Sub(s.X[i]).Norm() > 1e-15 {
			t.Errorf("node %d: x through the DOF map %v, its position %v", i, x, s.X[i])
		}
	}
	// A pin on q: p and r pinned at their gaps from its target.
	s.Pinned[q], s.Target[q] = true, dense.Vec3{0.05, 0, 0.002}
	s.number(func(i int) dense.Vec3 { return s.Target[i] })
	if got, want := w.target[p], (dense.Vec3{0.05, 0, 0.001}); !w.pinned[p] || got.Sub(want).Norm() > 1e-15 {
		t.Errorf("pin through the gap: node p pinned %v at %v, want at %v", w.pinned[p], got, want)
	}
	if got, want := w.target[r], (dense.Vec3{0.05, 0, 0.004}); !w.pinned[r] || got.Sub(want).Norm() > 1e-15 {
		t.Errorf("pin through the gap: node r pinned %v at %v, want at %v", w.pinned[r], got, want)
	}
	// Without the cycle, a pin on r reaches p through q on a second pass
	// over the contacts.
	s.Pinned[q] = false
	s.Pinned[r], s.Target[r] = true, dense.Vec3{0.05, 0, 0.004}
	s.Contacts = s.Contacts[:2]
	s.number(func(i int) dense.Vec3 { return s.Target[i] })
	if got, want := w.target[p], (dense.Vec3{0.05, 0, 0.001}); !w.pinned[p] || got.Sub(want).Norm() > 1e-15 {
		t.Errorf("pin along the chain r-q-p: node p pinned %v at %v, want at %v", w.pinned[p], got, want)
	}
}

// TestStepKeepsContactGap steps the crossing rods with their contact 1 mm
// apart along its normal (rod 1 above rod 0): the steps converge without
// halvings and the shared nodes stay exactly that far apart.
func TestStepKeepsContactGap(t *testing.T) {
	s := twoRods(true)
	c := &s.Contacts[0]
	c.Normal, c.Gap = dense.Vec3{0, 0, -1}, 0.001
	s.X[c.P], s.X[c.Q] = dense.Vec3{0.05, 0, 0}, dense.Vec3{0.05, 0, 0.001}
	shared := 0
	for k := 0; k < 50; k++ {
		res, err := s.Step(0.002, DefaultSettings(), func(i int, dt float64) dense.Vec3 { return s.Target[i] })
		if err != nil {
			t.Fatalf("step %d: %v", k, err)
		}
		if res.Halvings != 0 {
			t.Errorf("step %d: %d halvings", k, res.Halvings)
		}
		if s.shared(*c) {
			shared++
			if d := s.X[c.P].Sub(s.X[c.Q]).Norm(); math.Abs(d-c.Gap) > 1e-12 {
				t.Errorf("step %d: shared contact nodes %.9g m apart, want the gap %g", k, d, c.Gap)
			}
		}
	}
	if shared == 0 {
		t.Fatal("the contact was never shared")
	}
	if z := s.X[c.Q][2] - s.X[c.P][2]; !(z > 0.999e-3) {
		t.Errorf("rod 1 %g m above rod 0 at the contact, want about the 1 mm gap", z)
	}
}
