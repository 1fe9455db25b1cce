package systems

import (
	"testing"
)

func TestProbeFriction(t *testing.T) {
	for _, mu := range []float64{0, 0.5} {
		sc := eolShort(t, "friction", 1.0, 0.04, 0.1)
		sc.Solver.Friction = mu
		sim := build(t, sc, 2)
		n := sc.NumSteps()
		steps(t, sim, n, func(i int) {
			if (i+1)%10 != 0 {
				return
			}
			st := sim.State
			var m, z, r, top float64
			for k, mk := range st.Mass {
				x, y, zz := st.X[3*k], st.X[3*k+1], st.X[3*k+2]
				m += mk
				z += mk * zz
				r += mk * (x*x + y*y)
				if zz > -0.001 {
					top += mk
				}
			}
			ms := sim.Measure()
			t.Logf("mu %.1f step %d zc %.4f rms_r %.4f top %.3f ke %.3g eol %d", mu, i+1, z/m, r/m, top/m, ms.KineticEnergy, *ms.EOLVertices)
		})
	}
}
