package scenes

import (
	"math"

	"github.com/loomsim/loom/solver/dense"
)

// Motion is a prescribed kinematic trajectory, used by pins and obstacles:
// a translation (Offset) and, optionally, a rotation about a pivot. A point
// x of the initial pose is at pivot + Offset(t) + Rotation(t) (x - pivot).
// Either the velocity form (Velocity and/or AngularVelocity) or Keyframes is
// set.
type Motion struct {
	// Velocity is a constant velocity (m/s) active on [Start, Stop);
	// Stop == 0 means forever.
	Velocity *[3]float64 `json:"velocity"`
	// AngularVelocity is a constant angular velocity (deg/s, a world-frame
	// vector: its direction is the axis, its length the rate) about the
	// pivot, active on [Start, Stop) like Velocity.
	AngularVelocity *[3]float64 `json:"angular_velocity"`
	Start           float64     `json:"start"` // s, >= 0 (velocity form only)
	Stop            float64     `json:"stop"`  // s, 0 or > Start (velocity form only)
	// Keyframes are offsets (m) from the initial position, interpolated
	// between keys and held constant outside the key range, and optional
	// orientations. Times strictly increasing, at least 2 keys.
	Keyframes []Keyframe `json:"keyframes"`
	// Pivot is the point (m, world, at the initial pose) the rotation turns
	// about; it moves with Offset. Only with a rotating motion. Absent: an
	// obstacle's centre (a capsule's midpoint), a sheet's position (its
	// centre); rod pins must set it.
	Pivot *[3]float64 `json:"pivot"`
	// Interpolation between keyframes: "" or "linear" (piecewise linear), or
	// "catmull-rom" (cubic Hermite with Catmull-Rom tangents, zero tangents
	// at the first and last key).
	Interpolation string `json:"interpolation"`
}

// Keyframe interpolations.
const (
	InterpLinear     = "linear"
	InterpCatmullRom = "catmull-rom"
)

// Keyframe is one key of a keyframed Motion.
type Keyframe struct {
	T      float64    `json:"t"`      // s
	Offset [3]float64 `json:"offset"` // m, displacement from the initial position
	// Orientation is the rotation at this key about the motion's pivot:
	// degrees about world x, then y, then z (R = Rz*Ry*Rx, as a body's
	// orientation); zero is no rotation. Between keys the rotation is the
	// slerp of the keys' quaternions (a constant angular velocity), whatever
	// the interpolation of the offsets.
	Orientation [3]float64 `json:"orientation"`
}

// stopTime returns the end of a velocity motion's active window; forever when
// Stop == 0.
func (m *Motion) stopTime() (stop float64, forever bool) {
	if m.Stop == 0 {
		return 0, true
	}
	return m.Stop, false
}

// Offset returns the displacement from the initial position at time t.
// A nil Motion never moves.
func (m *Motion) Offset(t float64) [3]float64 {
	var out [3]float64
	switch {
	case m == nil:
	case m.Velocity != nil:
		if t <= m.Start {
			return out
		}
		end := t
		if stop, forever := m.stopTime(); !forever && end > stop {
			end = stop
		}
		d := end - m.Start
		for k := range 3 {
			out[k] = m.Velocity[k] * d
		}
	case len(m.Keyframes) > 0:
		keys := m.Keyframes
		if t <= keys[0].T {
			return keys[0].Offset
		}
		last := keys[len(keys)-1]
		if t >= last.T {
			return last.Offset
		}
		s := segment(keys, t)
		a, b := keys[s], keys[s+1]
		w := (t - a.T) / (b.T - a.T)
		if m.Interpolation == InterpCatmullRom {
			ma, mb := m.tangent(s), m.tangent(s+1)
			dt := b.T - a.T
			h00, h10 := 2*w*w*w-3*w*w+1, w*w*w-2*w*w+w
			h01, h11 := -2*w*w*w+3*w*w, w*w*w-w*w
			for k := range 3 {
				out[k] = h00*a.Offset[k] + h10*dt*ma[k] + h01*b.Offset[k] + h11*dt*mb[k]
			}
			return out
		}
		for k := range 3 {
			out[k] = a.Offset[k] + w*(b.Offset[k]-a.Offset[k])
		}
	}
	return out
}

// tangent returns the Catmull-Rom tangent at key k: the slope between its
// neighbours, zero at the first and last key.
func (m *Motion) tangent(k int) [3]float64 {
	keys := m.Keyframes
	var out [3]float64
	if k == 0 || k == len(keys)-1 {
		return out
	}
	a, b := keys[k-1], keys[k+1]
	for c := range 3 {
		out[c] = (b.Offset[c] - a.Offset[c]) / (b.T - a.T)
	}
	return out
}

