// Package snapshot writes the data of a Go object graph to bytes and lays
// it back over another graph of the same shape: loom's state-image
// checkpoints (the engine's entities, every system's persistent fields and
// warm starts) without a hand-written encoder per type.
//
// The encoding walks the graph by reflection, unexported fields included.
// Numbers are written as their bits (a float64 as its IEEE bits, so every
// value round-trips exactly); a value of a pointer-free type (a float, an
// array of floats, a struct of them) is copied as its memory, in the
// machine's byte order. A pointer, slice or map is written once, the first
// time it is met, and later references to the same object (the same
// address and type) as a reference to it, so sharing is kept: two systems
// that hold the same *ClothState still share one after decoding. A slice
// is written up to its capacity.
//
// Decoding overlays: a pointer whose image is a new object is decoded into
// the object the target graph already has there (when it has one not
// already used for another object), and a slice into the target's array
// when it has the same capacity, so that whatever the encoding skips
// keeps its value from the target: functions other than an object's own
// bound methods (closures bound to that graph), channels, and the types that the Config's Skip names (a worker
// pool, an immutable model, another library's world). The target is meant
// to be a freshly built graph of the same program; an interface value is
// restored only when the target holds a value of the same concrete type.
//
// The encoder also hashes, in the order first met, the description of every
// type it writes; the decoder computes the same hash, so that an image made
// by another build of the program is an error rather than misread data.
package snapshot

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"reflect"
	"runtime"
	"strings"
	"unsafe"
)

// Config says which types the encoding skips (the target keeps its own
// values of them). Functions, channels and unsafe pointers are always
// skipped, and so is a struct field tagged `snapshot:"-"`.
type Config struct {
	Skip func(reflect.Type) bool
	// Types are the concrete types an interface may hold where the
	// target holds nil or another type (a value made lazily, after the
	// target was built): decoding makes a zero one and decodes into it.
	Types []reflect.Type
	// Lazy are struct types whose function fields the type's own methods
	// set when they find them nil (a zero value of it works): the image
	// leaves them out and decoding sets them to nil.
	Lazy []reflect.Type
}

// ErrImage is wrapped by every decoding error.
var ErrImage = errors.New("bad state image")

// Object tags.
const (
	tagNil  = 0
	tagRef  = 1
	tagNew  = 2
	tagKeep = 3 // an interface holding a skipped type
)

// kinds caches what the walk needs to know of a type.
type kinds struct {
	cfg  Config
	skip map[reflect.Type]bool
	raw  map[reflect.Type]bool // pointer-free and nothing skipped: copied as memory
	seen map[reflect.Type]bool // described in the type hash
	lazy map[reflect.Type]bool
	hash uint64
}

// unbound reports whether field i of struct type t is a function left
// out (Config.Lazy).
func (k *kinds) unbound(t reflect.Type, i int) bool {
	return k.lazy[t] && t.Field(i).Type.Kind() == reflect.Func
}

func newKinds(cfg Config) *kinds {
	k := &kinds{cfg: cfg, skip: map[reflect.Type]bool{}, raw: map[reflect.Type]bool{}, seen: map[reflect.Type]bool{}, lazy: map[reflect.Type]bool{}, hash: 14695981039346656037}
	for _, t := range cfg.Lazy {
		k.lazy[t] = true
	}
	return k
}

// skipped reports whether values of type t are left to the target.
func (k *kinds) skipped(t reflect.Type) bool {
	if s, ok := k.skip[t]; ok {
		return s
	}
	var s bool
	switch t.Kind() {
	case reflect.Chan, reflect.UnsafePointer:
		s = true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		s = k.skipped(t.Elem())
	case reflect.Map:
		s = k.skipped(t.Key()) || k.skipped(t.Elem())
	}
	if !s && k.cfg.Skip != nil && t.Kind() != reflect.Pointer {
		s = k.cfg.Skip(t)
	}
	k.skip[t] = s
	return s
}

// isRaw reports whether t holds no pointers and nothing skipped.
func (k *kinds) isRaw(t reflect.Type) bool {
	if r, ok := k.raw[t]; ok {
		return r
	}
	var r bool
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		r = true
	case reflect.Array:
		r = k.isRaw(t.Elem())
	case reflect.Struct:
		r = true
		for i := range t.NumField() {
			f := t.Field(i)
			if f.Tag.Get("snapshot") == "-" || !k.isRaw(f.Type) {
				r = false
				break
			}
		}
	}
	r = r && !k.skipped(t)
	k.raw[t] = r
	return r
}

