// Package loom is the public Go API of the loom cloth and yarn simulator:
// the one surface that game engines and tools embed, and that the C ABI
// (capi/) wraps. It follows MuJoCo's split of a fixed model from the
// mutable state and Box2D v3's integer handles:
//
//   - Load, LoadBytes and LoadScene validate a scene (a JSON file, JSON
//     bytes, or a scenes.Scene built in Go) and resolve it into loom's
//     immutable model.Model, then spawn the simulation;
//   - Step advances it by the scene's fixed time step;
//   - Body, Obstacle and Strand are handles with a generation: a handle
//     whose object is gone (a removed obstacle, another Sim's body) is an
//     ErrStaleHandle error, never a different object;
//   - Positions, Normals and Triangles fill caller-owned buffers in a
//     renderer's layout (buffers.go); Topology changes when remeshing does;
//   - SetObstaclePose and SetObstacleVelocity drive obstacles kinematically
//     from outside, AddObstacle and RemoveObstacle change the set while it
//     runs, Pin, Unpin and Attach hold vertices (drive.go);
//   - Save and Resume checkpoint a run (checkpoint.go).
//
// A Sim is not safe for concurrent use; its step runs on loom's own worker
// pool. A steady-state step allocates nothing.
package loom

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/loomsim/loom/ecs"
	"github.com/loomsim/loom/scenes"
	"github.com/loomsim/loom/solver/dense"
	"github.com/loomsim/loom/systems"
)

// Errors that API calls wrap with what and where; test them with errors.Is.
var (
	ErrStaleHandle    = errors.New("loom: stale or invalid handle")
	ErrBufferTooSmall = errors.New("loom: buffer too small")
	ErrInvalidValue   = errors.New("loom: invalid value")
	ErrClosed         = errors.New("loom: simulation closed")
)

// Options are the settings of a loaded simulation that are not part of its
// scene.
type Options struct {
	// Workers is the number of worker goroutines; 0: LOOM_WORKERS or
	// GOMAXPROCS. Results are bitwise identical for any count.
	Workers int
}

// Stats are the statistics of the last step.
type Stats struct {
	Step          int     // steps taken since load
	Time          float64 // s, simulated time
	StepSeconds   float64 // s, wall-clock time of the last Step
	Vertices      int     // cloth vertices (all bodies)
	Faces         int     // cloth faces
	Contacts      int     // cloth-obstacle contact rows of the last step
	PCGIterations int     // of the last unconstrained implicit solve
	QPIterations  int     // of the last contact QP
	RodNodes      int     // rod nodes (all strands)
}

// Sim is a loaded, running simulation.
type Sim struct {
	scene     *scenes.Scene // the scene as loaded (a private copy)
	sim       *systems.Sim
	acc       *systems.Access
	serial    uint32 // the generation of this Sim's body and strand handles
	obstacles []obstacleSlot
	stats     Stats
	closed    bool

	// Buffers reused by the readers.
	pos, nrm []dense.Vec3

	// added is every obstacle added while running, in order: Resume adds
	// them again, so that their motion scripts exist before the state
	// image is laid over the Sim (checkpoint.go).
	added []scenes.Obstacle
}

var serials atomic.Uint32

// Load loads a scene file, or a built-in scene by name (scenes.Resolve).
func Load(path string, opt Options) (*Sim, error) {
	sc, err := scenes.Resolve(path)
	if err != nil {
		return nil, err
	}
	return LoadScene(sc, opt)
}

// LoadBytes loads a scene from its JSON text.
func LoadBytes(data []byte, opt Options) (*Sim, error) {
	sc, err := scenes.Parse(data, "scene")
	if err != nil {
		return nil, err
	}
	return newSim(sc, opt)
}

