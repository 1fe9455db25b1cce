package rodstep

import (
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
