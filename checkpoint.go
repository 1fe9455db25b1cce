package loom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io"
	"math"
	"os"

	"github.com/loomsim/loom/scenes"
)

// A checkpoint is a replay record, not a memory image: the scene (as JSON),
// the number of steps taken, every input applied from outside with the step
// it came before, and a hash of the state reached. Resume loads the scene,
// replays the steps and inputs, and checks the hash; since every step is
// bitwise deterministic (for any worker count), the resumed run continues
// bit for bit as the saved one would have, remeshed topology, EOL vertices,
// rod nodes, solver warm starts and scripted motions included. Resuming costs
// the time of the steps replayed.
//
// The file is the line "loom checkpoint", the JSON record, and a line
// "crc32 XXXXXXXX" over the record, so that truncation and corruption are
// found before anything is replayed.

// CheckpointVersion is the version of the checkpoint format written.
const CheckpointVersion = 1

const checkpointMagic = "loom checkpoint\n"

// ErrCheckpoint is wrapped by every error about a checkpoint file's
// contents.
var ErrCheckpoint = errors.New("loom: bad checkpoint")

// Input operations.
const (
	opPose     = "pose"
	opVelocity = "velocity"
	opAdd      = "add-obstacle"
	opRemove   = "remove-obstacle"
	opPin      = "pin"
	opUnpin    = "unpin"
	opAttach   = "attach"
)

// input is one call that changed the simulation from outside.
type input struct {
	Step     int              `json:"step"` // steps taken when it was applied
	Op       string           `json:"op"`
	Obstacle uint64           `json:"obstacle,omitempty"`
	Body     int              `json:"body,omitempty"`
	Vertex   int              `json:"vertex,omitempty"`
	V        [7]float64       `json:"v"`
	Add      *scenes.Obstacle `json:"add,omitempty"`
}

// checkpoint is the record a checkpoint file holds.
type checkpoint struct {
	Version int             `json:"version"`
	Scene   json.RawMessage `json:"scene"`
	Assets  string          `json:"assets,omitempty"` // where the scene's files are (scenes.Scene.AssetRoot)
	Steps   int             `json:"steps"`
	Inputs  []input         `json:"inputs"`
	State   string          `json:"state"` // stateHash of the state reached
}

// log records input in for Save.
func (s *Sim) log(in input) {
	if !s.record {
		s.unrecorded = true
		return
	}
	in.Step = s.sim.Clock.Step
	s.inputs = append(s.inputs, in)
}

// stateHash is an FNV-1a hash of the clock and every cloth vertex's and rod
// node's position, bit for bit.
func (s *Sim) stateHash() string {
	h := fnv.New64a()
	var b [8]byte
	put := func(x float64) {
		u := math.Float64bits(x)
		for k := range b {
			b[k] = byte(u >> (8 * k))
		}
		h.Write(b[:])
	}
	put(float64(s.sim.Clock.Step))
	put(s.sim.Clock.Time)
	for i := range s.sim.Bodies {
		s.pos = s.acc.AppendPositions(i, s.pos[:0])
		put(float64(len(s.pos)))
		for _, x := range s.pos {
			put(x[0])
			put(x[1])
			put(x[2])
		}
	}
	if r := s.sim.Rods; r != nil {
		for _, x := range r.Step.X {
			put(x[0])
			put(x[1])
			put(x[2])
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// Save writes a checkpoint of s to path (atomically: a temporary file
// renamed). A run driven from outside can be saved only with
// Options.Record.
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
	if s.unrecorded {
		return fmt.Errorf("%w: Save: inputs were applied without Options.Record, so the run cannot be replayed", ErrInvalidValue)
	}
	scene, err := json.Marshal(s.scene)
	if err != nil {
		return err
	}
	rec, err := json.Marshal(checkpoint{Version: CheckpointVersion, Scene: scene, Assets: s.scene.AssetRoot(), Steps: s.sim.Clock.Step, Inputs: s.inputs, State: s.stateHash()})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.WriteString(checkpointMagic)
	buf.Write(rec)
	fmt.Fprintf(&buf, "\ncrc32 %08x\n", crc32.ChecksumIEEE(rec))
	_, err = w.Write(buf.Bytes())
	return err
}

// readCheckpoint reads and checks a checkpoint file.
func readCheckpoint(path string) (*checkpoint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, path, fmt.Sprintf(format, args...))
	}
	body, ok := bytes.CutPrefix(data, []byte(checkpointMagic))
	if !ok {
		return nil, bad("not a loom checkpoint (no %q line)", checkpointMagic[:len(checkpointMagic)-1])
	}
	i := bytes.LastIndex(body, []byte("\ncrc32 "))
	if i < 0 || !bytes.HasSuffix(body, []byte("\n")) {
		return nil, bad("truncated (no checksum line at the end)")
	}
	rec, sum := body[:i], bytes.TrimSpace(body[i+len("\ncrc32 "):])
	if want := fmt.Sprintf("%08x", crc32.ChecksumIEEE(rec)); string(sum) != want {
		return nil, bad("corrupted (checksum %s, contents give %s)", sum, want)
	}
	var head struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(rec, &head); err != nil {
		return nil, bad("%v", err)
	}
	if head.Version != CheckpointVersion {
		return nil, bad("format version %d; this loom reads version %d (rerun the scene to make a new checkpoint)", head.Version, CheckpointVersion)
	}
	var c checkpoint
	if err := decodeStrict(rec, &c); err != nil {
		return nil, bad("%v", err)
	}
	if c.Steps < 0 {
		return nil, bad("negative step count %d", c.Steps)
	}
	return &c, nil
}

