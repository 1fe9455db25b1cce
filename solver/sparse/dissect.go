package sparse

import "slices"

// Dissect reorders a banded order of the rows of a symmetric pattern (such
// as RCM's) into parts independent domains followed by a separator, so that
// a Gauss-Seidel sweep in the new order can go through the domains at once:
// it cuts the order into parts consecutive slabs, moves every row coupled to
// a later slab into the separator, and keeps the order within each domain
// and within the separator. No row of one domain is then coupled to a row of
// another (a row's neighbours in earlier slabs are separator rows). The
// slabs are sized so that the domains come out about equal; in a banded
// order the separator is about one band wide per cut.
//
// rowPtr and col are as for RCM.Order. It returns the new order and the
// bounds of the domains in it (blockqp.Problem.Domains' form): domain d is
// positions bounds[d] .. bounds[d+1]-1, the separator bounds[parts] .. n-1.
// With parts < 2 it returns order and nil. Both slices belong to dst until
// its next use; order must not be one of them.
func (dst *Dissection) Dissect(order []int32, parts int, rowPtr, col []int32) ([]int32, []int) {
	n := len(order)
	if parts < 2 {
		return order, nil
	}
	dst.slab = slices.Grow(dst.slab[:0], n)[:n]
	dst.sep = slices.Grow(dst.sep[:0], n)[:n]
	dst.size = slices.Grow(dst.size[:0], parts)[:parts]
	// First cut: equal slabs. Second: each slab as large as an equal domain
	// plus the separator rows the first cut found in it.
	for k := range dst.size {
		dst.size[k] = (k+1)*n/parts - k*n/parts
	}
	for pass := 0; pass < 2; pass++ {
		k, end := 0, dst.size[0]
		for p, i := range order {
			for p >= end && k < parts-1 {
				k++
				end += dst.size[k]
			}
			dst.slab[i] = int32(k)
		}
		nsep := 0
		dst.seps = slices.Grow(dst.seps[:0], parts)[:parts]
		clear(dst.seps)
		seps := dst.seps
		for _, i := range order {
			dst.sep[i] = false
			for _, j := range col[rowPtr[i]:rowPtr[i+1]] {
				if j >= 0 && int(j) < n && dst.slab[j] > dst.slab[i] {
					dst.sep[i] = true
					nsep++
					seps[dst.slab[i]]++
					break
				}
			}
		}
		if pass == 1 {
			break
		}
		dom := (n - nsep) / parts
		total := 0
		for k := range dst.size {
			dst.size[k] = dom + seps[k]
			total += dst.size[k]
		}
		dst.size[parts-1] += n - total
	}
	// Domain k's rows, then the separator's (group parts), each in order.
	dst.bounds = slices.Grow(dst.bounds[:0], parts+1)[:parts+1]
	clear(dst.bounds)
	group := func(i int32) int {
		if dst.sep[i] {
			return parts
		}
		return int(dst.slab[i])
	}
	for _, i := range order {
		if g := group(i); g < parts {
			dst.bounds[g+1]++
		}
	}
	for k := 1; k <= parts; k++ {
		dst.bounds[k] += dst.bounds[k-1]
	}
	dst.next = append(dst.next[:0], dst.bounds...)
	dst.order = slices.Grow(dst.order[:0], n)[:n]
	for _, i := range order {
		g := group(i)
		dst.order[dst.next[g]] = i
		dst.next[g]++
	}
	return dst.order, dst.bounds
}

// Dissection keeps Dissect's buffers between calls; the zero value is ready.
type Dissection struct {
	slab                     []int32
	sep                      []bool
	size, seps, bounds, next []int
	order                    []int32
}
