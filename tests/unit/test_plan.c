/* gpusizer tests: plan's searches, as properties over random models and
 * settings: every answer fits and the next step does not; the ladder's
 * memory never rises; and the monotonicity the bisections assume. */
#include <stdlib.h>

#include "check.h"
#include "plan.h"
#include "util.h"

static uint64_t rng = 0x243f6a8885a308d3ULL;

static unsigned draw(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)((rng >> 33) % n);
}

/* A random decoder: 0.1 to ~40 B parameters. */
static bool draw_arch(gs_arch *a)
{
	static const int64_t hidden[] = { 512, 1024, 2048, 4096, 5120, 8192 };
	int64_t h = hidden[draw(6)], layers = 4 + draw(60), heads = h / 128, kv = heads / (1 + draw(4));
	gs_error e = { 0 };

	if (kv < 1 || heads % kv != 0)
		kv = heads;
	if (gs_arch_manual(a, 0, layers, h, heads, kv, h * (2 + draw(3)), 32000 + 1000 * draw(120), &e) != GS_OK)
		return false;
	a->max_pos = 2048 << draw(5);
	return true;
}

static void draw_settings(gs_settings *s)
{
	static const char *const methods[] = { "full", "lora", "qlora", "inference" };
	static const char *const full_prec[] = { "amp-bf16", "bf16", "fp32", "mixed-bf16" };
	static const char *const base_prec[] = { "bf16", "fp32", "int8" };
	static const char *const opts[] = { "adamw", "adamw-8bit", "sgd", "adafactor" };
	gs_error e = { 0 };
	char b[16], q[16];

	gs_settings_default(s);
	gs_settings_set(s, "method", methods[draw(4)], &e);
	if (s->method == GS_FULL)
		gs_settings_set(s, "precision", full_prec[draw(4)], &e);
	else if (s->method != GS_QLORA)
		gs_settings_set(s, "precision", base_prec[draw(3)], &e);
	gs_settings_set(s, "optimizer", opts[draw(4)], &e);
	snprintf(b, sizeof b, "%u", 1u << draw(4));
	snprintf(q, sizeof q, "%u", 256u << draw(6));
	gs_settings_set(s, "batch", b, &e);
	gs_settings_set(s, "seq", q, &e);
	gs_settings_set(s, "grad-ckpt", draw(2) ? "true" : "false", &e);
}

static gs_gpu gpu_of(double gib, bool bf16)
{
	gs_gpu g;

	memset(&g, 0, sizeof g);
	snprintf(g.id, sizeof g.id, "test-%.0f", gib);
	g.total_bytes = g.usable_bytes = (uint64_t)(gib * GS_GIB);
	g.bf16 = bf16;
	g.fp8 = false;
	return g;
}

static void test_count(void)
{
	size_t found = 0, none = 0, wrong = 0;

	for (int it = 0; it < 300; it++) {
		gs_arch a;
		gs_settings s;
		gs_plan_fit f, g2;
		static const double sizes[] = { 12, 24, 48, 80, 141 };
		gs_gpu g = gpu_of(sizes[draw(5)], true);

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		gs_plan_count(&a, &s, &g, 16, &f);
		if (!f.found) {
			none++;
			continue;
		}
		found++;
		if (!gs_plan_try(&a, &f.s, &g, &g2) || g2.est.device != f.est.device)
			wrong++; /* the answer fits */
		if (f.s.gpus > 1) {
			gs_plan_count(&a, &s, &g, f.s.gpus - 1, &g2);
			if (g2.found)
				wrong++; /* one fewer GPU does not */
		}
	}
	CHECK(wrong == 0 && found > 30 && none > 0,
	      "fewest GPUs: %zu answers fit and one fewer GPU does not (%zu fit nowhere up to 16)", found, none);
}

