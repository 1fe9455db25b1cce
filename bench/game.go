package bench

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"time"

	"github.com/loomsim/loom"
)

// GameResult is the game-loop row: a cape on a character whose pose the
// game sets every frame through package loom.
type GameResult struct {
	Resolution, Vertices, Faces, Workers int
	StepMS                               float64 // median SetObstaclePose + Step
	ReadMS                               float64 // median Positions + Normals into the caller's buffers
	AllocsPerFrame                       float64 // set pose, step, read
	PCGIterations                        float64 // median per step
	Contacts                             int     // contact rows of the last step
}

// MeasureGame loads loom.CapeScene(resolution), attaches the cape's top row
// to the character and runs warmup untimed and frames timed frames of a
// game loop: set the character's pose (walking and turning), step, read
// positions and normals; each frame is reported to p.
func MeasureGame(resolution, workers, warmup, frames int, p Progress) (GameResult, error) {
	sim, err := loom.LoadScene(loom.CapeScene(resolution), loom.Options{Workers: workers})
	if err != nil {
		return GameResult{}, err
	}
	defer sim.Close()
	cape, err := sim.Body("cape")
	if err != nil {
		return GameResult{}, err
	}
	character, err := sim.Obstacle("character")
	if err != nil {
		return GameResult{}, err
	}
	n, _ := sim.VertexCount(cape)
	nt, _ := sim.TriangleCount(cape)
	pos, nrm := make([]float32, 3*n), make([]float32, 3*n)
	sim.Positions(cape, pos)
	top := math.Inf(-1)
	for v := range n {
		top = max(top, float64(pos[3*v+2]))
	}
	for v := range n {
		if float64(pos[3*v+2]) > top-1e-3 {
			if err := sim.Attach(cape, v, character); err != nil {
				return GameResult{}, err
			}
		}
	}
	step := make([]float64, frames)
	read := make([]float64, frames)
	iters := make([]float64, frames)
	row := fmt.Sprintf("cape-%d, %d worker(s)", resolution, workers) // once: the frames allocate nothing
	var m0, m1 runtime.MemStats
	for f := 1; f <= warmup+frames; f++ {
		if f == warmup+1 {
			runtime.ReadMemStats(&m0)
		}
		t := float64(f) * sim.Dt()
		yaw := 0.4 * math.Sin(t)
		t0 := time.Now()
		if err := sim.SetObstaclePose(character, [3]float64{0, 1.2 * t, 0.8}, [4]float64{0, 0, math.Sin(yaw / 2), math.Cos(yaw / 2)}); err != nil {
			return GameResult{}, err
		}
		if err := sim.Step(); err != nil {
			return GameResult{}, err
		}
		t1 := time.Now()
		if _, err := sim.Positions(cape, pos); err != nil {
			return GameResult{}, err
		}
		if _, err := sim.Normals(cape, nrm); err != nil {
			return GameResult{}, err
		}
		if i := f - warmup - 1; i >= 0 {
			step[i] = float64(t1.Sub(t0).Nanoseconds()) / 1e6
			read[i] = float64(time.Since(t1).Nanoseconds()) / 1e6
			iters[i] = float64(sim.Stats().PCGIterations)
		}
		p.report(row, f, warmup+frames)
	}
	runtime.ReadMemStats(&m1)
	return GameResult{Resolution: resolution, Vertices: n, Faces: nt, Workers: workers, StepMS: median(step), ReadMS: median(read),
		AllocsPerFrame: float64(m1.Mallocs-m0.Mallocs) / float64(frames), PCGIterations: median(iters), Contacts: sim.Stats().Contacts}, nil
}

// RunGame prints the game-loop table: the 32x32 cape on 1 worker and on
// the given workers.
func RunGame(w io.Writer, workers, frames int, p Progress) error {
	fmt.Fprintf(w, "\ngame loop (package loom): a cape on a walking character, its pose set every frame; %d frames after 120 warm-up\n", frames)
	fmt.Fprintf(w, "%-10s %8s %8s %8s %7s %10s %13s %13s %9s\n", "scene", "vertices", "faces", "contacts", "workers", "ms/step", "read ms/frame", "allocs/frame", "pcg iters")
	for _, k := range []int{1, workers} {
		r, err := MeasureGame(32, k, 120, frames, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-10s %8d %8d %8d %7d %10.3f %13.4f %13.1f %9.0f\n", "cape-32", r.Vertices, r.Faces, r.Contacts, r.Workers, r.StepMS, r.ReadMS, r.AllocsPerFrame, r.PCGIterations)
		if workers == 1 {
			break
		}
	}
	return nil
}
