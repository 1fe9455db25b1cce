//go:build cholmod

// CHOLMOD comparison benchmarks. Needs SuiteSparse (Debian: libsuitesparse-dev):
//
//	go test -tags cholmod -run '^$' -bench Cholmod ./solver/ldlt/
//
// BenchmarkCholmod/Supernodal factors LL^T with CHOLMOD's supernodal method
// (BLAS-3 kernels), BenchmarkCholmod/Simplicial the simplicial LDL^T method
// (the same algorithm class as this package). Both use CHOLMOD's AMD only
// (nmethods = 1) so that nnz(L) is comparable with ours; the timed part is
// cholmod_l_factorize with the analysis reused, like BenchmarkFactor (Refactor).

package ldlt

import (
	"fmt"
	"testing"
)

func benchCholmod(b *testing.B, nv int, simplicial bool) {
	A := cachedCloth(nv)
	nnzL, factor, free, err := cholmodRun(A, simplicial)
	if err != nil {
		b.Fatal(err)
	}
	defer free()
	if err := factor(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if err := factor(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(nnzL, "nnzL")
}

func BenchmarkCholmod(b *testing.B) {
	for _, nv := range benchSizes {
		b.Run(fmt.Sprintf("Supernodal/N=%d", nv), func(b *testing.B) { benchCholmod(b, nv, false) })
	}
	for _, nv := range benchSizes {
		b.Run(fmt.Sprintf("Simplicial/N=%d", nv), func(b *testing.B) { benchCholmod(b, nv, true) })
	}
}
