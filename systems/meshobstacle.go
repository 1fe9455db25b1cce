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
		ctr := o.RotationCenter()
		for i := 0; i < len(m.Pos); i += 3 {
			x, v := worldVertex(o, ctr, dense.Vec3(m.Pos[i:i+3]), m.Vel, i)
			km.Pos, km.Vel = append(km.Pos, x[:]...), append(km.Vel, v[:]...)
		}
		dst = append(dst, km)
	}
	return dst
}

// worldVertex places vertex p of obstacle o's own frame (for a mesh
// obstacle, its current frame; ctr its rotation centre) in the world at
// ctr + offset + R (p - ctr) and returns it with its velocity R u + vel +
// omega x (x - ctr - offset), u the vertex's deformation velocity
// (vel[k:k+3]; none when vel is nil).
func worldVertex(o *components.Obstacle, ctr, p dense.Vec3, vel []float64, k int) (x, v dense.Vec3) {
	var u dense.Vec3
	if vel != nil {
		u = dense.Vec3(vel[k : k+3])
	}
	if o.Rotated {
		p, u = ctr.Add(o.R.MulVec(p.Sub(ctr))), o.R.MulVec(u)
	}
	x = p.Add(o.Offset)
	return x, u.Add(obstacleVelAt(o, x))
}
