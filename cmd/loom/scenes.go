package main

import (
	"fmt"
	"io"

	"github.com/loomsim/loom/scenes"
)

func listScenes(w io.Writer) error {
	for _, s := range scenes.Builtins() {
		fmt.Fprintf(w, "%-14s %s\n", s.Name, s.Description)
	}
	return nil
}
