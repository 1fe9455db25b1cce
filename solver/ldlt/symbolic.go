package ldlt

import (
	"fmt"
)

// Ordering selects the fill-reducing permutation computed by Analyze.
type Ordering int

const (
	// AMD is the approximate minimum degree ordering (the default).
	AMD Ordering = iota
	// Natural keeps the given order (P = I).
	Natural
)

func (o Ordering) String() string {
	switch o {
	case AMD:
		return "AMD"
	case Natural:
		return "Natural"
	}
	return fmt.Sprintf("Ordering(%d)", int(o))
}

// Symbolic is the reusable analysis of a sparsity pattern: the fill-reducing
// permutation, the elimination tree of the permuted matrix, and the column
// counts (hence the exact storage) of L. It is read-only after Analyze and
// may be shared by several Factors, also concurrently.
type Symbolic struct {
	n      int
	perm   []int // perm[k] = original index of pivot k
	pinv   []int // pinv[i] = pivot position of original index i
	parent []int // elimination tree of C = P A P^T (-1 for roots)
	lp     []int // column pointers of strictly-lower L (len n+1)

	// Pattern of A as analyzed, to check Factor's input.
	aColPtr []int
	aRowIdx []int

	// Upper triangle of C = P A P^T in CSC, each entry pointing at the
	// position of its value in A.Val.
	cp   []int
	ci   []int32
	cmap []int

	// Supernodal structure (see supernodal.go); nil when not used.
	sn *superSym
}

// N returns the dimension of the analyzed matrix.
func (s *Symbolic) N() int { return s.n }

// NnzL returns the number of nonzeros of the unit lower triangular factor L,
// counting its n unit diagonal entries (the convention of CHOLMOD's nnz(L)).
func (s *Symbolic) NnzL() int { return s.lp[s.n] + s.n }

// Perm returns the permutation: Perm()[k] is the original row/column that
// becomes pivot k, i.e. (P A P^T)[k][l] = A[Perm()[k]][Perm()[l]]. The slice is
// a copy.
func (s *Symbolic) Perm() []int {
	p := make([]int, s.n)
	copy(p, s.perm)
	return p
}

// Parent returns a copy of the elimination tree of P A P^T (parent of each
// pivot, -1 at roots).
func (s *Symbolic) Parent() []int {
	p := make([]int, s.n)
	copy(p, s.parent)
	return p
}

// Analyze validates the pattern of A, computes the fill-reducing ordering,
// the elimination tree and the column counts of L. Only the pattern of A is
// used; its values may change freely between the Factor calls that reuse the
// returned Symbolic.
func Analyze(A *Matrix, ord Ordering) (*Symbolic, error) {
	if err := A.Validate(); err != nil {
		return nil, err
	}
	n := A.N
	var perm []int
	switch ord {
	case Natural:
		perm = make([]int, n)
		for i := range perm {
			perm[i] = i
		}
	case AMD:
		perm = amdOrder(A)
		// Postorder the elimination tree: same fill, but contiguous
		// subtrees and larger supernodes.
		s0 := symbolicTree(A, perm)
		post := postorder(s0.parent)
		p2 := make([]int, len(perm))
		for k, v := range post {
			p2[k] = perm[v]
		}
		perm = p2
	default:
		return nil, fmt.Errorf("ldlt: unknown ordering %d", int(ord))
	}
	return analyzePerm(A, perm)
}

// postorder returns a depth-first postorder of the forest given by parent
// (children visited in ascending order): post[k] is the k-th node.
func postorder(parent []int) []int {
	n := len(parent)
	head := make([]int, n)
	next := make([]int, n)
	for i := range head {
		head[i] = -1
	}
	for j := n - 1; j >= 0; j-- {
		if p := parent[j]; p >= 0 {
			next[j] = head[p]
			head[p] = j
		}
	}
	post := make([]int, 0, n)
	stack := make([]int, 0, n)
	for r := 0; r < n; r++ {
		if parent[r] >= 0 {
			continue
		}
		stack = append(stack, r)
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			if c := head[p]; c >= 0 {
				head[p] = next[c]
				stack = append(stack, c)
			} else {
				stack = stack[:len(stack)-1]
				post = append(post, p)
			}
		}
	}
	return post
}

