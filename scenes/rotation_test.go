package scenes

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

func orthonormal(R [3][3]float64, tol float64) bool {
	m := dense.Mat3(R)
	p := m.Mul(m.T())
	for i := range 3 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(p[i][j]-want) > tol {
				return false
			}
		}
	}
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	return math.Abs(det-1) < tol
}

// relAngle returns the rotation vector of b a^T.
func relAngle(a, b [3][3]float64) dense.Vec3 {
	return dense.RotationLog(dense.Mat3(b).Mul(dense.Mat3(a).T()))
}

// TestMotionSlerpKeyframes: keyframe orientations are hit exactly at the
// keys and held outside them; between keys the rotation stays orthonormal
// (from unit quaternions) and turns at a constant angular velocity, which
// AngularVelocityAt gives; positions keep their Catmull-Rom interpolation.
func TestMotionSlerpKeyframes(t *testing.T) {
	m := &Motion{Interpolation: InterpCatmullRom, Keyframes: []Keyframe{
		{T: 0},
		{T: 1, Offset: [3]float64{0.1, 0, 0}, Orientation: [3]float64{0, 0, 90}},
		{T: 2.5, Offset: [3]float64{0.1, 0.2, 0}, Orientation: [3]float64{30, -20, 200}},
		{T: 3, Orientation: [3]float64{30, -20, 200}},
	}}
	if !m.Rotates() {
		t.Fatal("Rotates() = false")
	}
	for _, k := range m.Keyframes {
		if got, want := m.Rotation(k.T), rotationXYZ(k.Orientation); got != want {
			t.Errorf("Rotation(%v) = %v, want the key's %v exactly", k.T, got, want)
		}
	}
	if m.Rotation(-1) != rotationXYZ(m.Keyframes[0].Orientation) || m.Rotation(5) != rotationXYZ(m.Keyframes[3].Orientation) {
		t.Error("rotation not held outside the keys")
	}
	if w := m.AngularVelocityAt(5); w != ([3]float64{}) {
		t.Errorf("angular velocity after the last key %v", w)
	}
	if w := m.AngularVelocityAt(2.7); !near(w, [3]float64{}, 1e-12) {
		t.Errorf("angular velocity between equal keys %v", w)
	}
	// The first segment turns 90 degrees about z in 1 s.
	if w := m.AngularVelocityAt(0.5); !near(w, [3]float64{0, 0, math.Pi / 2}, 1e-12) {
		t.Errorf("AngularVelocityAt(0.5) = %v, want [0 0 pi/2]", w)
	}
	const h = 1e-6
	for s := 0; s < 3; s++ {
		a, b := m.Keyframes[s], m.Keyframes[s+1]
		var speed0 float64
		for k := 1; k < 20; k++ {
			tt := a.T + (b.T-a.T)*float64(k)/20
			R := m.Rotation(tt)
			if !orthonormal(R, 1e-13) {
				t.Fatalf("Rotation(%v) = %v not a rotation", tt, R)
			}
			fd := relAngle(m.Rotation(tt-h), m.Rotation(tt+h)).Scale(1 / (2 * h))
			w := dense.Vec3(m.AngularVelocityAt(tt))
			if !near(fd, w, 1e-6) {
				t.Errorf("t=%v: finite-difference angular velocity %v, AngularVelocityAt %v", tt, fd, w)
			}
			if k == 1 {
				speed0 = w.Norm()
			} else if math.Abs(w.Norm()-speed0) > 1e-12 {
				t.Errorf("segment %d: angular speed %v at t=%v, %v at its start", s, w.Norm(), tt, speed0)
			}
			// The step from tt turns by the same angle anywhere in the segment.
			if d := relAngle(R, m.Rotation(tt+0.01)).Norm(); math.Abs(d-0.01*speed0) > 1e-9 {
				t.Errorf("t=%v: turned %v in 0.01 s, want %v", tt, d, 0.01*speed0)
			}
		}
	}
	consistency(t, m, -1, 4)
	if got := m.Offset(1); !near(got, [3]float64{0.1, 0, 0}, 1e-15) {
		t.Errorf("Offset(1) = %v", got)
	}
	// Without orientations a keyframe motion does not rotate.
	plain := &Motion{Keyframes: []Keyframe{{T: 0}, {T: 1, Offset: [3]float64{1, 0, 0}}}}
	if plain.Rotates() || plain.Rotation(0.5) != dense.Identity3 {
		t.Error("keyframes without orientation rotate")
	}
}

// TestMotionAngularVelocity: the velocity form turns at its angular velocity
// (deg/s) during [start, stop) and holds its rotation after.
func TestMotionAngularVelocity(t *testing.T) {
	w := [3]float64{0, 0, 90}
	m := &Motion{AngularVelocity: &w, Start: 1, Stop: 3}
	if !m.Rotates() || m.Offset(2) != ([3]float64{}) || m.VelocityAt(2) != ([3]float64{}) {
		t.Fatal("angular-only motion: rotates/offset/velocity wrong")
	}
	x := dense.Vec3{1, 0, 0}
	cases := []struct {
		t    float64
		want dense.Vec3
	}{{0, x}, {1, x}, {2, dense.Vec3{0, 1, 0}}, {3, dense.Vec3{-1, 0, 0}}, {10, dense.Vec3{-1, 0, 0}}}
	for _, c := range cases {
		if got := dense.Mat3(m.Rotation(c.t)).MulVec(x); !near(got, c.want, 1e-15) {
			t.Errorf("Rotation(%v) x = %v, want %v", c.t, got, c.want)
		}
	}
	for _, c := range []struct {
		t    float64
		want [3]float64
	}{{0.5, [3]float64{}}, {1, [3]float64{0, 0, math.Pi / 2}}, {2.9, [3]float64{0, 0, math.Pi / 2}}, {3, [3]float64{}}} {
		if got := m.AngularVelocityAt(c.t); !near(got, c.want, 1e-15) {
			t.Errorf("AngularVelocityAt(%v) = %v, want %v", c.t, got, c.want)
		}
	}
	zero := [3]float64{}
	if (&Motion{AngularVelocity: &zero}).Rotates() {
		t.Error("zero angular velocity rotates")
	}
}

