/* Benchmark: detailed estimates per second on one core (with the
 * timeline), against the seed's closed-form cookbook formula (the baseline)
 * measured in the same run, interleaved: ROUNDS rounds, each a slice of the
 * baseline then a slice of the detailed loop, so machine noise hits both
 * alike; a rate is the best round's. Then the process's peak RSS before
 * and after many estimates (the engine allocates nothing, so it must not
 * grow). Target: >= 1,000,000 detailed estimates/s, RSS flat. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "engine.h"

#define ROUNDS 10

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
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

/* Estimates FIRST .. FIRST+N-1 (varying the settings so nothing is hoisted
 * out of the loop); returns the seconds they took. */
static double slice(const gs_arch *a, gs_settings s[4], long first, long n, unsigned long long *sink)
{
	gs_error e = {0};
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
	double best_base = 0, best_det = 0, sum_base = 0, sum_det = 0;

	if (gs_config_load(cfg, &a, &e) != GS_OK) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	if (n < ROUNDS)
		n = ROUNDS;
	settings_for(GS_F_COOKBOOK, cook);
	settings_for(GS_F_DETAILED, det);
	slice(&a, det, 0, n / 20, &sink); /* warm-up */
	long rss0 = rss_kib();
	long per = n / ROUNDS;
	for (int r = 0; r < ROUNDS; r++) {
		double tb = slice(&a, cook, r * per, per, &sink);
		double td = slice(&a, det, r * per, per, &sink);
		sum_base += tb;
		sum_det += td;
		if (per / tb > best_base)
			best_base = per / tb;
		if (per / td > best_det)
			best_det = per / td;
	}
	long rss1 = rss_kib();
	slice(&a, det, 0, n * 4, &sink);
	long rss2 = rss_kib();
	printf("engine: model %s (%d layer kinds, %lld layers)\n", cfg, a.n_kinds, (long long)a.layers);
	printf("engine: %d interleaved rounds of %ld baseline then %ld detailed estimates; best round (mean of all)\n",
	       ROUNDS, per, per);
	printf("engine: cookbook formula (baseline): %.0f estimates/s (%.0f)\n", best_base, per * ROUNDS / sum_base);
	printf("engine: detailed with timeline:      %.0f estimates/s (%.0f) (target >= 1000000) %s\n", best_det,
	       per * ROUNDS / sum_det, best_det >= 1e6 ? "OK" : "BELOW TARGET");
	printf("engine: detailed / baseline speed ratio: %.3f (%.3f)\n", best_det / best_base, sum_base / sum_det);
	printf("engine: peak RSS %ld KiB before, %ld KiB after %ld estimates, %ld KiB after %ld more: %s\n", rss0, rss1,
	       2 * per * ROUNDS, rss2, 4 * n, rss2 == rss1 ? "flat" : "GREW");
	printf("(checksum %llu)\n", sink % 1000);
	return best_det >= 1e6 && rss2 == rss1 ? 0 : 1;
}
