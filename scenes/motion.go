package scenes

// Motion is a prescribed kinematic trajectory, used by pins and obstacles.
// Exactly one of Velocity or Keyframes is set.
type Motion struct {
	// Velocity is a constant velocity (m/s) active on [Start, Stop);
	// Stop == 0 means forever.
	Velocity *[3]float64 `json:"velocity"`
	Start    float64     `json:"start"` // s, >= 0 (velocity only)
	Stop     float64     `json:"stop"`  // s, 0 or > Start (velocity only)
	// Keyframes are offsets (m) from the initial position, interpolated
	// between keys and held constant outside the key range. Times strictly
	// increasing, at least 2 keys.
	Keyframes []Keyframe `json:"keyframes"`
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
