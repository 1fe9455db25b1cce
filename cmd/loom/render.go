package main

import (
	"flag"
	"fmt"
	"image/png"
	"io"

	"github.com/loomsim/loom/export"
)

// gifName is the animated picture of a run.
const gifName = "animation.gif"

// renderOptions are the picture size (0: the default 480 x 360).
type renderOptions struct{ width, height int }

func runRender(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("render", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o renderOptions
	fs.IntVar(&o.width, "width", 480, "picture width in pixels (16 to 4096)")
	fs.IntVar(&o.height, "height", 360, "picture height in pixels (16 to 4096)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: loom render DIR [--width W] [--height H]\n  draws the OBJ frames of a loom run in DIR to DIR/frame_NNNNN.png and DIR/%s\n", gifName)
		fs.PrintDefaults()
	}
	frames, rd, err := openRun(fs, args)
	if err != nil {
		return err
	}
	defer rd.Close()
	return renderFrames(rd, frames, o, stdout, stderr)
}

// renderFrames draws the frames with the default camera into the run folder:
// a PNG per frame and the animated GIF.
func renderFrames(rd *export.RunDir, frames []export.Frame, o renderOptions, stdout, stderr io.Writer) error {
	if o.width == 0 && o.height == 0 {
		o.width, o.height = 480, 360
	}
	if o.width < 16 || o.height < 16 || o.width > 4096 || o.height > 4096 {
		return fmt.Errorf("render: picture size %dx%d: width and height must be from 16 to 4096", o.width, o.height)
	}
	cam := export.DefaultCamera(frames, o.width, o.height)
	pics := make([]*export.Picture, len(frames))
	bar := newProgress(len(frames), "render", "frames", stderr)
	defer bar.finish()
	for k, f := range frames {
		if interrupted() {
			bar.abort()
			return fmt.Errorf("render: %w at frame %d", errInterrupted, k)
		}
		bar.set(k)
		pics[k] = export.Render(&cam, f.Meshes)
		img := pics[k].RGBA()
		if err := rd.WriteFile(fmt.Sprintf("frame_%05d.png", k), func(w io.Writer) error { return png.Encode(w, img) }); err != nil {
			return err
		}
	}
	if err := rd.WriteFile(gifName, func(w io.Writer) error { return export.EncodeGIF(w, pics, export.GIFDelays(frames)) }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "drew %d frames to %s and %s\n", len(frames), rd.Path("frame_NNNNN.png"), rd.Path(gifName))
	return nil
}
