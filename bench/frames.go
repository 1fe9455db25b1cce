package bench

import (
	"fmt"
	"io"
	"time"
)

// FrameCase is a whole-run benchmark of an adaptive scene: it runs Frames
// output frames from the start (remeshing changes the work from frame to
// frame, so a median step says little) and reports the mean face count and
// the wall time per frame, as Narain et al. 2012 Table 1 does.
type FrameCase struct {
	Case
	Frames int
}

// FrameCases are the remeshing rows of `loom bench`: the sphere scene with
// anisotropic and isotropic remeshing and on a fixed mesh whose edges are as
// short as the remeshed scene's smallest (size_min 10 mm on a 1 m square: 101
// vertices a side), sphere-arcsim (sphere refined to ARCSim's face count),
// and the flag. ARCSim 0.3.1 on a 2-core machine like the one of the first
// note runs sphere at 1.03 s per frame over its first 99 frames (2696-2747
// faces on average) and flag at 7.3 s per frame.
var FrameCases = []FrameCase{
	{Case{Name: "sphere-aniso", Scene: "sphere"}, 99},
	{Case{Name: "sphere-iso", Scene: "sphere", Sets: [][2]string{{"bodies.0.remesh.aspect_min", "1"}}}, 99},
	{Case{Name: "sphere-fixed", Scene: "sphere", Sets: [][2]string{{"bodies.0.remesh", "null"}, {"bodies.0.resolution", "101"},
		{"bodies.0.triangulation", "alternating"}}}, 99},
	{Case{Name: "sphere-arcsim", Scene: "sphere-arcsim"}, 99},
	{Case{Name: "flag", Scene: "flag"}, 37},
}

// FrameResult is one row of the frame table.
type FrameResult struct {
	Case      string
	Frames    int
	MeanFaces float64
	MinFaces  int
	MaxFaces  int
	SecPerFr  float64
	Share     map[string]float64
	Order     []string
}

// MeasureFrames runs c from the start for c.Frames frames, reporting each
// step to p.
func MeasureFrames(c FrameCase, workers int, p Progress) (FrameResult, error) {
	sim, err := c.Load(workers)
	if err != nil {
		return FrameResult{}, err
	}
	defer sim.Close()
	spf := sim.Model.StepsPerFrame
	p.report(c.Name, 0, c.Frames*spf)
	r := FrameResult{Case: c.Name, Frames: c.Frames, MinFaces: 1 << 62}
	sum, n := 0.0, 0
	sim.Scheduler.ResetTimings()
	t0 := time.Now()
	for s := 0; s < c.Frames*spf; s++ {
		if err := sim.Step(); err != nil {
			return FrameResult{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		f := len(sim.State.FaceRest)
		sum += float64(f)
		n++
		r.MinFaces, r.MaxFaces = min(r.MinFaces, f), max(r.MaxFaces, f)
		p.report(c.Name, s+1, c.Frames*spf)
	}
	r.SecPerFr = time.Since(t0).Seconds() / float64(c.Frames)
	r.MeanFaces = sum / float64(n)
	r.Order, r.Share, _ = systemShares(sim.Scheduler)
	return r, nil
}

// RunFrames measures every frame case and prints the table.
func RunFrames(w io.Writer, cases []FrameCase, workers int, p Progress) error {
	fmt.Fprintf(w, "\n%-14s %7s %10s %14s %10s  %s\n", "adaptive", "frames", "mean faces", "faces min-max", "s/frame", "share per system")
	for _, c := range cases {
		r, err := MeasureFrames(c, workers, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%-14s %7d %10.0f %14s %10.3f  %s\n", r.Case, r.Frames, r.MeanFaces, fmt.Sprintf("%d-%d", r.MinFaces, r.MaxFaces), r.SecPerFr, shares(r.Order, r.Share))
	}
	return nil
}
