package snapshot

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

type leaf struct {
	X [3]float64
	n int32
}

type shape interface{ area() float64 }

type square struct{ side float64 }

func (s square) area() float64 { return s.side * s.side }

// node is a graph with every kind the walk handles: numbers, strings,
// arrays, shared and cyclic pointers, aliased slices, maps, interfaces, a
// bound-method kernel, a skipped field and a closure left to the target.
type node struct {
	name    string
	vals    []float64
	head    []float64 // vals[:2], sharing its array
	a, b    *leaf     // the same leaf
	self    *node
	byID    map[int32]*leaf
	sh      shape
	kernel  func(lo, hi int)
	other   func() int
	skipped []int `snapshot:"-"`
	sum     float64
}

func (n *node) add(lo, hi int) {
	for _, v := range n.vals[lo:hi] {
		n.sum += v
	}
}

// testConfig lets an interface hold a square where the target holds none.
var testConfig = Config{Types: []reflect.Type{reflect.TypeFor[square]()}}

func newNode() *node {
	n := &node{other: func() int { return 7 }}
	n.kernel = n.add
	return n
}

func source() *node {
	n := newNode()
	n.name = "cloth"
	payloadNaN := math.Float64frombits(0x7ff8000000000123)
	n.vals = append(make([]float64, 0, 8), 1.5, math.Copysign(0, -1), payloadNaN, math.Inf(-1))
	n.head = n.vals[:2]
	l := &leaf{X: [3]float64{1, 2, 3}, n: -4}
	n.a, n.b, n.self = l, l, n
	n.byID = map[int32]*leaf{4: l, 9: {n: 9}}
	n.sh = square{2}
	n.skipped = []int{1}
	return n
}

func roundTrip(t *testing.T, src *node, dst *node) []byte {
	t.Helper()
	e := NewEncoder(testConfig)
	e.Encode(&src)
	data := e.Bytes()
	d := NewDecoder(testConfig, data)
	if err := d.Decode(&dst); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	return data
}

// TestRoundTrip: values come back bit for bit (a NaN's payload and -0
// included), sharing and cycles are kept, the target's own object is
// decoded into, the kernel is bound to it, and what the image leaves out
// keeps the target's value.
func TestRoundTrip(t *testing.T) {
	src := source()
	dst := newNode()
	dst.skipped = []int{5}
	target := dst
	roundTrip(t, src, dst)
	if dst != target {
		t.Fatal("the root was not decoded into the target's object")
	}
	for i, v := range src.vals[:cap(src.vals)] {
		if got := dst.vals[:cap(dst.vals)][i]; math.Float64bits(got) != math.Float64bits(v) {
			t.Fatalf("vals[%d] = %x, want %x", i, math.Float64bits(got), math.Float64bits(v))
		}
	}
	if len(dst.vals) != 4 || cap(dst.vals) != 8 || len(dst.head) != 2 || &dst.head[0] != &dst.vals[0] {
		t.Fatal("slice lengths, capacity or aliasing lost")
	}
	if dst.a != dst.b || dst.a.X != src.a.X || dst.a.n != -4 || dst.self != dst || dst.byID[4] != dst.a || dst.byID[9].n != 9 {
		t.Fatal("pointer sharing, cycle or map lost")
	}
	if dst.name != "cloth" || dst.sh.area() != 4 {
		t.Fatal("string or interface value lost")
	}
	if dst.skipped[0] != 5 || dst.other() != 7 {
		t.Fatal("a skipped field or a closure did not keep the target's value")
	}
	dst.sum = 0
	dst.kernel(0, 1)
	if dst.sum != 1.5 || src.sum != 0 {
		t.Fatal("the kernel is not bound to the decoded object")
	}
}

// TestRebindIntoNewObject: a kernel in an object the target does not have
// (made by decoding) is bound to that new object; a closure there, which
// cannot be rebuilt, is an error.
func TestRebindIntoNewObject(t *testing.T) {
	type holder struct{ N *node }
	src := &holder{N: source()}
	src.N.other = nil
	dst := &holder{}
	e := NewEncoder(testConfig)
	e.Encode(&src)
	d := NewDecoder(testConfig, e.Bytes())
	if err := d.Decode(&dst); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
	if dst.N == nil || dst.N == src.N {
		t.Fatal("no new object")
	}
	dst.N.kernel(0, 1)
	if dst.N.sum != 1.5 || src.N.sum != 0 {
		t.Fatal("the kernel is not bound to the new object")
	}

	src.N.other = func() int { return 1 }
	e = NewEncoder(testConfig)
	e.Encode(&src)
	dst = &holder{}
	err := NewDecoder(testConfig, e.Bytes()).Decode(&dst)
	if !errors.Is(err, ErrImage) || !strings.Contains(err.Error(), "not a bound method") {
		t.Fatalf("a closure in a new object: %v", err)
	}
}

// TestDamagedImages: every prefix of an image, and an image with a
// changed type hash, is an error wrapping ErrImage, never a panic.
func TestDamagedImages(t *testing.T) {
	src := source()
	e := NewEncoder(testConfig)
	e.Encode(&src)
	data := e.Bytes()
	for n := range len(data) {
		dst := newNode()
		d := NewDecoder(testConfig, data[:n])
		err := d.Decode(&dst)
		if err == nil {
			err = d.Finish()
		}
		if !errors.Is(err, ErrImage) {
			t.Fatalf("image cut to %d of %d bytes: %v", n, len(data), err)
		}
	}
	bad := append([]byte(nil), data...)
	bad[len(bad)-1] ^= 1
	dst := newNode()
	d := NewDecoder(testConfig, bad)
	if err := d.Decode(&dst); err != nil {
		t.Fatal(err)
	}
	if err := d.Finish(); !errors.Is(err, ErrImage) {
		t.Fatalf("changed type hash: %v", err)
	}
}

// TestSkip: a type the Config skips is left to the target.
func TestSkip(t *testing.T) {
	type pool struct{ workers []int }
	type sys struct {
		P *pool
		V float64
	}
	cfg := Config{Skip: func(t reflect.Type) bool { return t == reflect.TypeFor[pool]() }}
	src := &sys{P: &pool{workers: []int{1}}, V: 3}
	p := &pool{workers: []int{2}}
	dst := &sys{P: p}
	e := NewEncoder(cfg)
	e.Encode(&src)
	d := NewDecoder(cfg, e.Bytes())
	if err := d.Decode(&dst); err != nil {
		t.Fatal(err)
	}
	if dst.P != p || p.workers[0] != 2 || dst.V != 3 {
		t.Fatal("the skipped type was not left to the target")
	}
}
