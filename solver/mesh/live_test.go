package mesh

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkLive compares l with a brute-force recomputation from its faces: the
// live faces around each vertex in order of creation, the vertex after each,
// FaceWith, Adjacent, BorderInfo and InputFace by scanning every face.
func checkLive(t *testing.T, l *Live, input [][3]int32) {
	t.Helper()
	nv := len(l.VF)
	live := 0
	for _, a := range l.Alive {
		if a {
			live++
		}
	}
	if live != l.NLive || len(l.Alive) != len(l.F) || len(l.FMark) != len(l.F) || len(l.VMark) != nv || len(l.VNext) != nv {
		t.Fatalf("counts: NLive %d (live %d), %d faces, %d alive, %d fmarks, %d verts, %d vmarks, %d vnext",
			l.NLive, live, len(l.F), len(l.Alive), len(l.FMark), nv, len(l.VMark), len(l.VNext))
	}
	for v := range int32(nv) {
		var wantF, wantN []int32
		for f, tri := range l.F {
			if k := Corner(tri, v); l.Alive[f] && k >= 0 {
				wantF = append(wantF, int32(f))
				wantN = append(wantN, tri[(k+1)%3])
			}
		}
		if !slices.Equal(l.VF[v], wantF) || !slices.Equal(l.VNext[v], wantN) {
			t.Fatalf("vertex %d: faces %v next %v, want %v %v", v, l.VF[v], l.VNext[v], wantF, wantN)
		}
		var nOut, nIn int
		out, in := int32(-1), int32(-1)
		for _, f := range wantF {
			tri := l.F[f]
			p := Corner(tri, v)
			if x := tri[(p+1)%3]; !liveHas(l, x, v) {
				nOut, out = nOut+1, x
			}
			if x := tri[(p+2)%3]; !liveHas(l, v, x) {
				nIn, in = nIn+1, x
			}
		}
		if a, b, c, d := l.BorderInfo(v); a != nOut || b != nIn || c != out || d != in {
			t.Fatalf("BorderInfo(%d) = %d %d %d %d, want %d %d %d %d", v, a, b, c, d, nOut, nIn, out, in)
		}
		if l.OnBorder(v) != (nOut+nIn > 0) {
			t.Fatalf("OnBorder(%d) wrong", v)
		}
		for b := range int32(nv) {
			want, adj := int32(-1), false
			for _, f := range wantF {
				if want < 0 && HasDirected(l.F[f], v, b) {
					want = f
				}
				adj = adj || Corner(l.F[f], b) >= 0
			}
			if got := l.FaceWith(v, b); got != want {
				t.Fatalf("FaceWith(%d, %d) = %d, want %d", v, b, got, want)
			}
			if l.Adjacent(v, b) != adj {
				t.Fatalf("Adjacent(%d, %d) = %v, want %v", v, b, !adj, adj)
			}
		}
	}
	for f, tri := range l.F {
		want := int32(-1)
		if f < len(input) {
			want = int32(f)
		} else if tri[0] < int32(l.V0) && tri[1] < int32(l.V0) && tri[2] < int32(l.V0) {
			for g, u := range input {
				if HasDirected(u, tri[0], tri[1]) && Corner(u, tri[2]) >= 0 {
					want = int32(g)
					break
				}
			}
		}
		if got := l.InputFace(int32(f)); got != want {
			t.Fatalf("InputFace(%d) = %d, want %d", f, got, want)
		}
	}
}

// nondegenerate returns the faces with three different vertices: a Live
// holds no others.
func nondegenerate(faces [][3]int32) [][3]int32 {
	var out [][3]int32
	for _, f := range faces {
		if f[0] != f[1] && f[1] != f[2] && f[2] != f[0] {
			out = append(out, f)
		}
	}
	return out
}

func liveHas(l *Live, a, b int32) bool {
	for f, tri := range l.F {
		if l.Alive[f] && HasDirected(tri, a, b) {
			return true
		}
	}
	return false
}

// A Live under random edits (face kills, new vertices and faces), reused
// for meshes of changing sizes, matches the brute-force recomputation
// after each edit.
func TestLiveMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var l Live
	meshes(t, func(name string, faces [][3]int32, n int) {
		t.Helper()
		faces = nondegenerate(faces)
		l.Load(faces, n)
		checkLive(t, &l, faces)
		for range 6 {
			switch {
			case rng.IntN(3) == 0 || l.NLive == 0:
				l.AddVert()
			case rng.IntN(2) == 0:
				var f int32
				for f = int32(rng.IntN(len(l.F))); !l.Alive[f]; f = (f + 1) % int32(len(l.F)) {
				}
				l.KillFace(f)
			}
			if nv := len(l.VF); nv >= 3 {
				p := rng.Perm(nv)
				l.AddFace(int32(p[0]), int32(p[1]), int32(p[2]))
			}
			checkLive(t, &l, faces)
		}
	})
}

// LinkCondition is false exactly when a vertex other than i, j, k and l
// shares a live face with both i and j; epochs never see stale marks.
func TestLinkCondition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var l Live
	meshes(t, func(name string, faces [][3]int32, n int) {
		t.Helper()
		l.Load(nondegenerate(faces), n)
		for range 20 {
			if n == 0 {
				return
			}
			i, j := int32(rng.IntN(n)), int32(rng.IntN(n))
			k, m := int32(rng.IntN(n+1))-1, int32(rng.IntN(n+1))-1
			want := true
			for x := range int32(n) {
				if x != i && x != j && x != k && x != m && l.Adjacent(i, x) && l.Adjacent(j, x) {
					want = false
				}
			}
			if got := l.LinkCondition(i, j, k, m); got != want {
				t.Fatalf("%s: LinkCondition(%d, %d, %d, %d) = %v, want %v", name, i, j, k, m, got, want)
			}
		}
	})
}
