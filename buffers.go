package loom

import (
	"fmt"
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Buffers are in a renderer's layout, filled into caller-owned memory:
//
//   - positions and normals: 3 float32 per vertex, x y z interleaved, in
//     metres (z up), vertex i at [3i, 3i+3);
//   - triangles: 3 uint32 vertex indices per face, counter-clockwise seen
//     from the side the normals point to;
//   - strand positions: 3 float32 per node, in order along the strand.
//
// A buffer shorter than needed is an ErrBufferTooSmall error and is left
// unchanged. The counts change when a body is remeshed (adaptive and EOL
// scenes): compare Topology with the value of the last read.

// VertexCount returns the number of vertices of body b now.
func (s *Sim) VertexCount(b Body) (int, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, err
	}
	return len(s.sim.Bodies[i].Verts), nil
}

// TriangleCount returns the number of faces of body b now.
func (s *Sim) TriangleCount(b Body) (int, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, err
	}
	return len(s.sim.Bodies[i].Faces), nil
}

// Topology returns a counter that changes whenever the vertices or faces of
// any body (or the pinned set) change: re-read the triangles and resize the
// vertex buffers when it differs from the last value seen.
func (s *Sim) Topology(b Body) (uint64, error) {
	if _, err := s.body(b); err != nil {
		return 0, err
	}
	return s.sim.World.TopologyVersion(), nil
}

func need(what string, name string, want, got int) error {
	return fmt.Errorf("%w: %s of %q need %d values, got %d", ErrBufferTooSmall, what, name, want, got)
}

// Positions writes body b's vertex positions into dst (3 per vertex) and
// returns the vertex count.
func (s *Sim) Positions(b Body, dst []float32) (int, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, err
	}
	n := len(s.sim.Bodies[i].Verts)
	if len(dst) < 3*n {
		return 0, need("positions", s.sim.Bodies[i].Name, 3*n, len(dst))
	}
	s.pos = s.acc.AppendPositions(i, s.pos[:0])
	for k, x := range s.pos {
		dst[3*k], dst[3*k+1], dst[3*k+2] = float32(x[0]), float32(x[1]), float32(x[2])
	}
	return n, nil
}

// Normals writes body b's unit vertex normals into dst (3 per vertex) and
// returns the vertex count: at each vertex the normalized sum of its faces'
// cross products (x1-x0) x (x2-x0), i.e. area-weighted face normals; zero
// for a vertex in no face of positive area.
func (s *Sim) Normals(b Body, dst []float32) (int, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, err
	}
	bm := &s.sim.Bodies[i]
	n := len(bm.Verts)
	if len(dst) < 3*n {
		return 0, need("normals", bm.Name, 3*n, len(dst))
	}
	s.pos = s.acc.AppendPositions(i, s.pos[:0])
	if cap(s.nrm) < n {
		s.nrm = make([]dense.Vec3, n)
	}
	s.nrm = s.nrm[:n]
	clear(s.nrm)
	// On scalars (Go keeps [3]float64 values in memory): the vector form's
	// operations in the same order.
	p, nrm := s.pos, s.nrm
	for _, f := range bm.Faces {
		a, b, c := &p[f[0]], &p[f[1]], &p[f[2]]
		u0, u1, u2 := b[0]-a[0], b[1]-a[1], b[2]-a[2]
		w0, w1, w2 := c[0]-a[0], c[1]-a[1], c[2]-a[2]
		c0, c1, c2 := u1*w2-u2*w1, u2*w0-u0*w2, u0*w1-u1*w0
		for _, v := range f {
			m := &nrm[v]
			m[0], m[1], m[2] = m[0]+c0, m[1]+c1, m[2]+c2
		}
	}
	for k := range nrm {
		v := &nrm[k]
		var o0, o1, o2 float32
		if l := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2]); l > 0 && !math.IsInf(l, 0) {
			r := 1 / l
			o0, o1, o2 = float32(r*v[0]), float32(r*v[1]), float32(r*v[2])
		}
		dst[3*k], dst[3*k+1], dst[3*k+2] = o0, o1, o2
	}
	return n, nil
}

// Triangles writes body b's faces into dst (3 vertex indices per face) and
// returns the face count.
func (s *Sim) Triangles(b Body, dst []uint32) (int, error) {
	i, err := s.body(b)
	if err != nil {
		return 0, err
	}
	bm := &s.sim.Bodies[i]
	if len(dst) < 3*len(bm.Faces) {
		return 0, need("triangles", bm.Name, 3*len(bm.Faces), len(dst))
	}
	for k, f := range bm.Faces {
		dst[3*k], dst[3*k+1], dst[3*k+2] = uint32(f[0]), uint32(f[1]), uint32(f[2])
	}
	return len(bm.Faces), nil
}

// StrandNodeCount returns the number of nodes of strand h now (EoL rods
// gain and lose nodes at contacts).
func (s *Sim) StrandNodeCount(h Strand) (int, error) {
	r, err := s.strand(h)
	if err != nil {
		return 0, err
	}
	return len(s.sim.Rods.Step.Rods[r].Nodes), nil
}

// StrandPositions writes strand h's node positions, in order along it, into
// dst (3 per node) and returns the node count.
func (s *Sim) StrandPositions(h Strand, dst []float32) (int, error) {
	r, err := s.strand(h)
	if err != nil {
		return 0, err
	}
	st := &s.sim.Rods.Step
	nodes := st.Rods[r].Nodes
	if len(dst) < 3*len(nodes) {
		return 0, need("strand positions", s.sim.StrandNames()[r], 3*len(nodes), len(dst))
	}
	for k, i := range nodes {
		x := st.X[i]
		dst[3*k], dst[3*k+1], dst[3*k+2] = float32(x[0]), float32(x[1]), float32(x[2])
	}
	return len(nodes), nil
}
