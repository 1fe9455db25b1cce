package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestHeaderMatchesExports: loom.h declares exactly the exported functions,
// each with as many parameters as its Go definition. (The compiler cannot
// check it: the header's const qualifiers differ from the prototypes cgo
// writes, so the cgo preamble includes only loom_types.h.)
func TestHeaderMatchesExports(t *testing.T) {
	h, err := os.ReadFile("loom.h")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("capi.go")
	if err != nil {
		t.Fatal(err)
	}
	params := func(list string) int {
		list = strings.TrimSpace(list)
		if list == "" || list == "void" {
			return 0
		}
		return strings.Count(list, ",") + 1
	}
	declared := map[string]int{}
	for _, m := range regexp.MustCompile(`(?m)^\w+ (loom_\w+)\(([^)]*)\);`).FindAllStringSubmatch(string(h), -1) {
		declared[m[1]] = params(m[2])
	}
	// Go groups parameters of one type (a, b C.double): count names.
	exported := map[string]int{}
	for _, m := range regexp.MustCompile(`//export (\w+)\nfunc \w+\(([^)]*)\)`).FindAllStringSubmatch(string(src), -1) {
		exported[m[1]] = params(m[2])
	}
	if len(exported) == 0 {
		t.Fatal("no exports found")
	}
	for name, n := range exported {
		if d, ok := declared[name]; !ok {
			t.Errorf("%s is exported but not in loom.h", name)
		} else if d != n {
			t.Errorf("%s: %d parameters in loom.h, %d in capi.go", name, d, n)
		}
	}
	for name := range declared {
		if _, ok := exported[name]; !ok {
			t.Errorf("%s is in loom.h but not exported", name)
		}
	}
}
