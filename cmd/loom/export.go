package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/loomsim/loom/export"
)

// gltfName is the glTF file a run or loom export writes into the run folder.
const gltfName = "animation.glb"

func runExport(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loom export DIR\n  writes the OBJ frames of a loom run in DIR as one glTF 2.0 animation, DIR/%s\n", gltfName)
	}
	frames, rd, err := openRun(fs, args)
	if err != nil {
		return err
	}
	defer rd.Close()
	return writeGLTF(rd, frames, stdout)
}

// openRun parses the flags and the one run folder DIR of a command that
// reads a run's frames (loom export, loom render) and opens DIR to add files.
func openRun(fs *flag.FlagSet, args []string) ([]export.Frame, *export.RunDir, error) {
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, nil, err
	}
	if len(pos) != 1 {
		return nil, nil, fmt.Errorf("%s: want one run folder DIR, got %d arguments", fs.Name(), len(pos))
	}
	frames, err := export.ReadRun(pos[0])
	if err != nil {
		return nil, nil, err
	}
	rd, err := export.AppendRunDir(pos[0])
	if err != nil {
		return nil, nil, err
	}
	return frames, rd, nil
}

// writeGLTF writes the frames as the run folder's glTF animation.
func writeGLTF(rd *export.RunDir, frames []export.Frame, stdout io.Writer) error {
	if err := rd.WriteFile(gltfName, func(w io.Writer) error { return export.EncodeGLB(w, frames) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (%d frames)\n", rd.Path(gltfName), len(frames))
	return nil
}
