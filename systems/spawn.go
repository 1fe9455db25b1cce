package systems

import (
	"fmt"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
)

// spawned is what spawning a model created, for the stages that need
// entity handles: per body its entity, face and hinge entities (in the
// order of the model's faces and hinges) and output mesh; the motion
// scripts; the rods' gathered state.
type spawned struct {
	scripts *Scripts
	bodies  []ecs.Entity
	faces   [][]ecs.Entity
	hinges  [][]ecs.Entity
	meshes  []BodyMesh
	damping map[ecs.Entity]BodyDamping
	rods    *RodState // nil without rods
}

// spawn creates the model's entities: cloth bodies (vertices with their
// lumped masses, pins, faces with their membrane rest states, hinges with
// their rest angles), obstacles and rods, in that order. Scripts are
// numbered in the same order (body pins, obstacles, rod pins).
func spawn(w *ecs.World, m *model.Model) (*spawned, error) {
	sp := &spawned{scripts: &Scripts{}, damping: map[ecs.Entity]BodyDamping{}}
	ecs.AddResource(w, sp.scripts)
	for bi := range m.Bodies {
		if err := sp.body(w, &m.Bodies[bi]); err != nil {
			return nil, fmt.Errorf("bodies[%d] (%s): %w", bi, m.Bodies[bi].Name, err)
		}
	}
	obsMap := generic.NewMap1[components.Obstacle](w.ECS)
	for oi := range m.Obstacles {
		o := &m.Obstacles[oi]
		co, err := obstacleComponent(w.Pool, o, sp.scripts)
		if err != nil {
			return nil, fmt.Errorf("obstacles[%d] (%s): %w", oi, o.Name, err)
		}
		obsMap.NewWith(&co)
	}
	if m.Rods != nil {
		sp.rods = &RodState{}
		if err := buildRods(w, m, sp.rods, sp.scripts.add); err != nil {
			return nil, err
		}
	}
	return sp, nil
}

// body spawns one cloth body.
func (sp *spawned) body(w *ecs.World, b *model.Body) error {
	vertMap := generic.NewMap5[components.Position, components.Velocity, components.Mass, components.Material, components.Member](w.ECS)
	pinMap := generic.NewMap1[components.Pinned](w.ECS)
	faceMap := generic.NewMap1[components.Face](w.ECS)
	hingeMap := generic.NewMap1[components.Hinge](w.ECS)
	mat := b.Material
	bodyMap := generic.NewMap1[components.Body](w.ECS)
	be := bodyMap.NewWith(&components.Body{Name: b.Name, NX: b.NX, NY: b.NY})
	sp.damping[be] = BodyDamping{Alpha: mat.MassDamping, Beta: mat.StiffnessDamping}
	lame := elastic.Lame{Mu: mat.ShearStiffness, Lambda: mat.StretchStiffness}

	// Lumped mass: a third of each incident face's material-space area
	// times the density.
	mass := make([]float64, len(b.Rest))
	rests := make([]elastic.MembraneRest, len(b.Faces))
	faceU := make([][3]dense.Vec2, len(b.Faces))
	for fi, f := range b.Faces {
		u := &faceU[fi]
		for k := range 3 {
			u[k] = dense.Vec2(b.FaceU[fi][k])
		}
		r, err := elastic.NewMembraneRest(u[0], u[1], u[2])
		if err != nil {
			return fmt.Errorf("face %d: %w", fi, err)
		}
		rests[fi] = r
		for _, v := range f {
			mass[v] += mat.Density * r.Area / 3
		}
	}
	verts := make([]ecs.Entity, len(b.Rest))
	for vi := range b.Rest {
		x := components.Position(b.Pos[vi])
		verts[vi] = vertMap.NewWith(&x, &components.Velocity{}, ptr(components.Mass(mass[vi])),
			ptr(components.Material(b.Rest[vi])), &components.Member{Body: be, Index: int32(vi)})
	}
	for _, p := range b.Pins {
		pinMap.Assign(verts[p.Vertex], &components.Pinned{Anchor: dense.Vec3(b.Pos[p.Vertex]), Script: sp.scripts.add(p.Motion), Release: p.Release, Pivot: p.Pivot})
	}
	faceEnts := make([]ecs.Entity, len(b.Faces))
	for fi, f := range b.Faces {
		faceEnts[fi] = faceMap.NewWith(&components.Face{Body: be, V: [3]ecs.Entity{verts[f[0]], verts[f[1]], verts[f[2]]}, U: faceU[fi], Rest: rests[fi], Lame: lame})
	}
	hingeEnts := make([]ecs.Entity, len(b.Hinges))
	for hi, h := range b.Hinges {
		fa, fb := b.HingeFaces[hi][0], b.HingeFaces[hi][1]
		r, err := hingeRestFromFaces(h, b.Faces[fa], b.Faces[fb], faceU[fa], faceU[fb])
		if err != nil {
			return fmt.Errorf("hinge %d: %w", hi, err)
		}
		hingeEnts[hi] = hingeMap.NewWith(&components.Hinge{V: [4]ecs.Entity{verts[h[0]], verts[h[1]], verts[h[2]], verts[h[3]]}, Rest: r, Stiffness: mat.BendingStiffness})
	}
	sp.bodies = append(sp.bodies, be)
	sp.faces = append(sp.faces, faceEnts)
	sp.hinges = append(sp.hinges, hingeEnts)
	U, _, UFaces := materialVerts(b.Faces, faceU)
	sp.meshes = append(sp.meshes, BodyMesh{Name: b.Name, Verts: verts, Faces: b.Faces, U: vec2s(U), UFaces: UFaces})
	return nil
}
