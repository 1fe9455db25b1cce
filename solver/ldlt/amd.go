package ldlt

import (
	"slices"
	"sync"
)

// amdOrder returns an approximate minimum degree ordering of the pattern of
// A (perm[k] = original index of pivot k).
//
// The graph is first compressed: nodes with identical closed adjacency
// (for cloth, the 3 DOFs of a vertex) become one weighted node. Then the
// quotient-graph minimum degree algorithm of Amestoy, Davis and Duff (1996)
// runs on the compressed graph: eliminated nodes become elements; each
// variable keeps a list of adjacent elements and a pruned list of adjacent
// variables; degrees are the approximate external degrees
//
//	d_i = min(n - k, d_i_old + |Lme \ i|, |A_i \ i| + |Lme \ i| + sum_{e in E_i \ me} |Le \ Lme|)
//
// with |Le \ Lme| computed for all elements touching Lme in one pass. It uses
// element absorption (elements adjacent to the pivot are absorbed into the
// new element), aggressive absorption (an element e with Le ⊆ Lme is
// absorbed), mass elimination (a variable whose only neighbour is the new
// element is eliminated with the pivot) and supervariable detection
// (variables of Lme with identical element and variable lists are merged,
// found by hashing). Dense rows get no special treatment. Its working
// storage is kept between calls (amdWork): the contact QP orders a new KKT
// pattern whenever its contact rows change.
func amdOrder(A *Matrix) []int {
	n := A.N
	if n == 0 {
		return []int{}
	}
	w := amdPool.Get().(*amdWork)
	defer amdPool.Put(w)
	// Full adjacency (without diagonal) as CSR.
	cnt := grow(w.cnt, n+1)
	clear(cnt)
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			if i != j {
				cnt[i+1]++
				cnt[j+1]++
			}
		}
	}
	for i := 0; i < n; i++ {
		cnt[i+1] += cnt[i]
	}
	adj := grow(w.adj, cnt[n])
	pos := grow(w.pos, n)
	copy(pos, cnt[:n])
	for j := 0; j < n; j++ {
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			i := A.RowIdx[p]
			if i != j {
				adj[pos[i]] = int32(j)
				pos[i]++
				adj[pos[j]] = int32(i)
				pos[j]++
			}
		}
	}
	// Rows are sorted: column-major insertion gives ascending neighbour order.

	// Compression: group nodes with identical closed adjacency.
	group := grow(w.group, n) // original -> compressed id
	for i := range group {
		group[i] = -1
	}
	hashOf := func(i int) uint64 {
		h := uint64(i) * 0x9e3779b97f4a7c15
		for _, j := range adj[cnt[i]:cnt[i+1]] {
			h += uint64(j) * 0x9e3779b97f4a7c15
		}
		return h ^ uint64(cnt[i+1]-cnt[i])
	}
	sameClosed := func(a, b int) bool {
		la, lb := adj[cnt[a]:cnt[a+1]], adj[cnt[b]:cnt[b+1]]
		if len(la) != len(lb) {
			return false
		}
		// Closed lists: la ∪ {a} == lb ∪ {b}. Merge-compare sorted lists.
		ia, ib := 0, 0
		na, nb := false, false // whether a / b inserted yet
		next := func(l []int32, k *int, self int, done *bool) int {
			if !*done && (*k >= len(l) || int(l[*k]) > self) {
				*done = true
				return self
			}
			if *k >= len(l) {
				return -1
			}
			v := int(l[*k])
			*k++
			return v
		}
		for t := 0; t <= len(la); t++ {
			if next(la, &ia, a, &na) != next(lb, &ib, b, &nb) {
				return false
			}
		}
		return true
	}
	// The groups' representatives chained by hash (bucket = hash mod n,
	// the full hash compared): at most one representative can match a
	// node, since matching is an equivalence.
	bhead, bnext, bhash := grow(w.bhead, n), grow(w.bnext, n), grow(w.bhash, n)
	for i := range bhead {
		bhead[i] = -1
	}
	ng := 0
	gsize, grep := w.gsize[:0], w.grep[:0]
	for i := 0; i < n; i++ {
		h := hashOf(i)
		b := int(h % uint64(n))
		found := -1
		for r := bhead[b]; r >= 0; r = bnext[r] {
			if bhash[r] == h && sameClosed(r, i) {
				found = group[r]
				break
			}
		}
		if found >= 0 {
			group[i] = found
			gsize[found]++
			continue
		}
		bhash[i], bnext[i], bhead[b] = h, bhead[b], i
		group[i] = ng
		gsize = append(gsize, 1)
		grep = append(grep, i)
		ng++
	}
	w.gsize, w.grep = gsize, grep

	// Compressed graph: each group's list in one flat array, sorted and
	// deduplicated (members of one group are adjacent in a list only if
	// numbered contiguously).
	flat := w.flat[:0]
	astart := grow(w.astart, ng+1)
	astart[0] = 0
	for g := 0; g < ng; g++ {
		r := grep[g]
		s := len(flat)
		for _, j := range adj[cnt[r]:cnt[r+1]] {
			if gj := group[j]; gj != g {
				flat = append(flat, int32(gj))
			}
		}
		l := flat[s:]
		slices.Sort(l)
		k := 0
		for t := range l {
			if t == 0 || l[t] != l[t-1] {
				l[k] = l[t]
				k++
			}
		}
		flat = flat[:s+k]
		astart[g+1] = len(flat)
	}
	alists := w.alists[:0]
	for g := 0; g < ng; g++ {
		alists = append(alists, flat[astart[g]:astart[g+1]:astart[g+1]])
	}
	w.flat, w.astart, w.alists = flat, astart, alists
	nvw := grow(w.nvw, ng)
	copy(nvw, gsize)
	gorder := amdCore(w, ng, n, alists, nvw)

	// Expand groups: members in increasing index, by a counting sort.
	mstart := grow(w.mstart, ng+1)
	clear(mstart)
	for i := 0; i < n; i++ {
		mstart[group[i]+1]++
	}
	for g := 0; g < ng; g++ {
		mstart[g+1] += mstart[g]
	}
	mlist, fill := grow(w.mlist, n), grow(w.mfill, ng)
	copy(fill, mstart[:ng])
	for i := 0; i < n; i++ {
		mlist[fill[group[i]]] = i
		fill[group[i]]++
	}
	perm := make([]int, 0, n)
	for _, g := range gorder {
		perm = append(perm, mlist[mstart[g]:mstart[g+1]]...)
	}
	w.cnt, w.adj, w.pos, w.group, w.bhead, w.bnext, w.bhash = cnt, adj, pos, group, bhead, bnext, bhash
	w.nvw, w.mstart, w.mlist, w.mfill = nvw, mstart, mlist, fill
	return perm
}

