package loom

import (
	"math"
	"testing"

	"github.com/loomsim/loom/scenes"
)

// capeScene is a character (a capsule 1.6 m tall) wearing an n x n cape
// that hangs behind it from its shoulders, built with the scene types.
func capeScene(n int) *scenes.Scene {
	return &scenes.Scene{
		Name:      "cape",
		Gravity:   [3]float64{0, 0, -9.81},
		TimeStep:  1.0 / 120,
		Duration:  10,
		FrameRate: 60,
		Solver:    scenes.Solver{Tolerance: 1e-3, MaxIterations: 200, Thickness: 0.005, Friction: 0.3, Linear: scenes.LinearPCG},
		Bodies: []scenes.Body{{
			Name: "cape", Size: [2]float64{0.5, 0.7}, Resolution: n,
			Position: [3]float64{0, -0.23, 1.1}, Orientation: [3]float64{90, 0, 0},
			Material: scenes.Material{Density: 0.2, StretchStiffness: 2000, ShearStiffness: 2000, BendingStiffness: 1e-4,
				MassDamping: 0.5, StiffnessDamping: 0.001},
		}},
		Obstacles: []scenes.Obstacle{
			{Name: "character", Type: scenes.Capsule, A: [3]float64{0, 0, 0.3}, B: [3]float64{0, 0, 1.3}, Radius: 0.2},
			{Name: "ground", Type: scenes.Plane, Center: [3]float64{0, 0, 0}, Normal: [3]float64{0, 0, 1}},
		},
	}
}

// loadCape loads the cape scene and attaches its top row (the vertices
// within 1 mm of the highest) to the character.
func loadCape(t testing.TB, n int, opt Options) (*Sim, Body, Obstacle) {
	t.Helper()
	s, err := LoadScene(capeScene(n), opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Body("cape")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Obstacle("character")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range topRow(t, s, b) {
		if err := s.Attach(b, v, ch); err != nil {
			t.Fatal(err)
		}
	}
	return s, b, ch
}

// topRow returns the vertices within 1 mm of body b's highest.
func topRow(t testing.TB, s *Sim, b Body) []int {
	n, _ := s.VertexCount(b)
	pos := make([]float32, 3*n)
	if _, err := s.Positions(b, pos); err != nil {
		t.Fatal(err)
	}
	top := float32(math.Inf(-1))
	for v := range n {
		top = max(top, pos[3*v+2])
	}
	var out []int
	for v := range n {
		if pos[3*v+2] > top-1e-3 {
			out = append(out, v)
		}
	}
	return out
}

// walk is the character's pose at frame i: walking along +y at 1.2 m/s
// while turning slowly about z.
func walk(i int, dt float64) ([3]float64, [4]float64) {
	t := float64(i) * dt
	a := 0.3 * math.Sin(2*t) / 2
	return [3]float64{0, 1.2 * t, 0.8}, [4]float64{0, 0, math.Sin(a), math.Cos(a)}
}
