package systems

import (
	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
)

// The step pipelines, each a literal list read top to bottom, as MuJoCo's
// mj_step reads its stage calls. A stage the model does not need (no wind,
// no remeshed body, no strain limits) is nil and drops out of the list.
// TestPipelines pins every list.

// lagrangianCloth is Lagrangian cloth (Weidner 2018 eq. 11-12 without EOL
// DOFs), remeshed adaptively (Narain 2012 Algorithm 1) where a body asks for
// it. Strain limiting sits before the position update, which Narain's eq. 14
// velocity update needs. Self-collision (when on) is the last change to the
// velocities before the position update, so nothing after it can undo its
// guarantee that the step ends without crossings.
func lagrangianCloth(s *stages) []ecs.System {
	return present(
		s.pinRelease,
		s.remesh,
		s.derivedData,
		s.scriptedMotion,
		s.collision,
		s.selfProximity,
		s.forceFill,
		s.wind,
		s.implicitSolve,
		s.contactResponse,
		s.strainLimit,
		s.selfCollision,
		s.integrate,
	)
}

// eolCloth is Eulerian-on-Lagrangian cloth (Weidner 2018 Alg. 1): conformal
// preprocessing then adaptive remeshing with the conformal edges kept, the
// EOL vertices gathered ahead of the Lagrangian contacts, and the QP of
// eq. 12 over world and material velocities. Friction and lift-off change
// the solved velocities before self-collision, as contact-response does in
// the Lagrangian pipeline, so that nothing after it undoes its guarantee;
// bodies with strain limits are limited in between (Narain et al. 2012 sec.
// 5, with the EOL vertices fixed: StrainLimit).
func eolCloth(s *stages) []ecs.System {
	return present(
		s.pinRelease,
		s.conformalRemesh,
		s.derivedData,
		s.scriptedMotion,
		s.eolAssign,
		s.collision,
		s.forceFill,
		s.wind,
		s.eolSolve,
		s.eolFriction,
		s.strainLimit,
		s.selfCollision,
		s.eolIntegrate,
	)
}

// conformalCloth is Weidner 2018 sec. 7's "Lagrangian conformal" baseline:
// the EOL pipeline's meshes, with Lagrangian vertices on the features and the
// Lagrangian solve.
func conformalCloth(s *stages) []ecs.System {
	return present(
		s.pinRelease,
		s.conformalRemesh,
		s.derivedData,
		s.scriptedMotion,
		s.collision,
		s.selfProximity,
		s.forceFill,
		s.wind,
		s.implicitSolve,
		s.contactResponse,
		s.selfCollision,
		s.integrate,
	)
}

// developableCloth is developable cloth (English & Bridson 2008, restated
// in papers/README.md): the edge-midpoint state is predicted, projected
// onto its constraints (fast projection or BDF2), mapped to the ghost
// conforming mesh for collision handling, and the ghost mesh's change
// pushed back.
func developableCloth(s *stages) []ecs.System {
	return present(
		s.pinRelease,
		s.derivedData,
		s.scriptedMotion,
		s.developablePredict,
		s.developableProject,
		s.ghostCollision,
		s.ghostCorrection,
	)
}

// scriptsOnly moves the pins and obstacles of a scene without cloth.
func scriptsOnly(s *stages) []ecs.System {
	return present(
		s.scriptedMotion,
	)
}

// rods is the EoL rod step (Sanchez-Banderas 2020 sec. 4-5): gather, node
// assignment and Newton with step halving (non-persistent yarn contacts are
// detected in it, every substep), contact removal, edge nodes on box edges.
func rods(s *stages) []ecs.System {
	return present(
		s.rodGather,
		s.rodNewton,
		s.rodContactRemoval,
		s.rodEdges,
	)
}

// pipeline is the model's whole step: its cloth pipeline, then the rods',
// then the clock.
func pipeline(m *model.Model, s *stages) []ecs.System {
	var p []ecs.System
	switch {
	case len(m.Bodies) == 0:
		p = scriptsOnly(s)
	case m.Solver.Pipeline == model.EOL:
		p = eolCloth(s)
	case m.Solver.Pipeline == model.Conformal:
		p = conformalCloth(s)
	case m.Solver.Pipeline == model.Developable:
		p = developableCloth(s)
	default:
		p = lagrangianCloth(s)
	}
	if m.Rods != nil {
		p = append(p, rods(s)...)
	}
	return append(p, s.advanceClock)
}

// initial is what Build runs once, before the first step, so that the
// initial state can be measured: the gathers, and the rods' first node
// assignment.
func initial(s *stages) []ecs.System {
	return present(
		s.derivedData,
		s.rodGather,
		s.rodAssign,
	)
}

// present returns the non-nil systems in order.
func present(systems ...ecs.System) []ecs.System {
	out := systems[:0]
	for _, s := range systems {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}
