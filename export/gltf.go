package export

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// EncodeGLB writes the frames as one binary glTF 2.0 file (.glb) with one
// animation that plays them at their times.
//
// Remeshing changes a mesh's vertices and faces, which glTF cannot animate,
// so each mesh (by name: a cloth body, a rod strand, an obstacle) is cut into
// spans of consecutive frames with the same topology (vertex count, faces
// and polylines). Each span is one glTF node with one mesh whose base shape
// is the span's first frame and which has a morph target per later frame of
// the span (POSITION and, for triangles, NORMAL displacements); a STEP
// "weights" channel sets the frame's target to 1 and the others to 0, and a
// STEP "scale" channel shows the node (scale 1) during its span and hides it
// (scale 0) outside. Triangles carry vertex normals (VertexNormals) and the
// material coordinates as TEXCOORD_0 (a seam vertex is split into one glTF
// vertex per texture coordinate); polylines (rods) are LINES primitives.
// Cloth, rods and obstacles each have a material (cloth double-sided). The
// span nodes are children of one root node that turns loom's z-up frame into
// glTF's y-up one.
func EncodeGLB(w io.Writer, frames []Frame) error {
	if len(frames) == 0 {
		return fmt.Errorf("glTF: no frames")
	}
	times := make([]float32, len(frames))
	for k, f := range frames {
		times[k] = float32(f.Time)
		if k > 0 && !(times[k] > times[k-1]) {
			return fmt.Errorf("glTF: frame %d's time %g is not after frame %d's %g", k, f.Time, k-1, frames[k-1].Time)
		}
	}
	doc := gltf.NewDocument()
	doc.Asset.Generator = "loom"
	doc.Materials = []*gltf.Material{
		material(RoleCloth, [4]float64{0.85, 0.35, 0.2, 1}, true),
		material(RoleObstacle, [4]float64{0.6, 0.62, 0.65, 1}, false),
		material(RoleRod, [4]float64{0.15, 0.25, 0.7, 1}, false),
	}
	// loom is z-up, glTF y-up: the root node turns -90 degrees about x.
	h := math.Sqrt(0.5)
	doc.Nodes = []*gltf.Node{{Name: "loom (z-up)", Rotation: [4]float64{-h, 0, 0, h}, Scale: [3]float64{1, 1, 1},
		Matrix: [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}}}
	doc.Scenes[0].Nodes = []int{0}
	var anim gltf.Animation
	anim.Name = "loom"
	var input *int // the frame times, shared by every sampler once written
	for _, sp := range spans(frames) {
		node, err := writeSpan(doc, frames, sp)
		if err != nil {
			return err
		}
		if len(frames) == 1 {
			continue
		}
		if input == nil {
			input = gltf.Index(modeler.WriteAccessor(doc, gltf.TargetNone, times))
			doc.Accessors[*input].Min = []float64{float64(times[0])}
			doc.Accessors[*input].Max = []float64{float64(times[len(times)-1])}
		}
		scales := make([][3]float32, len(frames))
		for k := sp.first; k < sp.first+sp.n; k++ {
			scales[k] = [3]float32{1, 1, 1}
		}
		addChannel(&anim, doc, *input, node, gltf.TRSScale, scales)
		if sp.n > 1 {
			weights := make([]float32, len(frames)*(sp.n-1))
			for k := sp.first + 1; k < sp.first+sp.n; k++ {
				weights[k*(sp.n-1)+k-sp.first-1] = 1
			}
			addChannel(&anim, doc, *input, node, gltf.TRSWeights, weights)
		}
	}
	if len(anim.Channels) > 0 {
		doc.Animations = []*gltf.Animation{&anim}
	}
	enc := gltf.NewEncoder(w)
	enc.AsBinary = true
	return enc.Encode(doc)
}

func material(name string, color [4]float64, doubleSided bool) *gltf.Material {
	metal, rough := 0.0, 0.8
	return &gltf.Material{Name: name, DoubleSided: doubleSided,
		PBRMetallicRoughness: &gltf.PBRMetallicRoughness{BaseColorFactor: &color, MetallicFactor: &metal, RoughnessFactor: &rough}}
}

// addChannel adds a STEP sampler with output data and a channel that drives
// node's path with it.
func addChannel(anim *gltf.Animation, doc *gltf.Document, input, node int, path gltf.TRSProperty, data any) {
	out := modeler.WriteAccessor(doc, gltf.TargetNone, data)
	anim.Samplers = append(anim.Samplers, &gltf.AnimationSampler{Input: input, Output: out, Interpolation: gltf.InterpolationStep})
	anim.Channels = append(anim.Channels, &gltf.AnimationChannel{Sampler: len(anim.Samplers) - 1,
		Target: gltf.AnimationChannelTarget{Node: gltf.Index(node), Path: path}})
}

// span is a run of n consecutive frames from first in which the mesh at
// index mesh of each frame (the same name) has one topology.
type span struct {
	name     string
	first, n int
	mesh     []int // index of the mesh in each frame of the span
}

// spans cuts every mesh's frames into spans of one topology, in order of
// first appearance.
func spans(frames []Frame) []span {
	var out []span
	open := map[string]int{} // name -> index in out of its span that reaches the previous frame
	for k, f := range frames {
		for i := range f.Meshes {
			m := &f.Meshes[i]
			if j, ok := open[m.Name]; ok {
				sp := &out[j]
				prev := &frames[k-1].Meshes[sp.mesh[len(sp.mesh)-1]]
				if sp.first+sp.n == k && sameTopology(prev, m) {
					sp.n++
					sp.mesh = append(sp.mesh, i)
					continue
				}
			}
			open[m.Name] = len(out)
			out = append(out, span{name: m.Name, first: k, n: 1, mesh: []int{i}})
		}
	}
	return out
}

