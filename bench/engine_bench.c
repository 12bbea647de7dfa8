/* Benchmark: detailed estimates per second on one core (with the
 * timeline), against the seed's closed-form cookbook formula measured in
 * the same run, and the process's peak RSS before and after many
 * estimates (the engine allocates nothing, so it must not grow). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "config.h"
#include "engine.h"

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

/* Vary the settings so nothing is hoisted out of the loop. */
static double rate(const gs_arch *a, gs_formula f, long n, unsigned long long *sink)
{
	static const char *methods[] = {"full", "lora", "qlora", "inference"};
	gs_settings s[4];
	gs_error e = {0};
	for (int m = 0; m < 4; m++) {
		gs_settings_default(&s[m]);
		gs_settings_set(&s[m], "method", methods[m], &e);
		s[m].formula = f;
		if (f == GS_F_COOKBOOK && m == 3)
			s[m].method = GS_LORA;
	}
	double t0 = now();
	for (long i = 0; i < n; i++) {
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
	return (double)n / (now() - t0);
}

int main(int argc, char **argv)
{
	const char *cfg = argc > 1 ? argv[1] : "models/meta-llama--Llama-3.1-8B/config.json";
	long n = argc > 2 ? atol(argv[2]) : 2000000;
	gs_arch a;
	gs_error e = {0};
	unsigned long long sink = 0;

	if (gs_config_load(cfg, &a, &e) != GS_OK) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	rate(&a, GS_F_DETAILED, n / 20, &sink); /* warm-up */
	long rss0 = rss_kib();
	double base = rate(&a, GS_F_COOKBOOK, n, &sink);
	double det = rate(&a, GS_F_DETAILED, n, &sink);
	long rss1 = rss_kib();
	rate(&a, GS_F_DETAILED, n * 4, &sink);
	long rss2 = rss_kib();
	printf("engine: model %s (%d layer kinds, %lld layers)\n", cfg, a.n_kinds, (long long)a.layers);
	printf("engine: cookbook formula (baseline): %.0f estimates/s\n", base);
	printf("engine: detailed with timeline:      %.0f estimates/s (target >= 1000000) %s\n", det,
	       det >= 1e6 ? "OK" : "BELOW TARGET");
	printf("engine: detailed / baseline speed ratio: %.3f\n", det / base);
	printf("engine: peak RSS %ld KiB before, %ld KiB after %ld estimates, %ld KiB after %ld more: %s\n", rss0, rss1,
	       2 * n, rss2, 4 * n, rss2 == rss1 ? "flat" : "GREW");
	printf("(checksum %llu)\n", sink % 1000);
	return det >= 1e6 && rss2 == rss1 ? 0 : 1;
}