// VelocityAt returns the time derivative of Offset at t: the velocity inside
// [Start, Stop) for a velocity motion, the slope of the segment [t_k, t_k+1)
// containing t for keyframes, and zero otherwise.
func (m *Motion) VelocityAt(t float64) [3]float64 {
	var out [3]float64
	switch {
	case m == nil:
	case m.Velocity != nil:
		if t < m.Start {
			return out
		}
		if stop, forever := m.stopTime(); !forever && t >= stop {
			return out
		}
		return *m.Velocity
	case len(m.Keyframes) > 0:
		keys := m.Keyframes
		if t < keys[0].T || t >= keys[len(keys)-1].T {
			return out
		}
		s := segment(keys, t)
		a, b := keys[s], keys[s+1]
		if m.Interpolation == InterpCatmullRom {
			ma, mb := m.tangent(s), m.tangent(s+1)
			dt := b.T - a.T
			w := (t - a.T) / dt
			d00, d10 := 6*w*w-6*w, 3*w*w-4*w+1
			d01, d11 := -6*w*w+6*w, 3*w*w-2*w
			for k := range 3 {
				out[k] = (d00*a.Offset[k]+d01*b.Offset[k])/dt + d10*ma[k] + d11*mb[k]
			}
			return out
		}
		for k := range 3 {
			out[k] = (b.Offset[k] - a.Offset[k]) / (b.T - a.T)
		}
	}
	return out
}

// segment returns s with keys[s].T <= t < keys[s+1].T; requires
// keys[0].T <= t < keys[last].T.
func segment(keys []Keyframe, t float64) int {
	lo, hi := 0, len(keys)-1 // invariant: keys[lo].T <= t < keys[hi].T
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if keys[mid].T <= t {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Rotates reports whether the motion turns: a non-zero angular velocity or a
// keyframe with a non-zero orientation.
func (m *Motion) Rotates() bool {
	if m == nil {
		return false
	}
	if m.AngularVelocity != nil && *m.AngularVelocity != ([3]float64{}) {
		return true
	}
	for _, k := range m.Keyframes {
		if k.Orientation != ([3]float64{}) {
			return true
		}
	}
	return false
}

// activeTime returns how long the velocity form has been active at t.
func (m *Motion) activeTime(t float64) float64 {
	if t <= m.Start {
		return 0
	}
	if stop, forever := m.stopTime(); !forever && t > stop {
		t = stop
	}
	return t - m.Start
}

// keyQuat returns the unit quaternion of key k's orientation.
func (m *Motion) keyQuat(k int) dense.Quat {
	return dense.QuatFromMat(dense.Mat3(rotationXYZ(m.Keyframes[k].Orientation)))
}

// Rotation returns the rotation about the pivot at time t (the identity for
// a motion that does not turn): exp(t_active * omega) for the velocity form,
// the slerp between the keys' orientations for keyframes (held outside the
// key range).
func (m *Motion) Rotation(t float64) [3][3]float64 {
	switch {
	case !m.Rotates():
		return dense.Identity3
	case len(m.Keyframes) == 0:
		return dense.QuatExp(m.omega().Scale(m.activeTime(t))).Mat()
	}
	keys := m.Keyframes
	if t <= keys[0].T {
		return rotationXYZ(keys[0].Orientation)
	}
	if t >= keys[len(keys)-1].T {
		return rotationXYZ(keys[len(keys)-1].Orientation)
	}
	s := segment(keys, t)
	if t == keys[s].T {
		return rotationXYZ(keys[s].Orientation) // exactly the key
	}
	w := (t - keys[s].T) / (keys[s+1].T - keys[s].T)
	return dense.Slerp(m.keyQuat(s), m.keyQuat(s+1), w).Mat()
}

// omega returns the velocity form's angular velocity in rad/s.
func (m *Motion) omega() dense.Vec3 {
	if m.AngularVelocity == nil {
		return dense.Vec3{}
	}
	return dense.Vec3(*m.AngularVelocity).Scale(math.Pi / 180)
}

// AngularVelocityAt returns the angular velocity (rad/s, world frame) at t:
// the velocity form's inside [Start, Stop), for keyframes the constant rate
// of the slerp on the segment [t_k, t_k+1) containing t, zero otherwise.
func (m *Motion) AngularVelocityAt(t float64) [3]float64 {
	switch {
	case !m.Rotates():
		return [3]float64{}
	case len(m.Keyframes) == 0:
		if t < m.Start {
			return [3]float64{}
		}
		if stop, forever := m.stopTime(); !forever && t >= stop {
			return [3]float64{}
		}
		return m.omega()
	}
	keys := m.Keyframes
	if t < keys[0].T || t >= keys[len(keys)-1].T {
		return [3]float64{}
	}
	s := segment(keys, t)
	a := m.keyQuat(s)
	// slerp: q(w) = a exp(w r) with r = log(a^-1 b), body-frame rate r/dt,
	// world-frame R(a) r / dt (R(a) r = R(q(w)) r: r is the turning axis).
	r := a.Conj().Mul(m.keyQuat(s + 1)).Log()
	return a.Mat().MulVec(r).Scale(1 / (keys[s+1].T - keys[s].T))
}
