package loom

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
)

// Body is a handle to a cloth body of a Sim. Its upper 32 bits are the
// Sim's generation, the lower its index: a handle of another (or a closed)
// Sim is an ErrStaleHandle error. The zero value is invalid.
type Body uint64

// Obstacle is a handle to an obstacle: its upper 32 bits are a generation
// that changes when the obstacle is removed, the lower its slot. A removed
// obstacle's handle stays an ErrStaleHandle error when its slot is reused.
// The zero value is invalid.
type Obstacle uint64

// Strand is a handle to a rod strand, like Body.
type Strand uint64

func pack(gen uint32, index int) uint64 { return uint64(gen)<<32 | uint64(uint32(index)) }

func unpack(h uint64) (gen uint32, index int) { return uint32(h >> 32), int(uint32(h)) }

// obstacleSlot is one obstacle's entry: its entity while alive, the
// generation of its current handle, and its kinematic motion.
type obstacleSlot struct {
	ent    ecs.Entity // the zero entity when removed
	gen    uint32
	motion *kinematic
}

func (sl *obstacleSlot) alive() bool { return !sl.ent.IsZero() }

// Bodies returns handles to the cloth bodies in scene order.
func (s *Sim) Bodies() []Body {
	out := make([]Body, len(s.sim.Bodies))
	for i := range out {
		out[i] = Body(pack(s.serial, i))
	}
	return out
}

// Body returns the handle of the body named name.
func (s *Sim) Body(name string) (Body, error) {
	for i, b := range s.sim.Bodies {
		if b.Name == name {
			return Body(pack(s.serial, i)), nil
		}
	}
	return 0, fmt.Errorf("%w: no body named %q", ErrInvalidValue, name)
}

// body returns the index of body b.
func (s *Sim) body(b Body) (int, error) {
	if s.closed {
		return 0, ErrClosed
	}
	gen, i := unpack(uint64(b))
	if gen != s.serial || i >= len(s.sim.Bodies) {
		return 0, fmt.Errorf("%w: body handle %#x is not one of %q's", ErrStaleHandle, uint64(b), s.scene.Name)
	}
	return i, nil
}

// BodyName returns body b's name.
func (s *Sim) BodyName(b Body) (string, error) {
	i, err := s.body(b)
	if err != nil {
		return "", err
	}
	return s.sim.Bodies[i].Name, nil
}

// Strands returns handles to the rod strands in scene order.
func (s *Sim) Strands() []Strand {
	if s.sim.Rods == nil {
		return nil
	}
	out := make([]Strand, len(s.sim.Rods.Strands))
	for i := range out {
		out[i] = Strand(pack(s.serial, i))
	}
	return out
}

// Strand returns the handle of the strand named name.
func (s *Sim) Strand(name string) (Strand, error) {
	for i, n := range s.sim.StrandNames() {
		if n == name {
			return Strand(pack(s.serial, i)), nil
		}
	}
	return 0, fmt.Errorf("%w: no strand named %q", ErrInvalidValue, name)
}

// strand returns the rod index of strand h.
func (s *Sim) strand(h Strand) (int, error) {
	if s.closed {
		return 0, ErrClosed
	}
	gen, i := unpack(uint64(h))
	if gen != s.serial || s.sim.Rods == nil || i >= len(s.sim.Rods.Strands) {
		return 0, fmt.Errorf("%w: strand handle %#x is not one of %q's", ErrStaleHandle, uint64(h), s.scene.Name)
	}
	return i, nil
}

// Obstacles returns handles to the live obstacles in slot order (the
// scene's obstacles first).
func (s *Sim) Obstacles() []Obstacle {
	var out []Obstacle
	for i, sl := range s.obstacles {
		if sl.alive() {
			out = append(out, Obstacle(pack(sl.gen, i)))
		}
	}
	return out
}

// Obstacle returns the handle of the live obstacle named name.
func (s *Sim) Obstacle(name string) (Obstacle, error) {
	for i, sl := range s.obstacles {
		if sl.alive() && s.acc.Obstacle(sl.ent).Name == name {
			return Obstacle(pack(sl.gen, i)), nil
		}
	}
	return 0, fmt.Errorf("%w: no obstacle named %q", ErrInvalidValue, name)
}

// obstacle returns the slot of live obstacle h.
func (s *Sim) obstacle(h Obstacle) (*obstacleSlot, error) {
	if s.closed {
		return nil, ErrClosed
	}
	gen, i := unpack(uint64(h))
	if i >= len(s.obstacles) || s.obstacles[i].gen != gen || !s.obstacles[i].alive() {
		return nil, fmt.Errorf("%w: obstacle handle %#x (removed, or not one of %q's)", ErrStaleHandle, uint64(h), s.scene.Name)
	}
	return &s.obstacles[i], nil
}
