package export

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// TestGLBPlaysBackFrames writes frames in which a cloth mesh changes
// topology after frame 2 (a split: 4 -> 5 vertices), a rod moves and an
// obstacle stays, decodes the file and checks, at every frame time, that
// exactly one node of each mesh is shown (scale 1) and that its base
// positions plus its weighted morph targets are the frame's positions.
func TestGLBPlaysBackFrames(t *testing.T) {
	quad := func(z float64) Mesh {
		return Mesh{Name: "cloth", Role: RoleCloth, Pos: [][3]float64{{0, 0, z}, {1, 0, z}, {1, 1, z + 0.1}, {0, 1, z}},
			UV: [][2]float64{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, Faces: [][3]int32{{0, 1, 2}, {0, 2, 3}}}
	}
	split := func(z float64) Mesh {
		m := quad(z)
		m.Pos = append(m.Pos, [3]float64{0.5, 0.5, z + 0.05})
		m.UV = append(m.UV, [2]float64{0.5, 0.5})
		m.Faces = [][3]int32{{0, 1, 4}, {1, 2, 4}, {2, 3, 4}, {3, 0, 4}}
		return m
	}
	rod := func(k float64) Mesh {
		return Mesh{Name: "yarn", Role: RoleRod, Pos: [][3]float64{{0, 0, 1}, {0.5, 0, 1 - 0.1*k}, {1, 0, 1}}, Lines: [][]int32{{0, 1, 2}}}
	}
	box := ObstacleMesh("box", boxShape(), [3]float64{}, 1)
	var frames []Frame
	for k := range 5 {
		c := quad(-0.1 * float64(k))
		if k >= 3 {
			c = split(-0.1 * float64(k))
		}
		frames = append(frames, Frame{Time: 0.04 * float64(k), Meshes: []Mesh{c, rod(float64(k)), box}})
	}
	var buf bytes.Buffer
	if err := EncodeGLB(&buf, frames); err != nil {
		t.Fatal(err)
	}
	doc := new(gltf.Document)
	if err := gltf.NewDecoder(bytes.NewReader(buf.Bytes())).Decode(doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Nodes) != 1+4 || len(doc.Animations) != 1 {
		t.Fatalf("%d nodes (want the root and cloth@0, cloth@3, yarn@0, box@0), %d animations", len(doc.Nodes), len(doc.Animations))
	}
	read := func(acc int) any {
		v, err := modeler.ReadAccessor(doc, doc.Accessors[acc], nil)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	// channel values per node and path
	scale := map[int][][3]float32{}
	weights := map[int][]float32{}
	var times []float32
	for _, ch := range doc.Animations[0].Channels {
		s := doc.Animations[0].Samplers[ch.Sampler]
		times = read(s.Input).([]float32)
		switch ch.Target.Path {
		case gltf.TRSScale:
			scale[*ch.Target.Node] = read(s.Output).([][3]float32)
		case gltf.TRSWeights:
			weights[*ch.Target.Node] = read(s.Output).([]float32)
		}
	}
	for k, f := range frames {
		if math.Abs(float64(times[k])-f.Time) > 1e-7 {
			t.Fatalf("time %d = %v, want %v", k, times[k], f.Time)
		}
		for _, want := range f.Meshes {
			shown := 0
			for ni, n := range doc.Nodes[1:] {
				ni++
				if !strings.HasPrefix(n.Name, want.Name+"@") || scale[ni][k] == [3]float32{} {
					continue
				}
				shown++
				prim := doc.Meshes[*n.Mesh].Primitives[0]
				pos := read(prim.Attributes[gltf.POSITION]).([][3]float32)
				nt := len(prim.Targets)
				for j, tg := range prim.Targets {
					w := weights[ni][k*nt+j]
					d := read(tg[gltf.POSITION]).([][3]float32)
					for i := range pos {
						for c := range 3 {
							pos[i][c] += w * d[i][c]
						}
					}
				}
				// every glTF vertex must sit on one of the frame's vertices
				for _, p := range pos {
					best := math.Inf(1)
					for _, q := range want.Pos {
						best = min(best, math.Abs(float64(p[0])-q[0])+math.Abs(float64(p[1])-q[1])+math.Abs(float64(p[2])-q[2]))
					}
					if best > 1e-6 {
						t.Fatalf("frame %d, %s: glTF vertex %v is on none of the frame's vertices", k, want.Name, p)
					}
				}
				if len(want.Faces) > 0 && len(pos) != len(want.Pos) {
					t.Fatalf("frame %d, %s: %d glTF vertices for %d", k, want.Name, len(pos), len(want.Pos))
				}
			}
			if shown != 1 {
				t.Fatalf("frame %d: %d nodes of %s shown, want 1", k, shown, want.Name)
			}
		}
	}
}
