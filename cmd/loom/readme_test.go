package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeLayoutListsEveryPackage checks that README.md's Layout section
// names every package directory of the module, and no directory that is not
// one.
func TestReadmeLayoutListsEveryPackage(t *testing.T) {
	root := filepath.Join("..", "..")
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(data), "## Layout")
	if !ok {
		t.Fatal("README.md has no Layout section")
	}
	_, block, _ := strings.Cut(layout, "```\n")
	block, _, _ = strings.Cut(block, "```")
	listed := map[string]bool{}
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(line, " ") {
			listed[strings.TrimSuffix(f[0], "/")] = true
		}
	}
	packages := map[string]bool{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") && p != root || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			packages[filepath.ToSlash(rel)] = true // "." is the module root's package, listed as ./
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range packages {
		if !listed[p] {
			t.Errorf("package %s is not in README.md's Layout", p)
		}
	}
	for p := range listed {
		if !packages[p] {
			t.Errorf("README.md's Layout lists %s, which is not a package", p)
		}
	}
}
