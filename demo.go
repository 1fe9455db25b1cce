package loom

import "github.com/loomsim/loom/scenes"

// CapeScene is the game-sized demo scene, built with the scene types: a
// character (a capsule 1.6 m tall, radius 0.2 m, centred at (0, 0, 0.8))
// wearing a 0.5 m x 0.7 m cape of resolution x resolution*0.7 vertices
// that hangs behind it (at y = -0.23 m) from its shoulders (the top row, at
// z = 1.45 m), above a ground plane; 120 steps per second. Attach the top
// row to the character (Attach) and move the character with
// SetObstaclePose. The examples, the tests and `loom bench` use it.
func CapeScene(resolution int) *scenes.Scene {
	return &scenes.Scene{
		Name:        "cape",
		Description: "A cape hanging from a capsule character's shoulders (loom.CapeScene).",
		Gravity:     [3]float64{0, 0, -9.81},
		TimeStep:    1.0 / 120,
		Duration:    10,
		FrameRate:   60,
		Solver: scenes.Solver{Tolerance: 1e-3, MaxIterations: 1000, Thickness: 0.005, Friction: 0.3, Linear: scenes.LinearPCG,
			ContactSolver: scenes.ContactFilter},
		Bodies: []scenes.Body{{
			Name: "cape", Size: [2]float64{0.5, 0.7}, Resolution: resolution,
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
