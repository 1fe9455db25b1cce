package main

/*
#include <stdlib.h>
#include <string.h>
#include "loom_types.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/loomsim/loom"
)

// sims is the table of live simulations by handle; handles are never
// reused.
var (
	mu      sync.Mutex
	sims    = map[C.loom_sim]*loom.Sim{}
	next    C.loom_sim
	lastErr string
)

// fail records err as the last error and returns its status code.
func fail(err error, code C.loom_status) C.loom_status {
	mu.Lock()
	lastErr = err.Error()
	mu.Unlock()
	return code
}

// status maps an error of package loom to its code; def is the code of
// errors that are none of loom's kinds.
func status(err error, def C.loom_status) C.loom_status {
	if err == nil {
		return C.LOOM_OK
	}
	code := def
	switch {
	case errors.Is(err, loom.ErrStaleHandle):
		code = C.LOOM_ERR_STALE_HANDLE
	case errors.Is(err, loom.ErrBufferTooSmall):
		code = C.LOOM_ERR_BUFFER_TOO_SMALL
	case errors.Is(err, loom.ErrClosed):
		code = C.LOOM_ERR_CLOSED
	case errors.Is(err, loom.ErrCheckpoint):
		code = C.LOOM_ERR_CHECKPOINT
	case errors.Is(err, loom.ErrInvalidValue):
		code = C.LOOM_ERR_INVALID
	}
	return fail(err, code)
}

// guard turns a panic into LOOM_ERR_INTERNAL, so that a bug in loom does
// not take down the host program; every export defers it.
func guard(rc *C.loom_status) {
	if r := recover(); r != nil {
		*rc = fail(fmt.Errorf("internal error: %v", r), C.LOOM_ERR_INTERNAL)
	}
}

// get returns simulation h.
func get(h C.loom_sim) (*loom.Sim, C.loom_status) {
	mu.Lock()
	s := sims[h]
	mu.Unlock()
	if s == nil {
		return nil, fail(fmt.Errorf("%w: simulation handle %d", loom.ErrStaleHandle, int64(h)), C.LOOM_ERR_STALE_HANDLE)
	}
	return s, C.LOOM_OK
}

// arg is a pointer argument that must not be NULL, with its name.
type arg struct {
	name string
	p    unsafe.Pointer
}

// check returns LOOM_ERR_INVALID for the first NULL argument.
func check(args ...arg) C.loom_status {
	for _, a := range args {
		if a.p == nil {
			return fail(fmt.Errorf("%w: %s is NULL", loom.ErrInvalidValue, a.name), C.LOOM_ERR_INVALID)
		}
	}
	return C.LOOM_OK
}

// with runs f on simulation h once args are checked; f's error becomes
// the status (def for errors of none of loom's kinds).
func with(h C.loom_sim, def C.loom_status, f func(*loom.Sim) error, args ...arg) C.loom_status {
	s, rc := get(h)
	if rc != 0 {
		return rc
	}
	if rc := check(args...); rc != 0 {
		return rc
	}
	return status(f(s), def)
}

// load stores the simulation load makes under a new handle in *out.
func load(out *C.loom_sim, path *C.char, code C.loom_status, load func() (*loom.Sim, error)) C.loom_status {
	if rc := check(arg{"path or json", unsafe.Pointer(path)}, arg{"out", unsafe.Pointer(out)}); rc != 0 {
		return rc
	}
	s, err := load()
	if err != nil {
		return status(err, code)
	}
	mu.Lock()
	next++
	sims[next] = s
	*out = next
	mu.Unlock()
	return C.LOOM_OK
}

func options(workers C.int32_t) loom.Options {
	return loom.Options{Workers: int(workers)}
}

//export loom_last_error
func loom_last_error(buf *C.char, n C.size_t) C.size_t {
	mu.Lock()
	msg := lastErr
	mu.Unlock()
	if buf != nil && n > 0 {
		dst := unsafe.Slice((*byte)(unsafe.Pointer(buf)), int(n))
		k := copy(dst[:n-1], msg)
		dst[k] = 0
	}
	return C.size_t(len(msg))
}

//export loom_load_file
func loom_load_file(path *C.char, workers C.int32_t, out *C.loom_sim) (rc C.loom_status) {
	defer guard(&rc)
	return load(out, path, C.LOOM_ERR_SCENE, func() (*loom.Sim, error) { return loom.Load(C.GoString(path), options(workers)) })
}

//export loom_load_json
func loom_load_json(json *C.char, n C.size_t, workers C.int32_t, out *C.loom_sim) (rc C.loom_status) {
	defer guard(&rc)
	return load(out, json, C.LOOM_ERR_SCENE, func() (*loom.Sim, error) {
		return loom.LoadBytes(C.GoBytes(unsafe.Pointer(json), C.int(n)), options(workers))
	})
}

//export loom_resume
func loom_resume(path *C.char, workers C.int32_t, out *C.loom_sim) (rc C.loom_status) {
	defer guard(&rc)
	return load(out, path, C.LOOM_ERR_CHECKPOINT, func() (*loom.Sim, error) { return loom.Resume(C.GoString(path), options(workers)) })
}

//export loom_save
func loom_save(h C.loom_sim, path *C.char) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_CHECKPOINT, func(s *loom.Sim) error { return s.Save(C.GoString(path)) }, arg{"path", unsafe.Pointer(path)})
}

//export loom_close
func loom_close(h C.loom_sim) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		mu.Lock()
		delete(sims, h)
		mu.Unlock()
		s.Close()
		return nil
	})
}

//export loom_step
func loom_step(h C.loom_sim) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_STEP, (*loom.Sim).Step)
}

//export loom_get_stats
func loom_get_stats(h C.loom_sim, out *C.loom_stats) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		st := s.Stats()
		*out = C.loom_stats{step: C.int64_t(st.Step), time: C.double(st.Time), step_seconds: C.double(st.StepSeconds),
			vertices: C.int32_t(st.Vertices), faces: C.int32_t(st.Faces), contacts: C.int32_t(st.Contacts),
			pcg_iterations: C.int32_t(st.PCGIterations), qp_iterations: C.int32_t(st.QPIterations), rod_nodes: C.int32_t(st.RodNodes)}
		return nil
	}, arg{"out", unsafe.Pointer(out)})
}

//export loom_dt
func loom_dt(h C.loom_sim, out *C.double) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error { *out = C.double(s.Dt()); return nil }, arg{"out", unsafe.Pointer(out)})
}

// lookup stores what find returns for a name or handle in *out.
func lookup[H ~uint64, O ~uint64](h C.loom_sim, out *O, find func(*loom.Sim) (H, error), args ...arg) C.loom_status {
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		x, err := find(s)
		if err == nil {
			*out = O(x)
		}
		return err
	}, append(args, arg{"out", unsafe.Pointer(out)})...)
}

//export loom_body_by_name
func loom_body_by_name(h C.loom_sim, name *C.char, out *C.loom_body) (rc C.loom_status) {
	defer guard(&rc)
	return lookup(h, out, func(s *loom.Sim) (loom.Body, error) { return s.Body(C.GoString(name)) }, arg{"name", unsafe.Pointer(name)})
}

//export loom_obstacle_by_name
func loom_obstacle_by_name(h C.loom_sim, name *C.char, out *C.loom_obstacle) (rc C.loom_status) {
	defer guard(&rc)
	return lookup(h, out, func(s *loom.Sim) (loom.Obstacle, error) { return s.Obstacle(C.GoString(name)) }, arg{"name", unsafe.Pointer(name)})
}

//export loom_strand_by_name
func loom_strand_by_name(h C.loom_sim, name *C.char, out *C.loom_strand) (rc C.loom_status) {
	defer guard(&rc)
	return lookup(h, out, func(s *loom.Sim) (loom.Strand, error) { return s.Strand(C.GoString(name)) }, arg{"name", unsafe.Pointer(name)})
}

//export loom_topology
func loom_topology(h C.loom_sim, b C.loom_body, out *C.uint64_t) (rc C.loom_status) {
	defer guard(&rc)
	return lookup(h, out, func(s *loom.Sim) (uint64, error) { return s.Topology(loom.Body(b)) })
}

// count stores the count f returns in *out.
func count(h C.loom_sim, out *C.int32_t, f func(*loom.Sim) (int, error)) C.loom_status {
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		n, err := f(s)
		if err == nil {
			*out = C.int32_t(n)
		}
		return err
	}, arg{"out", unsafe.Pointer(out)})
}

//export loom_vertex_count
func loom_vertex_count(h C.loom_sim, b C.loom_body, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return count(h, out, func(s *loom.Sim) (int, error) { return s.VertexCount(loom.Body(b)) })
}

//export loom_triangle_count
func loom_triangle_count(h C.loom_sim, b C.loom_body, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return count(h, out, func(s *loom.Sim) (int, error) { return s.TriangleCount(loom.Body(b)) })
}

//export loom_strand_node_count
func loom_strand_node_count(h C.loom_sim, r C.loom_strand, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return count(h, out, func(s *loom.Sim) (int, error) { return s.StrandNodeCount(loom.Strand(r)) })
}

// fill writes into the caller's buffer dst of n elements with f (a NULL
// buffer is an empty one) and stores the element count in *out (when not
// NULL).
func fill[T any, P any](h C.loom_sim, dst *P, n C.size_t, out *C.int32_t, f func(*loom.Sim, []T) (int, error)) C.loom_status {
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		var buf []T
		if dst != nil {
			buf = unsafe.Slice((*T)(unsafe.Pointer(dst)), int(n))
		}
		k, err := f(s, buf)
		if err == nil && out != nil {
			*out = C.int32_t(k)
		}
		return err
	})
}

//export loom_positions
func loom_positions(h C.loom_sim, b C.loom_body, dst *C.float, n C.size_t, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return fill(h, dst, n, out, func(s *loom.Sim, buf []float32) (int, error) { return s.Positions(loom.Body(b), buf) })
}

//export loom_normals
func loom_normals(h C.loom_sim, b C.loom_body, dst *C.float, n C.size_t, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return fill(h, dst, n, out, func(s *loom.Sim, buf []float32) (int, error) { return s.Normals(loom.Body(b), buf) })
}

//export loom_triangles
func loom_triangles(h C.loom_sim, b C.loom_body, dst *C.uint32_t, n C.size_t, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return fill(h, dst, n, out, func(s *loom.Sim, buf []uint32) (int, error) { return s.Triangles(loom.Body(b), buf) })
}

//export loom_strand_positions
func loom_strand_positions(h C.loom_sim, r C.loom_strand, dst *C.float, n C.size_t, out *C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return fill(h, dst, n, out, func(s *loom.Sim, buf []float32) (int, error) { return s.StrandPositions(loom.Strand(r), buf) })
}

// doubles returns the k doubles at p.
func doubles(p *C.double, k int) []float64 { return unsafe.Slice((*float64)(unsafe.Pointer(p)), k) }

//export loom_obstacle_pose
func loom_obstacle_pose(h C.loom_sim, o C.loom_obstacle, position, orientation *C.double) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		p, q, err := s.ObstaclePose(loom.Obstacle(o))
		if err == nil {
			copy(doubles(position, 3), p[:])
			copy(doubles(orientation, 4), q[:])
		}
		return err
	}, arg{"position", unsafe.Pointer(position)}, arg{"orientation", unsafe.Pointer(orientation)})
}

//export loom_set_obstacle_pose
func loom_set_obstacle_pose(h C.loom_sim, o C.loom_obstacle, position, orientation *C.double) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		return s.SetObstaclePose(loom.Obstacle(o), [3]float64(doubles(position, 3)), [4]float64(doubles(orientation, 4)))
	}, arg{"position", unsafe.Pointer(position)}, arg{"orientation", unsafe.Pointer(orientation)})
}

//export loom_set_obstacle_velocity
func loom_set_obstacle_velocity(h C.loom_sim, o C.loom_obstacle, v, w *C.double) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error {
		return s.SetObstacleVelocity(loom.Obstacle(o), [3]float64(doubles(v, 3)), [3]float64(doubles(w, 3)))
	}, arg{"velocity", unsafe.Pointer(v)}, arg{"angular_velocity", unsafe.Pointer(w)})
}

//export loom_add_obstacle
func loom_add_obstacle(h C.loom_sim, js *C.char, n C.size_t, out *C.loom_obstacle) (rc C.loom_status) {
	defer guard(&rc)
	return lookup(h, out, func(s *loom.Sim) (loom.Obstacle, error) {
		return s.AddObstacleJSON(C.GoBytes(unsafe.Pointer(js), C.int(n)))
	}, arg{"obstacle_json", unsafe.Pointer(js)})
}

//export loom_remove_obstacle
func loom_remove_obstacle(h C.loom_sim, o C.loom_obstacle) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error { return s.RemoveObstacle(loom.Obstacle(o)) })
}

//export loom_pin
func loom_pin(h C.loom_sim, b C.loom_body, v C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error { return s.Pin(loom.Body(b), int(v)) })
}

//export loom_unpin
func loom_unpin(h C.loom_sim, b C.loom_body, v C.int32_t) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error { return s.Unpin(loom.Body(b), int(v)) })
}

//export loom_attach
func loom_attach(h C.loom_sim, b C.loom_body, v C.int32_t, o C.loom_obstacle) (rc C.loom_status) {
	defer guard(&rc)
	return with(h, C.LOOM_ERR_INVALID, func(s *loom.Sim) error { return s.Attach(loom.Body(b), int(v), loom.Obstacle(o)) })
}
