package bench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
)

// EOLCase is a whole-run benchmark of an Eulerian-on-Lagrangian cloth scene
// (Weidner 2018 Table 1): it runs Steps steps from the start and reports the
// largest face count, the largest share of EOL vertices, the shares of
// collision detection, remeshing, matrix fill and velocity integration (the
// QP), and the mean time per step.
type EOLCase struct {
	Case
	Steps int
}

// EOLCases are the EOL rows of `loom bench`: every EOL scene, EDGE also at
// the tighter QP tolerance 1e-6 (the scenes use 1e-4), and EDGE and LO-RES
// also as the Lagrangian variants the paper compares against.
var EOLCases = []EOLCase{
	{Case{Name: "edge-eol", Scene: "edge"}, 300},
	{Case{Name: "edge-eol-1e-6", Scene: "edge", Sets: [][2]string{{"solver.tolerance", "1e-6"}}}, 300},
	{Case{Name: "edge-reg", Scene: "edge", Sets: [][2]string{{"solver.mode", "lag-regular"}}}, 300},
	{Case{Name: "edge-irreg", Scene: "edge", Sets: [][2]string{{"solver.mode", "lag-irregular"}}}, 300},
	{Case{Name: "edge-nonconf", Scene: "edge", Sets: [][2]string{{"solver.mode", "lag-nonconformal"}}}, 300},
	{Case{Name: "edge-conf", Scene: "edge", Sets: [][2]string{{"solver.mode", "lag-conformal"}}}, 300},
	{Case{Name: "wire-eol", Scene: "wire"}, 300},
	{Case{Name: "nails-eol", Scene: "nails"}, 300},
	{Case{Name: "jaws-eol", Scene: "jaws"}, 300},
	{Case{Name: "push-eol", Scene: "push"}, 300},
	{Case{Name: "throw-eol", Scene: "throw"}, 300},
	{Case{Name: "lo-res-reg", Scene: "lo-res", Sets: [][2]string{{"solver.mode", "lag-regular"}}}, 300},
	{Case{Name: "lo-res-eol", Scene: "lo-res"}, 300},
	{Case{Name: "friction-eol", Scene: "friction"}, 300},
}

// EOLResult is one row of the EOL table; shares are fractions of the step
// time.
type EOLResult struct {
	Case                                string
	Steps, MaxFaces                     int
	MaxEOLPct                           float64
	Collision, Remesh, Fill, QP, MsStep float64
}

// MeasureEOL runs c from the start for c.Steps steps, reporting each to p.
func MeasureEOL(c EOLCase, workers int, p Progress) (EOLResult, error) {
	p.report(c.Name, 0, c.Steps)
	sim, err := c.Load(workers)
	if err != nil {
		return EOLResult{}, err
	}
	defer sim.Close()
	r := EOLResult{Case: c.Name, Steps: c.Steps}
	eolF := generic.NewFilter1[components.EOL]()
	sim.Scheduler.ResetTimings()
	t0 := time.Now()
	for s := 0; s < c.Steps; s++ {
		if err := sim.Step(); err != nil {
			return EOLResult{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		r.MaxFaces = max(r.MaxFaces, len(sim.State.FaceRest))
		if sim.EOL != nil {
			q := eolF.Query(sim.World.ECS)
			r.MaxEOLPct = max(r.MaxEOLPct, 100*float64(q.Count())/float64(sim.State.NumVerts()))
			q.Close()
		}
		p.report(c.Name, s+1, c.Steps)
	}
	wall := time.Since(t0)
	r.MsStep = float64(wall.Milliseconds()) / float64(c.Steps)
	ms := map[string]time.Duration{}
	var total time.Duration
	for _, t := range sim.Scheduler.Timings() {
		ms[t.System] = t.Elapsed
		total += t.Elapsed
	}
	var detect, fill, qp time.Duration
	if sim.Conformal != nil {
		detect = sim.Conformal.DetectTime
	}
	if sim.EOL != nil {
		fill, qp = sim.EOL.FillTime, sim.EOL.QPTime
	} else {
		qp = ms["implicit-solve"] + ms["contact-response"]
	}
	frac := func(d time.Duration) float64 { return float64(d) / float64(total) }
	r.Collision = frac(ms["collision"] + detect)
	r.Remesh = frac(ms["conformal-remesh"] - detect + ms["remesh"])
	r.Fill = frac(ms["force-fill"] + fill)
	r.QP = frac(qp)
	return r, nil
}

// RunEOL measures every EOL case repeat times and prints the table (the
// columns of Weidner 2018 Table 1), each row from the run of median ms/step
// (the lower median for an even repeat), with the fastest and slowest runs'
// ms/step when repeat > 1: a virtual machine's speed drifts by tens of
// percent between runs, so one run's figure says little.
func RunEOL(w io.Writer, cases []EOLCase, workers, repeat int, p Progress) error {
	if repeat < 1 {
		return fmt.Errorf("bench: repeat = %d, want at least 1", repeat)
	}
	fmt.Fprintf(w, "\n%-13s %6s %6s %6s %6s %6s %6s %6s %9s", "EOL", "steps", "#F", "%E", "%CD", "%RM", "%MF", "%VI", "ms/step")
	if repeat > 1 {
		fmt.Fprintf(w, "  %s", fmt.Sprintf("min-max of %d", repeat))
	}
	fmt.Fprintln(w)
	for _, c := range cases {
		runs := make([]EOLResult, repeat)
		for k := range runs {
			var err error
			if runs[k], err = MeasureEOL(c, workers, p); err != nil {
				return err
			}
		}
		slices.SortStableFunc(runs, func(a, b EOLResult) int { return cmp.Compare(a.MsStep, b.MsStep) })
		r := runs[(repeat-1)/2]
		fmt.Fprintf(w, "%-13s %6d %6d %6.1f %6.1f %6.1f %6.1f %6.1f %9.1f", r.Case, r.Steps, r.MaxFaces, r.MaxEOLPct,
			100*r.Collision, 100*r.Remesh, 100*r.Fill, 100*r.QP, r.MsStep)
		if repeat > 1 {
			fmt.Fprintf(w, "  %.1f-%.1f", runs[0].MsStep, runs[repeat-1].MsStep)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// SelectEOL returns the EOL cases named in names (all of them for none), in
// the order of cases, or an error naming one that is not a case.
func SelectEOL(cases []EOLCase, names []string) ([]EOLCase, error) {
	if len(names) == 0 {
		return cases, nil
	}
	var out []EOLCase
	for _, n := range names {
		if !slices.ContainsFunc(cases, func(c EOLCase) bool { return c.Name == n }) {
			return nil, fmt.Errorf("bench: no EOL case %q", n)
		}
	}
	for _, c := range cases {
		if slices.Contains(names, c.Name) {
			out = append(out, c)
		}
	}
	return out, nil
}
