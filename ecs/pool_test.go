package ecs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestPoolCoversEveryIndexOnce(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		p := NewPool(workers)
		for _, n := range []int{0, 1, 63, 64, 65, 1000, 100003} {
			hits := make([]int32, n)
			p.For(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					hits[i]++
				}
			})
			for i, h := range hits {
				if h != 1 {
					t.Fatalf("workers=%d n=%d: index %d visited %d times", workers, n, i, h)
				}
			}
		}
		p.Close()
	}
}

func TestPoolNoAllocations(t *testing.T) {
	p := NewPool(4)
	defer p.Close()
	out := make([]float64, 10000)
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = float64(i) * 0.5
		}
	}
	if a := testing.AllocsPerRun(50, func() { p.For(len(out), body) }); a != 0 {
		t.Fatalf("For allocates %v times per call", a)
	}
}

func TestWorkerCountEnv(t *testing.T) {
	t.Setenv("LOOM_WORKERS", "3")
	if n, err := WorkerCount(); err != nil || n != 3 {
		t.Fatalf("LOOM_WORKERS=3: got %d, %v", n, err)
	}
	t.Setenv("LOOM_WORKERS", "zero")
	if _, err := WorkerCount(); err == nil {
		t.Fatal("LOOM_WORKERS=zero: want an error")
	}
}

type countSys struct {
	name string
	n    *int
	fail bool
}

func (s countSys) Name() string { return s.name }
func (s countSys) Step(*World) error {
	*s.n++
	if s.fail {
		return errors.New("boom")
	}
	return nil
}

func TestSchedulerOrderAndErrors(t *testing.T) {
	w := NewWorld(1)
	defer w.Close()
	AddResource(w, &Clock{Step: 7})
	var a, b int
	s := NewScheduler(countSys{"a", &a, false}, countSys{"b", &b, true})
	err := s.Step(w)
	if err == nil || err.Error() != "step 7: system b: boom" {
		t.Fatalf("got error %v", err)
	}
	if a != 1 || b != 1 {
		t.Fatalf("systems ran a=%d b=%d times", a, b)
	}
	if ts := s.Timings(); len(ts) != 2 || ts[0].System != "a" || ts[1].System != "b" {
		t.Fatalf("timings %+v", ts)
	}
}

// BenchmarkPoolShortLoops times loops of two 25 us chunks with 5 us of
// serial work between them, as a step's passes run: on two workers a loop
// should take about one chunk, not two (with parked workers it took two:
// waking one took longer than a chunk).
func BenchmarkPoolShortLoops(b *testing.B) {
	spin := func(d time.Duration) {
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	body := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			spin(25 * time.Microsecond)
		}
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			p := NewPool(workers)
			defer p.Close()
			for i := 0; i < b.N; i++ {
				p.For(2, body)
				spin(5 * time.Microsecond)
			}
		})
	}
}

// TestWorkerList: a comma-separated list of worker counts parses in order,
// spaces allowed; an entry that is not an integer, or out of CheckWorkers'
// range, is an error naming the source.
func TestWorkerList(t *testing.T) {
	ws, err := WorkerList("src", "1, 16,4")
	if err != nil || len(ws) != 3 || ws[0] != 1 || ws[1] != 16 || ws[2] != 4 {
		t.Fatalf("got %v, %v", ws, err)
	}
	for _, bad := range []string{"", "1,x", "0", "2,,4", "1025"} {
		if _, err := WorkerList("src", bad); err == nil || !strings.Contains(err.Error(), "src") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