// describe adds t to the type hash the first time it is met.
func (k *kinds) describe(t reflect.Type) {
	if k.seen[t] {
		return
	}
	k.seen[t] = true
	h := fnv.New64a()
	fmt.Fprintf(h, "%d %s %s %d", k.hash, t.PkgPath(), t.String(), t.Size())
	if t.Kind() == reflect.Struct {
		for i := range t.NumField() {
			f := t.Field(i)
			fmt.Fprintf(h, " %s:%s@%d", f.Name, f.Type, f.Offset)
		}
	}
	k.hash = h.Sum64()
}

// HasPointers reports whether values of type t hold pointers (strings,
// slices, maps, interfaces and functions included).
func HasPointers(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Array:
		return HasPointers(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if HasPointers(t.Field(i).Type) {
				return true
			}
		}
		return false
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.String, reflect.Interface, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return true
	}
	return false
}

// field returns field i of addressable struct v, settable even when
// unexported.
func field(v reflect.Value, i int) reflect.Value {
	f := v.Field(i)
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// memory returns the bytes of addressable value v.
func memory(v reflect.Value) []byte {
	n := int(v.Type().Size())
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(v.Addr().UnsafePointer()), n)
}

// objKey identifies an object: its address and type.
type objKey struct {
	addr unsafe.Pointer
	t    reflect.Type
}

// typeName names a concrete type for interface values.
func typeName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		return "*" + typeName(t.Elem())
	}
	return t.PkgPath() + "." + t.String()
}

// Encoder writes a graph's image.
type Encoder struct {
	k    *kinds
	buf  []byte
	ids  map[objKey]uint32
	caps map[uint32]int // capacity of each slice written
	next uint32         // the number of the next object
	at
}

// at is the object being walked: the pointee, slice element or root that
// the current value lies in, at base, of size bytes.
type at struct {
	base unsafe.Pointer
	size uintptr
	typ  reflect.Type
}

// enter makes addressable v the object being walked and returns the one
// before, for leave.
func (a *at) enter(v reflect.Value) at {
	old := *a
	a.base = v.Addr().UnsafePointer()
	a.size = v.Type().Size()
	a.typ = v.Type()
	return old
}

// NewEncoder returns an encoder.
func NewEncoder(cfg Config) *Encoder {
	return &Encoder{k: newKinds(cfg), ids: map[objKey]uint32{}, caps: map[uint32]int{}}
}

// Encode appends the image of *p (p a non-nil pointer) to the encoder's
// bytes. Several roots may be encoded in turn; a Decoder must decode them
// in the same order.
func (e *Encoder) Encode(p any) {
	v := reflect.ValueOf(p).Elem()
	old := e.enter(v)
	e.value(v)
	e.at = old
}

// Bytes returns the image: everything encoded, then the type hash. Call it
// once, after the last Encode.
func (e *Encoder) Bytes() []byte {
	return e.uint(e.k.hash, 8)
}

func (e *Encoder) uint(x uint64, n int) []byte {
	for i := range n {
		e.buf = append(e.buf, byte(x>>(8*i)))
	}
	return e.buf
}

func (e *Encoder) length(n int) { e.uint(uint64(n), 8) }

// object writes a reference tag when key was written before and reports
// whether it was; otherwise it writes the new-object tag and numbers key.
func (e *Encoder) object(key objKey) bool {
	if id, ok := e.ids[key]; ok {
		e.buf = append(e.buf, tagRef)
		e.uint(uint64(id), 4)
		return true
	}
	e.ids[key] = e.next
	e.next++
	e.buf = append(e.buf, tagNew)
	return false
}

