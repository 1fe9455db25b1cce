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
// header line and the image (as version 1's over its record), so that
// truncation and corruption are found before anything is decoded. An image holds numbers in the machine's byte order
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
	// The checksum line ends the file: without it the file was cut.
	const tail = len("\ncrc32 01234567\n")
	n := len(body) - tail
	if n < 0 || !bytes.HasPrefix(body[n:], []byte("\ncrc32 ")) || body[len(body)-1] != '\n' {
		return nil, nil, bad("truncated, or written to after its end (no checksum line at the end)")
	}
	rec, sum := body[:n], body[n+len("\ncrc32 "):len(body)-1]
	if want := fmt.Sprintf("%08x", crc32.ChecksumIEEE(rec)); string(sum) != want {
		return nil, nil, bad("corrupted (checksum %s, contents give %s)", sum, want)
	}
	// A version 1 file's record is one line of JSON; this format's header
	// line starts the same way, so that the version is read first.
	line, image, _ := bytes.Cut(rec, []byte("\n"))
	var version struct {
		Version *int `json:"version"`
	}
	if err := json.Unmarshal(line, &version); err != nil || version.Version == nil {
		return nil, nil, bad("no format version in the header line (%v)", err)
	}
	if *version.Version != CheckpointVersion {
		return nil, nil, bad("format version %d; this loom reads version %d (version 1 replayed the run; rerun the scene with --checkpoint-every to make a new checkpoint)", *version.Version, CheckpointVersion)
	}
	var head checkpointHead
	if err := decodeStrict(line, &head); err != nil {
		return nil, nil, bad("header: %v", err)
	}
	if head.Step < 0 || head.Bytes != len(image) {
		return nil, nil, bad("header: step %d, image of %d bytes, but %d follow", head.Step, head.Bytes, len(image))
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
