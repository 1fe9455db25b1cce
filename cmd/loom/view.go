package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/loomsim/loom/export"
)

func runView(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "address to serve on (host:port; port 0 picks a free one)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: loom view DIR [--addr HOST:PORT]\n  serves a page that plays the run in DIR back (orbit, timeline, stats plot); Ctrl-C stops it")
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("view: want one run folder DIR, got %d arguments", len(pos))
	}
	frames, err := export.ReadRun(pos[0])
	if err != nil {
		return err
	}
	stats, err := os.ReadFile(filepath.Join(pos[0], "stats.jsonl"))
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	srv := &http.Server{Handler: export.Viewer(frames, stats)}
	fmt.Fprintf(stdout, "viewing %s (%d frames) at http://%s/ ; Ctrl-C stops\n", pos[0], len(frames), ln.Addr())
	go func() {
		<-interrupt
		srv.Shutdown(context.Background())
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