// value writes addressable value v.
func (e *Encoder) value(v reflect.Value) {
	t := v.Type()
	if e.k.skipped(t) {
		return
	}
	e.k.describe(t)
	if e.k.isRaw(t) {
		e.buf = append(e.buf, memory(v)...)
		return
	}
	switch t.Kind() {
	case reflect.String:
		e.length(v.Len())
		e.buf = append(e.buf, v.String()...)
	case reflect.Array:
		for i := range v.Len() {
			e.value(v.Index(i))
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("snapshot") != "-" && !e.k.unbound(t, i) {
				e.value(field(v, i))
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, tagNil)
			return
		}
		if !e.object(objKey{v.UnsafePointer(), t}) {
			old := e.enter(v.Elem())
			e.value(v.Elem())
			e.at = old
		}
	case reflect.Slice:
		if v.IsNil() {
			e.buf = append(e.buf, tagNil)
			return
		}
		if v.Cap() == 0 {
			e.buf = append(e.buf, tagNew)
			e.length(0)
			e.length(0)
			return
		}
		key := objKey{v.UnsafePointer(), t}
		if id, ok := e.ids[key]; ok && e.caps[id] < v.Cap() {
			// Met before through a slice with less capacity (a
			// three-index slice): written again, unshared.
			delete(e.ids, key)
		}
		ref := e.object(key)
		if !ref {
			e.caps[e.ids[key]] = v.Cap()
		}
		e.length(v.Len())
		e.length(v.Cap())
		if ref {
			return
		}
		full := v.Slice3(0, v.Cap(), v.Cap())
		if et := t.Elem(); e.k.isRaw(et) {
			e.k.describe(et)
			n := v.Cap() * int(et.Size())
			if n > 0 {
				e.buf = append(e.buf, unsafe.Slice((*byte)(full.UnsafePointer()), n)...)
			}
			return
		}
		for i := range full.Len() {
			old := e.enter(full.Index(i))
			e.value(full.Index(i))
			e.at = old
		}
	case reflect.Map:
		if v.IsNil() {
			e.buf = append(e.buf, tagNil)
			return
		}
		if e.object(objKey{v.UnsafePointer(), t}) {
			return
		}
		e.length(v.Len())
		kv, vv := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		it := v.MapRange()
		for it.Next() {
			kv.Set(it.Key())
			vv.Set(it.Value())
			old := e.enter(kv)
			e.value(kv)
			e.enter(vv)
			e.value(vv)
			e.at = old
		}
	case reflect.Interface:
		if v.IsNil() {
			e.buf = append(e.buf, tagNil)
			return
		}
		c := v.Elem()
		if e.k.skipped(c.Type()) {
			e.buf = append(e.buf, tagKeep)
			return
		}
		e.buf = append(e.buf, tagNew)
		name := typeName(c.Type())
		e.length(len(name))
		e.buf = append(e.buf, name...)
		cv := reflect.New(c.Type()).Elem()
		cv.Set(c)
		old := e.enter(cv)
		e.value(cv)
		e.at = old
	case reflect.Func:
		e.fn(v)
	default:
		panic(fmt.Sprintf("snapshot: cannot encode %s", t)) // every kind is handled above
	}
}

// Decoder lays an image over a graph.
type Decoder struct {
	k       *kinds
	data    []byte
	off     int
	objs    []reflect.Value // by number: the decoded pointers, slices (full capacity) and maps
	claimed map[objKey]bool // target objects already decoded into
	at
}

// NewDecoder returns a decoder of image data (Encoder.Bytes).
func NewDecoder(cfg Config, data []byte) *Decoder {
	return &Decoder{k: newKinds(cfg), data: data, claimed: map[objKey]bool{}}
}

// Decode lays the next root's image over *p (p a non-nil pointer to the
// target graph's root of the type encoded).
func (d *Decoder) Decode(p any) (err error) {
	defer func() {
		// The reads are bounds-checked; this catches a reflect panic on
		// an image whose bytes match no graph of these types.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrImage, r)
		}
	}()
	v := reflect.ValueOf(p).Elem()
	old := d.enter(v)
	defer func() { d.at = old }()
	return d.value(v)
}

// Finish checks that the whole image was read and that it was written by
// a build with the same types.
func (d *Decoder) Finish() error {
	h, err := d.uint(8)
	if err != nil {
		return err
	}
	if h != d.k.hash {
		return fmt.Errorf("%w: written by a build of loom with other state types (type hash %016x, this build %016x)", ErrImage, h, d.k.hash)
	}
	if d.off != len(d.data) {
		return fmt.Errorf("%w: %d bytes left over", ErrImage, len(d.data)-d.off)
	}
	return nil
}

func (d *Decoder) short(n int, what string) error {
	return fmt.Errorf("%w: %s needs %d bytes at offset %d, %d left", ErrImage, what, n, d.off, len(d.data)-d.off)
}

