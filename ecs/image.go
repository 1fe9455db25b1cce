package ecs

import (
	"fmt"
	"reflect"

	arche "github.com/mlange-42/arche/ecs"

	"github.com/loomsim/loom/internal/snapshot"
)

// The world's part of a state image (loom's checkpoints): every entity with
// its ID and generation, the entity pool's free list, every component's
// value, and arche's storage order, which the systems' DOF numbering
// follows: the archetype graph's nodes in the order they were made (a query
// visits them in that order) and each archetype's rows in order.

// worldHead is the layout part of a world image.
type worldHead struct {
	Types     []string  // registered component types, in ID order
	Nodes     [][]uint8 // the archetype graph's nodes in creation order: their component IDs
	Entities  []Entity  // arche's entity pool
	Alive     []uint32  // live entity IDs in query order
	Next      uint32    // the pool's next free entity
	Available uint32    // free entities in the pool
	Node      []uint32  // per live entity, its node
}

func typeKey(t reflect.Type) string { return t.PkgPath() + "." + t.String() }

// mask is a set of component IDs.
type mask [4]uint64

func maskOf(ids []uint8) mask {
	var m mask
	for _, id := range ids {
		m[id/64] |= 1 << (id % 64)
	}
	return m
}

// step returns the one ID in which a and b differ and whether b adds it,
// or ok = false when they differ in more or fewer.
func step(a, b mask) (id uint8, add, ok bool) {
	n := 0
	for i := range a {
		x := a[i] ^ b[i]
		for x != 0 {
			bit := x & -x
			k := 0
			for bit>>k != 1 {
				k++
			}
			id, add = uint8(64*i+k), b[i]&bit != 0
			n++
			x &^= bit
		}
	}
	return id, add, n == 1
}

// move is one component added to or removed from an entity.
type move struct {
	id  uint8
	add bool
}

