package loom_test

import (
	"fmt"
	"log"
	"math"

	"github.com/loomsim/loom"
)

// A flag in a game loop: the scene comes as JSON bytes (from the game's
// assets), the flag is pinned at two corners of its hoist and blows in the
// wind; each frame the game steps the simulation and copies the vertices
// into its vertex buffer, re-reading the triangles when the topology
// counter changes (this flag's mesh is remeshed adaptively as it flaps).
func Example_flagGameLoop() {
	scene := []byte(`{
	  "name": "flag", "gravity": [0, 0, -9.81], "dt": 0.005, "duration": 1, "fps": 50,
	  "solver": {"tolerance": 1e-3, "max_iterations": 500, "contact_thickness": 0.005, "friction": 0, "linear": "pcg"},
	  "wind": {"velocity": [8, 0, 0], "density": 1.0, "drag": 0.0},
	  "bodies": [{
	    "name": "flag", "size": [1.5, 1], "resolution": 4, "triangulation": "cross",
	    "position": [0.75, 0, 3], "orientation": [90, 0, 0],
	    "material": {"density": 0.2, "stretch_stiffness": 2000, "shear_stiffness": 2000,
	                 "bending_stiffness": 1e-5, "mass_damping": 0, "stiffness_damping": 0.001},
	    "pins": [{"at": [0, 0]}, {"at": [0, -1]}],
	    "remesh": {"every": 10, "size_min": 0.08, "size_max": 0.4, "aspect_min": 0.3,
	               "refine_angle": 0.4, "refine_compression": 0.01, "refine_velocity": 1}
	  }],
	  "obstacles": [{"name": "pole", "type": "capsule", "a": [-0.02, 0, 0], "b": [-0.02, 0, 3.6], "radius": 0.015}]
	}`)
	sim, err := loom.LoadBytes(scene, loom.Options{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	flag, err := sim.Body("flag")
	if err != nil {
		log.Fatal(err)
	}

	var vertices []float32 // the game's vertex buffer (x y z per vertex)
	var indices []uint32   // and index buffer
	var topology uint64
	remeshes := 0
	for frame := 0; frame < 100; frame++ { // 0.5 s
		if err := sim.Step(); err != nil {
			log.Fatal(err)
		}
		if t, _ := sim.Topology(flag); t != topology {
			topology = t
			remeshes++
			n, _ := sim.VertexCount(flag)
			f, _ := sim.TriangleCount(flag)
			vertices, indices = make([]float32, 3*n), make([]uint32, 3*f)
			sim.Triangles(flag, indices)
		}
		if _, err := sim.Positions(flag, vertices); err != nil {
			log.Fatal(err)
		}
	}
	// The fly end (the flag's far side) streams downwind of the pole.
	fly := math.Inf(-1)
	for v := 0; v < len(vertices)/3; v++ {
		fly = max(fly, float64(vertices[3*v]))
	}
	fmt.Println("remeshed while flying:", remeshes > 1)
	fmt.Println("fly end downwind, more than 1 m from the pole:", fly > 1)
	fmt.Println("steps:", sim.Stats().Step)
	// Output:
	// remeshed while flying: true
	// fly end downwind, more than 1 m from the pole: true
	// steps: 100
}

// A cape on a moving character: the scene is built in Go (CapeScene), the cape's
// collar is attached to the character's capsule, and each frame the game
// sets the character's pose (from its animation or physics) before the
// step; the cape follows, its contacts seeing the capsule's velocity.
func Example_capeOnCharacter() {
	sc := loom.CapeScene(16)        // built with the scene types: see demo.go
	sc.TimeStep = 1.0 / 60          // the game's frame rate
	sc.Obstacles = sc.Obstacles[:1] // no ground
	sim, err := loom.LoadScene(sc, loom.Options{Workers: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer sim.Close()
	cape, _ := sim.Body("cape")
	character, _ := sim.Obstacle("character")

	n, _ := sim.VertexCount(cape)
	pos := make([]float32, 3*n)
	nrm := make([]float32, 3*n)
	sim.Positions(cape, pos)
	collar := 0
	for v := 0; v < n; v++ { // the top row: the collar
		if pos[3*v+2] > 1.449 {
			if err := sim.Attach(cape, v, character); err != nil {
				log.Fatal(err)
			}
			collar++
		}
	}
	for frame := 1; frame <= 120; frame++ { // 2 s: walk forward (+y), turning
		t := float64(frame) * sim.Dt()
		yaw := 0.4 * math.Sin(t)
		position := [3]float64{0, 1.2 * t, 0.8}
		orientation := [4]float64{0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)} // x y z w
		if err := sim.SetObstaclePose(character, position, orientation); err != nil {
			log.Fatal(err)
		}
		if err := sim.Step(); err != nil {
			log.Fatal(err)
		}
		sim.Positions(cape, pos) // into the renderer's buffers
		sim.Normals(cape, nrm)
	}
	// The cape trails behind the walking character (at y = 2.4 m).
	behind := 0
	for v := 0; v < n; v++ {
		if float64(pos[3*v+1]) < 1.2*2 {
			behind++
		}
	}
	fmt.Printf("cape: %d vertices, collar of %d attached\n", n, collar)
	fmt.Println("whole cape behind the character's axis:", behind == n)
	// Output:
	// cape: 176 vertices, collar of 11 attached
	// whole cape behind the character's axis: true
}