static void test_max(void)
{
	size_t answers = 0, wrong = 0, mono = 0, pairs = 0;

	for (int it = 0; it < 300; it++) {
		gs_arch a;
		gs_settings s, t;
		gs_plan_fit f, g2;
		bool bounded;
		gs_gpu g = gpu_of(8 + draw(140), true);
		gs_plan_axis axis = draw(2) ? GS_PLAN_SEQ : GS_PLAN_BATCH;
		int64_t x;

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		if (gs_settings_check(&s, &(gs_error){ 0 }) != GS_OK)
			continue;
		x = gs_plan_max(&a, &s, &g, axis, &bounded, &f);
		t = s;
		if (x == 0) {
			if (axis == GS_PLAN_SEQ)
				t.seq = 1;
			else
				t.batch = 1;
			wrong += gs_plan_try(&a, &t, &g, &g2); /* not even 1 fits */
			continue;
		}
		answers++;
		if (axis == GS_PLAN_SEQ)
			t.seq = x;
		else
			t.batch = x;
		wrong += !gs_plan_try(&a, &t, &g, &g2); /* the answer fits */
		if (!bounded) {
			if (axis == GS_PLAN_SEQ)
				t.seq = x + 1;
			else
				t.batch = x + 1;
			wrong += gs_plan_try(&a, &t, &g, &g2); /* one more does not */
		}
		/* The assumption under the bisection: memory does not fall as
		 * the axis grows (sampled at random points). */
		for (int k = 0; k < 8; k++) {
			int64_t lo = 1 + draw(4096), hi = lo + 1 + draw(4096);
			gs_plan_fit fl, fh;
			gs_settings u = s, v = s;
			if (axis == GS_PLAN_SEQ) {
				u.seq = lo;
				v.seq = hi;
			} else {
				u.batch = lo;
				v.batch = hi;
			}
			gs_plan_try(&a, &u, &g, &fl);
			gs_plan_try(&a, &v, &g, &fh);
			if (fl.est.device == 0 || fh.est.device == 0)
				continue;
			pairs++;
			mono += fh.est.device < fl.est.device;
		}
	}
	CHECK(wrong == 0 && answers > 50, "largest batch/context: %zu answers fit and one more does not", answers);
	CHECK(mono == 0 && pairs > 500, "memory does not fall as batch or context grows (%zu sampled pairs)", pairs);
}

static void test_ladder(void)
{
	size_t ladders = 0, rises = 0, fixed = 0;

	for (int it = 0; it < 300; it++) {
		gs_arch a;
		gs_settings s;
		gs_plan_step st[GS_RUNG_MAX];
		gs_gpu g = gpu_of(12 + draw(40), true);
		uint64_t last = 0;
		size_t n;

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		n = gs_plan_ladder(&a, &s, &g, 8, draw(2), st);
		ladders++;
		for (size_t k = 0; k < n; k++) {
			if (st[k].applied && st[k].fit.est.device > 0) {
				rises += last && st[k].fit.est.device > last;
				last = st[k].fit.est.device;
			}
		}
		fixed += st[n - 1].fit.found && !st[0].fit.found;
	}
	CHECK(rises == 0 && ladders > 100,
	      "the ladder's memory never rises (%zu ladders, %zu fixed by it)", ladders, fixed);
}

static void test_ladder_stops(void)
{
	size_t wrong = 0, n_ok = 0;

	for (int it = 0; it < 200; it++) {
		gs_arch a;
		gs_settings s;
		gs_plan_step st[GS_RUNG_MAX];
		gs_gpu g = gpu_of(12 + draw(40), true);
		size_t n;

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		n = gs_plan_ladder(&a, &s, &g, 8, false, st);
		for (size_t k = 0; k + 1 < n; k++)
			wrong += st[k].fit.found; /* only the last step may fit */
		n_ok++;
	}
	CHECK(wrong == 0 && n_ok > 100, "without --all the ladder stops at the first step that fits");
}

int main(void)
{
	test_count();
	test_max();
	test_ladder();
	test_ladder_stops();
	CHECK_DONE();
}
