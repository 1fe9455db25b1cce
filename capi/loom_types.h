/* loom_types.h: the types of loom's C ABI; include loom.h. */
#ifndef LOOM_TYPES_H
#define LOOM_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int64_t loom_sim;
typedef uint64_t loom_body;
typedef uint64_t loom_obstacle;
typedef uint64_t loom_strand;

/* Status codes (loom_status values). */
enum {
	LOOM_OK = 0,
	LOOM_ERR_INVALID = 1,          /* a bad argument or value (NaN pose, unknown name, bad vertex) */
	LOOM_ERR_STALE_HANDLE = 2,     /* a handle whose object is gone, or not of this simulation */
	LOOM_ERR_BUFFER_TOO_SMALL = 3, /* a caller buffer shorter than needed */
	LOOM_ERR_CLOSED = 4,           /* the simulation was closed */
	LOOM_ERR_SCENE = 5,            /* the scene file or JSON is not valid */
	LOOM_ERR_STEP = 6,             /* a step failed (the message names the system and step) */
	LOOM_ERR_CHECKPOINT = 7,       /* a checkpoint file is missing, truncated, corrupted or of another version */
	LOOM_ERR_INTERNAL = 8          /* a bug in loom: please report the message */
};
typedef int32_t loom_status;

typedef struct loom_stats {
	int64_t step;        /* steps taken */
	double time;         /* s, simulated */
	double step_seconds; /* s, wall-clock time of the last step */
	int32_t vertices, faces, contacts, pcg_iterations, qp_iterations, rod_nodes;
} loom_stats;

#endif /* LOOM_TYPES_H */
