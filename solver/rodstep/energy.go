package rodstep

import "github.com/loomsim/loom/solver/rod"

// Energies returns the assembly's kinetic energy (the segment kinetic energy
// 1/2 q'^T M_seg q' over consecutive non-EIL nodes, SB2020 sec. 4.3) and its
// potential energy (stretch, bending and gravity, the latter relative to the
// origin), for the node kinds of the last assignment.
func (s *State) Energies() (kinetic, potential float64) {
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
			potential += rod.StretchEnergy(R.Ks, s.X[a], s.X[b], s.U[a], s.U[b])
			potential -= R.Rho * (s.U[b] - s.U[a]) * s.Gravity.Dot(s.X[a].Add(s.X[b])) / 2
		}
		for k := 0; k+2 < len(nodes); k++ {
			a, b, c := nodes[k], nodes[k+1], nodes[k+2]
			potential += rod.BendEnergy(R.Kb, s.X[a], s.X[b], s.X[c], s.U[a], s.U[b], s.U[c])
		}
	}
	return kinetic, potential
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
