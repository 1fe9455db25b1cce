// Command loom runs cloth scenes and benchmarks.
//
//	loom                      run the drape scene into ./out
//	loom run SCENE [flags]    run a built-in scene or a JSON scene file
//	loom scenes               list the built-in scenes
//	loom bench [flags]        run the benchmark scenes and print a table
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "loom:", err)
		}
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return runScene([]string{"drape"}, stdout, stderr)
	}
	switch args[0] {
	case "run":
		return runScene(args[1:], stdout, stderr)
	case "scenes":
		return listScenes(stdout)
	case "bench":
		return runBench(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		return fmt.Errorf("unknown command %q\n%s", args[0], usage)
	}
}

const usage = `usage:
  loom                      run the drape scene into ./out
  loom run SCENE [--steps N | --duration S] [--out DIR] [--workers K] [--set path=value ...]
                            SCENE is a built-in name (see loom scenes) or a JSON file
  loom scenes               list the built-in scenes
  loom bench [--steps N] [--workers K] [--adaptive=false] [--eol=false]
             [--eol-cases edge-eol,...] [--repeat R] [--cases sheet-100-amg,...] [--rounds R]
                            run the benchmark scenes and print tables
`

// parseInterspersed parses flags that may come before or after positional
// arguments and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
