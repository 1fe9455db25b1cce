package mesh

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// grid returns the faces of an nx-by-ny vertex grid, two counter-clockwise
// faces per cell, diagonals alternating.
func grid(nx, ny int) [][3]int32 {
	var faces [][3]int32
	for j := 0; j+1 < ny; j++ {
		for i := 0; i+1 < nx; i++ {
			v00, v10 := int32(j*nx+i), int32(j*nx+i+1)
			v01, v11 := v00+int32(nx), v10+int32(nx)
			if (i+j)%2 == 0 {
				faces = append(faces, [3]int32{v00, v10, v11}, [3]int32{v00, v11, v01})
			} else {
				faces = append(faces, [3]int32{v00, v10, v01}, [3]int32{v10, v11, v01})
			}
		}
	}
	return faces
}

// edited returns faces shuffled, with some dropped, flipped or repeated
// (rotated): meshes with border edges, non-manifold and inconsistently
// oriented edges.
func edited(rng *rand.Rand, faces [][3]int32) [][3]int32 {
	faces = slices.Clone(faces)
	rng.Shuffle(len(faces), func(i, j int) { faces[i], faces[j] = faces[j], faces[i] })
	var out [][3]int32
	for _, f := range faces {
		switch rng.IntN(8) {
		case 0: // dropped
		case 1: // flipped
			out = append(out, [3]int32{f[0], f[2], f[1]})
		case 2: // twice
			out = append(out, f, [3]int32{f[1], f[2], f[0]})
		default:
			out = append(out, f)
		}
	}
	return out
}

// soup returns up to 40 faces over n vertices with random corners
// (degenerate faces included).
func soup(rng *rand.Rand, n int) [][3]int32 {
	faces := make([][3]int32, rng.IntN(40))
	for i := range faces {
		for k := range 3 {
			faces[i][k] = int32(rng.IntN(n))
		}
	}
	return faces
}

// meshes calls check on grids, edited grids and soups, each with its
// vertex count.
func meshes(t *testing.T, check func(name string, faces [][3]int32, n int)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{2, 2}, {5, 3}, {17, 9}} {
		g := grid(sz[0], sz[1])
		n := sz[0] * sz[1]
		check("grid", g, n)
		for range 20 {
			check("edited grid", edited(rng, g), n)
		}
	}
	for range 200 {
		n := 1 + rng.IntN(12)
		check("soup", soup(rng, n), n)
	}
	check("empty", nil, 0)
}

// hingesByMap is HingesWithFaces by a map from each directed edge to the
// last face holding it.
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

// HingeBuilder gives the map-based hinges, in the same order; reusing one
// builder (and the output slices) for meshes of changing sizes changes
// nothing.
func TestHingeBuilderMatchesMap(t *testing.T) {
	var hb HingeBuilder
	var hinges [][4]int32
	var hf [][2]int32
	meshes(t, func(name string, faces [][3]int32, n int) {
		t.Helper()
		wantH, wantF := hingesByMap(faces, n)
		hinges, hf = hb.Append(hinges[:0], hf[:0], faces, n)
		if !slices.Equal(hinges, wantH) || !slices.Equal(hf, wantF) {
			t.Fatalf("%s: %d faces: hinges %v / %v, want %v / %v", name, len(faces), hinges, hf, wantH, wantF)
		}
		if h, f := HingesWithFaces(faces, n); !slices.Equal(h, wantH) || !slices.Equal(f, wantF) {
			t.Fatalf("%s: HingesWithFaces differs from the map", name)
		}
		if h := Hinges(faces, n); !slices.Equal(h, wantH) {
			t.Fatalf("%s: Hinges differs from the map", name)
		}
	})
}

// Incidence, built into reused storage, with rows by vertex and by a
// random grouping of vertices into nodes, matches a scan of every face for
// every row; FaceWith and HasEdge match a scan of every face.
func TestIncidenceMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var in Incidence
	meshes(t, func(name string, faces [][3]int32, n int) {
		t.Helper()
		for _, byNode := range []bool{false, true} {
			var node []int32
			rows := n
			if byNode {
				rows = 1 + rng.IntN(n+1)
				node = make([]int32, n)
				for v := range node {
					node[v] = int32(rng.IntN(rows))
				}
			}
			in.Build(faces, node, rows)
			if len(in.Start) != rows+1 || in.Start[0] != 0 || int(in.Start[rows]) != 3*len(faces) {
				t.Fatalf("%s: Start %v for %d rows, %d faces", name, in.Start, rows, len(faces))
			}
			for r := range rows {
				var wantF, wantN []int32
				for f, tri := range faces {
					for k, v := range tri {
						if (node == nil && v == int32(r)) || (node != nil && node[v] == int32(r)) {
							wantF = append(wantF, int32(f))
							wantN = append(wantN, tri[(k+1)%3])
						}
					}
				}
				s0, s1 := in.Start[r], in.Start[r+1]
				if !slices.Equal(in.Of(r), wantF) || !slices.Equal(in.Next[s0:s1], wantN) {
					t.Fatalf("%s (by node %v): row %d: faces %v next %v, want %v %v", name, byNode, r, in.Of(r), in.Next[s0:s1], wantF, wantN)
				}
			}
		}
		in.Build(faces, nil, n)
		for a := range int32(n) {
			for b := range int32(n) {
				want := int32(-1)
				for f, tri := range faces {
					if HasDirected(tri, a, b) {
						want = int32(f)
						break
					}
				}
				if got := in.FaceWith(a, b); got != want {
					t.Fatalf("%s: FaceWith(%d, %d) = %d, want %d", name, a, b, got, want)
				}
				if in.HasEdge(a, b) != (want >= 0) {
					t.Fatalf("%s: HasEdge(%d, %d) = %v", name, a, b, !(want >= 0))
				}
			}
		}
	})
}

func TestCornerThird(t *testing.T) {
	tri := [3]int32{4, 7, 2}
	for k, v := range tri {
		if Corner(tri, v) != k {
			t.Fatalf("Corner(%v, %d) = %d, want %d", tri, v, Corner(tri, v), k)
		}
	}
	if Corner(tri, 5) != -1 || Third(tri, 7, 2) != 4 || Third(tri, 4, 2) != 7 || Third(tri, 2, 4) != 7 {
		t.Fatal("Corner or Third wrong")
	}
	if !HasDirected(tri, 2, 4) || HasDirected(tri, 4, 2) || !HasDirected(tri, 4, 7) {
		t.Fatal("HasDirected wrong")
	}
}
