package rod

import (
	"math/rand"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

var (
	sinkF float64
	sinkV dense.Vec3
	g8    [8]float64
	h64   [64]float64
	g12   [12]float64
	h144  [144]float64
	g18   [18]float64
	h324  [324]float64
)

var (
	bxa = dense.Vec3{0.1, -0.2, 0.3}
	bxb = dense.Vec3{0.9, 0.1, 0.2}
	bxc = dense.Vec3{1.7, 0.6, 0.1}
)

func TestKernelAllocs(t *testing.T) {
	p := EILPoint(bxa, bxc, 0, 2, 0.7)
	y := NodePoint(bxb)
	a := Anchor{U: 0.1, Kf: 3}
	fns := map[string]func(){
		"StretchEnergy":   func() { sinkF = StretchEnergy(2, bxa, bxb, 0, 1) },
		"StretchGradHess": func() { sinkF = StretchGradHess(2, bxa, bxb, 0, 1, &g8, &h64) },
		"BendEnergy":      func() { sinkF = BendEnergy(2, bxa, bxb, bxc, 0, 1, 2) },
		"BendGradHess":    func() { sinkF = BendGradHess(2, bxa, bxb, bxc, 0, 1, 2, &g12, &h144) },
		"BendGradHessPSD": func() { sinkF = BendGradHessPSD(2, bxa, bxb, bxc, 0, 1, 2, &g12, &h144) },
		"EILPoint":        func() { p = EILPoint(bxa, bxc, 0, 2, 0.7) },
		"ContactGradHess": func() { sinkF, _ = ContactGradHess(1e3, &p, &y, &g18, &h324) },
		"SegmentMass":     func() { SegmentMass(bxa, bxb, 0, 1, 0.3, &h64) },
		"Anchor":          func() { a.Update(a.Force(0.5), 0.1, 0.5) },
		"Transitions": func() {
			sinkF = EoLToEILU(bxa, bxb, bxc, 0, 1, 2) + EILToEoLU(bxa, bxb, bxc, 0, 1, 2)
			sinkV, sinkF = ToEoL(bxa, bxc, bxb, 0, 1, 2, OptimalU)
		},
	}
	for name, f := range fns {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %g times", name, n)
		}
	}
}

func BenchmarkAssignNodes(b *testing.B) {
	for _, n := range []int{16, 256} {
		rng := rand.New(rand.NewSource(1))
		u := make([]float64, n)
		fixed := make([]bool, n)
		for i := range u {
			u[i] = rng.Float64()
		}
		fixed[0], fixed[n-1] = true, true
		order := make([]int, n)
		kind := make([]Kind, n)
		b.Run(map[int]string{16: "n=16", 256: "n=256"}[n], func(b *testing.B) {
			for b.Loop() {
				AssignNodes(u, fixed, 0.5/float64(n), order, kind)
			}
		})
	}
}

func BenchmarkStretchEnergy(b *testing.B) {
	for b.Loop() {
		sinkF = StretchEnergy(2, bxa, bxb, 0, 1)
	}
}

func BenchmarkStretchGradHess(b *testing.B) {
	for b.Loop() {
		sinkF = StretchGradHess(2, bxa, bxb, 0, 1, &g8, &h64)
	}
}

func BenchmarkBendEnergy(b *testing.B) {
	for b.Loop() {
		sinkF = BendEnergy(2, bxa, bxb, bxc, 0, 1, 2)
	}
}

func BenchmarkBendGradHess(b *testing.B) {
	b.Run("bent", func(b *testing.B) {
		for b.Loop() {
			sinkF = BendGradHess(2, bxa, bxb, bxc, 0, 1, 2, &g12, &h144)
		}
	})
	b.Run("straight", func(b *testing.B) { // series branch
		xc := bxb.Add(bxb.Sub(bxa))
		for b.Loop() {
			sinkF = BendGradHess(2, bxa, bxb, xc, 0, 1, 2, &g12, &h144)
		}
	})
}

func BenchmarkBendGradHessPSD(b *testing.B) {
	b.Run("bent", func(b *testing.B) {
		for b.Loop() {
			sinkF = BendGradHessPSD(2, bxa, bxb, bxc, 0, 1, 2, &g12, &h144)
		}
	})
	b.Run("slightly-bent", func(b *testing.B) { // theta about 1e-3
		xc := bxb.Add(bxb.Sub(bxa)).Add(dense.Vec3{1e-3, -2e-3, 1e-3})
		for b.Loop() {
			sinkF = BendGradHessPSD(2, bxa, bxb, xc, 0, 1, 2, &g12, &h144)
		}
	})
}

func BenchmarkEILPoint(b *testing.B) {
	for b.Loop() {
		p := EILPoint(bxa, bxc, 0, 2, 0.7)
		sinkV = p.X
	}
}

func BenchmarkContactGradHess(b *testing.B) {
	eil := EILPoint(bxa, bxc, 0, 2, 0.7)
	eil2 := EILPoint(bxb, bxc, -1, 3, 0.1)
	node := NodePoint(bxb)
	b.Run("EIL-EoL", func(b *testing.B) {
		for b.Loop() {
			sinkF, _ = ContactGradHess(1e3, &eil, &node, &g18, &h324)
		}
	})
	b.Run("EIL-EIL", func(b *testing.B) {
		for b.Loop() {
			sinkF, _ = ContactGradHess(1e3, &eil, &eil2, &g18, &h324)
		}
	})
}

func BenchmarkSegmentMass(b *testing.B) {
	for b.Loop() {
		SegmentMass(bxa, bxb, 0, 1, 0.3, &h64)
	}
}

func BenchmarkAnchorUpdate(b *testing.B) {
	a := Anchor{U: 0.1, Kf: 3}
	for b.Loop() {
		a.Update(a.Force(0.5), 0.1, 0.5)
	}
}

func BenchmarkTransitions(b *testing.B) {
	b.Run("EoLToEILU", func(b *testing.B) {
		for b.Loop() {
			sinkF = EoLToEILU(bxa, bxb, bxc, 0, 1, 2)
		}
	})
	b.Run("EILToEoLU", func(b *testing.B) {
		for b.Loop() {
			sinkF = EILToEoLU(bxa, bxb, bxc, 0, 1, 2)
		}
	})
}

// BenchmarkBendRestGradHess: a rest-curved bend (rest angle 0.6 rad, bent
// 0.15 rad, the knit's contact nodes' case), exact and projected.
func BenchmarkBendRestGradHess(b *testing.B) {
	rc := NewRestCurve(1, []float64{0, 0.6, 0.6, 0})
	xc := bxb.Add(bxb.Sub(bxa)).Add(dense.Vec3{0.1, -0.05, 0.08})
	for _, project := range []bool{false, true} {
		b.Run(map[bool]string{false: "exact", true: "projected"}[project], func(b *testing.B) {
			for b.Loop() {
				sinkF = BendRestGradHess(2, rc, bxa, bxb, xc, 0.5, 1.5, 2.5, project, &g12, &h144)
			}
		})
	}
}
