package strainlimit

import (
	"os"
	"strconv"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	ns := os.Getenv("SL_EXPLORE")
	if ns == "" {
		t.Skip()
	}
	n, _ := strconv.Atoi(ns)
	for _, m := range []string{"al", "lbfgs", "jacobi"} {
		p, err := Figure7(n)
		if err != nil {
			t.Fatal(err)
		}
		last := time.Duration(0)
		tr := func(it int, el time.Duration, v float64) {
			if el-last > 200*time.Millisecond || it < 3 {
				t.Logf("%s it %d t %v viol %.4g", m, it, el, v)
				last = el
			}
		}
		var res Result
		switch m {
		case "al":
			res, err = AugmentedLagrangian(p, Settings{Trace: tr, MaxTime: 10 * time.Second}, nil)
		case "lbfgs":
			res, err = AugmentedLagrangian(p, Settings{Method: LBFGS, Trace: tr, MaxTime: 10 * time.Second}, nil)
		default:
			res, err = Jacobi(p, JacobiSettings{Trace: tr, MaxTime: 10 * time.Second, MaxIterations: 1 << 30}, nil)
		}
		t.Logf("%s: %+v err %v", m, res, err)
	}
}
