package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/loomsim/loom/solver/amg"
	"github.com/loomsim/loom/solver/sparse"
)

func envf(k string, d float64) float64 {
	if v := os.Getenv(k); v != "" {
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return d
}

func TestAMGExplore(t *testing.T) {
	res := os.Getenv("AMGX_RES")
	if res == "" {
		t.Skip()
	}
	c := Case{Name: "x", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", res}}}
	sim, err := c.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	for i := 0; i < 20; i++ {
		if err := sim.Step(); err != nil {
			t.Fatal(err)
		}
	}
	st := sim.State
	A := st.A
	n := A.N
	tol := 1e-4
	if v := os.Getenv("AMGX_TOL"); v != "" {
		tol, _ = strconv.ParseFloat(v, 64)
	}
	var r sparse.Runner = sparse.Serial{}
	if os.Getenv("AMGX_POOL") != "" {
		r = sim.World.Pool
	}
	pcg := sparse.NewPCG(n)
	x := make([]float64, 3*n)
	t0 := time.Now()
	rs, err := pcg.Solve(r, A, st.B, x, st.PinFilter, st.PinZ, tol, 5000)
	fmt.Printf("BJ: %+v err=%v %v\n", rs, err, time.Since(t0))
	var p *amg.Preconditioner
	y := make([]float64, 3*n)
	for _, cfg := range strings.Split(os.Getenv("AMGX_CFGS"), ";") {
		o := amg.DefaultOptions()
		var sm int
		fmt.Sscanf(cfg, "%g,%d,%d,%g,%d", &o.Theta, &o.Sweeps, &sm, &o.Damping, &o.MaxCoarse)
		o.Smoother = amg.Smoother(sm)
		p, err = amg.New(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Setup(r, A); err != nil {
			t.Fatal(err)
		}
		pcg.SetPreconditioner(p)
		clear(y)
		rs, err = pcg.Solve(r, A, st.B, y, st.PinFilter, st.PinZ, tol, 5000)
		fmt.Printf("%s: levels %v AMG: %+v err=%v\n", cfg, p.Levels(), rs, err)
	}
	c0 := cpuTime()
	for i := 0; i < 5; i++ {
		p.Setup(r, A)
	}
	c1 := cpuTime()
	for i := 0; i < 50*int(envf("AMGX_REP", 1)); i++ {
		p.Apply(r, st.B, y)
	}
	c2 := cpuTime()
	for i := 0; i < 50; i++ {
		A.MulVec(r, st.B, y)
	}
	c3 := cpuTime()
	fmt.Printf("cpu ms: numeric setup %.2f  vcycle %.2f  spmv %.2f\n", (c1-c0)/5, (c2-c1)/50, (c3-c2)/50)
	d := 0.0
	nx := 0.0
	for i := range x {
		d = max(d, abs(x[i]-y[i]))
		nx = max(nx, abs(x[i]))
	}
	fmt.Printf("max diff %g max |x| %g\n", d, nx)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestAMGKeepP(t *testing.T) {
	res := os.Getenv("AMGX_KEEP")
	if res == "" {
		t.Skip()
	}
	c := Case{Name: "x", Scene: "drape", Sets: [][2]string{{"bodies.0.resolution", res}, {"solver.preconditioner", "amg"}}}
	sim, err := c.Load(1)
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	var r sparse.Runner = sparse.Serial{}
	keep := amg.DefaultOptions()
	keep.KeepProlongator = true
	pk, _ := amg.New(keep)
	pf, _ := amg.New(amg.DefaultOptions())
	st := sim.State
	for step := 0; step < 100; step++ {
		if err := sim.Step(); err != nil {
			t.Fatal(err)
		}
		if step%10 != 0 {
			continue
		}
		n := st.A.N
		pcg := sparse.NewPCG(n)
		var its [2]int
		for k, p := range []*amg.Preconditioner{pk, pf} {
			if err := p.Setup(r, st.A); err != nil {
				t.Fatal(err)
			}
			pcg.SetPreconditioner(p)
			y := make([]float64, 3*n)
			rs, err := pcg.Solve(r, st.A, st.B, y, st.PinFilter, st.PinZ, 1e-4, 5000)
			if err != nil {
				t.Fatal(err)
			}
			its[k] = rs.Iterations
		}
		fmt.Printf("step %d: keep-P %d fresh-P %d (sim's own %d)\n", step, its[0], its[1], st.LastSolve.Iterations)
	}
}
