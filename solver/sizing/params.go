package sizing

import (
	"fmt"
	"math"
)

// Params are the remeshing criteria of ARCSim sec. 4.2.
type Params struct {
	// Dynamical criteria (eq. 10): the largest permitted change across an
	// edge of the vertex normal (RefineAngle, Delta n_max), of the
	// compression (RefineCompression, c_max) and of the velocity
	// (RefineVelocity, Delta v_max, m/s). Each must be positive; +Inf turns
	// the criterion off.
	RefineAngle       float64
	RefineCompression float64
	RefineVelocity    float64

	// Geometrical criteria (eq. 11-13): edge lengths l_min <= l_max (m) and
	// the minimum aspect ratio alpha_min in [0, 1]. SizeMin must be positive
	// and finite; SizeMax may be +Inf (no lower bound on the eigenvalues).
	SizeMin   float64
	SizeMax   float64
	AspectMin float64
}

// Validate reports the first invalid field, by name.
func (p Params) Validate() error {
	for _, f := range [...]struct {
		name string
		v    float64
	}{{"RefineAngle", p.RefineAngle}, {"RefineCompression", p.RefineCompression}, {"RefineVelocity", p.RefineVelocity}} {
		if !(f.v > 0) {
			return fmt.Errorf("sizing: Params.%s = %g: must be positive (+Inf disables it)", f.name, f.v)
		}
	}
	if !(p.SizeMin > 0) || math.IsInf(p.SizeMin, 0) {
		return fmt.Errorf("sizing: Params.SizeMin = %g: must be positive and finite", p.SizeMin)
	}
	if !(p.SizeMax >= p.SizeMin) {
		return fmt.Errorf("sizing: Params.SizeMax = %g: must be at least SizeMin = %g", p.SizeMax, p.SizeMin)
	}
	if !(p.AspectMin >= 0 && p.AspectMin <= 1) {
		return fmt.Errorf("sizing: Params.AspectMin = %g: must lie in [0, 1]", p.AspectMin)
	}
	return nil
}

// bounds returns the clamping constants of eq. 11-13: lo = l_max^-2,
// hi = l_min^-2, a2 = alpha_min^2.
func (p Params) bounds() (lo, hi, a2 float64) {
	return 1 / (p.SizeMax * p.SizeMax), 1 / (p.SizeMin * p.SizeMin), p.AspectMin * p.AspectMin
}