// AnalyzePerm is Analyze with a caller-supplied permutation (perm[k] is the
// original index of pivot k).
func AnalyzePerm(A *Matrix, perm []int) (*Symbolic, error) {
	if err := A.Validate(); err != nil {
		return nil, err
	}
	if len(perm) != A.N {
		return nil, fmt.Errorf("ldlt: permutation length %d, want %d", len(perm), A.N)
	}
	seen := make([]bool, A.N)
	for _, v := range perm {
		if v < 0 || v >= A.N || seen[v] {
			return nil, fmt.Errorf("ldlt: invalid permutation (entry %d)", v)
		}
		seen[v] = true
	}
	p := make([]int, A.N)
	copy(p, perm)
	return analyzePerm(A, p)
}

func analyzePerm(A *Matrix, perm []int) (*Symbolic, error) {
	if A.N > 1<<31-1 {
		return nil, fmt.Errorf("ldlt: dimension %d too large", A.N)
	}
	s := symbolicTree(A, perm)
	s.buildSuper()
	return s, nil
}

// symbolicTree computes everything but the supernodes.
func symbolicTree(A *Matrix, perm []int) *Symbolic {
	n := A.N
	s := &Symbolic{n: n, perm: perm}
	s.pinv = make([]int, n)
	for k, i := range perm {
		s.pinv[i] = k
	}
	nnz := A.ColPtr[n]
	s.aColPtr = append([]int(nil), A.ColPtr...)
	s.aRowIdx = append([]int(nil), A.RowIdx[:nnz]...)

	// Upper triangle of C: entry A(i,j) (i >= j) goes to column max(pi,pj),
	// row min(pi,pj).
	cp := make([]int, n+1)
	for j := 0; j < n; j++ {
		pj := s.pinv[j]
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			pi := s.pinv[A.RowIdx[p]]
			c := pi
			if pj > c {
				c = pj
			}
			cp[c+1]++
		}
	}
	for k := 0; k < n; k++ {
		cp[k+1] += cp[k]
	}
	ci := make([]int32, nnz)
	cmap := make([]int, nnz)
	next := make([]int, n)
	copy(next, cp[:n])
	for j := 0; j < n; j++ {
		pj := s.pinv[j]
		for p := A.ColPtr[j]; p < A.ColPtr[j+1]; p++ {
			pi := s.pinv[A.RowIdx[p]]
			r, c := pi, pj
			if r > c {
				r, c = c, r
			}
			ci[next[c]] = int32(r)
			cmap[next[c]] = p
			next[c]++
		}
	}
	s.cp, s.ci, s.cmap = cp, ci, cmap

	// Elimination tree and column counts by row subtrees (as in LDL's
	// symbolic phase): row k of L is the set of nodes reached walking up
	// the tree from each i < k with C(i,k) != 0, stopping at marked nodes.
	parent := make([]int, n)
	flag := next // reuse
	lnz := make([]int, n)
	for k := 0; k < n; k++ {
		parent[k] = -1
		flag[k] = k
		for p := cp[k]; p < cp[k+1]; p++ {
			i := int(ci[p])
			for ; i < k && flag[i] != k; i = parent[i] {
				if parent[i] == -1 {
					parent[i] = k
				}
				lnz[i]++
				flag[i] = k
			}
		}
	}
	s.parent = parent
	lp := make([]int, n+1)
	for k := 0; k < n; k++ {
		lp[k+1] = lp[k] + lnz[k]
	}
	s.lp = lp
	return s
}

// samePattern reports whether A has exactly the analyzed pattern.
func (s *Symbolic) samePattern(A *Matrix) error {
	if A == nil {
		return fmt.Errorf("ldlt: nil matrix")
	}
	if A.N != s.n {
		return fmt.Errorf("ldlt: pattern mismatch: dimension %d, analyzed %d", A.N, s.n)
	}
	if len(A.ColPtr) != s.n+1 {
		return fmt.Errorf("ldlt: pattern mismatch: len(ColPtr) = %d, want %d", len(A.ColPtr), s.n+1)
	}
	for j, v := range s.aColPtr {
		if A.ColPtr[j] != v {
			return fmt.Errorf("ldlt: pattern mismatch: ColPtr[%d] = %d, analyzed %d", j, A.ColPtr[j], v)
		}
	}
	nnz := len(s.aRowIdx)
	if len(A.RowIdx) < nnz || len(A.Val) < nnz {
		return fmt.Errorf("ldlt: pattern mismatch: RowIdx/Val shorter than %d", nnz)
	}
	ri := A.RowIdx[:nnz]
	for p, v := range s.aRowIdx {
		if ri[p] != v {
			return fmt.Errorf("ldlt: pattern mismatch: RowIdx[%d] = %d, analyzed %d", p, ri[p], v)
		}
	}
	return nil
}
