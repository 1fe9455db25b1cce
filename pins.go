package loom

import (
	"fmt"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/solver/dense"
)

// vertex checks body b and vertex index v and returns the body index and
// v's current position.
func (s *Sim) vertex(b Body, v int) (int, dense.Vec3, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, dense.Vec3{}, err
	}
	if n := len(s.sim.Bodies[i].Verts); v < 0 || v >= n {
		return 0, dense.Vec3{}, fmt.Errorf("%w: vertex %d of body %q: out of range [0, %d)", ErrInvalidValue, v, s.sim.Bodies[i].Name, n)
	}
	s.pos = s.acc.AppendPositions(i, s.pos[:0])
	return i, s.pos[v], nil
}

// Pin holds vertex v of body b where it is now (replacing any pin or
// attachment it had). Pins change the set of free vertices, so Topology
// changes; indices are those of Positions (a remeshed body renumbers them).
func (s *Sim) Pin(b Body, v int) error {
	i, x, err := s.vertex(b, v)
	if err != nil {
		return err
	}
	s.acc.Pin(i, v, components.Pinned{Anchor: x, Script: -1})
	return nil
}

// Unpin frees vertex v of body b (pinned or attached); freeing a free
// vertex is an error.
func (s *Sim) Unpin(b Body, v int) error {
	i, _, err := s.vertex(b, v)
	if err != nil {
		return err
	}
	if !s.acc.Unpin(i, v) {
		return fmt.Errorf("%w: Unpin: vertex %d of body %q is not pinned", ErrInvalidValue, v, s.sim.Bodies[i].Name)
	}
	return nil
}

// Attach ties vertex v of body b rigidly to obstacle o as it is now: from
// the next step on the vertex follows o's moving frame (its scripted
// motion or the poses set from outside), as a pin whose anchor rides on
// the obstacle. A cape's collar on a character, a flag's edge on a
// moving pole.
func (s *Sim) Attach(b Body, v int, o Obstacle) error {
	i, x, err := s.vertex(b, v)
	if err != nil {
		return err
	}
	sl, err := s.obstacle(o)
	if err != nil {
		return err
	}
	ob := s.acc.Obstacle(sl.ent)
	k, t := sl.motion, s.sim.Clock.Time
	// The pin's target is pivot + Offset(t) + R(t) (anchor - pivot)
	// (model.Pose): take the anchor back to the obstacle's initial pose.
	off, r := dense.Vec3(k.Offset(t)), dense.Mat3(k.Rotation(t))
	anchor := ob.Pivot.Add(r.T().MulVec(x.Sub(ob.Pivot).Sub(off)))
	s.acc.Pin(i, v, components.Pinned{Anchor: anchor, Script: ob.Script, Pivot: ob.Pivot})
	return nil
}
