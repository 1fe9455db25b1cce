package amg

import "math"

// strength returns the strong-connection graph of the square block matrix a
// (Vanek, Mandel & Brezina 1996, sec. 3, eq. 3.1, on block norms): j != i is
// a strong neighbour of i when ||A_ij||_F >= theta sqrt(||A_ii||_F ||A_jj||_F).
// The graph is returned in CSR form (ptr, adj) with each row's neighbours in
// ascending order, and wgt[k] = ||A_ij||_F / sqrt(||A_ii|| ||A_jj||) per edge.
func strength(a *blockMat, theta float64) (ptr, adj []int32, wgt []float64) {
	n := a.rows
	dnorm := make([]float64, n)
	for i := 0; i < n; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			if int(a.col[k]) == i {
				dnorm[i] = frob(a.val[9*k : 9*k+9])
			}
		}
	}
	ptr = make([]int32, n+1)
	for i := 0; i < n; i++ {
		for k := a.rowPtr[i]; k < a.rowPtr[i+1]; k++ {
			j := int(a.col[k])
			if j == i {
				continue
			}
			w := frob(a.val[9*k:9*k+9]) / math.Sqrt(dnorm[i]*dnorm[j])
			if w >= theta {
				adj = append(adj, int32(j))
				wgt = append(wgt, w)
			}
		}
		ptr[i+1] = int32(len(adj))
	}
	return ptr, adj, wgt
}

func frob(b []float64) float64 {
	s := 0.0
	for _, v := range b[:9] {
		s += v * v
	}
	return math.Sqrt(s)
}

// aggregate partitions the nodes of the strength graph into aggregates by
// the three greedy passes of Vanek, Mandel & Brezina (1996, sec. 3, steps
// 1-3): (1) every node whose strong neighbourhood is still wholly free
// becomes a root, its neighbourhood an aggregate; (2) each remaining node
// joins the aggregate it is most strongly connected to among its neighbours
// from pass 1; (3) what is left forms aggregates with its free neighbours.
// Nodes are visited in index order, so the result is deterministic. It
// returns agg[i], node i's aggregate, and the number of aggregates.
func aggregate(ptr, adj []int32, wgt []float64) (agg []int32, nagg int) {
	n := len(ptr) - 1
	agg = make([]int32, n)
	for i := range agg {
		agg[i] = -1
	}
	// Pass 1.
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		free := true
		for _, j := range adj[ptr[i]:ptr[i+1]] {
			if agg[j] >= 0 {
				free = false
				break
			}
		}
		if !free {
			continue
		}
		agg[i] = int32(nagg)
		for _, j := range adj[ptr[i]:ptr[i+1]] {
			agg[j] = int32(nagg)
		}
		nagg++
	}
	// Pass 2: join the strongest neighbouring pass-1 aggregate.
	pass1 := make([]int32, n)
	copy(pass1, agg)
	for i := 0; i < n; i++ {
		if pass1[i] >= 0 {
			continue
		}
		best, bw := int32(-1), -1.0
		for k := ptr[i]; k < ptr[i+1]; k++ {
			if a := pass1[adj[k]]; a >= 0 && wgt[k] > bw {
				best, bw = a, wgt[k]
			}
		}
		agg[i] = best
	}
	// Pass 3: the rest with their free neighbours.
	for i := 0; i < n; i++ {
		if agg[i] >= 0 {
			continue
		}
		agg[i] = int32(nagg)
		for _, j := range adj[ptr[i]:ptr[i+1]] {
			if agg[j] < 0 {
				agg[j] = int32(nagg)
			}
		}
		nagg++
	}
	return agg, nagg
}