func (d *Decoder) bytes(n int, what string) ([]byte, error) {
	if n < 0 || n > len(d.data)-d.off {
		return nil, d.short(n, what)
	}
	b := d.data[d.off : d.off+n]
	d.off += n
	return b, nil
}

func (d *Decoder) uint(n int) (uint64, error) {
	b, err := d.bytes(n, "a number")
	if err != nil {
		return 0, err
	}
	var x uint64
	for i := range n {
		x |= uint64(b[i]) << (8 * i)
	}
	return x, nil
}

// length reads a length: at most the bytes left plus 2^20 (elements of
// skipped or empty types take no bytes), so that a damaged image cannot
// make the decoder allocate without bound.
func (d *Decoder) length(what string) (int, error) {
	x, err := d.uint(8)
	if err != nil {
		return 0, err
	}
	if x > math.MaxInt32 || int(x) > len(d.data)-d.off+1<<20 {
		return 0, fmt.Errorf("%w: %s of length %d at offset %d, with %d bytes left", ErrImage, what, x, d.off, len(d.data)-d.off)
	}
	return int(x), nil
}

func (d *Decoder) tag(t reflect.Type) (byte, error) {
	b, err := d.bytes(1, "a tag")
	if err != nil {
		return 0, err
	}
	if b[0] > tagKeep {
		return 0, fmt.Errorf("%w: bad tag %d for a %s at offset %d", ErrImage, b[0], t, d.off-1)
	}
	return b[0], nil
}

// ref returns object number id, checked to be of type t.
func (d *Decoder) ref(t reflect.Type) (reflect.Value, error) {
	id, err := d.uint(4)
	if err != nil {
		return reflect.Value{}, err
	}
	if id >= uint64(len(d.objs)) || d.objs[id].Type() != t {
		return reflect.Value{}, fmt.Errorf("%w: reference %d to a %s at offset %d: no such object", ErrImage, id, t, d.off-4)
	}
	return d.objs[id], nil
}

// claim reports whether target object key is free to decode into, and
// takes it.
func (d *Decoder) claim(key objKey) bool {
	if d.claimed[key] {
		return false
	}
	d.claimed[key] = true
	return true
}

