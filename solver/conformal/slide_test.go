package conformal

import (
	"math"
	"testing"

	"github.com/loomsim/loom/solver/dense"
)

// EOL sliding: the material flows through the conformal nodes, so their
// material coordinates U move (here by dx per step along -x) while their
// world positions stay on the feature. Preprocess runs after every step and
// must keep the mesh valid and the faces around the chain well shaped: the
// nodes the chain runs into are collapsed onto it before a face inverts.
func TestSliding(t *testing.T) {
	for _, tc := range []struct {
		n        int
		dx, stop float64
		tilt     float64 // degrees from the y axis
	}{
		{10, 0.002, 0.06, 0},
		{16, 0.002, 0.06, 0},
		{16, 0.004, 0.06, 0},
		{25, 0.001, 0.06, 0},
		{16, 0.002, 0.06, 20},
		{13, 0.002, 0.06, -35},
	} {
		p := testParams()
		m := grid(tc.n)
		m.Locked = make([]bool, len(m.X))
		m.Locked[len(m.X)-1] = true               // a pinned corner and a pinned interior node off the path
		m.Locked[(tc.n-1)*(tc.n+1)+tc.n-1] = true // (1-h, 1-h), right of every line
		th := tc.tilt * math.Pi / 180
		x0 := 0.3175
		if tc.tilt < 0 {
			x0 = 0.9475 // the line leans left: enter through the bottom border
		}
		hits := lineHits(m, dense.Vec2{x0, 0}, dense.Vec2{math.Sin(th), math.Cos(th)}, 0)
		cur, res, err := Preprocess(m, noFeatures(len(m.X)), hits, p)
		if err != nil {
			t.Fatal(err)
		}
		checkMesh(t, m, cur, res, true)
		checkChain(t, cur, res, 0, true)
		amin, aminNear, worstIll, worstShort, worstTrail := 180.0, 180.0, 0, 0, 0
		steps, splits, collapses, maxIter, unconverged := 0, 0, 0, 0, 0
		run, maxRun := 0, 0 // consecutive steps with non-trailing faces below MinAngle
		for {
			c := chainOf(cur, res, 0)
			if min(cur.U[c[0]][0], cur.U[c[len(c)-1]][0]) < tc.stop {
				break
			}
			// Slide: U of the conformal nodes moves, X stays.
			next := cur.Clone()
			for _, n := range c {
				next.U[n][0] -= tc.dx
			}
			if err := next.Validate(); err != nil {
				t.Fatalf("n=%d step %d: sliding by %g inverted a face before Preprocess could act: %v", tc.n, steps, tc.dx, err)
			}
			feats := Features{Feature: res.Feature, T: res.T, Point: res.Point}
			out, r, err := Preprocess(next, feats, nil, p)
			if err != nil {
				t.Fatalf("n=%d step %d: %v", tc.n, steps, err)
			}
			checkMesh(t, next, out, r, false)
			ch := checkChain(t, out, r, 0, true)
			for _, k := range []int{0, len(ch) - 1} {
				if u := out.U[ch[k]]; u[1] != 0 && u[1] != 1 {
					t.Fatalf("n=%d step %d: chain end left the border: U %v", tc.n, steps, u)
				}
			}
			for i, o := range r.NodeOld {
				if o >= 0 && next.Locked[o] != out.Locked[i] {
					t.Fatalf("locked flag moved")
				}
			}
			nLocked := 0
			for _, l := range out.Locked {
				if l {
					nLocked++
				}
			}
			if nLocked != 2 {
				t.Fatalf("n=%d step %d: %d locked nodes left, want 2", tc.n, steps, nLocked)
			}
			// Behind the chain: right of the feature line, shifted with it.
			shift := float64(steps+1) * tc.dx
			dir := dense.Vec2{math.Sin(th), math.Cos(th)}
			behind := func(u dense.Vec2) bool { return cross2(dir, u.Sub(dense.Vec2{x0 - shift, 0})) < 0 }
			st := shape(out, r, p.MinAngle, p.MinEdge, behind)
			amin, aminNear = math.Min(amin, st.amin), math.Min(aminNear, st.aminNear)
			worstIll, worstShort, worstTrail = max(worstIll, st.nIll-st.nTrail), max(worstShort, st.nShort), max(worstTrail, st.nTrail)
			if st.nIll > st.nTrail {
				run++
				maxRun = max(maxRun, run)
			} else {
				run = 0
			}
			if st.nIll != r.IllShaped || st.nShort != r.Short {
				t.Fatalf("n=%d step %d: reported ill %d short %d, counted %d %d", tc.n, steps, r.IllShaped, r.Short, st.nIll, st.nShort)
			}
			splits += r.Splits
			collapses += r.Collapses
			maxIter = max(maxIter, r.Iterations)
			if !r.Converged {
				unconverged++
			}
			cur, res = out, r
			steps++
		}
		c := chainOf(cur, res, 0)
		t.Logf("n=%d dx=%g tilt %g deg: %d steps, chain foot x %.4f -> %.4f (%d nodes, %d faces); collapses %d splits %d; max %d iterations, %d steps unconverged; faces at the chain: min angle %.1f deg (%.1f deg leaving out trailing faces), at worst %d non-trailing and %d trailing faces below %.0f deg and %d edges below MinEdge in one step",
			tc.n, tc.dx, tc.tilt, steps, x0, cur.U[c[0]][0], len(c), len(cur.F), collapses, splits, maxIter, unconverged, amin, aminNear, worstIll, worstTrail, p.MinAngle*180/math.Pi, worstShort)
		if worstShort != 0 {
			t.Errorf("n=%d: edges touching the chain below MinEdge remained", tc.n)
		}
		// The paper: "it may not be possible to remove all ill-conditioned
		// triangles". A face below MinAngle may appear after one step's
		// preprocessing, but the next must remove it.
		if maxRun > 1 {
			t.Errorf("n=%d: non-trailing faces below MinAngle remained for %d consecutive steps", tc.n, maxRun)
		}
		if unconverged != 0 {
			t.Errorf("n=%d: %d steps hit MaxIter", tc.n, unconverged)
		}
	}
}
