/*
 * The C ABI in use: load a scene, attach a cape's collar to a character,
 * walk the character by setting its pose every frame, read the vertices
 * and normals into our own buffers, and check what comes back, including
 * the errors for misuse. Exits 0 and prints "capi example: ok" on success.
 *
 * Usage: cape SCENE.json   (capi/example/run.sh builds and runs it)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loom.h"

static int failures = 0;

static void check(int ok, const char *what) {
	if (!ok) {
		char msg[512];
		loom_last_error(msg, sizeof msg);
		fprintf(stderr, "FAIL: %s (last error: %s)\n", what, msg);
		failures++;
	}
}

/* Expects status want from a call, with want_text in the message. */
static void expect(loom_status got, loom_status want, const char *want_text, const char *what) {
	char msg[512];
	loom_last_error(msg, sizeof msg);
	if (got != want || (want_text && !strstr(msg, want_text))) {
		fprintf(stderr, "FAIL: %s: status %d (want %d), message \"%s\" (want \"%s\")\n", what, (int)got, (int)want, msg,
		        want_text ? want_text : "");
		failures++;
	}
}

#define CALL(x) check((x) == LOOM_OK, #x)

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: %s SCENE.json\n", argv[0]);
		return 2;
	}
	loom_sim sim = 0;
	if (loom_load_file(argv[1], 1, &sim) != LOOM_OK) {
		char msg[512];
		loom_last_error(msg, sizeof msg);
		fprintf(stderr, "load: %s\n", msg);
		return 1;
	}
	loom_body cape = 0;
	loom_obstacle character = 0;
	CALL(loom_body_by_name(sim, "cape", &cape));
	CALL(loom_obstacle_by_name(sim, "character", &character));
	double dt = 0;
	CALL(loom_dt(sim, &dt));

	int32_t n = 0, nt = 0;
	CALL(loom_vertex_count(sim, cape, &n));
	CALL(loom_triangle_count(sim, cape, &nt));
	float *pos = malloc(sizeof(float) * 3 * (size_t)n);
	float *start = malloc(sizeof(float) * 3 * (size_t)n);
	float *nrm = malloc(sizeof(float) * 3 * (size_t)n);
	uint32_t *tri = malloc(sizeof(uint32_t) * 3 * (size_t)nt);
	int32_t got = 0;
	CALL(loom_positions(sim, cape, start, 3 * (size_t)n, &got));
	CALL(loom_triangles(sim, cape, tri, 3 * (size_t)nt, &got));
	check(got == nt, "triangle count");
	for (int32_t k = 0; k < 3 * nt; k++)
		check(tri[k] < (uint32_t)n, "triangle index in range");

	/* The collar: the top row, attached to the character. */
	float top = -1e30f;
	for (int32_t v = 0; v < n; v++)
		if (start[3 * v + 2] > top) top = start[3 * v + 2];
	int collar = 0;
	for (int32_t v = 0; v < n; v++)
		if (start[3 * v + 2] > top - 1e-3f) {
			CALL(loom_attach(sim, cape, v, character));
			collar++;
		}

	/* Walk along +y at 1.2 m/s for 1 s, pose set from outside each frame. */
	const int frames = 120;
	for (int f = 1; f <= frames; f++) {
		double t = f * dt;
		double p[3] = {0, 1.2 * t, 0.8}, q[4] = {0, 0, 0, 1};
		CALL(loom_set_obstacle_pose(sim, character, p, q));
		CALL(loom_step(sim));
		CALL(loom_positions(sim, cape, pos, 3 * (size_t)n, &got));
		CALL(loom_normals(sim, cape, nrm, 3 * (size_t)n, &got));
	}
	double walked = 1.2 * frames * dt, worst = 0;
	for (int32_t v = 0; v < n; v++) {
		for (int k = 0; k < 3; k++) check(isfinite(pos[3 * v + k]), "finite position");
		double l = sqrt(nrm[3 * v] * nrm[3 * v] + nrm[3 * v + 1] * nrm[3 * v + 1] + nrm[3 * v + 2] * nrm[3 * v + 2]);
		check(fabs(l - 1) < 1e-4, "unit normal");
		if (start[3 * v + 2] > top - 1e-3f) { /* a collar vertex moved with the character */
			double e = fabs(pos[3 * v + 1] - (start[3 * v + 1] + walked));
			if (e > worst) worst = e;
		}
	}
	check(worst < 1e-4, "the collar follows the character");
	loom_stats st;
	CALL(loom_get_stats(sim, &st));
	check(st.step == frames && st.vertices == n, "stats");

	/* Checkpoint: a resumed copy continues exactly as the original. */
	const char *ck = "cape-example.loom";
	CALL(loom_save(sim, ck));
	loom_sim copy = 0;
	CALL(loom_resume(ck, 1, &copy));
	remove(ck);
	float *pos2 = malloc(sizeof(float) * 3 * (size_t)n);
	for (int f = frames + 1; f <= frames + 5; f++) {
		double p[3] = {0, 1.2 * f * dt, 0.8}, q1[4] = {0, 0, 0, 1};
		loom_sim both[2] = {sim, copy};
		for (int k = 0; k < 2; k++) {
			CALL(loom_set_obstacle_pose(both[k], character, p, q1));
			CALL(loom_step(both[k]));
		}
	}
	CALL(loom_positions(sim, cape, pos, 3 * (size_t)n, &got));
	loom_body cape2 = 0; /* a body handle belongs to its simulation */
	CALL(loom_body_by_name(copy, "cape", &cape2));
	CALL(loom_positions(copy, cape2, pos2, 3 * (size_t)n, &got));
	check(memcmp(pos, pos2, sizeof(float) * 3 * (size_t)n) == 0, "the resumed copy continues bit for bit");
	CALL(loom_close(copy));
	free(pos2);

	/* Misuse gets error codes and messages, never a crash. */
	expect(loom_positions(sim, cape, pos, 5, &got), LOOM_ERR_BUFFER_TOO_SMALL, "need", "short buffer");
	double nanp[3] = {NAN, 0, 0}, q[4] = {0, 0, 0, 1};
	expect(loom_set_obstacle_pose(sim, character, nanp, q), LOOM_ERR_INVALID, "not finite", "NaN pose");
	const char *ball_json = "{\"name\": \"ball\", \"type\": \"sphere\", \"center\": [1, 0, 0.5], \"radius\": 0.1}";
	loom_obstacle ball = 0;
	CALL(loom_add_obstacle(sim, ball_json, strlen(ball_json), &ball));
	CALL(loom_step(sim));
	CALL(loom_remove_obstacle(sim, ball));
	double pp[3], qq[4];
	expect(loom_obstacle_pose(sim, ball, pp, qq), LOOM_ERR_STALE_HANDLE, "obstacle handle", "removed obstacle");
	const char *bad_json = "{\"name\": \"box\", \"type\": \"box\", \"colour\": 3}";
	expect(loom_add_obstacle(sim, bad_json, strlen(bad_json), &ball), LOOM_ERR_INVALID, "colour", "unknown field");
	expect(loom_body_by_name(sim, "trousers", &cape), LOOM_ERR_INVALID, "trousers", "unknown body");
	CALL(loom_close(sim));
	expect(loom_step(sim), LOOM_ERR_STALE_HANDLE, "simulation handle", "closed simulation");
	loom_sim bad = 0;
	expect(loom_load_json("{\"name\": 1}", 11, 1, &bad), LOOM_ERR_SCENE, "name", "bad scene");

	printf("capi example: %d vertices, %d triangles, collar of %d; after %d frames the collar is within %.1e m of the character's path\n",
	       n, nt, collar, frames, worst);
	free(pos);
	free(start);
	free(nrm);
	free(tri);
	if (failures) {
		fprintf(stderr, "capi example: %d failures\n", failures);
		return 1;
	}
	printf("capi example: ok\n");
	return 0;
}
