package systems

import (
	"bufio"
	"encoding/binary"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mlange-42/arche/ecs"
	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/scenes"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt from this run")

// goldenSteps is how far each built-in scene runs for its reference hash:
// long enough for contacts, remeshing, EOL vertices and rod sliding to start.
var goldenSteps = map[string]int{
	"box-edge": 40, "crumple": 20, "drape": 30, "dress": 40, "drape-corner": 15, "edge": 60, "edge-turned": 60, "edge-wedge": 60, "flag": 30, "friction": 40, "jaws": 40, "layers": 20, "layers-developable": 40, "lo-res": 100, "nails": 40, "paper-drape": 60, "paper-fold": 40, "pinned-square": 30, "push": 100, "rod-crossing": 100, "rod-hang": 100, "rod-incline": 100, "rod-table": 100, "rod-box-edge": 100, "rod-drop": 100, "skirt": 40, "sphere": 120, "sphere-arcsim": 60, "sphere-drop": 30, "strain-limit": 2, "throw": 40, "twist": 50, "twist-pins": 40, "wire": 40, "tablecloth": 3, "pocket": 3, "tag": 5, "incline": 10, "knit-sphere": 3, "edge-layers": 40,
}

// goldenSets shrink the costliest scenes for their reference hash (the
// suite's 5-minute budget): the same code paths at a smaller size.
var goldenSets = map[string][][2]string{
	"strain-limit":       {{"bodies.0.resolution", "41"}},
	"paper-drape":        {{"bodies.0.resolution", "11"}},
	"layers-developable": {{"bodies.0.resolution", "11"}, {"bodies.1.resolution", "11"}, {"bodies.2.resolution", "11"}},
}

// stateHash is an FNV-1a hash of the bits of every entity's state in storage
// order: positions, velocities, material coordinates, EOL states, rod nodes,
// and the faces' corners and material coordinates.
func stateHash(w *ecs.World) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	f := func(xs ...float64) {
		for _, x := range xs {
			binary.LittleEndian.PutUint64(buf[:], math.Float64bits(x))
			h.Write(buf[:])
		}
	}
	vel := generic.NewMap[components.Velocity](w)
	mat := generic.NewMap[components.Material](w)
	eol := generic.NewMap[components.EOL](w)
	node := generic.NewMap[components.RodNode](w)
	q := generic.NewFilter1[components.Position]().Query(w)
	for q.Next() {
		e := q.Entity()
		f(q.Get()[:]...)
		if vel.Has(e) {
			f(vel.Get(e)[:]...)
		}
		if mat.Has(e) {
			f(mat.Get(e)[:]...)
		}
		if eol.Has(e) {
			s := eol.Get(e)
			f(float64(s.Feature), float64(s.Kind), s.T, s.XDot[0], s.XDot[1])
		}
		if node.Has(e) {
			n := node.Get(e)
			f(n.U, n.UDot, float64(n.Kind), n.AnchorU, float64(n.AnchorSlip))
		}
	}
	fq := generic.NewFilter1[components.Face]().Query(w)
	for fq.Next() {
		fc := fq.Get()
		for k := range 3 {
			f(float64(fc.V[k].ID()), fc.U[k][0], fc.U[k][1])
		}
	}
	return h.Sum64()
}

// TestGoldenTrajectories runs every built-in scene for a few steps and
// compares a hash of the whole state with testdata/golden.txt, so that a
// change meant to leave results alone fails loudly when it does not, and one
// meant to change them updates the file (go test -run Golden -update-golden)
// in the same commit.
func TestGoldenTrajectories(t *testing.T) {
	t.Parallel()
	want := map[string]uint64{}
	if !*updateGolden {
		fh, err := os.Open("testdata/golden.txt")
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) != 3 || strings.HasPrefix(fs[0], "#") {
				continue
			}
			v, err := strconv.ParseUint(fs[2], 16, 64)
			if err != nil {
				t.Fatalf("golden.txt: %q: %v", sc.Text(), err)
			}
			want[fs[0]] = v
		}
		fh.Close()
	}
	// The scenes run in parallel (subtests of "scenes", which returns when
	// all are done); each writes its own line.
	infos := scenes.Builtins()
	lines := make([]string, len(infos))
	t.Run("scenes", func(t *testing.T) {
		for i, info := range infos {
			t.Run(info.Name, func(t *testing.T) {
				t.Parallel()
				n, ok := goldenSteps[info.Name]
				if !ok {
					t.Fatalf("built-in scene %q has no golden step count", info.Name)
				}
				sim := build(t, load(t, info.Name, goldenSets[info.Name]...), 2)
				steps(t, sim, n, nil)
				got := stateHash(sim.World.ECS)
				checkImage(t, sim, load(t, info.Name, goldenSets[info.Name]...), got)
				st := sim.Measure()
				t.Logf("%d steps: %d vertices, %d faces, %d contacts, EOL vertices %v, rod nodes %d", n, st.Vertices, st.Faces, st.Contacts, ptrOr(st.EOLVertices), st.Nodes)
				lines[i] = fmt.Sprintf("%s %d %016x", info.Name, n, got)
				if *updateGolden {
					return
				}
				if w, ok := want[info.Name]; !ok {
					t.Errorf("no reference hash in testdata/golden.txt")
				} else if w != got {
					t.Errorf("state hash after %d steps is %016x, reference %016x", n, got, w)
				}
			})
		}
	})
	if *updateGolden {
		out := "# scene steps state-hash (2 workers); regenerate with go test -run Golden -update-golden\n" + strings.Join(lines, "\n") + "\n"
		if err := os.WriteFile("testdata/golden.txt", []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func ptrOr(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
