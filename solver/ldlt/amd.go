package ldlt

import "sort"

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
// found by hashing). Dense rows get no special treatment.
func amdOrder(A *Matrix) []int {
	n := A.N
	if n == 0 {
		return []int{}
	}
	// Full adjacency (without diagonal) as CSR.
	cnt := make([]int, n+1)
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
	adj := make([]int32, cnt[n])
	pos := make([]int, n)
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
	group := make([]int, n) // original -> compressed id
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
	buckets := make(map[uint64][]int, n)
	ng := 0
	var gsize []int
	var grep []int
	for i := 0; i < n; i++ {
		h := hashOf(i)
		found := -1
		for _, r := range buckets[h] {
			if sameClosed(r, i) {
				found = group[r]
				break
			}
		}
		if found >= 0 {
			group[i] = found
			gsize[found]++
			continue
		}
		buckets[h] = append(buckets[h], i)
		group[i] = ng
		gsize = append(gsize, 1)
		grep = append(grep, i)
		ng++
	}
	buckets = nil

	// Compressed graph.
	alists := make([][]int32, ng)
	for g := 0; g < ng; g++ {
		r := grep[g]
		var l []int32
		for _, j := range adj[cnt[r]:cnt[r+1]] {
			gj := group[j]
			if gj != g {
				l = append(l, int32(gj))
			}
		}
		// Members of one group appear contiguously only if numbered
		// contiguously; deduplicate in general.
		sort.Slice(l, func(a, b int) bool { return l[a] < l[b] })
		k := 0
		for t := range l {
			if t == 0 || l[t] != l[t-1] {
				l[k] = l[t]
				k++
			}
		}
		alists[g] = l[:k:k]
	}
	nvw := make([]int, ng)
	copy(nvw, gsize)
	gorder := amdCore(ng, n, alists, nvw)

	// Expand groups.
	members := make([][]int, ng)
	for i := 0; i < n; i++ {
		members[group[i]] = append(members[group[i]], i)
	}
	perm := make([]int, 0, n)
	for _, g := range gorder {
		perm = append(perm, members[g]...)
	}
	return perm
}

const (
	kVar      = 0 // principal variable
	kElement  = 1 // live element
	kAbsorbed = 2 // absorbed element
	kGone     = 3 // non-principal (merged) or mass-eliminated variable
)

// amdCore orders a graph of n weighted nodes (weights nv sum to total) given
// by adjacency lists al (no self loops, no duplicates). It returns the
// elimination order of the n nodes.
func amdCore(n, total int, al [][]int32, nv []int) []int {
	E := make([][]int32, n)
	A := al
	L := make([][]int32, n)
	kind := make([]int8, n)
	degree := make([]int, n)
	w := make([]int, n)
	mark := make([]int, n)
	markStamp := 0
	// Degree lists.
	head := make([]int, total+1)
	for i := range head {
		head[i] = -1
	}
	next := make([]int, n)
	prev := make([]int, n)
	// Member lists for output.
	mnext := make([]int, n)
	mtail := make([]int, n)
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
	hhead := make([]int, n)
	for i := range hhead {
		hhead[i] = -1
	}
	hnext := make([]int, n)
	hval := make([]uint64, n)

	order := make([]int, 0, n)
	nel := 0
	wflg := 1
	var lme []int32
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
			L[e] = nil
		}
		for _, j := range A[me] {
			take(j)
		}
		E[me], A[me] = nil, nil
		kind[me] = kElement

		// w(e) = |Le \ Lme| for elements adjacent to Lme.
		wflg += 2*total + 2
		for _, i := range lme {
			nvi := -nv[i]
			for _, e := range E[i] {
				if kind[e] != kElement {
					continue
				}
				if w[e] >= wflg {
					w[e] -= nvi
				} else {
					w[e] = degree[e] + wflg - nvi
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
				we := w[e] - wflg
				if we > 0 {
					deg += we
					es = append(es, e)
					h += uint64(e)*0x9e3779b97f4a7c15 + 1
				} else {
					kind[e] = kAbsorbed // aggressive absorption
					L[e] = nil
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
				E[i], A[i] = nil, nil
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
					E[y], A[y] = nil, nil
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
		L[me] = append([]int32(nil), lme[:k]...)
		degree[me] = degme
		nv[me] = nvpiv
		for x := me; x >= 0; x = mnext[x] {
			order = append(order, x)
		}
	}
	return order
}
