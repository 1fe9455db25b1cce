package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/loomsim/loom/ecs"
)

// FabricCases are the yarn-level fabric scenes (Sanchez-Banderas 2020 Table
// 1), at their built-in (preview) sizes, and tablecloth at 18 x 18 yarns a
// layer (6,204 nodes, the 10 x 10 cm preview), whose Newton systems
// (about 17,000 unknowns) rodstep.LinearAuto solves by conjugate gradients
// on a lagged factorization.
var FabricCases = []Case{
	{Name: "tablecloth", Scene: "tablecloth"},
	{Name: "tablecloth-18", Scene: "tablecloth", Sets: yarnsPerLayer(3, 18)},
	{Name: "knit-sphere", Scene: "knit-sphere"},
	{Name: "tag", Scene: "tag"},
	{Name: "incline", Scene: "incline"},
	{Name: "pocket", Scene: "pocket"},
}

// PaperFabricCases are the fabric scenes at the sizes of Sanchez-Banderas
// 2020 Table 1 (Knit 1 75k nodes, Tablecloth 230k, Pocket 645k), run only
// when named (--fabric-cases): each loads for a minute or more and holds
// gigabytes. knit-75k is knit-sphere's patch scaled to the paper's 0.8 mm
// stitches, a slip-stitch pattern of 60 x 60 stitches (73,098 nodes),
// relaxed (unrelaxed at this scale its first step stalls); tablecloth-230k
// has 108 x 108 yarns a layer; pocket-645k 240 x 240 and 222 x 222 yarns
// (625,596 nodes).
var PaperFabricCases = []Case{
	{Name: "knit-75k", Scene: "knit-sphere", Sets: [][2]string{
		{"rods.fabrics.0.stitch_width", "0.0008"}, {"rods.fabrics.0.stitch_height", "0.00064"},
		{"rods.fabrics.0.yarn_radius", "0.00008"}, {"rods.fabrics.0.node_spacing", "0.0002"},
		{"rods.contact_distance", "0.00004"}, {"rods.fabrics.0.relax", "true"},
		{"rods.fabrics.0.pattern", `["kkkk","kksk"]`}, {"rods.fabrics.0.columns", "60"}, {"rods.fabrics.0.rows", "60"}}},
	{Name: "tablecloth-230k", Scene: "tablecloth", Sets: yarnsPerLayer(3, 108)},
	{Name: "pocket-645k", Scene: "pocket", Sets: [][2]string{
		{"rods.fabrics.0.warps", "240"}, {"rods.fabrics.0.wefts", "240"},
		{"rods.fabrics.1.warps", "222"}, {"rods.fabrics.1.wefts", "222"}}},
}

// FabricResult is one row of the fabric table.
type FabricResult struct {
	Case                  string
	Workers               int
	Nodes, EoLMax, EILMax int
	Contacts              int     // rod-rod contacts at the end
	Newton                float64 // Newton iterations per step (mean)
	CG                    float64 // conjugate gradient iterations per Newton iteration (mean; 0: direct solves)
	Factors               float64 // factorizations per Newton iteration (mean; the regularization's failed tries included)
	SecPerStep            float64 // median wall seconds per step
	MeanSecPerStep        float64 // mean wall seconds per step (the landing's long steps weigh in)
	BytesPerNode          float64 // live heap after loading and the timed steps, per node
}

// MeasureFabric loads case c, runs steps timed steps (counting the live heap
// it holds after them) and returns its row; EoL and EIL counts are the
// largest seen after any step.
func MeasureFabric(c Case, workers, steps int) (FabricResult, error) {
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	sim, err := c.Load(workers)
	if err != nil {
		return FabricResult{}, err
	}
	defer sim.Close()
	r := FabricResult{Case: c.Name, Workers: workers}
	times := make([]float64, steps)
	newton, cg, factors := 0, 0, 0
	for i := range times {
		t0 := time.Now()
		if err := sim.Step(); err != nil {
			return FabricResult{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		times[i] = time.Since(t0).Seconds()
		st := sim.Measure()
		newton += st.NewtonIter
		cg += st.RodCGIter
		factors += st.RodFactors
		r.Nodes, r.Contacts = st.Nodes, st.Contacts
		r.EoLMax, r.EILMax = max(r.EoLMax, st.EoLNodes), max(r.EILMax, st.EILNodes)
	}
	r.Newton = float64(newton) / float64(steps)
	if newton > 0 {
		r.CG = float64(cg) / float64(newton)
		r.Factors = float64(factors) / float64(newton)
	}
	r.SecPerStep = median(times)
	for _, t := range times {
		r.MeanSecPerStep += t / float64(steps)
	}
	// The live heap with the scene loaded and stepped (its Newton
	// workspaces and factor allocated), garbage collected: HeapInuse
	// counted spans, which a collection of an earlier case's garbage could
	// shrink below the start (negative figures in single runs).
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if r.Nodes > 0 {
		r.BytesPerNode = float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(r.Nodes)
	}
	return r, nil
}

// RunFabric measures every fabric case with each worker count and prints the
// table: nodes, the most EoL and EIL nodes, contacts, Newton iterations per
// step, conjugate gradient iterations and factorizations per Newton
// iteration, seconds per step (median and mean: a scene's median step may
// be in its free fall, two Newton iterations, while the contacts of a
// landing take tens), node-steps per second (over the mean) and heap bytes
// per node.
func RunFabric(w io.Writer, cases []Case, workers []int, steps int) error {
	fmt.Fprintf(w, "\nyarn-level fabrics (Sanchez-Banderas 2020 Table 1 scenes), %d steps each; cpu: %s; %s\n", steps, ecs.CPU(), KernelPath())
	fmt.Fprintf(w, "%-14s %7s %7s %7s %7s %8s %8s %9s %10s %10s %10s %13s %10s\n", "case", "workers", "nodes", "EoL max", "EIL max", "contacts", "newton", "cg/newton", "fac/newton", "s/step med", "s/step mean", "node-steps/s", "bytes/node")
	for _, c := range cases {
		for _, k := range workers {
			r, err := MeasureFabric(c, k, steps)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%-14s %7d %7d %7d %7d %8d %8.1f %9.0f %10.2f %10.4f %11.4f %13.0f %10.0f\n", r.Case, r.Workers, r.Nodes, r.EoLMax, r.EILMax,
				r.Contacts, r.Newton, r.CG, r.Factors, r.SecPerStep, r.MeanSecPerStep, float64(r.Nodes)/r.MeanSecPerStep, r.BytesPerNode)
		}
	}
	return nil
}

// SelectFabric returns the fabric cases named, from FabricCases and
// PaperFabricCases (nil: all of FabricCases).
func SelectFabric(names []string) ([]Case, error) {
	if names == nil {
		return slices.Clone(FabricCases), nil
	}
	return Select(slices.Concat(FabricCases, PaperFabricCases), names)
}

// yarnsPerLayer sets warps and wefts of the first fabrics fabrics to n.
func yarnsPerLayer(fabrics, n int) [][2]string {
	var sets [][2]string
	for k := range fabrics {
		p := fmt.Sprintf("rods.fabrics.%d.", k)
		sets = append(sets, [2]string{p + "warps", fmt.Sprint(n)}, [2]string{p + "wefts", fmt.Sprint(n)})
	}
	return sets
}
