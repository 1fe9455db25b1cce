package systems

import (
	"math"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/geom"
)

// MeshSequence drives a deforming mesh obstacle: its model frames and the
// buffers its surface's positions and velocities live in.
type MeshSequence struct {
	Frames   *model.MeshObstacle
	Surface  *geom.MeshSurface
	pos, vel []float64
	prev     []float64 // the positions at the start of the step
}

// sample writes the sequence's vertex positions at time t into dst: frame
// k at t = k/FPS, blended linearly in between; held at the last frame after
// the end, or, looping, blended back to frame 0 over one more interval and
// repeated. Before t = 0 it is frame 0.
func sampleMesh(m *model.MeshObstacle, t float64, dst []float64) {
	n := len(m.Frames)
	k0, k1, w := 0, 0, 0.0
	if s := t * m.FPS; n > 1 && s > 0 {
		if m.Loop {
			s = math.Mod(s, float64(n))
		}
		if s >= float64(n-1) && !m.Loop {
			k0, k1 = n-1, n-1
		} else {
			k0 = int(s)
			k1, w = (k0+1)%n, s-float64(k0)
		}
	}
	a, b := m.Frames[k0], m.Frames[k1]
	for i := range a {
		for k := range 3 {
			dst[3*i+k] = (1-w)*a[i][k] + w*b[i][k]
		}
	}
}

// newMeshObstacle builds the surface of a mesh obstacle at time 0 and, for
// a deforming one, registers its sequence with the scripts; it returns the
// sequence index (-1 for a rigid mesh). A rigid mesh's sharp edges above its
// feature angle become its features (EOL contact); a deforming mesh has
// none.
func newMeshObstacle(r geom.Runner, m *model.MeshObstacle, scripts *Scripts) (*geom.MeshSurface, int32, error) {
	pos := make([]float64, 3*len(m.Frames[0]))
	sampleMesh(m, 0, pos)
	surf, err := geom.NewMeshSurface(r, pos, m.FlatFaces())
	if err != nil {
		return nil, -1, err
	}
	if len(m.Frames) == 1 {
		angle := m.FeatureAngle
		if angle == 0 {
			angle = geom.DefaultFeatureAngle
		}
		surf.MarkSharpEdges(angle)
		return surf, -1, nil
	}
	seq := &MeshSequence{Frames: m, Surface: surf, pos: pos, vel: make([]float64, len(pos)), prev: make([]float64, len(pos))}
	scripts.Sequences = append(scripts.Sequences, seq)
	return surf, int32(len(scripts.Sequences) - 1), nil
}

// advance moves the sequence's surface to its pose at t1 with the step's
// finite-difference velocity (x(t1) - x(t0)) / h, so that it lands exactly
// on its frames, and refits its BVH on r.
func (q *MeshSequence) advance(r geom.Runner, t0, t1 float64) {
	sampleMesh(q.Frames, t0, q.prev)
	sampleMesh(q.Frames, t1, q.pos)
	for i := range q.pos {
		q.vel[i] = (q.pos[i] - q.prev[i]) / (t1 - t0)
	}
	q.Surface.Update(r, q.pos, q.vel)
}

// KinematicMesh is a mesh obstacle's current surface in the world: vertex
// positions and velocities (3 floats per vertex) and its triangles (3
// indices each, counter-clockwise from outside), for collision code that
// treats obstacle triangles like cloth ones.
type KinematicMesh struct {
	Name     string
	Pos, Vel []float64
	Faces    []int32
}

