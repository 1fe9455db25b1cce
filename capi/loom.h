/*
 * loom.h: the C ABI of loom, the cloth and yarn simulator (package loom).
 *
 * Build the library with Go:
 *   go build -buildmode=c-shared  -o libloom.so ./capi   (or)
 *   go build -buildmode=c-archive -o libloom.a  ./capi
 * and include this header (not the one Go writes beside the library).
 *
 * Conventions:
 *   - Every function returns a loom_status; LOOM_OK is 0. On an error,
 *     loom_last_error copies a message naming what is wrong and where.
 *     The message is per process (the last failing call on any thread).
 *   - Handles are opaque integers. A loom_sim is never reused within a
 *     process; body, obstacle and strand handles carry a generation, so a
 *     handle of a removed obstacle (or of another simulation) is
 *     LOOM_ERR_STALE_HANDLE, never a different object. 0 is never valid.
 *   - Buffers are the caller's memory; loom writes into them during the call
 *     and keeps no pointer. Positions and normals: 3 floats (x y z) per
 *     vertex; triangles: 3 uint32_t vertex indices per face, CCW. Lengths
 *     are in elements (floats or indices). A short buffer is
 *     LOOM_ERR_BUFFER_TOO_SMALL and is left unchanged.
 *   - Poses: position of the obstacle's centre (m), orientation a quaternion
 *     {x, y, z, w}. Units SI, z up.
 *   - One simulation must not be used from two threads at once; different
 *     simulations may run on different threads.
 */
#ifndef LOOM_H
#define LOOM_H

#include "loom_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the last error message (NUL-terminated, truncated to len) into buf
 * and returns its full length in bytes; 0 when there was none. */
size_t loom_last_error(char *buf, size_t len);

/* Loading: a scene file path or built-in scene name; JSON text; a
 * checkpoint (a state image: resuming costs its size, not the steps taken).
 * workers: 0 for LOOM_WORKERS or the number of CPUs. */
loom_status loom_load_file(const char *path, int32_t workers, loom_sim *out);
loom_status loom_load_json(const char *json, size_t len, int32_t workers, loom_sim *out);
loom_status loom_resume(const char *path, int32_t workers, loom_sim *out);
loom_status loom_save(loom_sim sim, const char *path);
loom_status loom_close(loom_sim sim);

loom_status loom_step(loom_sim sim);
loom_status loom_get_stats(loom_sim sim, loom_stats *out);
loom_status loom_dt(loom_sim sim, double *out);

/* Handles by name. */
loom_status loom_body_by_name(loom_sim sim, const char *name, loom_body *out);
loom_status loom_obstacle_by_name(loom_sim sim, const char *name, loom_obstacle *out);
loom_status loom_strand_by_name(loom_sim sim, const char *name, loom_strand *out);

/* Buffers. The counts change when a body is remeshed: compare
 * loom_topology with the last value seen. */
loom_status loom_vertex_count(loom_sim sim, loom_body body, int32_t *out);
loom_status loom_triangle_count(loom_sim sim, loom_body body, int32_t *out);
loom_status loom_topology(loom_sim sim, loom_body body, uint64_t *out);
loom_status loom_positions(loom_sim sim, loom_body body, float *dst, size_t len, int32_t *count);
loom_status loom_normals(loom_sim sim, loom_body body, float *dst, size_t len, int32_t *count);
loom_status loom_triangles(loom_sim sim, loom_body body, uint32_t *dst, size_t len, int32_t *count);
loom_status loom_strand_node_count(loom_sim sim, loom_strand strand, int32_t *out);
loom_status loom_strand_positions(loom_sim sim, loom_strand strand, float *dst, size_t len, int32_t *count);

/* Obstacles driven from outside (kinematic), added and removed. */
loom_status loom_obstacle_pose(loom_sim sim, loom_obstacle o, double position[3], double orientation[4]);
loom_status loom_set_obstacle_pose(loom_sim sim, loom_obstacle o, const double position[3], const double orientation[4]);
loom_status loom_set_obstacle_velocity(loom_sim sim, loom_obstacle o, const double velocity[3], const double angular_velocity[3]);
/* obstacle_json: one obstacle in the scene format, e.g.
 * {"name": "ball", "type": "sphere", "center": [0, 0, 1], "radius": 0.2} */
loom_status loom_add_obstacle(loom_sim sim, const char *obstacle_json, size_t len, loom_obstacle *out);
loom_status loom_remove_obstacle(loom_sim sim, loom_obstacle o);

/* Pins: hold a vertex where it is, free it, or attach it to an obstacle's
 * moving frame. */
loom_status loom_pin(loom_sim sim, loom_body body, int32_t vertex);
loom_status loom_unpin(loom_sim sim, loom_body body, int32_t vertex);
loom_status loom_attach(loom_sim sim, loom_body body, int32_t vertex, loom_obstacle o);

#ifdef __cplusplus
}
#endif

#endif /* LOOM_H */
