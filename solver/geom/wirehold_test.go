package geom

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// segmentAxisDistance is the distance of segment a-b from the y axis: the
// distance of the origin from the segment projected on the xz plane (shares
// nothing with WireHold's arcs and tangent lines).
func segmentAxisDistance(a, b dense.Vec3) float64 {
	ax, az, dx, dz := a[0], a[2], b[0]-a[0], b[2]-a[2]
	s := 0.0
	if l := dx*dx + dz*dz; l > 0 {
		s = math.Max(0, math.Min(1, -(ax*dx+az*dz)/l))
	}
	return math.Hypot(ax+s*dx, az+s*dz)
}

// TestWireHold checks WireHold against a brute-force search in the plane
// across the wire: the held point's segments to every neighbour clear the
// cylinder of radius R, and no point of a fine polar grid that clears them
// all is nearer to the axis.
func TestWireHold(t *testing.T) {
	const R = 0.005
	f := Feature{Kind: FeatureEdge, Wire: true, Radius: R, P0: dense.Vec3{0, -1, 0}, Dir: dense.Vec3{0, 1, 0}, Length: 2}
	clears := func(x dense.Vec3, nb []dense.Vec3) bool {
		for _, q := range nb {
			if segmentAxisDistance(x, q) < R*(1-1e-9) {
				return false
			}
		}
		return true
	}
	// A cloth over the top of the wire, hanging straight down on one side
	// at the cylinder's tangent x = R: held at the corner (R, R) of the two
	// tangent lines, sqrt(2) R from the axis (45 degrees round), not at the
	// top (0, R) of Project, from which the face to (0.004, -0.02) cuts the
	// wire.
	p := dense.Vec3{0, 0.1, R}
	nb := []dense.Vec3{{-0.02, 0.1, R}, {R, 0.11, -0.02}}
	got := f.WireHold(p, slices.Values(nb))
	if want := (dense.Vec3{R, 0.1, R}); got.Sub(want).Norm() > 1e-12 {
		t.Errorf("one side hanging: held at %v, want %v", got, want)
	}
	if d := segmentAxisDistance(f.Project(p), dense.Vec3{0.004, 0.11, -0.02}); d > 0.003 {
		t.Errorf("the face from Project's point should cut the 3 mm wire: distance %.4g", d)
	}
	// Flat over the wire: Project's point.
	flat := []dense.Vec3{{-0.02, 0.1, R}, {0.02, 0.1, R}}
	if got := f.WireHold(p, slices.Values(flat)); got.Sub(f.Project(p)).Norm() > 1e-12 {
		t.Errorf("flat: held at %v, want %v", got, f.Project(p))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	angle := func(x dense.Vec3) float64 { return math.Atan2(x[2], x[0]) }
	gap := func(a, b float64) float64 { return math.Abs(math.Remainder(a-b, 2*math.Pi)) }
	capped, onCylinder := 0, 0
	for trial := range 100 {
		// A vertex round the wire and 2-5 neighbours at 1.05 R to 6 R,
		// within 100 degrees either side of it.
		phi := rng.Float64() * 2 * math.Pi
		x := dense.Vec3{R * math.Cos(phi), rng.Float64() - 0.5, R * math.Sin(phi)}
		nb = nb[:0]
		for range 2 + rng.IntN(4) {
			a := phi + (rng.Float64()*2-1)*100*math.Pi/180
			r := R * (1.05 + 5*rng.Float64())
			nb = append(nb, dense.Vec3{r * math.Cos(a), x[1] + 0.02*(rng.Float64()-0.5), r * math.Sin(a)})
		}
		got := f.WireHold(x, slices.Values(nb))
		if math.Abs(got[1]-x[1]) > 1e-12 {
			t.Fatalf("trial %d: held off the vertex's cross-section: %v from %v", trial, got, x)
		}
		dist := math.Hypot(got[0], got[2])
		switch {
		case dist > R/math.Cos(MaxWireWrap)*(1+1e-9):
			t.Fatalf("trial %d: %.4g from the axis, beyond the cap", trial, dist)
		case dist >= R/math.Cos(MaxWireWrap)*(1-1e-9):
			capped++
			continue // the faces may cut the cylinder
		case !clears(got, nb):
			t.Fatalf("trial %d: held at %v, a segment to a neighbour cuts the cylinder", trial, got)
		}
		// Brute force over a polar grid within 90 degrees of the held
		// point (the cloth may also clear the wire wrapped round its other
		// side): no clearing point nearer the axis; on the cylinder, none
		// nearer to the vertex's direction.
		for i := range 1440 {
			a := float64(i) * math.Pi / 720
			if gap(a, angle(got)) > math.Pi/2 {
				continue
			}
			if dist < R*(1+1e-9) {
				y := dense.Vec3{R * math.Cos(a), x[1], R * math.Sin(a)}
				if clears(y, nb) && gap(a, phi) < gap(angle(got), phi)-1e-3 {
					t.Fatalf("trial %d: %v on the cylinder clears every neighbour, nearer to %v than the held %v", trial, y, x, got)
				}
				continue
			}
			for r := R; r < dist*(1-2e-3); r *= 1.002 {
				y := dense.Vec3{r * math.Cos(a), x[1], r * math.Sin(a)}
				if clears(y, nb) {
					t.Fatalf("trial %d: %v (%.4g from the axis) clears every neighbour, nearer than the held %v (%.4g)", trial, y, r, got, dist)
				}
			}
		}
		if dist < R*(1+1e-9) {
			onCylinder++
		}
	}
	t.Logf("100 trials: %d capped, %d on the cylinder, %d at a corner", capped, onCylinder, 100-capped-onCylinder)
	if capped > 50 || onCylinder == 0 || capped+onCylinder == 100 {
		t.Errorf("the trials do not cover the cases")
	}
}
