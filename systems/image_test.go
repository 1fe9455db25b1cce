package systems

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/loomsim/loom/internal/snapshot"
	"github.com/loomsim/loom/scenes"
)

// imageCase is a scene for the state-image round trip: n steps, and what
// shows, after some step before the save point, that the state the case is
// for is in use.
type imageCase struct {
	name  string
	sets  [][2]string
	n     int
	inUse func(s *Sim) (string, bool)
}

// activity describes the state at the save point that the cases check.
func activity(s *Sim) string {
	a := fmt.Sprintf("step %d, topology version %d, %d vertices, %d contact rows, %d proximity rows", s.Clock.Step, s.World.TopologyVersion(), s.State.NumVerts(), len(s.State.Contacts), len(s.State.Pairs))
	if s.Rods != nil {
		a += fmt.Sprintf(", %d rod nodes, %d yarn contacts", len(s.Rods.Step.X), len(s.Rods.Contacts))
	}
	return a
}

// TestStateImageBitwise: n steps straight (2 workers) and n/2 + state
// image + a fresh Build (1 worker) with the image laid over it + n/2 agree
// in every bit of every entity's state (positions, velocities, material
// coordinates, EOL states, rod nodes, faces: stateHash) and in each body's
// triangles, on a Lagrangian, an adaptive (remeshing), an EOL, a rod (with
// yarn contacts) and a developable scene, run small (--set overrides);
// LOOM_LONG_TESTS adds a self-contact scene (twist) and the others at full
// size. Decoding must run no system (every system's time stays zero).
func TestStateImageBitwise(t *testing.T) {
	long := os.Getenv("LOOM_LONG_TESTS") != ""
	cases := []imageCase{
		{"drape", [][2]string{{"bodies.0.resolution", "10"}}, 200, nil},
		{"sphere", [][2]string{{"bodies.0.remesh.size_min", "0.06"}}, 60, func(s *Sim) (string, bool) {
			return "remeshed", s.World.TopologyVersion() > 1
		}},
		{"edge", [][2]string{{"bodies.0.resolution", "12"}, {"bodies.0.remesh.size_min", "0.04"}, {"bodies.0.remesh.size_max", "0.1"}}, 120, func(s *Sim) (string, bool) {
			n := 0
			q := s.EOL.eolF.Query(s.World.ECS)
			n = q.Count()
			q.Close()
			return fmt.Sprintf("%d EOL vertices", n), n > 0
		}},
		{"rod-crossing", nil, 200, func(s *Sim) (string, bool) {
			return "yarn contacts", len(s.Rods.Contacts) > 0
		}},
		{"rod-drop", nil, 200, func(s *Sim) (string, bool) {
			return "rod obstacles", len(s.Rods.Step.Obstacles) > 0
		}},
		{"rod-drop", [][2]string{{"rods.linear", "iterative"}}, 200, func(s *Sim) (string, bool) {
			return "rod systems solved iteratively", s.Rods.Step.Iterative()
		}},
		{"paper-drape", [][2]string{{"bodies.0.resolution", "11"}}, 200, func(s *Sim) (string, bool) {
			return "developable bodies", s.Developable != nil && len(s.Developable.bodies) > 0
		}},
	}
	if long {
		// Self-contact with proximity rows in the QP: the neck of the
		// wrung tube (30 rows by step 50 at dt = 0.01 s): 87 s on a
		// loaded 2-core machine, too slow for the default run, and no
		// small scene was found with self-contact acting by step 100.
		cases = append(cases, imageCase{"twist", [][2]string{{"dt", "0.01"}}, 100, func(s *Sim) (string, bool) {
			l := s.SelfCollision.Last
			return "self-contact proximity rows, repulsions or impacts", len(s.State.Pairs)+l.Repelled+l.Impacts > 0
		}}, imageCase{"sphere", nil, 200, nil}, imageCase{"edge", nil, 200, nil}, imageCase{"paper-drape", nil, 200, nil})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := load(t, c.name, c.sets...)
			straight := build(t, sc, 2)
			steps(t, straight, c.n, nil)

			first := build(t, sc, 2)
			used, what := c.inUse == nil, ""
			steps(t, first, c.n/2, func(int) {
				if !used {
					what, used = c.inUse(first)
				}
			})
			t.Log(activity(first))
			if !used {
				t.Fatalf("no %s before the save point: the case does not test what it is for", what)
			}
			enc := snapshot.NewEncoder(StateConfig)
			first.EncodeState(enc)
			image := enc.Bytes()

			resumed := build(t, sc, 1)
			dec := snapshot.NewDecoder(StateConfig, image)
			if err := resumed.DecodeState(dec); err != nil {
				t.Fatal(err)
			}
			if err := dec.Finish(); err != nil {
				t.Fatal(err)
			}
			t.Logf("image %d bytes", len(image))
			if resumed.Clock.Step != c.n/2 {
				t.Fatalf("resumed at step %d, want %d", resumed.Clock.Step, c.n/2)
			}
			for _, tm := range resumed.Scheduler.Timings() {
				if tm.Elapsed != 0 {
					t.Fatalf("system %s ran while the image was decoded", tm.System)
				}
			}
			steps(t, resumed, c.n-c.n/2, nil)
			if got, want := stateHash(resumed.World.ECS), stateHash(straight.World.ECS); got != want {
				t.Fatalf("state hash %016x after the round trip, %016x straight", got, want)
			}
			if resumed.Clock.Step != straight.Clock.Step || resumed.Clock.Time != straight.Clock.Time {
				t.Fatalf("clock %+v after the round trip, %+v straight", *resumed.Clock, *straight.Clock)
			}
			for i := range straight.Bodies {
				if !slices.Equal(resumed.Bodies[i].Faces, straight.Bodies[i].Faces) {
					t.Fatalf("body %d: triangles differ after the round trip", i)
				}
			}
		})
	}
}

// checkImage lays sim's state image over a fresh build of sc and requires
// the same state (hash want): a checkpoint of every built-in scene can be
// resumed (TestGoldenTrajectories calls it on each; TestStateImageBitwise
// checks the continuation bit for bit on a few).
func checkImage(t *testing.T, sim *Sim, sc *scenes.Scene, want uint64) {
	t.Helper()
	enc := snapshot.NewEncoder(StateConfig)
	sim.EncodeState(enc)
	resumed := build(t, sc, 1)
	dec := snapshot.NewDecoder(StateConfig, enc.Bytes())
	if err := resumed.DecodeState(dec); err != nil {
		t.Fatalf("state image: %v", err)
	}
	if err := dec.Finish(); err != nil {
		t.Fatalf("state image: %v", err)
	}
	if got := stateHash(resumed.World.ECS); got != want {
		t.Fatalf("state hash %016x after the state image round trip, %016x before", got, want)
	}
}
