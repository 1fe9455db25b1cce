package loom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime"

	"github.com/loomsim/loom/internal/snapshot"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/systems"
)

// A checkpoint is a state image: the scene (as JSON, to build the model
// from) and the whole mutable state of the run (systems.Sim.EncodeState:
// every entity and component in arche's storage order, every system's
// persistent fields and warm starts, the clock, the scripted and driven
// motions, the topology version), followed by this package's own (the
// obstacle handles' slots). Resume builds the model from the scene, adds
// the obstacles added while running, and lays the image over it: its cost
// is the size of the state, not the number of steps taken, and the resumed
// run continues bit for bit as the saved one would have, on any worker
// count.
//
// The file is the line "loom checkpoint", a header line of JSON (format
// version, scene, where its files are, step, image size, machine
// architecture), the image's bytes, and a line "crc32 XXXXXXXX" over the
// header and the image, so that truncation and corruption are found before
// anything is decoded. An image holds numbers in the machine's byte order
// and is read by the build of loom that wrote it (a type hash checks it).

// CheckpointVersion is the version of the checkpoint format written. Version
// 1 was a replay record (scene, inputs, step count); version 2 is a state
// image.
const CheckpointVersion = 2

const checkpointMagic = "loom checkpoint\n"

// ErrCheckpoint is wrapped by every error about a checkpoint file's
// contents.
var ErrCheckpoint = errors.New("loom: bad checkpoint")

// checkpointHead is the header line of a checkpoint file.
type checkpointHead struct {
	Version int               `json:"version"`
	Scene   json.RawMessage   `json:"scene"`
	Assets  string            `json:"assets,omitempty"` // where the scene's files are (scenes.Scene.AssetRoot)
	Added   []scenes.Obstacle `json:"added,omitempty"`  // obstacles added while running, in order
	Step    int               `json:"step"`
	Arch    string            `json:"arch"`        // runtime.GOARCH of the writer
	Bytes   int               `json:"image_bytes"` // of the state image
}