// LoadScene loads a scene built in Go (or loaded and changed). The Sim keeps
// its own exact copy: later changes to sc do not affect it.
func LoadScene(sc *scenes.Scene, opt Options) (*Sim, error) {
	if sc == nil {
		return nil, fmt.Errorf("%w: nil scene", ErrInvalidValue)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		return nil, fmt.Errorf("scene %q: %w", sc.Name, err)
	}
	cp, err := decodeScene(data)
	if err != nil {
		return nil, fmt.Errorf("scene %q: %w", sc.Name, err)
	}
	cp.SetAssetRoot(sc.AssetRoot())
	s, err := newSim(cp, opt)
	if err != nil && sc.Source() != "" {
		err = fmt.Errorf("%s: %w", sc.Source(), err)
	}
	return s, err
}

// decodeScene decodes a scene's JSON exactly as it was encoded: unlike
// scenes.Parse it does not normalize (a second normalization could change
// the last bit of a normal, and with it the trajectory); the values are
// validated when the scene resolves into its model.
func decodeScene(data []byte) (*scenes.Scene, error) {
	sc := new(scenes.Scene)
	if err := decodeStrict(data, sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// decodeStrict decodes JSON data into v; an unknown field is an error.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func newSim(sc *scenes.Scene, opt Options) (*Sim, error) {
	if opt.Workers < 0 {
		return nil, fmt.Errorf("%w: Options.Workers = %d", ErrInvalidValue, opt.Workers)
	}
	if opt.Workers == 0 {
		n, err := ecs.WorkerCount()
		if err != nil {
			return nil, err
		}
		opt.Workers = n
	}
	m, err := sc.Model()
	if err != nil {
		return nil, err
	}
	motions := make([]*kinematic, len(m.Obstacles))
	for i := range m.Obstacles {
		motions[i] = &kinematic{base: m.Obstacles[i].Motion}
		m.Obstacles[i].Motion = motions[i]
	}
	es, err := systems.Build(m, opt.Workers)
	if err != nil {
		return nil, err
	}
	s := &Sim{scene: sc, sim: es, acc: systems.NewAccess(es), serial: serials.Add(1)}
	for i, e := range s.acc.Obstacles(nil) {
		s.obstacles = append(s.obstacles, obstacleSlot{ent: e, gen: 1, motion: motions[i]})
	}
	s.measure()
	return s, nil
}

// Step advances the simulation by one time step (Dt).
func (s *Sim) Step() error {
	if s.closed {
		return ErrClosed
	}
	start := time.Now()
	err := s.sim.Step()
	s.stats.StepSeconds = time.Since(start).Seconds()
	if err != nil {
		return fmt.Errorf("step %d: %w", s.sim.Clock.Step+1, err)
	}
	s.measure()
	return nil
}

// measure fills the statistics of the last step.
func (s *Sim) measure() {
	st := s.sim.State
	s.stats.Step, s.stats.Time = s.sim.Clock.Step, s.sim.Clock.Time
	s.stats.Vertices, s.stats.Faces, s.stats.Contacts = st.NumVerts(), len(st.FaceRest), len(st.Contacts)
	s.stats.PCGIterations, s.stats.QPIterations = st.LastSolve.Iterations, st.LastQP.Iterations
	s.stats.RodNodes = 0
	if r := s.sim.Rods; r != nil {
		s.stats.RodNodes = len(r.Step.X)
	}
}

// Stats returns the statistics of the last step.
func (s *Sim) Stats() Stats { return s.stats }

// Time returns the simulated time (s).
func (s *Sim) Time() float64 { return s.sim.Clock.Time }

// Dt returns the fixed time step (s).
func (s *Sim) Dt() float64 { return s.sim.Clock.Dt }

// Name returns the scene's name.
func (s *Sim) Name() string { return s.scene.Name }

// Engine returns the engine behind s, for loom's own command line (its
// frame and stats writers); embedders use the methods of Sim.
func (s *Sim) Engine() *systems.Sim { return s.sim }

// Close releases the worker pool; later calls return ErrClosed.
func (s *Sim) Close() {
	if !s.closed {
		s.closed = true
		s.sim.Close()
	}
}
