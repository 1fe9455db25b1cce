package main

import (
	"fmt"
	"io"

	"github.com/loomsim/loom/scenes"
)

// listScenes prints the built-in scenes, a name column as wide as the
// longest name, then each description.
func listScenes(w io.Writer) error {
	all := scenes.Builtins()
	width := 0
	for _, s := range all {
		width = max(width, len(s.Name))
	}
	for _, s := range all {
		fmt.Fprintf(w, "%-*s %s\n", width, s.Name, s.Description)
	}
	return nil
}
