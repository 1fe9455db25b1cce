package bench

import (
	"fmt"
	"os"
	"strconv"
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
	o := amg.DefaultOptions()
	o.Theta = envf("AMGX_THETA", o.Theta)
	o.MaxCoarse = int(envf("AMGX_MAXC", float64(o.MaxCoarse)))
	o.Sweeps = int(envf("AMGX_SWEEPS", float64(o.Sweeps)))
	o.Damping = envf("AMGX_DAMP", o.Damping)
	p, err := amg.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	if err := p.Setup(r, A); err != nil {
		t.Fatal(err)
	}
	t1 := time.Now()
	if err := p.Setup(r, A); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("levels %v symbolic+numeric %v numeric %v\n", p.Levels(), t1.Sub(t0), time.Since(t1))
	pcg.SetPreconditioner(p)
	y := make([]float64, 3*n)
	t0 = time.Now()
	rs, err = pcg.Solve(r, A, st.B, y, st.PinFilter, st.PinZ, tol, 5000)
	fmt.Printf("AMG: %+v err=%v %v\n", rs, err, time.Since(t0))
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
