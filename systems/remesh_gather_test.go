package systems

import (
	"math"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/mesh"
	"github.com/loomsim/loom/solver/remesh"
)

// singlePanelVerts agrees with materialVerts on a body without seams and
// declines a seam (a vertex with two coordinates), a NaN coordinate and a
// vertex in no face.
func TestSinglePanelVerts(t *testing.T) {
	// A 3x3-vertex grid, two faces per cell, listed out of vertex order.
	var faces [][3]int32
	var faceU [][3]dense.Vec2
	pos := func(v int32) dense.Vec2 { return dense.Vec2{float64(v % 3), float64(v / 3)} }
	for _, c := range []int32{4, 0, 3, 1} {
		a, b, d, e := c, c+1, c+4, c+3
		for _, f := range [][3]int32{{a, b, d}, {a, d, e}} {
			faces = append(faces, f)
			faceU = append(faceU, [3]dense.Vec2{pos(f[0]), pos(f[1]), pos(f[2])})
		}
	}
	u, ok := singlePanelVerts(faces, faceU, 9)
	if !ok {
		t.Fatal("declined a body without seams")
	}
	wu, wn, wf := materialVerts(faces, faceU)
	if !slices.Equal(u, wu) || !slices.Equal(identityNodes(9), wn) || !slices.Equal(faces, wf) {
		t.Fatalf("got %v, want materialVerts' %v %v %v", u, wu, wn, wf)
	}

	seam := slices.Clone(faceU)
	seam[3][1] = dense.Vec2{5, 5}
	if _, ok := singlePanelVerts(faces, seam, 9); ok {
		t.Fatal("accepted a vertex with two coordinates")
	}
	nan := slices.Clone(faceU)
	nan[0][0][0] = math.NaN()
	if _, ok := singlePanelVerts(faces, nan, 9); ok {
		t.Fatal("accepted a NaN coordinate")
	}
	if _, ok := singlePanelVerts(faces, faceU, 10); ok {
		t.Fatal("accepted a vertex in no face")
	}
}

// grid4Faces returns the 18 faces of a 4x4-vertex grid, vertex 4j+i at
// column i of row j.
func grid4Faces() [][3]int32 {
	var faces [][3]int32
	for j := int32(0); j < 3; j++ {
		for i := int32(0); i < 3; i++ {
			c := 4*j + i
			faces = append(faces, [3]int32{c, c + 1, c + 5}, [3]int32{c, c + 5, c + 4})
		}
	}
	return faces
}