// Save writes a checkpoint of s to path (atomically: a temporary file
// renamed).
func (s *Sim) Save(path string) error {
	var buf bytes.Buffer
	if err := s.WriteCheckpoint(&buf); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// WriteCheckpoint writes the checkpoint that Save writes to w.
func (s *Sim) WriteCheckpoint(w io.Writer) error {
	if s.closed {
		return ErrClosed
	}
	scene, err := json.Marshal(s.scene)
	if err != nil {
		return err
	}
	enc := snapshot.NewEncoder(systems.StateConfig)
	s.sim.EncodeState(enc)
	enc.Encode(&s.obstacles)
	image := enc.Bytes()
	head, err := json.Marshal(checkpointHead{Version: CheckpointVersion, Scene: scene, Assets: s.scene.AssetRoot(), Added: s.added,
		Step: s.sim.Clock.Step, Arch: runtime.GOARCH, Bytes: len(image)})
	if err != nil {
		return err
	}
	crc := crc32.NewIEEE()
	crc.Write(head)
	crc.Write([]byte{'\n'})
	crc.Write(image)
	var buf bytes.Buffer
	buf.WriteString(checkpointMagic)
	buf.Write(head)
	buf.WriteByte('\n')
	buf.Write(image)
	fmt.Fprintf(&buf, "\ncrc32 %08x\n", crc.Sum32())
	_, err = w.Write(buf.Bytes())
	return err
}

// readCheckpoint reads and checks a checkpoint file: its header and image.
func readCheckpoint(path string) (*checkpointHead, []byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, path, fmt.Sprintf(format, args...))
	}
	body, ok := bytes.CutPrefix(data, []byte(checkpointMagic))
	if !ok {
		return nil, nil, bad("not a loom checkpoint (no %q line)", checkpointMagic[:len(checkpointMagic)-1])
	}
	// A version 1 file is one JSON record and its checksum line; this
	// format's header line starts the same way, so that the version is
	// read before anything else.
	line, rest, ok := bytes.Cut(body, []byte("\n"))
	if !ok {
		return nil, nil, bad("truncated (no header line)")
	}
	var version struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(line, &version); err != nil || version.Version == nil {
		if bytes.HasSuffix(data, []byte("\n")) && bytes.Contains(body, []byte("\ncrc32 ")) {
			return nil, nil, bad("corrupted header line (%v)", err)
		}
		return nil, nil, bad("truncated (the header line is cut)")
	}
	if *version.Version != CheckpointVersion {
		return nil, nil, bad("format version %d; this loom reads version %d (version 1 replayed the run; rerun the scene with --checkpoint-every to make a new checkpoint)", *version.Version, CheckpointVersion)
	}
	var head checkpointHead
	if err := decodeStrict(line, &head); err != nil {
		return nil, nil, bad("header: %v", err)
	}
	const tail = len("\ncrc32 01234567\n")
	if head.Bytes < 0 || head.Step < 0 {
		return nil, nil, bad("header: negative image size %d or step %d", head.Bytes, head.Step)
	}
	if len(rest) < head.Bytes+tail {
		return nil, nil, bad("truncated (%d bytes after the header, want %d: the %d-byte image and the checksum line)", len(rest), head.Bytes+tail, head.Bytes)
	}
	if len(rest) > head.Bytes+tail {
		return nil, nil, bad("corrupted (%d bytes after the header, want %d)", len(rest), head.Bytes+tail)
	}
	image, sum := rest[:head.Bytes], rest[head.Bytes:]
	if !bytes.HasPrefix(sum, []byte("\ncrc32 ")) || sum[len(sum)-1] != '\n' {
		return nil, nil, bad("corrupted (no checksum line after the image)")
	}
	crc := crc32.NewIEEE()
	crc.Write(line)
	crc.Write([]byte{'\n'})
	crc.Write(image)
	if got, want := string(sum[len("\ncrc32 "):len(sum)-1]), fmt.Sprintf("%08x", crc.Sum32()); got != want {
		return nil, nil, bad("corrupted (checksum %s, contents give %s)", got, want)
	}
	if head.Arch != runtime.GOARCH {
		return nil, nil, bad("written on %s; this machine is %s (an image holds numbers in the writer's byte order)", head.Arch, runtime.GOARCH)
	}
	return &head, image, nil
}

// Resume loads the checkpoint at path: it builds the model from the
// checkpoint's scene and lays the saved state over it, without stepping.
func Resume(path string, opt Options) (*Sim, error) {
	head, image, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error { return fmt.Errorf("%w: %s: %w", ErrCheckpoint, path, err) }
	sc, err := decodeScene(head.Scene)
	if err != nil {
		return nil, fail(err)
	}
	if head.Assets != "" {
		sc.SetAssetRoot(head.Assets)
	}
	s, err := newSim(sc, opt)
	if err != nil {
		return nil, fail(err)
	}
	if err := s.restore(head, image); err != nil {
		s.Close()
		return nil, fail(err)
	}
	return s, nil
}

// restore lays state image over s, freshly built from head's scene.
func (s *Sim) restore(head *checkpointHead, image []byte) error {
	for i, o := range head.Added {
		// Spawned here for their motion scripts (the image's world
		// replaces the entities).
		if _, _, err := s.spawnObstacle(o); err != nil {
			return fmt.Errorf("added obstacle %d (%s): %w", i, o.Name, err)
		}
	}
	s.added = head.Added
	dec := snapshot.NewDecoder(systems.StateConfig, image)
	if err := s.sim.DecodeState(dec); err != nil {
		return err
	}
	if err := dec.Decode(&s.obstacles); err != nil {
		return err
	}
	if err := dec.Finish(); err != nil {
		return err
	}
	if s.sim.Clock.Step != head.Step {
		return fmt.Errorf("%w: the image is at step %d, the header says %d", snapshot.ErrImage, s.sim.Clock.Step, head.Step)
	}
	s.measure()
	return nil
}