// value decodes into addressable value v.
func (d *Decoder) value(v reflect.Value) error {
	t := v.Type()
	if d.k.skipped(t) {
		return nil
	}
	d.k.describe(t)
	if d.k.isRaw(t) {
		b, err := d.bytes(int(t.Size()), t.String())
		if err != nil {
			return err
		}
		copy(memory(v), b)
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		n, err := d.length("a string")
		if err != nil {
			return err
		}
		b, err := d.bytes(n, "a string")
		if err != nil {
			return err
		}
		v.SetString(string(b))
	case reflect.Array:
		for i := range v.Len() {
			if err := d.value(v.Index(i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).Tag.Get("snapshot") == "-" {
				continue
			}
			if d.k.unbound(t, i) {
				field(v, i).SetZero()
				continue
			}
			if err := d.value(field(v, i)); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		return d.pointer(v)
	case reflect.Slice:
		return d.slice(v)
	case reflect.Map:
		return d.mapValue(v)
	case reflect.Interface:
		return d.iface(v)
	case reflect.Func:
		return d.fn(v)
	default:
		return fmt.Errorf("%w: cannot decode a %s", ErrImage, t)
	}
	return nil
}

// shared reads the tag of pointer or map v and sets v when it is nil or a
// reference to an object decoded before; done = false: a new object
// follows.
func (d *Decoder) shared(v reflect.Value) (done bool, err error) {
	t := v.Type()
	tag, err := d.tag(t)
	if err != nil {
		return true, err
	}
	switch tag {
	case tagNil:
		v.SetZero()
		return true, nil
	case tagRef:
		o, err := d.ref(t)
		if err != nil {
			return true, err
		}
		v.Set(o)
		return true, nil
	case tagKeep:
		return true, fmt.Errorf("%w: keep tag for a %s at offset %d", ErrImage, t, d.off-1)
	}
	return false, nil
}

func (d *Decoder) pointer(v reflect.Value) error {
	t := v.Type()
	if done, err := d.shared(v); done || err != nil {
		return err
	}
	p := v
	if v.IsNil() || !d.claim(objKey{v.UnsafePointer(), t}) {
		p = reflect.New(t.Elem())
		d.claim(objKey{p.UnsafePointer(), t})
	}
	d.objs = append(d.objs, p)
	old := d.enter(p.Elem())
	err := d.value(p.Elem())
	d.at = old
	if err != nil {
		return err
	}
	v.Set(p)
	return nil
}

func (d *Decoder) slice(v reflect.Value) error {
	t := v.Type()
	tag, err := d.tag(t)
	if err != nil {
		return err
	}
	if tag == tagNil {
		v.SetZero()
		return nil
	}
	if tag == tagKeep {
		return fmt.Errorf("%w: keep tag for a %s at offset %d", ErrImage, t, d.off-1)
	}
	var full reflect.Value
	if tag == tagRef {
		if full, err = d.ref(t); err != nil {
			return err
		}
	}
	n, err := d.length("a slice")
	if err != nil {
		return err
	}
	c, err := d.length("a slice")
	if err != nil {
		return err
	}
	if n > c {
		return fmt.Errorf("%w: slice length %d over its capacity %d at offset %d", ErrImage, n, c, d.off)
	}
	if tag == tagRef {
		if c > full.Cap() {
			return fmt.Errorf("%w: slice capacity %d over its array's %d at offset %d", ErrImage, c, full.Cap(), d.off)
		}
		v.Set(full.Slice3(0, n, c))
		return nil
	}
	if c == 0 {
		v.Set(reflect.MakeSlice(t, 0, 0))
		return nil
	}
	et := t.Elem()
	if d.k.isRaw(et) {
		d.k.describe(et)
		b, err := d.bytes(c*int(et.Size()), "a slice of "+et.String())
		if err != nil {
			return err
		}
		full = d.array(v, c)
		d.objs = append(d.objs, full)
		if len(b) > 0 {
			copy(unsafe.Slice((*byte)(full.UnsafePointer()), len(b)), b)
		}
		v.Set(full.Slice3(0, n, c))
		return nil
	}
	full = d.array(v, c)
	d.objs = append(d.objs, full)
	for i := range c {
		old := d.enter(full.Index(i))
		err := d.value(full.Index(i))
		d.at = old
		if err != nil {
			return err
		}
	}
	v.Set(full.Slice3(0, n, c))
	return nil
}

// array returns the array of c elements that a new slice of the image is
// decoded into: the target slice v's own when it has that capacity (so
// that pointers into it, such as &bodies[i], stay pointers into it), else
// a new one holding a copy of v's elements (what the image skips).
func (d *Decoder) array(v reflect.Value, c int) reflect.Value {
	if !v.IsNil() && v.Cap() == c && d.claim(objKey{v.UnsafePointer(), v.Type()}) {
		return v.Slice3(0, c, c)
	}
	full := reflect.MakeSlice(v.Type(), c, c)
	if !v.IsNil() {
		reflect.Copy(full, v.Slice3(0, v.Cap(), v.Cap()))
	}
	return full
}

func (d *Decoder) mapValue(v reflect.Value) error {
	t := v.Type()
	if done, err := d.shared(v); done || err != nil {
		return err
	}
	n, err := d.length("a map")
	if err != nil {
		return err
	}
	m := reflect.MakeMapWithSize(t, n)
	d.objs = append(d.objs, m)
	for range n {
		kv, vv := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		old := d.enter(kv)
		err := d.value(kv)
		d.at = old
		if err != nil {
			return err
		}
		if !v.IsNil() {
			if f := v.MapIndex(kv); f.IsValid() {
				vv.Set(f) // what the image skips
			}
		}
		old = d.enter(vv)
		err = d.value(vv)
		d.at = old
		if err != nil {
			return err
		}
		m.SetMapIndex(kv, vv)
	}
	v.Set(m)
	return nil
}

func (d *Decoder) iface(v reflect.Value) error {
	t := v.Type()
	tag, err := d.tag(t)
	if err != nil {
		return err
	}
	switch tag {
	case tagNil:
		v.SetZero()
		return nil
	case tagKeep:
		return nil
	case tagRef:
		return fmt.Errorf("%w: reference tag for a %s at offset %d", ErrImage, t, d.off-1)
	}
	n, err := d.length("a type name")
	if err != nil {
		return err
	}
	name, err := d.bytes(n, "a type name")
	if err != nil {
		return err
	}
	var c reflect.Value
	switch {
	case !v.IsNil() && typeName(v.Elem().Type()) == string(name):
		c = reflect.New(v.Elem().Type()).Elem()
		c.Set(v.Elem())
	default:
		for _, ct := range d.k.cfg.Types {
			if typeName(ct) == string(name) && ct.Implements(t) {
				c = reflect.New(ct).Elem()
			}
		}
		if !c.IsValid() {
			have := "nil"
			if !v.IsNil() {
				have = typeName(v.Elem().Type())
			}
			return fmt.Errorf("%w: a %s holding a %s, where the graph it is restored into holds %s", ErrImage, t, name, have)
		}
	}
	old := d.enter(c)
	err = d.value(c)
	d.at = old
	if err != nil {
		return err
	}
	v.Set(c)
	return nil
}

// Functions. A method value bound to the object that holds it (a solver's
// kernel, s.kernel = s.rows, handed to a worker pool) is written as its
// method and the receiver's offset in the object, and decoding binds it to
// the object decoded into; any other function is left to the target.
// The method is named and located relative to a function of this package,
// so that the image does not depend on where the program is loaded; a
// program whose method there has another name is another build.

// methodValue is the closure of a method value with a pointer receiver.
type methodValue struct {
	fn   uintptr
	recv unsafe.Pointer
}

// anchor is the address methods are located relative to.
var anchor = reflect.ValueOf(HasPointers).Pointer()

// boundMethod returns the method value's function and receiver when func
// value v (addressable) is a method value with a pointer receiver.
func boundMethod(v reflect.Value) (*runtime.Func, unsafe.Pointer, bool) {
	clo := *(*unsafe.Pointer)(v.Addr().UnsafePointer())
	if clo == nil {
		return nil, nil, false
	}
	f := runtime.FuncForPC(*(*uintptr)(clo))
	if f == nil || !strings.HasSuffix(f.Name(), "-fm") || !strings.Contains(f.Name(), ".(*") {
		return nil, nil, false
	}
	return f, (*methodValue)(clo).recv, true
}

func (e *Encoder) fn(v reflect.Value) {
	if v.IsNil() {
		e.buf = append(e.buf, tagNil)
		return
	}
	f, recv, ok := boundMethod(v)
	off := uintptr(recv) - uintptr(e.base) // wraps when below
	if !ok || off >= e.size {
		e.buf = append(e.buf, tagKeep)
		return
	}
	e.buf = append(e.buf, tagNew)
	e.length(len(f.Name()))
	e.buf = append(e.buf, f.Name()...)
	e.uint(uint64(f.Entry()-anchor), 8)
	e.length(int(off))
}

func (d *Decoder) fn(v reflect.Value) error {
	t := v.Type()
	tag, err := d.tag(t)
	if err != nil {
		return err
	}
	if tag == tagKeep {
		if v.IsNil() {
			return fmt.Errorf("%w: a function (%s) in a %s that is not a bound method of its object, where the target has none (a type for Config.Lazy?)", ErrImage, t, d.typ)
		}
		return nil
	}
	if tag != tagNew {
		v.SetZero()
		return nil
	}
	n, err := d.length("a method name")
	if err != nil {
		return err
	}
	name, err := d.bytes(n, "a method name")
	if err != nil {
		return err
	}
	off, err := d.uint(8)
	if err != nil {
		return err
	}
	r, err := d.length("a receiver offset")
	if err != nil {
		return err
	}
	if uintptr(r) >= d.size {
		return fmt.Errorf("%w: method %s bound at offset %d of a %d-byte object", ErrImage, name, r, d.size)
	}
	recv := unsafe.Add(d.base, r)
	pc := anchor + uintptr(off)
	if f, have, ok := boundMethod(v); ok && f.Entry() == pc && have == recv {
		return nil // the target's own, bound to this object
	}
	if f := runtime.FuncForPC(pc); f == nil || f.Entry() != pc || f.Name() != string(name) {
		return fmt.Errorf("%w: method %s is not at its place in this build", ErrImage, name)
	}
	*(*unsafe.Pointer)(v.Addr().UnsafePointer()) = unsafe.Pointer(&methodValue{fn: pc, recv: recv})
	return nil
}
