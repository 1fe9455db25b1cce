package selfcontact

import (
	"encoding/binary"
	"encoding/gob"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/loomsim/loom/solver/internal/testrun"
)

type zzCapture struct {
	Faces   []int32
	X, V    [][]float64
	InvMass [][]float64
	H       float64
}

func zzLoad(b *testing.B) zzCapture {
	f, err := os.Open(os.Getenv("SC_CAPTURE"))
	if err != nil {
		b.Skip(err)
	}
	defer f.Close()
	var c zzCapture
	if err := gob.NewDecoder(f).Decode(&c); err != nil {
		b.Fatal(err)
	}
	return c
}

func BenchmarkZZCrumple(b *testing.B) {
	c := zzLoad(b)
	var s Solver
	r := testrun.Chunked{Workers: 2, Grain: 4}
	if err := s.SetTopology(r, len(c.X[0])/3, c.Faces, c.X[0], Kinematic{}); err != nil {
		b.Fatal(err)
	}
	v := make([]float64, len(c.V[0]))
	p := Params{Thickness: 0.004, Friction: 0.3}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range c.X {
			copy(v, c.V[k])
			st, err := s.Solve(r, c.X[k], v, c.InvMass[k], c.H, p, Kinematic{})
			if err != nil {
				b.Fatal(err)
			}
			if i == 0 {
				b.Logf("%d %+v", k, st)
			}
		}
	}
}

func TestZZHash(t *testing.T) {
	f, err := os.Open(os.Getenv("SC_CAPTURE"))
	if err != nil {
		t.Skip(err)
	}
	var c zzCapture
	gob.NewDecoder(f).Decode(&c)
	f.Close()
	var s Solver
	r := testrun.Chunked{Workers: 2, Grain: 3}
	s.SetTopology(r, len(c.X[0])/3, c.Faces, c.X[0], Kinematic{})
	p := Params{Thickness: 0.004, Friction: 0.3}
	h := fnv.New64a()
	for k := range c.X {
		v := slices.Clone(c.V[k])
		st, err := s.Solve(r, c.X[k], v, c.InvMass[k], c.H, p, Kinematic{})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range v {
			binary.Write(h, binary.LittleEndian, math.Float64bits(x))
		}
		t.Logf("%d %+v", k, st)
	}
	t.Logf("hash %x", h.Sum64())
}
