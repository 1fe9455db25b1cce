package rod

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// kinds renders kinds in sorted order as a compact string: L (Lagrangian), E (EoL),
// I (EIL).
func kindsStr(order []int, kind []Kind) string {
	var b strings.Builder
	for _, i := range order {
		b.WriteByte("EIL"[kind[i]])
	}
	return b.String()
}

func TestAssignNodesCases(t *testing.T) {
	const d = 0.1
	cases := []struct {
		name  string
		u     []float64
		fixed []bool // nil: none fixed
		order []int
		kinds string // in sorted order
	}{
		{"empty", nil, nil, []int{}, ""},
		{"single", []float64{0.3}, nil, []int{0}, "E"},
		{"separated", []float64{0, 0.3, 0.6, 1}, []bool{true, false, false, true}, []int{0, 1, 2, 3}, "LEEL"},
		{"exactly d is kept", []float64{0, 0.1, 0.2}, nil, []int{0, 1, 2}, "EEE"},
		{"crossing (unsorted input)", []float64{1, 0.5, 0.3, 0}, []bool{true, false, false, true}, []int{3, 2, 1, 0}, "LEEL"},
		{"crossed pair within d", []float64{0, 0.52, 0.5, 1}, []bool{true, false, false, true}, []int{0, 2, 1, 3}, "LEIL"},
		{"cluster of 3", []float64{0, 0.5, 0.53, 0.56, 1}, []bool{true, false, false, false, true}, []int{0, 1, 2, 3, 4}, "LEIIL"},
		{"cluster of 4", []float64{0, 0.5, 0.51, 0.52, 0.53, 1}, []bool{true, false, false, false, false, true}, []int{0, 1, 2, 3, 4, 5}, "LEIIIL"},
		// chain with steps < d but total span > d: measured against the last EoL.
		{"chain", []float64{0, 0.5, 0.56, 0.62, 0.68, 1}, []bool{true, false, false, false, false, true}, []int{0, 1, 2, 3, 4, 5}, "LEIEIL"},
		{"free close after start", []float64{0, 0.05, 0.5, 1}, []bool{true, false, false, true}, []int{0, 1, 2, 3}, "LIEL"},
		{"free close before end", []float64{0, 0.5, 0.95, 1}, []bool{true, false, false, true}, []int{0, 1, 2, 3}, "LEIL"},
		{"fixed after close free", []float64{0, 0.45, 0.5, 1}, []bool{true, false, true, true}, []int{0, 1, 2, 3}, "LILL"},
		// the free EoL is demoted; the EIL nodes it had absorbed stay EIL.
		{"fixed after cluster", []float64{0, 0.42, 0.45, 0.5, 1}, []bool{true, false, false, true, true}, []int{0, 1, 2, 3, 4}, "LIILL"},
		// the fixed node is within d of an EIL node but >= d from the last non-EIL: kept, no demotion.
		{"fixed near EIL only", []float64{0, 0.3, 0.38, 0.45, 1}, []bool{true, false, false, true, true}, []int{0, 1, 2, 3, 4}, "LEILL"},
		{"two fixed within d", []float64{0, 0.5, 0.55, 1}, []bool{true, true, true, true}, []int{0, 1, 2, 3}, "LLLL"},
		{"free between close fixed", []float64{0, 0.5, 0.52, 0.55, 1}, []bool{true, true, false, true, true}, []int{0, 1, 2, 3, 4}, "LLILL"},
		{"ties by index", []float64{0, 0.5, 0.5, 0.5, 1}, []bool{true, false, false, false, true}, []int{0, 1, 2, 3, 4}, "LEIIL"},
		{"ties by index, reversed", []float64{1, 0.5, 0.5, 0.5, 0}, []bool{true, false, false, false, true}, []int{4, 1, 2, 3, 0}, "LEIIL"},
		{"all free cluster", []float64{0.2, 0.21, 0.22}, nil, []int{0, 1, 2}, "EII"},
		// a free node that slid off the start: documented, caller removes it.
		{"free before start within d", []float64{0, -0.05, 1}, []bool{true, false, true}, []int{1, 0, 2}, "IL" + "L"},
		{"tie with fixed end", []float64{0, 0, 1}, []bool{false, true, true}, []int{0, 1, 2}, "ILL"},
	}
	for _, c := range cases {
		n := len(c.u)
		order := make([]int, n)
		for i := range order {
			order[i] = 99 // garbage: AssignNodes must not depend on it
		}
		kind := make([]Kind, n)
		AssignNodes(c.u, c.fixed, d, order, kind)
		if !slices.Equal(order, c.order) {
			t.Errorf("%s: order %v want %v", c.name, order, c.order)
		}
		if got := kindsStr(order, kind); got != c.kinds {
			t.Errorf("%s: kinds %s want %s", c.name, got, c.kinds)
		}
	}
}