// routes returns, for each of the nodes, the moves that take an entity
// from the root node (no components) to it through nodes that exist, each
// move one component (so that moving makes no new node); nil where none
// does.
func routes(nodes []mask) [][]move {
	out := make([][]move, len(nodes))
	done := make([]bool, len(nodes))
	queue := []int{}
	for i, m := range nodes {
		if m == (mask{}) {
			done[i], out[i] = true, []move{}
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j := range nodes {
			if done[j] {
				continue
			}
			if id, add, ok := step(nodes[i], nodes[j]); ok {
				done[j] = true
				out[j] = append(append([]move{}, out[i]...), move{id, add})
				queue = append(queue, j)
			}
		}
	}
	return out
}

// nodeMasks returns the component numbers of the world's archetype graph
// nodes in creation order.
func nodeMasks(w *arche.World) [][]uint8 {
	st := w.Stats()
	out := make([][]uint8, len(st.Nodes))
	for i, n := range st.Nodes {
		out[i] = append([]uint8{}, n.ComponentIDs...)
	}
	return out
}

// registry is a world's component types by number (arche numbers them 0,
// 1, ... in registration order).
type registry struct {
	ids   []arche.ID
	types []reflect.Type
	num   map[arche.ID]uint8
}

func readRegistry(w *arche.World) registry {
	byType := map[reflect.Type]arche.ID{}
	for _, id := range arche.ComponentIDs(w) {
		info, _ := arche.ComponentInfo(w, id)
		byType[info.Type] = id
	}
	r := registry{types: w.Stats().ComponentTypes, num: map[arche.ID]uint8{}}
	for k, t := range r.types {
		r.ids = append(r.ids, byType[t])
		r.num[byType[t]] = uint8(k)
	}
	return r
}

// mask returns the component set of entity e.
func (r *registry) mask(w *arche.World, e Entity) mask {
	var m mask
	for _, id := range w.Ids(e) {
		k := r.num[id]
		m[k/64] |= 1 << (k % 64)
	}
	return m
}

// EncodeImage appends the image of w's entities and components to e.
func (w *World) EncodeImage(e *snapshot.Encoder) {
	a := w.ECS
	reg := readRegistry(a)
	head := worldHead{Nodes: nodeMasks(a)}
	for _, t := range reg.types {
		head.Types = append(head.Types, typeKey(t))
	}
	dump := a.DumpEntities()
	head.Entities, head.Alive, head.Next, head.Available = dump.Entities, dump.Alive, dump.Next, dump.Available
	index := map[mask]uint32{}
	for i, n := range head.Nodes {
		index[maskOf(n)] = uint32(i)
	}
	for _, id := range dump.Alive {
		head.Node = append(head.Node, index[reg.mask(a, dump.Entities[id])])
	}
	e.Encode(&head)
	for k, id := range dump.Alive {
		ent := dump.Entities[id]
		for _, c := range head.Nodes[head.Node[k]] {
			e.Encode(reflect.NewAt(reg.types[c], a.Get(ent, reg.ids[c])).Interface())
		}
	}
}

// DecodeImage replaces w's entities and components with the image's. w
// must be the world of the same model, built the same way, so that its
// component types and archetype graph are the start of the image's;
// known lists the component types the image may add to them. Components
// that hold pointers (names, meshes) start from the value w's entity of
// the same ID had, and the image is laid over it (package snapshot).
func (w *World) DecodeImage(d *snapshot.Decoder, known []reflect.Type) error {
	var head worldHead
	if err := d.Decode(&head); err != nil {
		return err
	}
	a := w.ECS
	if err := registerTypes(a, head.Types, known); err != nil {
		return err
	}
	reg := readRegistry(a)
	if err := w.makeNodes(head.Nodes); err != nil {
		return err
	}
	if len(head.Node) != len(head.Alive) {
		return fmt.Errorf("%w: %d live entities with %d nodes", snapshot.ErrImage, len(head.Alive), len(head.Node))
	}
	for k, id := range head.Alive {
		if int(id) >= len(head.Entities) || int(head.Node[k]) >= len(head.Nodes) {
			return fmt.Errorf("%w: live entity %d (node %d) out of range", snapshot.ErrImage, id, head.Node[k])
		}
	}
	masks := make([]mask, len(head.Nodes))
	for i, n := range head.Nodes {
		masks[i] = maskOf(n)
	}
	paths := routes(masks)

	// What the image lays components over: the values of this world's
	// components that hold pointers.
	fresh := map[Entity]map[uint8]reflect.Value{}
	q := a.Query(arche.All())
	for q.Next() {
		ent := q.Entity()
		for _, id := range q.Ids() {
			c := reg.num[id]
			if t := reg.types[c]; snapshot.HasPointers(t) {
				if fresh[ent] == nil {
					fresh[ent] = map[uint8]reflect.Value{}
				}
				v := reflect.New(t).Elem()
				v.Set(reflect.NewAt(t, q.Get(id)).Elem())
				fresh[ent][c] = v
			}
		}
	}

	res := map[arche.ResID]any{}
	for _, id := range arche.ResourceIDs(a) {
		if a.Resources().Has(id) {
			res[id] = a.Resources().Get(id)
		}
	}
	a.Reset()
	for id, r := range res {
		a.Resources().Add(id, r)
	}
	a.LoadEntities(&arche.EntityDump{Entities: head.Entities, Alive: head.Alive, Next: head.Next, Available: head.Available})
	for k, id := range head.Alive {
		ent := head.Entities[id]
		n := head.Node[k]
		if paths[n] == nil {
			return fmt.Errorf("%w: node %d cannot be reached", snapshot.ErrImage, n)
		}
		for _, m := range paths[n] {
			if m.add {
				a.Add(ent, reg.ids[m.id])
			} else {
				a.Remove(ent, reg.ids[m.id])
			}
		}
		for _, c := range head.Nodes[n] {
			v := reflect.NewAt(reg.types[c], a.Get(ent, reg.ids[c]))
			if f, ok := fresh[ent][c]; ok {
				v.Elem().Set(f)
			}
			if err := d.Decode(v.Interface()); err != nil {
				return fmt.Errorf("entity %d, %s: %w", id, reg.types[c], err)
			}
		}
	}
	return nil
}

// registerTypes registers, in order, the component types of the image
// that a is missing (a's must be the first of them).
func registerTypes(a *arche.World, types []string, known []reflect.Type) error {
	have := readRegistry(a).types
	if len(have) > len(types) {
		return fmt.Errorf("%w: %d component types, the model has %d", snapshot.ErrImage, len(types), len(have))
	}
	for i, t := range have {
		if typeKey(t) != types[i] {
			return fmt.Errorf("%w: component type %d is %s, the model's is %s", snapshot.ErrImage, i, types[i], typeKey(t))
		}
	}
	byName := map[string]reflect.Type{}
	for _, t := range known {
		byName[typeKey(t)] = t
	}
	for _, name := range types[len(have):] {
		t, ok := byName[name]
		if !ok {
			return fmt.Errorf("%w: unknown component type %s", snapshot.ErrImage, name)
		}
		arche.TypeID(a, t)
	}
	return nil
}

// makeNodes makes the archetype graph nodes of the image that w lacks, in
// the image's order (w's must be the first of them): each from a node that
// exists and differs from it by one component, by moving a temporary
// entity there, so that no other node is made on the way.
func (w *World) makeNodes(nodes [][]uint8) error {
	a := w.ECS
	have := nodeMasks(a)
	if len(have) > len(nodes) {
		return fmt.Errorf("%w: %d archetype nodes, the model has %d", snapshot.ErrImage, len(nodes), len(have))
	}
	masks := make([]mask, len(nodes))
	for i, n := range nodes {
		masks[i] = maskOf(n)
		if i < len(have) && maskOf(have[i]) != masks[i] {
			return fmt.Errorf("%w: archetype node %d has components %v, the model's %v", snapshot.ErrImage, i, n, have[i])
		}
	}
	reg := readRegistry(a)
	for k := len(have); k < len(nodes); k++ {
		for _, c := range nodes[k] {
			if int(c) >= len(reg.ids) {
				return fmt.Errorf("%w: archetype node %d: component %d not registered", snapshot.ErrImage, k, c)
			}
		}
		paths := routes(masks[:k])
		from := -1
		var last move
		for j := range k {
			if id, add, ok := step(masks[j], masks[k]); ok && paths[j] != nil {
				from, last = j, move{id, add}
				break
			}
		}
		if from < 0 {
			return fmt.Errorf("%w: archetype node %d (components %v) is next to none before it", snapshot.ErrImage, k, nodes[k])
		}
		tmp := a.NewEntity()
		for _, m := range append(paths[from], last) {
			if m.add {
				a.Add(tmp, reg.ids[m.id])
			} else {
				a.Remove(tmp, reg.ids[m.id])
			}
		}
		a.RemoveEntity(tmp)
	}
	if got := len(nodeMasks(a)); got != len(nodes) {
		return fmt.Errorf("%w: made %d archetype nodes, want %d", snapshot.ErrImage, got, len(nodes))
	}
	return nil
}
