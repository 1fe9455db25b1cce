package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progress is a progress bar on stderr for a phase of n items that is
// drawn only once the phase has taken more than a second (the bar measures
// its rate from its creation); with n < 0 (a phase of one unknown length,
// such as loading) a line with the phase's name and elapsed seconds instead.
// While it is shown it is redrawn every quarter second, so its elapsed time
// moves while one long item runs (a one-step run, a slow first bench step).
// finish or abort ends it; either may be called more than once.
type progress struct {
	bar   *progressbar.ProgressBar // nil for n < 0
	what  string
	w     io.Writer
	start time.Time

	mu    sync.Mutex
	shown bool // drawn at least once
	ended bool // finish or abort has run

	stopTick chan struct{}
	ticked   sync.WaitGroup
}

func newProgress(n int, what, items string, w io.Writer) *progress {
	p := &progress{what: what, w: w, start: time.Now(), stopTick: make(chan struct{})}
	if n >= 0 {
		p.bar = progressbar.NewOptions(n, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(), progressbar.OptionSetItsString(items), progressbar.OptionShowIts(),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
		p.bar.StartWithoutRender()
	}
	p.ticked.Add(1)
	go p.tick()
	return p
}

// tick redraws the bar every quarter second once the phase has taken more
// than a second, until the bar ends.
func (p *progress) tick() {
	defer p.ticked.Done()
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stopTick:
			return
		case <-t.C:
			p.mu.Lock()
			if !p.ended && time.Since(p.start) > time.Second {
				p.shown = true
				p.redraw()
			}
			p.mu.Unlock()
		}
	}
}

// redraw draws the bar (or the line of an unknown length) as it is now;
// p.mu is held.
func (p *progress) redraw() {
	if p.bar != nil {
		p.bar.Add(0)
		return
	}
	fmt.Fprintf(p.w, "\r%s... %.0f s", p.what, time.Since(p.start).Seconds())
}

// set records that i items are done (nothing for an unknown length).
func (p *progress) set(i int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.shown = p.shown || time.Since(p.start) > time.Second
	if p.shown && !p.ended && p.bar != nil {
		p.bar.Set(i)
	}
}

// end stops the redrawing and reports whether the bar was drawn and had not
// ended before.
func (p *progress) end() bool {
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return false
	}
	p.ended = true
	p.mu.Unlock()
	close(p.stopTick)
	p.ticked.Wait()
	return p.shown
}

// finish clears a drawn bar at the end of the phase.
func (p *progress) finish() {
	if !p.end() {
		return
	}
	if p.bar == nil {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", len(p.what)+16))
		return
	}
	p.bar.Finish()
}

// abort leaves a drawn bar where it stopped and ends its line.
func (p *progress) abort() {
	if !p.end() {
		return
	}
	if p.bar != nil {
		p.bar.Exit()
	}
	fmt.Fprintln(p.w)
}

// interrupt receives the first SIGINT or SIGTERM (main forwards it); a run
// checks it between steps and stops with errInterrupted.
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