// Resume loads the checkpoint at path and brings the simulation to the
// state it was saved in (see the format above); the resumed Sim keeps the
// input log, so it can be saved again.
func Resume(path string, opt Options) (*Sim, error) {
	c, err := readCheckpoint(path)
	if err != nil {
		return nil, err
	}
	sc, err := decodeScene(c.Scene)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCheckpoint, err)
	}
	if c.Assets != "" {
		sc.SetAssetRoot(c.Assets)
	}
	record := opt.Record
	opt.Record = true
	s, err := newSim(sc, opt)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCheckpoint, path, err)
	}
	next := 0
	for step := 0; ; step++ {
		for ; next < len(c.Inputs) && c.Inputs[next].Step == step; next++ {
			if err := s.apply(&c.Inputs[next]); err != nil {
				s.Close()
				return nil, fmt.Errorf("%w: %s: input %d (%s before step %d): %w", ErrCheckpoint, path, next, c.Inputs[next].Op, step+1, err)
			}
		}
		if step == c.Steps {
			break
		}
		if err := s.Step(); err != nil {
			s.Close()
			return nil, fmt.Errorf("%w: %s: replaying: %w", ErrCheckpoint, path, err)
		}
	}
	if next < len(c.Inputs) {
		s.Close()
		return nil, fmt.Errorf("%w: %s: input %d is at step %d, out of order or after the %d steps saved", ErrCheckpoint, path, next, c.Inputs[next].Step, c.Steps)
	}
	if h := s.stateHash(); h != c.State {
		s.Close()
		return nil, fmt.Errorf("%w: %s: the replayed state (hash %s) is not the saved one (%s): made by another version of loom?", ErrCheckpoint, path, h, c.State)
	}
	s.record = record
	return s, nil
}

// apply replays input in.
func (s *Sim) apply(in *input) error {
	b := Body(pack(s.serial, in.Body))
	o := Obstacle(in.Obstacle)
	v := in.V
	switch in.Op {
	case opPose:
		return s.SetObstaclePose(o, [3]float64{v[0], v[1], v[2]}, [4]float64{v[3], v[4], v[5], v[6]})
	case opVelocity:
		return s.SetObstacleVelocity(o, [3]float64{v[0], v[1], v[2]}, [3]float64{v[3], v[4], v[5]})
	case opAdd:
		if in.Add == nil {
			return fmt.Errorf("no obstacle to add")
		}
		_, err := s.AddObstacle(*in.Add)
		return err
	case opRemove:
		return s.RemoveObstacle(o)
	case opPin:
		return s.Pin(b, in.Vertex)
	case opUnpin:
		return s.Unpin(b, in.Vertex)
	case opAttach:
		return s.Attach(b, in.Vertex, o)
	}
	return fmt.Errorf("unknown input %q", in.Op)
}
