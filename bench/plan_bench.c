/* Benchmark: one whole `gpusizer plan` search for one model (every GPU
 * class in gpus/, counts up to 64, the batch and context bisections at one
 * GPU and at the fewest count), against one detailed estimate timed in the
 * same run: the plan's cost in estimates. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config.h"
#include "gpu_file.h"
#include "search.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* What cmd_plan computes per class (without printing). */
static unsigned long long whole_plan(const gs_arch *a, const gs_settings *s, const gs_gpu *g, size_t ng)
{
	unsigned long long sink = 0;

	for (size_t i = 0; i < ng; i++) {
		gs_plan_fit c, f;
		bool bounded;
		gs_plan_count(a, s, &g[i], 64, &c);
		sink += (unsigned long long)gs_plan_max(a, s, &g[i], GS_PLAN_BATCH, &bounded, &f);
		sink += (unsigned long long)gs_plan_max(a, s, &g[i], GS_PLAN_SEQ, &bounded, &f);
		if (c.found) {
			sink += (unsigned long long)gs_plan_max(a, &c.s, &g[i], GS_PLAN_BATCH, &bounded, &f);
			sink += (unsigned long long)gs_plan_max(a, &c.s, &g[i], GS_PLAN_SEQ, &bounded, &f);
		}
	}
	return sink;
}

int main(int argc, char **argv)
{
	const char *cfg = argc > 1 ? argv[1] : "models/Qwen--Qwen2.5-32B/config.json";
	const char *dir = argc > 2 ? argv[2] : "gpus";
	int reps = argc > 3 ? atoi(argv[3]) : 20;
	gs_arch a;
	gs_gpu *g = NULL;
	size_t ng = 0;
	gs_error e = { 0 };
	gs_settings s;
	gs_estimate x;
	unsigned long long sink = 0;
	long n_est = 200000;

	if (gs_config_load(cfg, &a, &e) != GS_OK || gs_gpus_load(dir, &g, &ng, &e) != GS_OK) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	gs_settings_default(&s);
	gs_settings_set(&s, "precision", "mixed-bf16", &e);
	gs_settings_set(&s, "grad-ckpt", "true", &e);
	sink += whole_plan(&a, &s, g, ng); /* warm-up */
	double t0 = now();
	for (long i = 0; i < n_est; i++) {
		s.seq = 512 + (i & 1023);
		gs_estimate_run(&a, &s, &x, &e);
		sink += x.device;
	}
	double one = (now() - t0) / (double)n_est;
	s.seq = 2048;
	t0 = now();
	for (int r = 0; r < reps; r++)
		sink += whole_plan(&a, &s, g, ng);
	double plan = (now() - t0) / reps;
	printf("plan: model %s, %zu GPU classes, counts up to 64\n", cfg, ng);
	printf("plan: one estimate (baseline): %.2f us\n", one * 1e6);
	printf("plan: one whole plan: %.2f ms (target < 1000 ms) %s\n", plan * 1e3, plan < 1.0 ? "OK" : "SLOW");
	printf("plan: plan / estimate cost ratio: %.0f estimates\n", plan / one);
	printf("(checksum %llu)\n", sink % 1000);
	free(g);
	return plan < 1.0 ? 0 : 1;
}
