package systems

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
)

// stages holds every system a pipeline can list, built for one model; a
// stage the model does not need is nil.
type stages struct {
	pinRelease        ecs.System
	remesh            ecs.System
	conformalRemesh   ecs.System
	derivedData       ecs.System
	scriptedMotion    ecs.System
	eolAssign         ecs.System
	collision         ecs.System
	forceFill         ecs.System
	wind              ecs.System
	implicitSolve     ecs.System
	contactResponse   ecs.System
	strainLimit       ecs.System
	selfProximity     ecs.System
	selfCollision     ecs.System
	integrate         ecs.System
	eolSolve          ecs.System
	eolFriction       ecs.System
	eolIntegrate      ecs.System
	rodGather         ecs.System
	rodAssign         ecs.System
	rodNewton         ecs.System
	rodContactRemoval ecs.System
	rodEdges          ecs.System
	advanceClock      ecs.System

	developablePredict, developableProject, ghostCollision, ghostCorrection ecs.System
}

// newStages builds the systems the model's pipeline needs, recording the
// ones the statistics read in sim.
func newStages(w *ecs.World, m *model.Model, sim *Sim, sp *spawned) *stages {
	s := &stages{advanceClock: AdvanceClock{}}
	st := sim.State
	s.scriptedMotion = NewScriptedMotion(st, sp.scripts)
	if len(m.Bodies) > 0 {
		contact := NewObstacleContact(w, st, m.Solver.Thickness, m.Solver.Friction)
		s.pinRelease = NewPinRelease(w)
		s.derivedData = NewDerivedData(w, st, sp.damping)
		s.collision, s.contactResponse = contact.Collision(), contact.Response()
		s.forceFill = NewForceFill(st)
		if m.Wind != nil {
			s.wind = NewWind(st, *m.Wind)
		}
		rm := NewBodyRemesher(w, m.Solver.Thickness)
		for bi := range m.Bodies {
			if b := &m.Bodies[bi]; b.Remesh != nil {
				rm.AddBody(sp.bodies[bi], &sim.Bodies[bi], sp.faces[bi], sp.hinges[bi], *b.Remesh, b.Material)
			}
		}
		switch m.Solver.Pipeline {
		case model.EOL, model.Conformal:
			density := map[ecs.Entity]float64{}
			for bi := range m.Bodies {
				density[sp.bodies[bi]] = m.Bodies[bi].Material.Density
			}
			ec := NewEOLCloth(w, st, contact, m.Solver, m.Gravity, density)
			lag := m.Solver.Pipeline == model.Conformal
			sim.Conformal = ec.Conformal(rm, lag)
			s.conformalRemesh = sim.Conformal
			if !lag {
				// Conformal Lagrangian vertices (lag) meet the obstacle
				// through the ordinary contacts (averaged normals, sec.
				// 5.1); EOL vertices through their EOL constraints.
				contact.ExcludeWith(ec.excluded)
				sim.EOL = ec
				s.eolAssign, s.eolSolve, s.eolFriction, s.eolIntegrate = ec.Assign(), ec.Solve(), ec.Friction(), ec.Integrate(w)
			}
		default:
			if len(rm.bodies) > 0 {
				sim.Remesh = NewRemesh(rm)
				s.remesh = sim.Remesh
			}
		}
		if m.Solver.Pipeline != model.EOL {
			s.implicitSolve = NewImplicitSolve(st, contact, m.Gravity, m.Solver)
			s.integrate = NewIntegrate(w, st)
		}
		lagrangian := m.Solver.Pipeline == model.Lagrangian || m.Solver.Pipeline == model.LagrangianFixed
		if m.Solver.SelfContact == nil && lagrangian && len(m.Obstacles) > 0 {
			// Obstacles only: their vertices and edges kept out of the
			// cloth's faces (SelfCollision, KinematicOnly).
			sim.SelfCollision = NewObstacleFailSafe(st, m.Solver.Thickness)
			s.selfCollision = sim.SelfCollision
		}
		if sc := m.Solver.SelfContact; sc != nil {
			// In the EOL pipeline the EOL vertices keep their velocities;
			// in the conformal one all vertices are Lagrangian. The
			// obstacles join as kinematic geometry in every pipeline, and
			// the remeshing keeps from putting cloth through cloth
			// (BodyRemesher.apart).
			sim.SelfCollision = NewSelfCollision(st, sim.EOL, *sc, m.Solver.Thickness)
			rm.apart = st
			s.selfCollision = sim.SelfCollision
			// Proximity rows go to the QP solver; the filtered PCG's
			// active set holds one-vertex rows only, so with it the
			// fail-safe's repulsions stay the proximity treatment.
			if m.Solver.Pipeline != model.EOL && m.Solver.Pipeline != model.Developable && m.Solver.Contact == model.ContactQP {
				s.selfProximity = sim.SelfCollision.Proximity()
				s.implicitSolve.(*ImplicitSolve).pairs = sim.SelfCollision
			}
		}
		if m.Solver.Pipeline == model.Developable {
			// The ghost meshes' self-contact runs inside ghost-collision,
			// in each of its rounds (DevelopableCloth.collide).
			sim.Developable = NewDevelopableCloth(w, st, contact, sim.SelfCollision, m, sp.meshes)
			d := sim.Developable
			s.developablePredict, s.developableProject, s.ghostCollision, s.ghostCorrection = d.Predict(), d.Project(), d.Collision(), d.Correction()
		}
		var limited []ecs.Entity
		var limits []model.StrainLimits
		for bi := range m.Bodies {
			if l := m.Bodies[bi].StrainLimits; l != nil {
				limited = append(limited, sp.bodies[bi])
				limits = append(limits, *l)
			}
		}
		if len(limited) > 0 {
			sim.StrainLimit = NewStrainLimit(st, limited, limits)
			if sim.EOL != nil {
				sim.StrainLimit.eol = sim.EOL
				sim.EOL.strainMax = map[ecs.Entity]float64{}
				for i, e := range limited {
					sim.EOL.strainMax[e] = limits[i].Max
				}
			}
			s.strainLimit = sim.StrainLimit
		}
	}
	if sp.rods != nil {
		sim.Rods = sp.rods
		s.rodGather = NewRodGather(w, sp.rods)
		s.rodAssign = RodAssign{sp.rods}
		newton := NewRodNewton(w, sp.rods, sp.scripts)
		newton.settings.ProjectBend = m.Rods.ProjectBend
		newton.settings.DegenerateRestart = m.Rods.DegenerateRestart
		newton.settings.PredictContacts = m.Rods.PredictContacts
		newton.settings.Linear = rodLinear[m.Rods.Linear]
		s.rodNewton = newton
		sp.rods.ReleaseSteps = m.Rods.ReleaseSteps
		s.rodContactRemoval = NewRodContactRemoval(w, sp.rods)
		s.rodEdges = NewRodEdges(w, sp.rods)
	}
	return s
}

// RodAssign is the rods' node assignment (Sanchez-Banderas 2020 sec. 4.1) on
// the gathered state, run once before the first step; each Newton step
// reassigns the nodes itself.
type RodAssign struct{ state *RodState }

// Name implements ecs.System.
func (RodAssign) Name() string { return "rod-assign" }

// Step implements ecs.System.
func (a RodAssign) Step(*ecs.World) error {
	a.state.Step.Assign()
	return nil
}
