package systems

import (
	"fmt"

	"github.com/mlange-42/arche/generic"

	"github.com/loomsim/loom/components"
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/solver/elastic"
	"github.com/loomsim/loom/solver/geom"
)

// Sim is a scene loaded into a World with its step pipeline.
type Sim struct {
	Scene       *scenes.Scene
	World       *ecs.World
	Scheduler   *ecs.Scheduler
	State       *ClothState
	Rods        *RodState // nil without rods
	Remesh      *Remesh   // nil when no body is remeshed
	EOL         *EOLCloth // nil unless solver.mode is "eol"
	Conformal   *ConformalRemesh
	StrainLimit *StrainLimit // nil when no body has strain limits
	Clock       *ecs.Clock
	Bodies      []BodyMesh
}

// BodyMesh is what the writers need of one body: its name, its vertex
// entities in grid order and its faces (indices into Verts), and the
// material-space level: the distinct material points U (a seam vertex has
// one per panel) and the faces over them (UFaces[f][k] is corner k of
// Faces[f]).
type BodyMesh struct {
	Name   string
	Verts  []ecs.Entity
	Faces  [][3]int32
	U      [][2]float64
	UFaces [][3]int32
}

// Build turns a validated scene into entities and the Lagrangian cloth
// pipeline, with a worker pool of the given size.
func Build(sc *scenes.Scene, workers int) (*Sim, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	w := ecs.NewWorld(workers)
	clock := &ecs.Clock{Dt: sc.TimeStep}
	ecs.AddResource(w, clock)
	scripts := &Scripts{}
	ecs.AddResource(w, scripts)
	addScript := func(m *scenes.Motion) int32 {
		if m == nil {
			return -1
		}
		scripts.Motions = append(scripts.Motions, m)
		return int32(len(scripts.Motions) - 1)
	}

	sim := &Sim{Scene: sc, World: w, Clock: clock, State: &ClothState{}}
	damping := map[ecs.Entity]BodyDamping{}
	var toRemesh []int // the bodies remeshed outside EOL mode
	var bodyEnts []ecs.Entity
	var faceEntsOf, hingeEntsOf [][]ecs.Entity
	var limited []ecs.Entity
	var limits []scenes.StrainLimits
	vertMap := generic.NewMap5[components.Position, components.Velocity, components.Mass, components.Material, components.Member](w.ECS)
	pinMap := generic.NewMap1[components.Pinned](w.ECS)
	bodyMap := generic.NewMap1[components.Body](w.ECS)
	faceMap := generic.NewMap1[components.Face](w.ECS)
	hingeMap := generic.NewMap1[components.Hinge](w.ECS)

	for bi := range sc.Bodies {
		b := &sc.Bodies[bi]
		sheet, err := scenes.BuildSheet(b)
		if err != nil {
			return nil, fmt.Errorf("bodies[%d]: %w", bi, err)
		}
		if sc.Solver.Mode == scenes.ModeIrregular {
			if err := sheet.Jitter(b, 0.3, uint64(bi)); err != nil {
				return nil, fmt.Errorf("bodies[%d]: %w", bi, err)
			}
		}
		mat := b.Material
		be := bodyMap.NewWith(&components.Body{Name: b.Name, NX: sheet.NX, NY: sheet.NY})
		damping[be] = BodyDamping{Alpha: mat.MassDamping, Beta: mat.StiffnessDamping}
		if b.StrainLimits != nil {
			limited = append(limited, be)
			limits = append(limits, *b.StrainLimits)
		}
		lame := elastic.Lame{Mu: mat.ShearStiffness, Lambda: mat.StretchStiffness}

		// Lumped mass: a third of each incident face's material-space area
		// times the density.
		mass := make([]float64, len(sheet.Rest))
		rests := make([]elastic.MembraneRest, len(sheet.Faces))
		faceU := make([][3]dense.Vec2, len(sheet.Faces))
		for fi, f := range sheet.Faces {
			u := &faceU[fi]
			for k := range 3 {
				u[k] = dense.Vec2(sheet.FaceU[fi][k])
			}
			r, err := elastic.NewMembraneRest(u[0], u[1], u[2])
			if err != nil {
				return nil, fmt.Errorf("bodies[%d] (%s): face %d: %w", bi, b.Name, fi, err)
			}
			rests[fi] = r
			for _, v := range f {
				mass[v] += mat.Density * r.Area / 3
			}
		}
		verts := make([]ecs.Entity, len(sheet.Rest))
		for vi := range sheet.Rest {
			x := components.Position(sheet.Pos[vi])
			verts[vi] = vertMap.NewWith(&x, &components.Velocity{}, ptr(components.Mass(mass[vi])),
				ptr(components.Material(sheet.Rest[vi])), &components.Member{Body: be, Index: int32(vi)})
		}
		for pi, v := range sheet.Pinned {
			pinMap.Assign(verts[v], &components.Pinned{Anchor: dense.Vec3(sheet.Pos[v]), Script: addScript(b.Pins[pi].Motion), Release: b.Pins[pi].Release})
		}
		faceEnts := make([]ecs.Entity, len(sheet.Faces))
		for fi, f := range sheet.Faces {
			faceEnts[fi] = faceMap.NewWith(&components.Face{Body: be, V: [3]ecs.Entity{verts[f[0]], verts[f[1]], verts[f[2]]}, U: faceU[fi], Rest: rests[fi], Lame: lame})
		}
		if b.Remesh != nil && sc.Solver.Mode != scenes.ModeRegular && sc.Solver.Mode != scenes.ModeIrregular {
			toRemesh = append(toRemesh, bi)
		}
		hingeEnts := make([]ecs.Entity, len(sheet.Hinges))
		for hi, h := range sheet.Hinges {
			fa, fb := sheet.HingeFaces[hi][0], sheet.HingeFaces[hi][1]
			r, err := hingeRestFromFaces(h, sheet.Faces[fa], sheet.Faces[fb], faceU[fa], faceU[fb])
			if err != nil {
				return nil, fmt.Errorf("bodies[%d] (%s): hinge %d: %w", bi, b.Name, hi, err)
			}
			hingeEnts[hi] = hingeMap.NewWith(&components.Hinge{V: [4]ecs.Entity{verts[h[0]], verts[h[1]], verts[h[2]], verts[h[3]]}, Rest: r, Stiffness: mat.BendingStiffness})
		}
		bodyEnts = append(bodyEnts, be)
		faceEntsOf = append(faceEntsOf, faceEnts)
		hingeEntsOf = append(hingeEntsOf, hingeEnts)
		U, _, UFaces := materialVerts(sheet.Faces, faceU)
		sim.Bodies = append(sim.Bodies, BodyMesh{Name: b.Name, Verts: verts, Faces: sheet.Faces, U: vec2s(U), UFaces: UFaces})
	}

	obsMap := generic.NewMap1[components.Obstacle](w.ECS)
	for oi := range sc.Obstacles {
		o := &sc.Obstacles[oi]
		c := components.Obstacle{Name: o.Name, Shape: geom.Shape{Center: dense.Vec3(o.Center), Radius: o.Radius,
			HalfExtents: dense.Vec3(o.HalfExtents), A: dense.Vec3(o.A), B: dense.Vec3(o.B)}, Script: addScript(o.Motion)}
		switch o.Type {
		case "plane":
			c.Kind = components.Plane
			n := dense.Vec3(o.Normal)
			c.Normal = n.Scale(1 / n.Norm())
		case "sphere":
			c.Kind = components.Sphere
		case "box":
			c.Kind = components.Box
		case "capsule":
			c.Kind = components.Capsule
		case "point":
			c.Kind = components.Point
			n := dense.Vec3(o.Normal)
			c.Normal = n.Scale(1 / n.Norm())
		default:
			return nil, fmt.Errorf("obstacles[%d].type: unknown obstacle type %q", oi, o.Type)
		}
		obsMap.NewWith(&c)
	}

	st := sim.State
	var pipeline []ecs.System
	if len(sc.Bodies) > 0 {
		contact := NewObstacleContact(w, st, sc.Solver.Thickness, sc.Solver.Friction)
		derived := NewDerivedData(w, st, damping)
		// Gather once so the initial state can be measured before the first step.
		if err := derived.Step(w); err != nil {
			return nil, err
		}
		pipeline = append(pipeline, NewPinRelease(w))
		if sc.Solver.Mode == scenes.ModeEOL || sc.Solver.Mode == scenes.ModeConformal {
			// Conformal preprocessing every step, adaptive remeshing (with
			// the conformal edges preserved) every remesh.every steps.
			density := map[ecs.Entity]float64{}
			rm := NewRemesh(w, sc.Solver.Thickness)
			for bi := range sc.Bodies {
				b := &sc.Bodies[bi]
				density[bodyEnts[bi]] = b.Material.Density
				set := scenes.Remesh{}
				if b.Remesh != nil {
					set = *b.Remesh
				}
				rm.AddBody(bodyEnts[bi], &sim.Bodies[bi], faceEntsOf[bi], hingeEntsOf[bi], set, b.Material)
			}
			st.Tolerance, st.MaxIterations, st.Linear, st.ContactSolver = sc.Solver.Tolerance, sc.Solver.MaxIterations, sc.Solver.Linear, sc.Solver.ContactSolver
			ec := NewEOLCloth(w, st, contact, *sc.Solver.EOL, sc.GravityVector(), sc.Solver.Thickness, sc.Solver.Friction, density)
			lag := sc.Solver.Mode == scenes.ModeConformal
			sim.Conformal = ec.Conformal(rm, lag)
			pipeline = append(pipeline, sim.Conformal, derived, NewScriptedMotion(st, scripts))
			if !lag {
				sim.EOL = ec
				pipeline = append(pipeline, ec.Mark())
			}
			pipeline = append(pipeline, contact.Detect(), NewForceFill(st))
			if sc.Wind != nil {
				pipeline = append(pipeline, NewWind(st, *sc.Wind))
			}
			if lag {
				pipeline = append(pipeline, NewImplicitSolve(st, sc.GravityVector(), sc.Solver), contact.Respond(), NewIntegrate(w, st))
			} else {
				pipeline = append(pipeline, ec.Solve(), ec.Integrate(w))
			}
		} else {
			if len(toRemesh) > 0 {
				rm := NewRemesh(w, sc.Solver.Thickness)
				for _, bi := range toRemesh {
					b := &sc.Bodies[bi]
					rm.AddBody(bodyEnts[bi], &sim.Bodies[bi], faceEntsOf[bi], hingeEntsOf[bi], *b.Remesh, b.Material)
				}
				sim.Remesh = rm
				pipeline = append(pipeline, rm)
			}
			pipeline = append(pipeline, derived, NewScriptedMotion(st, scripts), contact.Detect(), NewForceFill(st))
			if sc.Wind != nil {
				pipeline = append(pipeline, NewWind(st, *sc.Wind))
			}
			pipeline = append(pipeline, NewImplicitSolve(st, sc.GravityVector(), sc.Solver), contact.Respond())
			if len(limited) > 0 {
				sim.StrainLimit = NewStrainLimit(st, limited, limits)
				pipeline = append(pipeline, sim.StrainLimit)
			}
			pipeline = append(pipeline, NewIntegrate(w, st))
		}
	} else {
		pipeline = append(pipeline, NewScriptedMotion(st, scripts))
	}
	if sc.Rods != nil {
		sim.Rods = &RodState{}
		if err := buildRods(w, sc, sim.Rods, addScript); err != nil {
			return nil, err
		}
		gather := NewRodGather(w, sim.Rods)
		if err := gather.Step(w); err != nil {
			return nil, err
		}
		sim.Rods.Step.Assign()
		newton := NewRodNewton(w, sim.Rods, scripts)
		newton.settings.ProjectBend = sc.Rods.ProjectBend
		pipeline = append(pipeline, gather, newton, NewRodContactRemoval(w, sim.Rods))
	}
	sim.Scheduler = ecs.NewScheduler(append(pipeline, advanceClock{})...)
	return sim, nil
}