// MeshSurfaces appends to dst[:0] every mesh obstacle's current world
// surface, in entity query order: each vertex x of its frame placed at
// center + offset + R (x - center), moving at R u + vel + omega x (that
// point - center - offset) with u the vertex's deformation velocity. The
// slices of dst are reused when long enough; Faces aliases the obstacle's
// own (read only).
func MeshSurfaces(w *ecs.World, dst []KinematicMesh) []KinematicMesh {
	dst = dst[:0]
	q := generic.NewFilter1[components.Obstacle]().Query(w.ECS)
	for q.Next() {
		o := q.Get()
		if o.Kind != components.Mesh {
			continue
		}
		var km KinematicMesh
		if len(dst) < cap(dst) {
			km = dst[:len(dst)+1][len(dst)]
		}
		m := o.Mesh
		km.Name, km.Faces = o.Name, m.Faces
		km.Pos, km.Vel = km.Pos[:0], km.Vel[:0]
		pl := placementOf(o)
		for i := 0; i < len(m.Pos); i += 3 {
			var u0, u1, u2 float64
			if m.Vel != nil {
				u0, u1, u2 = m.Vel[i], m.Vel[i+1], m.Vel[i+2]
			}
			x0, x1, x2, v0, v1, v2 := pl.at(m.Pos[i], m.Pos[i+1], m.Pos[i+2], u0, u1, u2)
			km.Pos, km.Vel = append(km.Pos, x0, x1, x2), append(km.Vel, v0, v1, v2)
		}
		dst = append(dst, km)
	}
	return dst
}

// placement is an obstacle's current pose, taken once for all the points
// it places (at): a point p of its own frame (for a mesh obstacle, its
// current frame) goes to ctr + offset + R (p - ctr), ctr its rotation
// centre, and moves at R u + vel + omega x (x - ctr - offset), u the
// point's deformation velocity.
type placement struct {
	rotated                 bool
	r                       dense.Mat3
	ctr, offset, vel, omega dense.Vec3
	pivot                   dense.Vec3 // ctr + offset: the centre omega turns about
}

func placementOf(o *components.Obstacle) placement {
	ctr := o.RotationCenter()
	return placement{rotated: o.Rotated, r: o.R, ctr: ctr, offset: o.Offset, vel: o.Vel, omega: o.Omega, pivot: ctr.Add(o.Offset)}
}

// at places own-frame point p moving at deformation velocity u: x and v.
// It works on scalars: Go keeps [3]float64 values in memory, which made
// the vector form 30 times slower on the fail-safe's per-step placing of
// every obstacle vertex (same operations, same order, same bits).
func (pl *placement) at(p0, p1, p2, u0, u1, u2 float64) (x0, x1, x2, v0, v1, v2 float64) {
	if pl.rotated {
		r, c := &pl.r, &pl.ctr
		d0, d1, d2 := p0-c[0], p1-c[1], p2-c[2]
		p0 = c[0] + (r[0][0]*d0 + r[0][1]*d1 + r[0][2]*d2)
		p1 = c[1] + (r[1][0]*d0 + r[1][1]*d1 + r[1][2]*d2)
		p2 = c[2] + (r[2][0]*d0 + r[2][1]*d1 + r[2][2]*d2)
		u0, u1, u2 = r[0][0]*u0+r[0][1]*u1+r[0][2]*u2, r[1][0]*u0+r[1][1]*u1+r[1][2]*u2, r[2][0]*u0+r[2][1]*u1+r[2][2]*u2
	}
	x0, x1, x2 = p0+pl.offset[0], p1+pl.offset[1], p2+pl.offset[2]
	// geom.PointVelocity: vel + omega x (x - pivot), exactly vel when
	// omega is zero.
	w0, w1, w2 := pl.vel[0], pl.vel[1], pl.vel[2]
	if o := &pl.omega; *o != (dense.Vec3{}) {
		b0, b1, b2 := x0-pl.pivot[0], x1-pl.pivot[1], x2-pl.pivot[2]
		w0, w1, w2 = w0+(o[1]*b2-o[2]*b1), w1+(o[2]*b0-o[0]*b2), w2+(o[0]*b1-o[1]*b0)
	}
	return x0, x1, x2, u0 + w0, u1 + w1, u2 + w2
}
