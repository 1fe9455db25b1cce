//go:build cholmod

// CHOLMOD bindings used only by the cholmod-tagged comparison benchmarks
// (cgo cannot appear in _test.go files). Not part of the default build.

package ldlt

/*
#cgo CFLAGS: -I/usr/include/suitesparse
#cgo LDFLAGS: -lcholmod
#include <stdlib.h>
#include <string.h>
#include <cholmod.h>

static cholmod_common *newCommon(int simplicial) {
	cholmod_common *c = (cholmod_common *) malloc(sizeof(cholmod_common));
	cholmod_l_start(c);
	c->nmethods = 1;
	c->method[0].ordering = CHOLMOD_AMD;
	c->postorder = 1;
	if (simplicial) {
		c->supernodal = CHOLMOD_SIMPLICIAL;
		c->final_ll = 0;
	} else {
		c->supernodal = CHOLMOD_SUPERNODAL;
	}
	return c;
}

static cholmod_sparse *newLower(long n, long nnz, long *p, long *i, double *x, cholmod_common *c) {
	cholmod_sparse *A = cholmod_l_allocate_sparse(n, n, nnz, 1, 1, -1, CHOLMOD_REAL, c);
	memcpy(A->p, p, (n+1)*sizeof(long));
	memcpy(A->i, i, nnz*sizeof(long));
	memcpy(A->x, x, nnz*sizeof(double));
	return A;
}

static double lnz(cholmod_common *c) { return c->lnz; }
static int status(cholmod_common *c) { return c->status; }
static int isLL(cholmod_factor *L) { return L->is_ll; }
static int isSuper(cholmod_factor *L) { return L->is_super; }

static void freeAll(cholmod_sparse *A, cholmod_factor *L, cholmod_common *c) {
	cholmod_l_free_sparse(&A, c);
	cholmod_l_free_factor(&L, c);
	cholmod_l_finish(c);
	free(c);
}
*/
import "C"

import (
	"errors"
	"unsafe"
)

// cholmodRun analyzes A with CHOLMOD (AMD only) and returns nnz(L) and a
// function that refactors once, plus a release function.
func cholmodRun(A *Matrix, simplicial bool) (nnzL float64, factor func() error, free func(), err error) {
	n := A.N
	nnz := A.ColPtr[n]
	simp := C.int(0)
	if simplicial {
		simp = 1
	}
	c := C.newCommon(simp)
	p := make([]C.long, n+1)
	for k, v := range A.ColPtr {
		p[k] = C.long(v)
	}
	ri := make([]C.long, nnz)
	for k, v := range A.RowIdx[:nnz] {
		ri[k] = C.long(v)
	}
	cA := C.newLower(C.long(n), C.long(nnz), &p[0], &ri[0], (*C.double)(unsafe.Pointer(&A.Val[0])), c)
	L := C.cholmod_l_analyze(cA, c)
	if L == nil {
		return 0, nil, nil, errors.New("cholmod_l_analyze failed")
	}
	nnzL = float64(C.lnz(c))
	factor = func() error {
		if C.cholmod_l_factorize(cA, L, c) == 0 || C.status(c) != C.CHOLMOD_OK {
			return errors.New("cholmod_l_factorize failed")
		}
		if simplicial && (C.isSuper(L) != 0 || C.isLL(L) != 0) {
			return errors.New("expected simplicial LDL^T")
		}
		if !simplicial && C.isSuper(L) == 0 {
			return errors.New("expected supernodal LL^T")
		}
		return nil
	}
	free = func() { C.freeAll(cA, L, c) }
	return nnzL, factor, free, nil
}
