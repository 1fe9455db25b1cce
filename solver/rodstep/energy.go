package rodstep

import (
	"math"

	"github.com/loomsim/loom/solver/rod"
)

// Energies returns the assembly's kinetic energy (the segment kinetic energy
// 1/2 q'^T M_seg q' over consecutive non-EIL nodes, SB2020 sec. 4.3), its
// elastic energy (stretch, eq. 2, and bending) and its gravitational energy
// (relative to the origin), for the node kinds of the last assignment; the
// axial strain l/du - 1 of eq. 2 of largest magnitude over those segments
// is maxStrain (its magnitude).
func (s *State) Energies() (kinetic, elastic, gravity, maxStrain float64) {
	for r := range s.Rods {
		R := &s.Rods[r]
		if R.Fixed {
			continue
		}
		nodes := R.nonEIL
		for k := 0; k+1 < len(nodes); k++ {
			a, b := nodes[k], nodes[k+1]
			var M [64]float64
			rod.SegmentMass(s.X[a], s.X[b], s.U[a], s.U[b], R.Rho, &M)
			qd := [8]float64{s.V[a][0], s.V[a][1], s.V[a][2], s.V[b][0], s.V[b][1], s.V[b][2], s.UDot[a], s.UDot[b]}
			for i := 0; i < 8; i++ {
				for j := 0; j < 8; j++ {
					kinetic += 0.5 * qd[i] * M[8*i+j] * qd[j]
				}
			}
			elastic += rod.StretchEnergy(R.Ks, s.X[a], s.X[b], s.U[a], s.U[b])
			gravity -= R.Rho * (s.U[b] - s.U[a]) * s.Gravity.Dot(s.X[a].Add(s.X[b])) / 2
			maxStrain = max(maxStrain, math.Abs(s.X[b].Sub(s.X[a]).Norm()/(s.U[b]-s.U[a])-1))
		}
		for k := 0; k+2 < len(nodes); k++ {
			a, b, c := nodes[k], nodes[k+1], nodes[k+2]
			if R.Rest != nil {
				elastic += rod.BendRestEnergy(R.Kb, R.Rest, s.X[a], s.X[b], s.X[c], s.U[a], s.U[b], s.U[c])
			} else {
				elastic += rod.BendEnergy(R.Kb, s.X[a], s.X[b], s.X[c], s.U[a], s.U[b], s.U[c])
			}
		}
	}
	return kinetic, elastic, gravity, maxStrain
}

// Polyline returns rod r's node positions in order of u (EIL nodes at their
// interpolated positions).
func (s *State) Polyline(r int) [][3]float64 {
	R := &s.Rods[r]
	out := make([][3]float64, len(R.Nodes))
	for k, i := range R.Nodes {
		out[k] = s.X[i]
	}
	return out
}
