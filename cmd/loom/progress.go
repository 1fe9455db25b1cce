package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar on stderr for a phase of n items that is drawn
// only once the phase has taken more than a second (the bar measures its
// rate from its creation).
type progress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	start time.Time
	shown bool
}

func newProgress(n int, what, items string, w io.Writer) *progress {
	bar := progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionSetItsString(items), progressbar.OptionShowIts(),
		progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	bar.StartWithoutRender()
	return &progress{bar: bar, w: w, start: time.Now()}
}

// set records that i items are done.
func (p *progress) set(i int) {
	p.shown = p.shown || time.Since(p.start) > time.Second
	if p.shown {
		p.bar.Set(i)
	}
}

// finish clears a drawn bar at the end of the phase.
func (p *progress) finish() {
	if p.shown {
		p.bar.Finish()
	}
}

// abort leaves a drawn bar where it stopped and ends its line.
func (p *progress) abort() {
	if p.shown {
		p.bar.Exit()
		fmt.Fprintln(p.w)
	}
	p.shown = false // a later finish does nothing
}

// interrupt receives SIGINT and SIGTERM (main subscribes it); a run checks
// it between steps and stops with errInterrupted.
var interrupt = make(chan os.Signal, 1)

// errInterrupted ends a run that was interrupted; loom exits with status
// 130 for it.
var errInterrupted = errors.New("interrupted")

// interrupted reports whether an interrupt has arrived.
func interrupted() bool {
	select {
	case <-interrupt:
		return true
	default:
		return false
	}
}
