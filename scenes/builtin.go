package scenes

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.json dress wedge
var builtinFS embed.FS

// Info describes a built-in scene.
type Info struct {
	Name        string
	Description string
}

func builtinNames() []string {
	entries, _ := fs.ReadDir(builtinFS, ".")
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// Builtin returns a fresh copy of the named built-in scene.
func Builtin(name string) (*Scene, error) {
	data, err := builtinFS.ReadFile(name + ".json")
	if err != nil || !fs.ValidPath(name) || strings.Contains(name, "/") {
		return nil, fmt.Errorf("unknown built-in scene %q (valid: %s)", name, strings.Join(builtinNames(), ", "))
	}
	s, err := Parse(data, name+".json")
	if err != nil {
		return nil, err
	}
	s.files = embeddedAssets{}
	return s, nil
}

// Builtins lists the built-in scenes sorted by name.
func Builtins() []Info {
	var out []Info
	for _, n := range builtinNames() {
		s, err := Builtin(n)
		if err != nil {
			out = append(out, Info{Name: n, Description: "(invalid: " + err.Error() + ")"})
			continue
		}
		out = append(out, Info{Name: n, Description: s.Description})
	}
	return out
}

// Resolve returns the built-in scene named arg, or else loads arg as a path
// to a JSON scene file.
func Resolve(arg string) (*Scene, error) {
	for _, n := range builtinNames() {
		if n == arg {
			return Builtin(arg)
		}
	}
	s, err := Load(arg)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("scene %q is neither a built-in (%s) nor a readable file: %w", arg, strings.Join(builtinNames(), ", "), err)
	}
	return s, err
}
