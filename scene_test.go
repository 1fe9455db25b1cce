package loom

import (
	"math"
	"testing"
)

// loadCape loads the cape scene and attaches its top row (the vertices
// within 1 mm of the highest) to the character.
func loadCape(t testing.TB, n int, opt Options) (*Sim, Body, Obstacle) {
	t.Helper()
	s, err := LoadScene(CapeScene(n), opt)
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
