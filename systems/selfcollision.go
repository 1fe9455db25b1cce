package systems

import (
	"fmt"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/model"
	"github.com/loomsim/loom/solver/selfcontact"
)

// SelfCollision is cloth self- and cloth-cloth collision (solver/selfcontact,
// Bridson et al. 2002): after the solve and before the position update it
// corrects the solved velocities VNew so that x = X + h VNew is reached
// without crossings, repelling proximities within the thickness. Pinned
// vertices, and in the EOL pipeline the EOL vertices, keep their velocities
// (infinite mass). The BVH and edge list are rebuilt when the topology
// version changes.
type SelfCollision struct {
	state    *ClothState
	eol      *EOLCloth // nil outside the EOL pipeline
	params   selfcontact.Params
	solver   selfcontact.Solver
	topology uint64
	built    bool
	invMass  []float64

	Last selfcontact.Stats // the last step's counts
}

// NewSelfCollision returns the system; eol is the EOL cloth whose EOL
// vertices stay fixed, or nil.
func NewSelfCollision(state *ClothState, eol *EOLCloth, set model.SelfContact) *SelfCollision {
	return &SelfCollision{state: state, eol: eol, params: selfcontact.Params{Thickness: set.Thickness, Friction: set.Friction}}
}

// Name implements ecs.System.
func (sc *SelfCollision) Name() string { return "self-collision" }

// Step implements ecs.System.
func (sc *SelfCollision) Step(w *ecs.World) error {
	s := sc.state
	n := s.NumVerts()
	if !sc.built || sc.topology != s.topology {
		if err := sc.solver.SetTopology(w.Pool, n, s.Faces, s.X); err != nil {
			return err
		}
		sc.topology, sc.built = s.topology, true
	}
	sc.invMass = resize(sc.invMass, n)
	for i := range n {
		m := s.Mass[i]
		switch {
		case s.pinned(i), !(m > 0):
			sc.invMass[i] = 0
		case sc.eol != nil && i < len(sc.eol.eolOf) && sc.eol.eolOf[i] >= 0:
			sc.invMass[i] = 0
		default:
			sc.invMass[i] = 1 / m
		}
	}
	st, err := sc.solver.Solve(w.Pool, s.X, s.VNew, sc.invMass, s.H, sc.params)
	sc.Last = st
	if err != nil {
		return fmt.Errorf("self-collision: %w", err)
	}
	return nil
}