const (
	kVar      = 0 // principal variable
	kElement  = 1 // live element
	kAbsorbed = 2 // absorbed element
	kGone     = 3 // non-principal (merged) or mass-eliminated variable
)

// amdCore orders a graph of n weighted nodes (weights nv sum to total) given
// by adjacency lists al (no self loops, no duplicates; it prunes them in
// place). It returns the elimination order of the n nodes, in w's storage.
func amdCore(w *amdWork, n, total int, al [][]int32, nv []int) []int {
	E := growLists(w.E, n)
	A := al
	L := growLists(w.L, n)
	kind := grow(w.kind, n)
	degree := grow(w.degree, n)
	wt := grow(w.w, n)
	mark := grow(w.mark, n)
	clear(kind)
	clear(wt)
	clear(mark)
	markStamp := 0
	// Degree lists.
	head := grow(w.head, total+1)
	for i := range head {
		head[i] = -1
	}
	next := grow(w.next, n)
	prev := grow(w.prev, n)
	// Member lists for output.
	mnext := grow(w.mnext, n)
	mtail := grow(w.mtail, n)
	for i := 0; i < n; i++ {
		mnext[i] = -1
		mtail[i] = i
	}
	concat := func(a, b int) { // append b's members to a's
		mnext[mtail[a]] = b
		mtail[a] = mtail[b]
	}
	insert := func(i, d int) {
		next[i] = head[d]
		prev[i] = -1
		if head[d] >= 0 {
			prev[head[d]] = i
		}
		head[d] = i
	}
	remove := func(i int) {
		d := degree[i]
		if prev[i] >= 0 {
			next[prev[i]] = next[i]
		} else {
			head[d] = next[i]
		}
		if next[i] >= 0 {
			prev[next[i]] = prev[i]
		}
	}
	mindeg := total
	for i := 0; i < n; i++ {
		d := 0
		for _, j := range A[i] {
			d += nv[j]
		}
		degree[i] = d
		insert(i, d)
		if d < mindeg {
			mindeg = d
		}
	}
	// Hash buckets for supervariable detection.
	hhead := grow(w.hhead, n)
	for i := range hhead {
		hhead[i] = -1
	}
	hnext := grow(w.hnext, n)
	hval := grow(w.hval, n)

	order := w.order[:0]
	nel := 0
	wflg := 1
	lme := w.lme[:0]
	for nel < total {
		for mindeg <= total && head[mindeg] < 0 {
			mindeg++
		}
		me := head[mindeg]
		remove(me)
		nvpiv := nv[me]
		nel += nvpiv
		nv[me] = -nvpiv

		// Lme = (A_me ∪ Le for e in E_me) \ me, principal variables only.
		lme = lme[:0]
		degme := 0
		take := func(j int32) {
			if kind[j] == kVar && nv[j] > 0 {
				degme += nv[j]
				nv[j] = -nv[j]
				lme = append(lme, j)
				remove(int(j))
			}
		}
		for _, e := range E[me] {
			if kind[e] != kElement {
				continue
			}
			for _, j := range L[e] {
				take(j)
			}
			kind[e] = kAbsorbed
			L[e] = L[e][:0]
		}
		for _, j := range A[me] {
			take(j)
		}
		E[me], A[me] = E[me][:0], nil
		kind[me] = kElement

		// w(e) = |Le \ Lme| for elements adjacent to Lme.
		wflg += 2*total + 2
		for _, i := range lme {
			nvi := -nv[i]
			for _, e := range E[i] {
				if kind[e] != kElement {
					continue
				}
				if wt[e] >= wflg {
					wt[e] -= nvi
				} else {
					wt[e] = degree[e] + wflg - nvi
				}
			}
		}

		// Degree update, pruning, aggressive absorption, mass elimination.
		for _, i32 := range lme {
			i := int(i32)
			nvi := -nv[i]
			deg := 0
			var h uint64
			es := E[i][:0]
			for _, e := range E[i] {
				if kind[e] != kElement {
					continue
				}
				we := wt[e] - wflg
				if we > 0 {
					deg += we
					es = append(es, e)
					h += uint64(e)*0x9e3779b97f4a7c15 + 1
				} else {
					kind[e] = kAbsorbed // aggressive absorption
					L[e] = L[e][:0]
				}
			}
			as := A[i][:0]
			for _, j := range A[i] {
				if kind[j] == kVar && nv[j] > 0 {
					deg += nv[j]
					as = append(as, j)
					h += uint64(j)*0xc2b2ae3d27d4eb4f + 7
				}
			}
			if len(es) == 0 && len(as) == 0 {
				// Mass elimination: i's only neighbour is me.
				kind[i] = kGone
				nv[i] = 0
				concat(me, i)
				nvpiv += nvi
				nel += nvi
				degme -= nvi
				E[i], A[i] = E[i][:0], nil
				continue
			}
			if deg < degree[i] {
				degree[i] = deg
			}
			E[i] = append(es, int32(me))
			A[i] = as
			hval[i] = h
			b := int(h % uint64(n))
			hnext[i] = hhead[b]
			hhead[b] = i
		}

		// Supervariable detection among Lme.
		for _, i32 := range lme {
			i := int(i32)
			if kind[i] != kVar {
				continue
			}
			b := int(hval[i] % uint64(n))
			if hhead[b] < 0 {
				continue
			}
			for x := hhead[b]; x >= 0; x = hnext[x] {
				if kind[x] != kVar || nv[x] == 0 {
					continue
				}
				markStamp++
				for _, e := range E[x] {
					mark[e] = markStamp
				}
				for _, j := range A[x] {
					mark[j] = markStamp
				}
				for y := hnext[x]; y >= 0; y = hnext[y] {
					if kind[y] != kVar || nv[y] == 0 || hval[y] != hval[x] ||
						len(E[y]) != len(E[x]) || len(A[y]) != len(A[x]) {
						continue
					}
					same := true
					for _, e := range E[y] {
						if mark[e] != markStamp {
							same = false
							break
						}
					}
					if same {
						for _, j := range A[y] {
							if mark[j] != markStamp {
								same = false
								break
							}
						}
					}
					if !same {
						continue
					}
					nv[x] += nv[y] // both negative
					nv[y] = 0
					kind[y] = kGone
					E[y], A[y] = E[y][:0], nil
					concat(x, y)
				}
			}
			hhead[b] = -1
		}

		// Finalize degrees and store Lme as the new element.
		k := 0
		for _, i32 := range lme {
			i := int(i32)
			if kind[i] != kVar || nv[i] >= 0 {
				continue
			}
			nvi := -nv[i]
			d := degree[i] + degme - nvi
			if m := total - nel - nvi; m < d {
				d = m
			}
			if d < 0 {
				d = 0
			}
			degree[i] = d
			nv[i] = nvi
			insert(i, d)
			if d < mindeg {
				mindeg = d
			}
			lme[k] = i32
			k++
		}
		L[me] = append(L[me][:0], lme[:k]...)
		degree[me] = degme
		nv[me] = nvpiv
		for x := me; x >= 0; x = mnext[x] {
			order = append(order, x)
		}
	}
	w.E, w.L, w.kind, w.degree, w.w, w.mark = E, L, kind, degree, wt, mark
	w.head, w.next, w.prev, w.mnext, w.mtail = head, next, prev, mnext, mtail
	w.hhead, w.hnext, w.hval, w.order, w.lme = hhead, hnext, hval, order, lme
	return order
}

// amdWork is amdOrder's and amdCore's storage, kept between orderings
// (amdPool) so that an analysis allocates its result only once the
// buffers have grown to the problem: the contact QP re-analyses its KKT
// matrix whenever its contact rows change.
type amdWork struct {
	cnt, pos, group, bhead, bnext     []int
	gsize, grep, nvw, mstart, mlist   []int
	mfill, astart                     []int
	bhash                             []uint64
	adj, flat                         []int32
	alists                            [][]int32
	E, L                              [][]int32
	kind                              []int8
	degree, w, mark, head, next, prev []int
	mnext, mtail, hhead, hnext, order []int
	hval                              []uint64
	lme                               []int32
}

var amdPool = sync.Pool{New: func() any { return new(amdWork) }}

// grow returns s resized to n, its storage reused when large enough (the
// contents are not cleared).
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// growLists is grow for a slice of lists, each list emptied and keeping
// its storage.
func growLists(s [][]int32, n int) [][]int32 {
	if cap(s) < n {
		s = append(s[:cap(s)], make([][]int32, n-cap(s))...)
	}
	s = s[:n]
	for i := range s {
		s[i] = s[i][:0]
	}
	return s
}
