/* Benchmark: detailed estimates per second on one core (with the
 * timeline), against the seed's closed-form cookbook formula (the baseline)
 * measured in the same run, interleaved: ROUNDS rounds, each a slice of the
 * baseline then a slice of the detailed loop, so machine noise hits both
 * alike. Each round is printed as "round R: BASELINE DETAILED TIMED"
 * (estimates per second of this thread's CPU time); bench/b_engine.sh judges the median of the rounds with
 * its spread (bench/paired.py). Then the process's peak RSS before and
 * after many estimates (the engine allocates nothing, so it must not grow:
 * the exit status is 1 when it grew). Target: >= 1,000,000 detailed
 * estimates/s, RSS flat. A third loop in the same rounds runs each detailed
 * estimate and then the time model (src/core/timing.h) on one GPU class:
 * its rate against the detailed loop's is what the time model costs a
 * sweep (issue 17). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "engine.h"
#include "timing.h"

#define ROUNDS 10

/* The CPU time of this thread: the target is a rate on one core, and on a
 * shared machine the wall clock also counts the time other processes hold
 * that core (two runs on a loaded 2-CPU machine gave medians of 981,000 and
 * 866,000 estimates per wall second against 1,470,000 on a quieter one). */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long rss_kib(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_maxrss;
}

/* One formula's four settings (one per method), varied in the loop. */
static void settings_for(gs_formula f, gs_settings s[4])
{
	static const char *methods[] = {"full", "lora", "qlora", "inference"};
	gs_error e = {0};
	for (int m = 0; m < 4; m++) {
		gs_settings_default(&s[m]);
		gs_settings_set(&s[m], "method", methods[m], &e);
		s[m].formula = f;
		if (f == GS_F_COOKBOOK && m == 3)
			s[m].method = GS_LORA;
	}
}

/* A GPU class for the time model's loop: H100 SXM's figures as
 * gpus/h100-sxm.json has them (a bench input; the time it takes does not
 * depend on the figures). */
static gs_gpu bench_gpu(void)
{
	gs_gpu g;
	memset(&g, 0, sizeof g);
	strcpy(g.id, "h100-sxm");
	g.bf16 = g.fp8 = true;
	g.bandwidth_gbs = 3350;
	g.bf16_tflops = 989;
	g.fp8_tflops = 1979;
	strcpy(g.interconnect, "nvlink4");
	g.link_gbs = 450;
	g.pcie_gen = 5;
	g.pcie_lanes = 16;
	return g;
}

/* Estimates FIRST .. FIRST+N-1 (varying the settings so nothing is hoisted
 * out of the loop), each followed by the time model on *g unless g is
 * NULL; returns the seconds they took. */
static double slice(const gs_arch *a, gs_settings s[4], long first, long n, const gs_gpu *g,
                    unsigned long long *sink)
{
	gs_error e = {0};
	gs_time_opts to;
	gs_time_opts_default(&to);
	double t0 = now();
	for (long i = first; i < first + n; i++) {
		gs_settings *x = &s[i & 3];
		gs_estimate est;
		x->seq = 512 + (i & 1023);
		x->batch = 1 + ((i >> 10) & 7);
		x->grad_ckpt = (i >> 13) & 1;
		if (gs_estimate_run(a, x, &est, &e) != GS_OK) {
			fprintf(stderr, "bench: %s\n", e.msg);
			exit(1);
		}
		*sink += est.device;
		if (g != NULL) {
			gs_time t;
			to.params_trainable = est.params_trainable;
			if (gs_time_estimate(a, x, g, &to, &t, &e) != GS_OK) {
				fprintf(stderr, "bench: %s\n", e.msg);
				exit(1);
			}
			*sink += (unsigned long long)((t.step_s + t.decode_step_s) * 1e9);
		}
	}
	return now() - t0;
}

int main(int argc, char **argv)
{
	const char *cfg = argc > 1 ? argv[1] : "models/meta-llama--Llama-3.1-8B/config.json";
	long n = argc > 2 ? atol(argv[2]) : 2000000;
	gs_arch a;
	gs_error e = {0};
	gs_settings cook[4], det[4];
	unsigned long long sink = 0;
	double sum_base = 0, sum_det = 0, sum_time = 0;
	gs_gpu gpu = bench_gpu();

	if (gs_config_load(cfg, &a, &e) != GS_OK) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	if (n < ROUNDS)
		n = ROUNDS;
	settings_for(GS_F_COOKBOOK, cook);
	settings_for(GS_F_DETAILED, det);
	slice(&a, det, 0, n / 20, &gpu, &sink); /* warm-up */
	long rss0 = rss_kib();
	long per = n / ROUNDS;
	for (int r = 0; r < ROUNDS; r++) {
		double tb = slice(&a, cook, r * per, per, NULL, &sink);
		double td = slice(&a, det, r * per, per, NULL, &sink);
		double tt = slice(&a, det, r * per, per, &gpu, &sink);
		sum_base += tb;
		sum_det += td;
		sum_time += tt;
		printf("round %d: %.0f %.0f %.0f\n", r + 1, per / tb, per / td, per / tt);
	}
	long rss1 = rss_kib();
	slice(&a, det, 0, n * 4, NULL, &sink);
	long rss2 = rss_kib();
	printf("engine: model %s (%d layer kinds, %lld layers)\n", cfg, a.n_kinds, (long long)a.layers);
	printf("engine: %d interleaved rounds of %ld baseline, %ld detailed, %ld detailed + time model estimates; "
	       "mean of all rounds\n", ROUNDS, per, per, per);
	printf("engine: cookbook formula (baseline): %.0f estimates per CPU-second\n", per * ROUNDS / sum_base);
	printf("engine: detailed with timeline:      %.0f estimates per CPU-second\n", per * ROUNDS / sum_det);
	printf("engine: detailed + time model (1 GPU class): %.0f estimates per CPU-second\n", per * ROUNDS / sum_time);
	printf("engine: peak RSS %ld KiB before, %ld KiB after %ld estimates, %ld KiB after %ld more: %s\n", rss0, rss1,
	       2 * per * ROUNDS, rss2, 4 * n, rss2 == rss1 ? "flat" : "GREW");
	printf("(checksum %llu)\n", sink % 1000);
	return rss2 == rss1 ? 0 : 1;
}
