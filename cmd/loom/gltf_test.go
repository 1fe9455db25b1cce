package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/qmuntal/gltf"
)

// gltfValidator returns the folder holding the npm package gltf-validator
// (the Khronos glTF validator), from LOOM_GLTF_VALIDATOR or where .ci/run
// installs it (.ci/node/node_modules), and node's path. It skips the test,
// saying what to install, when either is missing, except under CI, which
// installs them, where it fails.
func gltfValidator(t *testing.T) (nodeModules, node string) {
	t.Helper()
	nodeModules = os.Getenv("LOOM_GLTF_VALIDATOR")
	if nodeModules == "" {
		nodeModules, _ = filepath.Abs(filepath.Join("..", "..", ".ci", "node", "node_modules"))
	}
	node, err := exec.LookPath("node")
	_, modErr := os.Stat(filepath.Join(nodeModules, "gltf-validator", "package.json"))
	if err != nil || modErr != nil {
		msg := "the Khronos glTF validator is not installed: need node and `npm install --prefix .ci/node gltf-validator@2.0.0-dev.3.10` " +
			"(or LOOM_GLTF_VALIDATOR=DIR/node_modules); .ci/run installs it"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return nodeModules, node
}

// TestGLTFValidates writes glTF animations of a Lagrangian scene with
// obstacles (sphere-drop), a remeshed one whose topology changes (sphere),
// an EOL one (edge), a rod one (rod-hang) and one with seams (skirt), and
// checks each with the Khronos validator: no errors and no warnings.
func TestGLTFValidates(t *testing.T) {
	nodeModules, node := gltfValidator(t)
	var files []string
	for _, c := range [][]string{
		{"sphere-drop", "--steps", "8", "--set", "bodies.0.resolution=8"},
		{"sphere", "--steps", "80"},
		{"edge", "--steps", "6"},
		{"rod-hang", "--steps", "60"},
		{"skirt", "--steps", "10"},
	} {
		dir := filepath.Join(t.TempDir(), c[0])
		if out, err := runLoom(t, append([]string{"run", c[0], "--out", dir, "--format", "gltf"}, c[1:]...)...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		files = append(files, filepath.Join(dir, gltfName))
	}
	cmd := exec.Command(node, filepath.Join("..", "..", "export", "testdata", "validate.js"))
	cmd.Args = append(cmd.Args, files...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+nodeModules)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("validator: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(files) {
		t.Fatalf("validator printed %d lines for %d files:\n%s", len(lines), len(files), out)
	}
	for _, l := range lines {
		if !strings.Contains(l, `"errors":0,"warnings":0`) {
			t.Errorf("validator: %s", l)
		}
	}
	t.Logf("validator:\n%s", out)
}

// TestExportMatchesRun: loom export DIR of a run's OBJ frames writes the
// same animation as loom run --format obj,gltf did (the same nodes, meshes
// and accessors; the values differ in the last float32 bits, as the OBJ
// frames keep 9 digits), and the remeshed cloth is in several topology
// spans.
func TestExportMatchesRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if out, err := runLoom(t, "run", "sphere", "--steps", "40", "--out", dir, "--format", "obj,gltf"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	direct, _ := os.ReadFile(filepath.Join(dir, gltfName))
	os.Remove(filepath.Join(dir, gltfName))
	if out, err := runLoom(t, "export", dir); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	again, _ := os.ReadFile(filepath.Join(dir, gltfName))
	summary := func(data []byte) string {
		doc := new(gltf.Document)
		if err := gltf.NewDecoder(bytes.NewReader(data)).Decode(doc); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, n := range doc.Nodes {
			names = append(names, n.Name)
		}
		return fmt.Sprintf("nodes %v, %d meshes, %d accessors, %d bytes", names, len(doc.Meshes), len(doc.Accessors), len(data))
	}
	a, b := summary(direct), summary(again)
	if a != b {
		t.Fatalf("loom export: %s\nloom run: %s", b, a)
	}
	if strings.Count(a, " cloth@") < 2 {
		t.Fatalf("the remeshed cloth is in one span: %s", a)
	}
	t.Log(a)
}
