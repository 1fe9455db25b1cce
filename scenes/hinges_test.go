package scenes

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// hingesByMap is HingesWithFaces as it was written before HingeBuilder: a
// map from each directed edge to the last face holding it.
func hingesByMap(faces [][3]int32, nverts int) ([][4]int32, [][2]int32) {
	key := func(a, b int32) int64 { return int64(a)*int64(nverts) + int64(b) }
	opp := make(map[int64]int32, 3*len(faces))
	for fi, f := range faces {
		for e := range 3 {
			opp[key(f[e], f[(e+1)%3])] = int32(fi)
		}
	}
	var hinges [][4]int32
	var hf [][2]int32
	for fi, f := range faces {
		for e := range 3 {
			a, b := f[e], f[(e+1)%3]
			if a > b {
				continue
			}
			if g, ok := opp[key(b, a)]; ok {
				x3 := faces[g][0] + faces[g][1] + faces[g][2] - a - b
				hinges = append(hinges, [4]int32{a, b, f[(e+2)%3], x3})
				hf = append(hf, [2]int32{int32(fi), g})
			}
		}
	}
	return hinges, hf
}

// HingeBuilder gives the map-based hinges, in the same order, on sheets
// whose faces were shuffled, flipped, dropped or duplicated, and on random
// triangle soups (non-manifold, degenerate); reusing one builder (and the
// output slices) for meshes of changing sizes changes nothing.
func TestHingeBuilderMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var hb HingeBuilder
	var hinges [][4]int32
	var hf [][2]int32
	check := func(name string, faces [][3]int32, nverts int) {
		t.Helper()
		wantH, wantF := hingesByMap(faces, nverts)
		hinges, hf = hb.Append(hinges[:0], hf[:0], faces, nverts)
		if !slices.Equal(hinges, wantH) || !slices.Equal(hf, wantF) {
			t.Fatalf("%s: %d faces: hinges %v / %v, want %v / %v", name, len(faces), hinges, hf, wantH, wantF)
		}
		if h, f := HingesWithFaces(faces, nverts); !slices.Equal(h, wantH) || !slices.Equal(f, wantF) {
			t.Fatalf("%s: HingesWithFaces differs from the map", name)
		}
	}
	for _, tri := range []string{Alternating, Cross} {
		for _, res := range []int{2, 5, 17} {
			b := Body{Name: "b", Size: [2]float64{1, 0.7}, Resolution: res, Triangulation: tri}
			sh, err := BuildSheet(&b)
			if err != nil {
				t.Fatal(err)
			}
			n := len(sh.Rest)
			check("sheet", sh.Faces, n)
			for range 20 {
				faces := slices.Clone(sh.Faces)
				rng.Shuffle(len(faces), func(i, j int) { faces[i], faces[j] = faces[j], faces[i] })
				var edited [][3]int32
				for _, f := range faces {
					switch rng.IntN(8) {
					case 0: // dropped
					case 1: // flipped
						edited = append(edited, [3]int32{f[0], f[2], f[1]})
					case 2: // twice
						edited = append(edited, f, [3]int32{f[1], f[2], f[0]})
					default:
						edited = append(edited, f)
					}
				}
				check("edited sheet", edited, n)
			}
		}
	}
	for range 200 {
		n := 1 + rng.IntN(12)
		faces := make([][3]int32, rng.IntN(40))
		for i := range faces {
			for k := range 3 {
				faces[i][k] = int32(rng.IntN(n))
			}
		}
		check("soup", faces, n)
	}
	check("empty", nil, 0)
}