// advanceClock ends the step: t += h.
type advanceClock struct{}

func (advanceClock) Name() string { return "clock" }
func (advanceClock) Step(w *ecs.World) error {
	c := ecs.Resource[ecs.Clock](w)
	c.Step++
	c.Time += c.Dt
	return nil
}

// Step advances the simulation by one time step.
func (s *Sim) Step() error { return s.Scheduler.Step(s.World) }

// Close releases the worker pool.
func (s *Sim) Close() { s.World.Close() }

func ptr[T any](v T) *T { return &v }

// Positions returns the current world positions of body i's vertices in grid
// order.
func (s *Sim) Positions(i int) [][3]float64 {
	pos := generic.NewMap1[components.Position](s.World.ECS)
	b := s.Bodies[i]
	out := make([][3]float64, len(b.Verts))
	for j, e := range b.Verts {
		out[j] = [3]float64(*pos.Get(e))
	}
	return out
}

// StrandNames returns the strands' names in rod order.
func (s *Sim) StrandNames() []string {
	if s.Rods == nil {
		return nil
	}
	names := generic.NewMap1[components.Strand](s.World.ECS)
	out := make([]string, len(s.Rods.Strands))
	for i, e := range s.Rods.Strands {
		out[i] = names.Get(e).Name
	}
	return out
}
