package systems

import (
	"math"
	"testing"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/eol"
	"github.com/loomsim/loom/solver/remesh"
)

// fanFaces is the number of faces of the fan in TestVertexFManyFaces: more
// than the 16 that vertexF used to keep.
const fanFaces = 24

// fanCloth builds a fan of fanFaces counter-clockwise triangles (0, i, i+1)
// around vertex 0 at the material origin, rim radius 10 cm, with world
// positions F u, and gathers it with vertex 0 as its EOL vertex. Faces from stretchFrom on get corners'
// material coordinates scaled by 1/2 (so their gradient is 2 F).
func fanCloth(t *testing.T, F dense.Mat32, stretchFrom int) (*EOLCloth, *ClothState) {
	t.Helper()
	w := ecs.NewWorld(1)
	t.Cleanup(w.Pool.Close)
	u := []dense.Vec2{{0, 0}}
	for i := range fanFaces {
		a := 2 * math.Pi * float64(i) / fanFaces
		u = append(u, dense.Vec2{0.1 * math.Cos(a), 0.1 * math.Sin(a)})
	}
	mat := generic.NewMap1[components.Material](w.ECS)
	faceMap := generic.NewMap1[components.Face](w.ECS)
	st := &ClothState{}
	for i := range u {
		m := components.Material(u[i])
		st.Verts = append(st.Verts, mat.NewWith(&m))
		x := F.MulVec(u[i])
		st.X = append(st.X, x[0], x[1], x[2])
	}
	for k := range fanFaces {
		tri := [3]int32{0, int32(k + 1), int32(k+1)%fanFaces + 1}
		f := components.Face{}
		for a, v := range tri {
			f.V[a], f.U[a] = st.Verts[v], u[v]
			if k >= stretchFrom {
				f.U[a] = dense.Vec2{u[v][0] / 2, u[v][1] / 2}
			}
			st.Faces = append(st.Faces, v)
		}
		st.FaceEnts = append(st.FaceEnts, faceMap.NewWith(&f))
	}
	c := NewEOLCloth(w, st, nil, model.Solver{Thickness: 0.002, EOL: &model.EOLSettings{MinEdge: 0.01, FlatAngle: 5, QPDomains: 2}}, dense.Vec3{}, nil)
	c.refreshTopology(w)
	c.verts = append(c.verts, eolVertex{ent: st.Verts[0], v: 0})
	c.gatherMaterial()
	return c, st
}

// bruteVertexF averages the fan's per-face gradients (eol.FaceF) with their
// corner angles at vertex 0 as weights, from the face components, over the
// first n faces.
func bruteVertexF(t *testing.T, c *EOLCloth, st *ClothState, n int) dense.Mat32 {
	t.Helper()
	var Fs []dense.Mat32
	var ws []float64
	for f := range n {
		U := c.faceMap.Get(st.FaceEnts[f]).U
		var x [3]dense.Vec3
		for j := range 3 {
			x[j] = vec(st.X, st.Faces[3*f+j])
		}
		F, ok := eol.FaceF(x, U)
		if !ok {
			t.Fatalf("face %d degenerate", f)
		}
		Fs = append(Fs, F)
		ws = append(ws, cornerAngle(U, 0)) // vertex 0 is every face's corner 0
	}
	F, ok := eol.VertexF(Fs, ws)
	if !ok {
		t.Fatal("brute-force VertexF failed")
	}
	return F
}

func maxDiff32(a, b dense.Mat32) float64 {
	d := 0.0
	for i := range 3 {
		for j := range 2 {
			d = math.Max(d, math.Abs(a[i][j]-b[i][j]))
		}
	}
	return d
}

// TestVertexFManyFaces checks that an EOL vertex's deformation gradient
// averages all its faces, not the first 16: on a fan of 24 faces stretched
// uniformly by a known F, vertexF gives F; with faces 17-24 stretched twice
// as much in material space, it gives the brute-force average over all 24
// (4/3 of the unstretched gradient: equal angles, stretch averaged
// linearly), which differs from the average over the first 16. nodeF, the
// same average on a remesh.Mesh, agrees.
func TestVertexFManyFaces(t *testing.T) {
	var sc fScratch
	known := dense.Mat32{{1.2, 0.1}, {0, 0.9}, {0.3, -0.2}}
	c, _ := fanCloth(t, known, fanFaces)
	if got := c.vfStart[1] - c.vfStart[0]; got != fanFaces {
		t.Fatalf("vertex 0 has %d faces, want %d", got, fanFaces)
	}
	F, _, err := c.vertexF(0, &sc)
	if err != nil {
		t.Fatal(err)
	}
	if d := maxDiff32(F, known); d > 1e-12 {
		t.Errorf("uniform fan: F = %v, want %v (diff %g)", F, known, d)
	}

	id := dense.Mat32{{1, 0}, {0, 1}, {0, 0}}
	c, st := fanCloth(t, id, 16)
	F, flat, err := c.vertexF(0, &sc)
	if err != nil {
		t.Fatal(err)
	}
	if !flat {
		t.Errorf("planar fan not locally flat")
	}
	if cap(sc.Fs) < fanFaces || cap(sc.ws) < fanFaces || cap(sc.ns) < fanFaces {
		t.Errorf("scratch capacities %d %d %d, want >= %d", cap(sc.Fs), cap(sc.ws), cap(sc.ns), fanFaces)
	}
	all, first16 := bruteVertexF(t, c, st, fanFaces), bruteVertexF(t, c, st, 16)
	if d := maxDiff32(F, all); d > 1e-14 {
		t.Errorf("F = %v, brute-force average over all %d faces %v (diff %g)", F, fanFaces, all, d)
	}
	want := dense.Mat32{{4.0 / 3, 0}, {0, 4.0 / 3}, {0, 0}}
	if d := maxDiff32(F, want); d > 1e-12 {
		t.Errorf("F = %v, want %v (diff %g)", F, want, d)
	}
	if d := maxDiff32(first16, id); d > 1e-12 {
		t.Errorf("average over the first 16 faces %v, want the unstretched %v", first16, id)
	}
	if d := maxDiff32(F, first16); d < 0.1 {
		t.Errorf("F = %v is the average over the first 16 faces only", F)
	}

	// nodeF on the same fan as a remesh.Mesh: faces 17-24 have their own
	// verts (a seam) carrying the halved material coordinates.
	m := &remesh.Mesh{}
	for i := range st.Verts {
		m.X = append(m.X, vec(st.X, int32(i)))
		m.U = append(m.U, c.mat[i])
		m.Node = append(m.Node, int32(i))
	}
	fs := make([]int32, fanFaces)
	for f := range fanFaces {
		fs[f] = int32(f)
		var tri [3]int32
		for j := range 3 {
			v := st.Faces[3*f+j]
			tri[j] = v
			if f >= 16 {
				tri[j] = int32(len(m.U))
				m.U = append(m.U, c.faceU[f][j])
				m.Node = append(m.Node, v)
			}
		}
		m.F = append(m.F, tri)
	}
	var nsc fScratch
	NF, ok := nodeF(m, fs, 0, &nsc)
	if !ok {
		t.Fatal("nodeF failed")
	}
	if d := maxDiff32(NF, all); d > 1e-14 {
		t.Errorf("nodeF = %v, want the average over all faces %v (diff %g)", NF, all, d)
	}
}