// TestAssignNodesProperties checks the invariants on random rods with fixed ends,
// free contacts inside and occasional interior fixed points.
func TestAssignNodesProperties(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const d = 0.05
	order := make([]int, 64)
	kind := make([]Kind, 64)
	for k := 0; k < 5000; k++ {
		n := 2 + rng.Intn(40)
		u := make([]float64, n)
		fixed := make([]bool, n)
		// ends at random indices
		perm := rng.Perm(n)
		u[perm[0]], fixed[perm[0]] = 0, true
		u[perm[1]], fixed[perm[1]] = 1, true
		for _, i := range perm[2:] {
			u[i] = 0.001 + 0.998*rng.Float64()
			if rng.Intn(4) == 0 { // clusters
				u[i] = 0.5 + 0.02*rng.Float64()
			}
			fixed[i] = rng.Intn(10) == 0
		}
		AssignNodes(u, fixed, d, order, kind)
		ord := order[:n]
		seen := make([]bool, n)
		for p, i := range ord {
			if seen[i] {
				t.Fatalf("order not a permutation: %v", ord)
			}
			seen[i] = true
			if p > 0 && (u[ord[p-1]] > u[i] || (u[ord[p-1]] == u[i] && ord[p-1] > i)) {
				t.Fatalf("order not sorted at %d", p)
			}
			if fixed[i] != (kind[i] == Lagrangian) {
				t.Fatalf("node %d fixed=%v kind=%v", i, fixed[i], kind[i])
			}
		}
		// consecutive non-EIL >= d apart unless both fixed; each EIL has non-EIL on
		// both sides and lies within d of one of them... (not required) ; count.
		prev := -1
		for p, i := range ord {
			if kind[i] == EIL {
				if prev < 0 {
					t.Fatalf("EIL node %d has no non-EIL node before it", i)
				}
				hasNext := false
				for _, j := range ord[p+1:] {
					if kind[j] != EIL {
						hasNext = true
						break
					}
				}
				if !hasNext {
					t.Fatalf("EIL node %d has no non-EIL node after it", i)
				}
				continue
			}
			if prev >= 0 && u[i]-u[prev] < d && !(fixed[i] && fixed[prev]) {
				t.Fatalf("consecutive non-EIL %d (u=%g) and %d (u=%g) closer than d", prev, u[prev], i, u[i])
			}
			prev = i
		}
		// Minimality of the paper's walk: a free node is EIL only if it is within d of
		// the previous non-EIL node, or it was demoted because the next non-EIL
		// node is fixed and within d of it.
		for p, i := range ord {
			if kind[i] != EIL {
				continue
			}
			var pv, nx = -1, -1
			for q := p - 1; q >= 0; q-- {
				if kind[ord[q]] != EIL {
					pv = ord[q]
					break
				}
			}
			for _, j := range ord[p+1:] {
				if kind[j] != EIL {
					nx = j
					break
				}
			}
			if !(u[i]-u[pv] < d || (fixed[nx] && u[nx]-u[i] < d)) && !closeChain(u, ord, kind, p, d) {
				t.Fatalf("node %d EIL without reason", i)
			}
		}
	}
}

// closeChain reports whether the EIL node at sorted position p was within d of an
// EoL node that was later demoted (then its nearest non-EIL is further away).
func closeChain(u []float64, ord []int, kind []Kind, p int, d float64) bool {
	for q := p - 1; q >= 0; q-- {
		if u[ord[p]]-u[ord[q]] >= d {
			return false
		}
		if kind[ord[q]] == EIL {
			return true
		}
	}
	return false
}

func TestAssignNodesAllocs(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	n := 200
	u := make([]float64, n)
	fixed := make([]bool, n)
	for i := range u {
		u[i] = rng.Float64()
	}
	fixed[0], fixed[n-1] = true, true
	order := make([]int, n)
	kind := make([]Kind, n)
	a := testing.AllocsPerRun(100, func() { AssignNodes(u, fixed, 0.01, order, kind) })
	if a != 0 {
		t.Fatalf("AssignNodes allocates %g times", a)
	}
}
