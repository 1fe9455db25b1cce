package systems

import (
	"testing"

	"github.com/loomsim/loom/ecs"
)

// TestActiveSetByEntity: the remembered working set follows vertex entities,
// forgets everything at reset, and does not carry over to a new entity that
// reuses a removed one's ID.
func TestActiveSetByEntity(t *testing.T) {
	w := ecs.NewWorld(1)
	defer w.Pool.Close()
	a, b := w.ECS.NewEntity(), w.ECS.NewEntity()
	var s activeSet
	s.add(b, 1<<2)
	s.add(b, activeContact)
	if got := s.get(b); got != 1<<2|activeContact {
		t.Errorf("b: mask %b, want %b", got, 1<<2|activeContact)
	}
	if got := s.get(a); got != 0 {
		t.Errorf("a was never added: mask %b", got)
	}
	w.ECS.RemoveEntity(b)
	c := w.ECS.NewEntity()
	if c.ID() != b.ID() {
		t.Fatalf("arche did not recycle the ID (b %v, c %v): the test needs it", b, c)
	}
	if got := s.get(c); got != 0 {
		t.Errorf("c reuses b's ID: mask %b, want 0", got)
	}
	s.add(a, 1)
	s.reset()
	if s.get(a) != 0 {
		t.Errorf("after reset: a's mask %b", s.get(a))
	}
}
