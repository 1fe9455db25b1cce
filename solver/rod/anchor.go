package rod

import "math"

// Anchor is the Eulerian anchor friction spring of Cirio et al. 2014 (used
// unchanged for EoL and EIL nodes in SB2020 sec. 4.2): a spring on the Eulerian
// coordinate u of a contact node,
//
//	E = 1/2 Kf (u - U)^2,   dE/du = Kf (u - U),   d2E/du2 = Kf,
//
// whose anchor U follows Coulomb's law through Update: while the spring force stays
// within the friction cone the anchor sticks; otherwise it slips so that the spring
// force equals the cone bound.
//
// Slip records the state Slide decided at the end of the last step: 0 for
// sticking (the spring acts), +-1 for sliding towards +-u (the kinetic
// friction force acts instead). An implicit step takes the state as given,
// so its potential is smooth (a quadratic spring, or a linear term of slope
// +-mu N), and Slide updates it from the step's outcome.
type Anchor struct {
	U    float64 // anchor position in the material domain (rest arc length)
	Kf   float64 // spring stiffness (> 0)
	Slip int8    // 0: sticking; +-1: sliding towards +-u
}

// Energy returns 1/2 Kf (u - U)^2.
func (a *Anchor) Energy(u float64) float64 {
	d := u - a.U
	return 0.5 * a.Kf * d * d
}

// Force returns the spring force magnitude with sign, f = dE/du = Kf (u - U) (the
// generalized force on u is -f). This is the value Update expects.
func (a *Anchor) Force(u float64) float64 { return a.Kf * (u - a.U) }

// Update applies Coulomb's law to the anchor. force is the current spring force
// Kf (u - U) (Force); normalForce is the contact normal force magnitude (negative
// values, a separating contact, are treated as 0); mu is the friction coefficient.
//
//   - Stick, |force| <= mu normalForce: U is unchanged.
//   - Slip, |force| > mu normalForce: U moves towards u so that the spring force
//     becomes exactly sign(force) mu normalForce, i.e.
//     U += (force - sign(force) mu normalForce)/Kf.
//
// Since u = U + force/Kf, the node's u itself is not needed.
func (a *Anchor) Update(force, normalForce, mu float64) {
	bound := mu * normalForce
	if bound < 0 || normalForce < 0 {
		bound = 0
	}
	switch {
	case force > bound:
		a.U += (force - bound) / a.Kf
	case force < -bound:
		a.U += (force + bound) / a.Kf
	}
}

// Slide ends a step of an anchor whose node moved from u0 to u under the
// friction bound (>= 0: mu N with the contact's normal force N, negative
// normal forces counting as 0, plus any cohesion), and sets the state the
// next step takes:
//
//   - sticking, |Kf (u - U)| <= bound: unchanged;
//   - sticking, beyond the bound: it starts sliding in the direction of the
//     spring force, the anchor moving as in Update;
//   - sliding, still moving in its direction: it keeps sliding;
//   - sliding, stopped or turned back: it sticks again.
//
// After a slide (kept or ended) the anchor trails u by bound/Kf, so the
// spring, when it takes over again, starts at the force the kinetic friction
// had: the friction force stays continuous across the switch.
func (a *Anchor) Slide(u0, u, bound float64) {
	if a.Slip == 0 {
		f := a.Force(u)
		if math.Abs(f) <= bound {
			return
		}
		a.Slip = 1
		if f < 0 {
			a.Slip = -1
		}
	} else if float64(a.Slip)*(u-u0) <= 0 {
		a.U = u - float64(a.Slip)*bound/a.Kf
		a.Slip = 0
		return
	}
	a.U = u - float64(a.Slip)*bound/a.Kf
}