// restMemo returns, for faces and hinges whose inputs did not change, the
// rest states that computing them gives, and nothing for those whose
// corners moved, whose faces are new or whose nodes were renumbered.
func TestRestMemo(t *testing.T) {
	faces := grid4Faces()
	u := make([]dense.Vec2, 16)
	for v := range u {
		u[v] = dense.Vec2{0.1 * float64(v%4), 0.1*float64(v/4) + 0.01*float64(v%4*v%4)}
	}
	build := func(u []dense.Vec2) ([][3]dense.Vec2, []elastic.MembraneRest, [][4]int32, [][2]int32, []elastic.HingeRest) {
		faceU := make([][3]dense.Vec2, len(faces))
		fr := make([]elastic.MembraneRest, len(faces))
		for f, tri := range faces {
			faceU[f] = [3]dense.Vec2{u[tri[0]], u[tri[1]], u[tri[2]]}
			var err error
			if fr[f], err = elastic.NewMembraneRest(u[tri[0]], u[tri[1]], u[tri[2]]); err != nil {
				t.Fatal(err)
			}
		}
		hinges, hf := mesh.HingesWithFaces(faces, 16)
		hr := make([]elastic.HingeRest, len(hinges))
		for i, h := range hinges {
			var err error
			if hr[i], err = hingeRestFromFaces(h, faces[hf[i][0]], faces[hf[i][1]], faceU[hf[i][0]], faceU[hf[i][1]]); err != nil {
				t.Fatal(err)
			}
		}
		return faceU, fr, hinges, hf, hr
	}
	var m restMemo
	faceU, fr, hinges, hf, hr := build(u)
	m.set(faces, faceU, fr, hinges, hf, hr)

	// Vertex 5 moves in material space; face 0 is new.
	u2 := slices.Clone(u)
	u2[5][0] += 0.01
	faceU2, fr2, hinges2, hf2, hr2 := build(u2)
	var out remesh.Result
	out.NodeOld = identityNodes(16)
	out.FaceOld = identityNodes(len(faces))
	out.FaceOld[0] = -1
	touches := func(tri [3]int32, v int32) bool { return slices.Contains(tri[:], v) }
	// kept is what writeBack passes hingeRestOf for a face.
	kept := func(f int32, faceU [][3]dense.Vec2, out remesh.Result) int32 {
		if o := m.oldFace(int(f), faceU, out); o >= 0 && m.sameNodes(faces[f], o, out) {
			return o
		}
		return -1
	}
	for f, tri := range faces {
		o := m.oldFace(f, faceU2, out)
		if want := f != 0 && !touches(tri, 5); (o >= 0) != want || o >= 0 && (o != int32(f) || m.faceRest[o] != fr2[f]) {
			t.Fatalf("face %d: got memo face %d, want one: %v (rest %v)", f, o, want, fr2[f])
		}
	}
	for i, h := range hinges2 {
		fa, fb := hf2[i][0], hf2[i][1]
		rest, ok := m.hingeRestOf(h, kept(fa, faceU2, out), kept(fb, faceU2, out), out)
		want := fa != 0 && fb != 0 && !touches(faces[fa], 5) && !touches(faces[fb], 5)
		if ok != want || ok && rest != hr2[i] {
			t.Fatalf("hinge %d: got %v %v, want remembered %v and %v", i, rest, ok, want, hr2[i])
		}
	}
	// Renumbered nodes: nothing on them matches.
	out.FaceOld = identityNodes(len(faces))
	out.NodeOld = slices.Clone(out.NodeOld)
	out.NodeOld[0], out.NodeOld[15] = 15, 0
	for i, h := range hinges {
		on := slices.Contains(h[:], 0) || slices.Contains(h[:], 15)
		if _, ok := m.hingeRestOf(h, kept(hf[i][0], faceU, out), kept(hf[i][1], faceU, out), out); ok == on {
			t.Fatalf("hinge %d (on renumbered nodes: %v): remembered %v", i, on, ok)
		}
	}
}

// borderNormalsAt gives borderNormals' values at the nodes it is asked
// about and zero elsewhere; a borderWork used before gives the same as a
// new one.
func TestBorderNormalsAt(t *testing.T) {
	// The grid with one corner cut off.
	faces := grid4Faces()[1:]
	u := make([]dense.Vec2, 16)
	for v := range u {
		u[v] = dense.Vec2{0.1 * float64(v%4), 0.1 * float64(v/4)}
	}
	var bw, bwAt borderWork
	bn, corner := bw.borderNormals(faces, u, nil, 16)
	at := make([]bool, 16)
	for _, v := range []int{0, 1, 5, 7, 10} {
		at[v] = true
	}
	bn2, corner2 := bwAt.borderNormalsAt(faces, u, nil, 16, at)
	for v := range at {
		if at[v] && (bn2[v] != bn[v] || corner2[v] != corner[v]) || !at[v] && (bn2[v] != dense.Vec2{} || corner2[v]) {
			t.Fatalf("node %d (asked: %v): got %v %v, borderNormals gives %v %v", v, at[v], bn2[v], corner2[v], bn[v], corner[v])
		}
	}
	bn3, corner3 := bwAt.borderNormals(faces[1:], u, nil, 16)
	bn4, corner4 := new(borderWork).borderNormals(faces[1:], u, nil, 16)
	if !slices.Equal(bn3, bn4) || !slices.Equal(corner3, corner4) {
		t.Fatalf("reused borderWork: %v %v, new: %v %v", bn3, corner3, bn4, corner4)
	}
}
