package selfcontact

import (
	"errors"
	"fmt"

	"github.com/loomsim/loom/solver/dense"
)

// Proximity is a vertex-face or edge-edge pair closer than its detection
// distance at the start of the step: its four vertices V (cloth indices,
// then kinematic ones numbered from the cloth's vertex count), the weights W
// of its closest points (1, -b1, -b2, -b3 for a vertex and the barycentric
// coordinates b of its nearest face point; 1-a, a, -(1-u), -u for two
// edges), the unit normal N along sum W_k x_k (from the face or second edge
// to the vertex or first edge) and the distance D, so that the pair's
// distance after a step of h at velocities v is, to first order,
// D + h N . sum W_k v_k.
type Proximity struct {
	V         [4]int32
	W         [4]float64
	N         dense.Vec3
	D         float64
	EdgeEdge  bool // two edges; else V[0] and the face V[1..3]
	Kinematic bool // a pair with kinematic geometry (its thickness is p.KinematicThickness)
}

// Proximities appends to dst every vertex-face and edge-edge pair of the
// cloth with itself and with the kinematic geometry k that is closer at x0
// than its thickness (p.Thickness, or p.KinematicThickness for a pair with
// kinematic vertices) plus reach, in the deterministic order of the
// repulsion pass of Solve, which shares its narrow phase. These are the
// proximity constraints of a contact solve inside the implicit step; Solve
// stays the fail-safe after it.
func (s *Solver) Proximities(r Runner, dst []Proximity, x0 []float64, p Params, k Kinematic, reach float64) ([]Proximity, error) {
	if len(x0) != 3*s.nc {
		return dst, fmt.Errorf("selfcontact: %d positions for %d vertices", len(x0), s.nc)
	}
	if nk := s.nv - s.nc; len(k.X) != 3*nk {
		return dst, fmt.Errorf("selfcontact: %d kinematic positions for %d vertices", len(k.X), nk)
	}
	if p.KinematicThickness == 0 {
		p.KinematicThickness = p.Thickness
	}
	if !(p.Thickness > 0) || !(p.KinematicThickness > 0) || !(reach >= 0) {
		return dst, errors.New("selfcontact: thicknesses must be > 0 and reach >= 0")
	}
	if len(s.faces) == 0 {
		return dst, nil
	}
	for i := range s.kin {
		s.kin[i].apart = false // Kinematic.Apart is the Solve's
	}
	s.x0 = append(append(s.xa[:0], x0...), k.X...)
	s.thick, s.kthick, s.kinOnly = p.Thickness+reach, p.KinematicThickness+reach, p.KinematicOnly
	s.refit(r, s.x0, s.x0, 0.5*max(s.thick, s.kthick), true)
	s.run(r, s.proxFn)
	nc := int32(s.nc)
	for b := range s.blocks {
		for _, sl := range s.blocks[b].hits {
			kin := sl.V[0] >= nc || sl.V[1] >= nc || sl.V[2] >= nc || sl.V[3] >= nc
			th := s.thick
			if kin {
				th = s.kthick
			}
			// The proximity pass stores the detection distance less the distance in T.
			dst = append(dst, Proximity{V: sl.V, W: sl.Imp.W, N: sl.Imp.N, D: th - sl.Imp.T, EdgeEdge: sl.Kind == kindEE, Kinematic: kin})
		}
	}
	s.x0 = nil
	return dst, nil
}
