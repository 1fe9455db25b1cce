package main

import (
	"bytes"
	"context"
	"image/png"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/loomsim/loom/export"
)

// chromium returns the path of a Chromium or Chrome binary; the test skips,
// saying what to install, when there is none, except under CI (which
// installs Debian's chromium), where it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium: install Debian's chromium package (apt-get install chromium); .ci/run does"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestViewerPlaysRun serves a sphere-drop run through loom view's handler,
// loads the page in headless Chromium (chromedp), steps the timeline to the
// last frame, and checks the page says it is there, that its screenshot of
// the 3D view shows the cloth (orange pixels) and the sphere (grey), and
// that the stats plot is drawn.
func TestViewerPlaysRun(t *testing.T) {
	exe := chromium(t)
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := runLoom(t, "run", "sphere-drop", "--steps", "40", "--out", dir, "--set", "bodies.0.resolution=12"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	frames, err := export.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	stats, _ := os.ReadFile(filepath.Join(dir, "stats.jsonl"))
	srv := httptest.NewServer(export.Viewer(frames, stats))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(900, 760))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// The first call starts the browser and must not carry a timeout.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	tctx, tcancel := context.WithTimeout(ctx, 60*time.Second)
	defer tcancel()
	if err := chromedp.Do(tctx, chromedp.WaitVisible(chromedp.CSS(`body[data-ready="1"]`))); err != nil {
		t.Fatalf("the page did not load its run: %v", err)
	}
	last := len(frames) - 1
	frame, err := chromedp.Run(tctx, chromedp.Evaluate[string](`(() => { const tl = document.getElementById("timeline");
		tl.value = "`+itoa(last)+`"; tl.dispatchEvent(new Event("input")); return document.body.dataset.frame; })()`))
	if err != nil {
		t.Fatal(err)
	}
	info, err := chromedp.Run(tctx, chromedp.Text(chromedp.ID("info")))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.ID("view")))
	if err != nil {
		t.Fatal(err)
	}
	plotShot, err := chromedp.Run(tctx, chromedp.Screenshot(chromedp.ID("plot")))
	if err != nil {
		t.Fatal(err)
	}
	if frame != itoa(last) {
		t.Fatalf("after stepping the timeline the page is at frame %q, want %d (info %q)", frame, last, info)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	orange, grey := 0, 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			r, g, bl = r>>8, g>>8, bl>>8
			switch {
			case r > 30 && float64(r) > 1.5*float64(g) && r > 2*bl:
				orange++
			case r < 200 && r > 40 && absDiff(r, g) < 12 && absDiff(g, bl) < 14:
				grey++
			}
		}
	}
	if orange < 2000 || grey < 2000 {
		t.Fatalf("the view shows %d cloth and %d obstacle pixels (want >= 2000 of each)", orange, grey)
	}
	pimg, err := png.Decode(bytes.NewReader(plotShot))
	if err != nil {
		t.Fatal(err)
	}
	blue := 0
	pb := pimg.Bounds()
	for y := pb.Min.Y; y < pb.Max.Y; y++ {
		for x := pb.Min.X; x < pb.Max.X; x++ {
			r, _, bl, _ := pimg.At(x, y).RGBA()
			if bl>>8 > 150 && r>>8 < 120 {
				blue++
			}
		}
	}
	if blue < 50 {
		t.Fatalf("the stats plot has %d curve pixels", blue)
	}
	t.Logf("frame %s, %q: %d cloth, %d obstacle pixels; plot %d", frame, info, orange, grey, blue)
}

func itoa(i int) string { return strconv.Itoa(i) }

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