// TestRotationFieldsValidated: the new fields are checked, naming the field.
func TestRotationFieldsValidated(t *testing.T) {
	obst := func(o map[string]any) func(m map[string]any) {
		return func(m map[string]any) { m["obstacles"] = []any{o} }
	}
	cases := []struct {
		name  string
		f     func(m map[string]any)
		parts []string
	}{
		{"sphere orientation", obst(map[string]any{"name": "s", "type": "sphere", "radius": 1, "orientation": []any{0, 0, 10}}),
			[]string{"obstacles[0].orientation", "not used by a sphere"}},
		{"plane orientation", obst(map[string]any{"name": "p", "type": "plane", "normal": []any{0, 0, 1}, "orientation": []any{10, 0, 0}}),
			[]string{"obstacles[0].orientation", "not used by a plane"}},
		{"point orientation", obst(map[string]any{"name": "p", "type": "point", "normal": []any{0, 0, 1}, "orientation": []any{10, 0, 0}}),
			[]string{"obstacles[0].orientation", "not used by a point"}},
		{"orientation length", obst(map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1}, "orientation": []any{0, 0}}),
			[]string{"obstacles[0].orientation"}},
		{"pivot without rotation", obst(map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1},
			"motion": map[string]any{"velocity": []any{1, 0, 0}, "pivot": []any{0, 0, 0}}}),
			[]string{"obstacles[0].motion.pivot", "only used with a rotating motion"}},
		{"angular velocity with keyframes", obst(map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1},
			"motion": map[string]any{"angular_velocity": []any{0, 0, 10}, "keyframes": []any{map[string]any{"t": 0}, map[string]any{"t": 1}}}}),
			[]string{"obstacles[0].motion.angular_velocity", "velocity form"}},
		{"angular velocity with interpolation", obst(map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1},
			"motion": map[string]any{"angular_velocity": []any{0, 0, 10}, "interpolation": "linear"}}),
			[]string{"obstacles[0].motion.interpolation", "only used with keyframes"}},
		{"keyframe orientation typo", obst(map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1},
			"motion": map[string]any{"keyframes": []any{map[string]any{"t": 0}, map[string]any{"t": 1, "orientaton": []any{0, 0, 1}}}}}),
			[]string{"orientaton", "unknown field"}},
		{"pin pivot without rotation", func(m map[string]any) {
			body0(m)["pins"] = []any{map[string]any{"at": []any{0, 0}, "motion": map[string]any{"velocity": []any{0, 0, 1}, "pivot": []any{0, 0, 0}}}}
		}, []string{"bodies[0].pins[0].motion.pivot", "only used with a rotating motion"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(modify(t, c.f), "bad.json")
			wantErr(t, err, append([]string{"bad.json"}, c.parts...)...)
		})
	}
	// A rod pin's rotating motion must name its pivot.
	data, err := json.Marshal(mustBuiltin(t, "rod-hang"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	st := m["rods"].(map[string]any)["strands"].([]any)[0].(map[string]any)
	st["pins"] = []any{map[string]any{"node": 0, "motion": map[string]any{"angular_velocity": []any{0, 0, 10}}}}
	data, _ = json.Marshal(m)
	_, err = Parse(data, "rod.json")
	wantErr(t, err, "rods.strands[0].pins[0].motion.pivot", "required")

	// Valid: a turned box and capsule, rotating motions with and without a pivot.
	ok := modify(t, func(m map[string]any) {
		m["obstacles"] = []any{
			map[string]any{"name": "b", "type": "box", "half_extents": []any{1, 1, 1}, "orientation": []any{0, 0, 17},
				"motion": map[string]any{"angular_velocity": []any{0, 0, 10}, "velocity": []any{0, 0, 1}, "start": 1}},
			map[string]any{"name": "c", "type": "capsule", "radius": 0.1, "a": []any{0, 0, 0}, "b": []any{1, 0, 0}, "orientation": []any{0, 30, 0},
				"motion": map[string]any{"pivot": []any{0, 0, 0}, "keyframes": []any{map[string]any{"t": 0}, map[string]any{"t": 1, "orientation": []any{0, 0, 90}}}}},
		}
	})
	s, err := Parse(ok, "ok.json")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := s.Model()
	if err != nil {
		t.Fatal(err)
	}
	b, c := mod.Obstacles[0], mod.Obstacles[1]
	if !b.Rotated || b.Rotation != dense.Mat3(rotationXYZ([3]float64{0, 0, 17})) || b.Pivot != b.Center {
		t.Errorf("box: rotated %v rotation %v pivot %v", b.Rotated, b.Rotation, b.Pivot)
	}
	if !c.Rotated || c.Pivot != (dense.Vec3{}) {
		t.Errorf("capsule: rotated %v pivot %v", c.Rotated, c.Pivot)
	}
	if mod.Bodies[0].Pins[0].Pivot != dense.Vec3(s.Bodies[0].Position) {
		t.Errorf("pin pivot %v, want the body's position %v", mod.Bodies[0].Pins[0].Pivot, s.Bodies[0].Position)
	}
}
