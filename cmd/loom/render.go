package main

import (
	"io"

	"github.com/loomsim/loom/export"
)

type renderOptions struct{ width, height int }

func runRender(args []string, stdout, stderr io.Writer) error { return nil }

func renderFrames(rd *export.RunDir, frames []export.Frame, o renderOptions, stdout io.Writer) error {
	return nil
}