func sameTopology(a, b *Mesh) bool {
	return len(a.Pos) == len(b.Pos) && len(a.UV) == len(b.UV) && slices.Equal(a.Faces, b.Faces) && slices.Equal(a.UVFaces, b.UVFaces) &&
		slices.EqualFunc(a.Lines, b.Lines, slices.Equal[[]int32])
}

// writeSpan adds the node and mesh of span sp and returns the node's index.
func writeSpan(doc *gltf.Document, frames []Frame, sp span) (int, error) {
	base := &frames[sp.first].Meshes[sp.mesh[0]]
	if err := base.check(); err != nil {
		return 0, err
	}
	mat := map[string]int{RoleCloth: 0, RoleObstacle: 1, RoleRod: 2}[base.Role]
	gm := &gltf.Mesh{Name: fmt.Sprintf("%s@%d", sp.name, sp.first)}
	if len(base.Faces) > 0 {
		// glTF vertices: one per distinct (vertex, texture coordinate) corner.
		var vOf []int32
		var uv [][2]float32
		idx := make([]uint32, 0, 3*len(base.Faces))
		seen := map[[2]int32]uint32{}
		for fi, f := range base.Faces {
			for k, v := range f {
				t := int32(-1)
				switch {
				case base.UVFaces != nil:
					t = base.UVFaces[fi][k]
				case len(base.UV) > 0:
					t = v
				}
				key := [2]int32{v, t}
				g, ok := seen[key]
				if !ok {
					g = uint32(len(vOf))
					seen[key] = g
					vOf = append(vOf, v)
					if t >= 0 {
						uv = append(uv, [2]float32{float32(base.UV[t][0]), float32(base.UV[t][1])})
					}
				}
				idx = append(idx, g)
			}
		}
		pos := func(m *Mesh) ([][3]float32, [][3]float32) {
			n := VertexNormals(m.Pos, m.Faces)
			p, nn := make([][3]float32, len(vOf)), make([][3]float32, len(vOf))
			for g, v := range vOf {
				p[g] = f32(m.Pos[v])
				nn[g] = f32(n[v])
			}
			return p, nn
		}
		p0, n0 := pos(base)
		prim := &gltf.Primitive{Indices: gltf.Index(modeler.WriteIndices(doc, idx)), Material: gltf.Index(mat), Mode: gltf.PrimitiveTriangles,
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, p0), gltf.NORMAL: modeler.WriteNormal(doc, n0)}}
		if len(uv) == len(vOf) {
			prim.Attributes[gltf.TEXCOORD_0] = modeler.WriteTextureCoord(doc, uv)
		}
		for j := 1; j < sp.n; j++ {
			pk, nk := pos(&frames[sp.first+j].Meshes[sp.mesh[j]])
			prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{
				gltf.POSITION: modeler.WritePosition(doc, displacement(pk, p0)), gltf.NORMAL: modeler.WriteNormal(doc, displacement(nk, n0))})
		}
		gm.Primitives = append(gm.Primitives, prim)
	}
	if len(base.Lines) > 0 {
		var idx []uint32
		for _, l := range base.Lines {
			for k := 0; k+1 < len(l); k++ {
				idx = append(idx, uint32(l[k]), uint32(l[k+1]))
			}
		}
		pos := func(m *Mesh) [][3]float32 {
			p := make([][3]float32, len(m.Pos))
			for i, x := range m.Pos {
				p[i] = f32(x)
			}
			return p
		}
		p0 := pos(base)
		prim := &gltf.Primitive{Indices: gltf.Index(modeler.WriteIndices(doc, idx)), Material: gltf.Index(mat), Mode: gltf.PrimitiveLines,
			Attributes: gltf.PrimitiveAttributes{gltf.POSITION: modeler.WritePosition(doc, p0)}}
		for j := 1; j < sp.n; j++ {
			prim.Targets = append(prim.Targets, gltf.PrimitiveAttributes{
				gltf.POSITION: modeler.WritePosition(doc, displacement(pos(&frames[sp.first+j].Meshes[sp.mesh[j]]), p0))})
		}
		gm.Primitives = append(gm.Primitives, prim)
	}
	if len(gm.Primitives) == 0 {
		return 0, fmt.Errorf("glTF: mesh %q at frame %d has no faces or lines", sp.name, sp.first)
	}
	if sp.n > 1 {
		gm.Weights = make([]float64, sp.n-1)
	}
	doc.Meshes = append(doc.Meshes, gm)
	node := &gltf.Node{Name: gm.Name, Mesh: gltf.Index(len(doc.Meshes) - 1), Rotation: [4]float64{0, 0, 0, 1}, Scale: [3]float64{1, 1, 1}}
	if sp.first > 0 {
		node.Scale = [3]float64{}
	}
	node.Matrix = [16]float64{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}
	doc.Nodes = append(doc.Nodes, node)
	n := len(doc.Nodes) - 1
	doc.Nodes[0].Children = append(doc.Nodes[0].Children, n)
	return n, nil
}

func f32(p [3]float64) [3]float32 { return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])} }

func displacement(p, base [][3]float32) [][3]float32 {
	d := make([][3]float32, len(p))
	for i := range p {
		for k := range 3 {
			d[i][k] = p[i][k] - base[i][k]
			if math.IsNaN(float64(d[i][k])) {
				d[i][k] = 0
			}
		}
	}
	return d
}
