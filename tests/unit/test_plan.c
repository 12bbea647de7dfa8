/* gpusizer tests: plan's searches, as properties over random models and
 * settings: every answer fits and the next step does not; the ladder's
 * memory never rises; and the monotonicity the bisections assume. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "search.h"
#include "plan_view.h"
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
	/* every setting given: no stack choice moves when the planner changes
	 * a layout or an axis, so its answers can be checked by trying counts
	 * and sizes by hand (the stack's part: tests/t_stacks.py) */
	s->given = ~(uint64_t)0;
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

/* What gs_plan_count's bisections assume and what they must give: under
 * every training layout per-GPU memory never rises with the GPU count, and
 * the answer is the one trying every count in turn (each layout in order
 * at 1, 2, ... max) gives: the same count, layout and estimate. */
static void test_count_scan(void)
{
	static const gs_shard order[] = { GS_SH_DDP, GS_SH_ZERO1, GS_SH_ZERO2, GS_SH_FSDP2, GS_SH_ZERO3,
	                                  GS_SH_FSDP };
	static const double sizes[] = { 12, 16, 24, 48, 80 };
	size_t same = 0, differ = 0, far = 0, none = 0, rises = 0, points = 0;

	for (int it = 0; it < 200; it++) {
		gs_arch a;
		gs_settings s, t;
		gs_plan_fit got, want, f;
		gs_gpu g = gpu_of(sizes[draw(5)], true);
		int64_t max = 64;

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		if (s.method == GS_INFER)
			continue;
		for (size_t i = 1; i < sizeof order / sizeof *order; i++) {
			uint64_t prev = 0;
			t = s;
			t.tp = 1;
			t.sharding = order[i];
			for (int64_t n = 2; n <= max; n += 1 + draw(6)) {
				t.gpus = n;
				gs_plan_try(&a, &t, &g, &f);
				points++;
				rises += prev > 0 && f.est.device > prev;
				prev = f.est.device;
			}
		}
		memset(&want, 0, sizeof want);
		for (int64_t n = 1; n <= max && !want.found; n++)
			for (size_t i = 0; i < (n == 1 ? 1 : sizeof order / sizeof *order) && !want.found; i++) {
				t = s;
				t.gpus = n;
				t.tp = 1;
				t.sharding = order[i];
				gs_plan_try(&a, &t, &g, &want);
			}
		gs_plan_count(&a, &s, &g, max, &got);
		if (!want.found)
			none++;
		else if (want.s.gpus > 8)
			far++;
		if (got.found == want.found &&
		    (!got.found || (got.s.gpus == want.s.gpus && got.s.sharding == want.s.sharding &&
		                    got.est.device == want.est.device)))
			same++;
		else
			differ++;
	}
	CHECK(rises == 0, "plan: under every training layout per-GPU memory never rises with the GPU count "
	      "(%zu points, %zu rises)", points, rises);
	CHECK(differ == 0 && far > 3 && none > 3,
	      "fewest GPUs: the bisections give what trying every count gives (%zu same, %zu differ; "
	      "%zu answers past 8 GPUs, %zu fit nowhere up to 64)", same, differ, far, none);
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

/* The ladder, judged at the count: along the kept steps the fewest count
 * never rises (before anything fits, the memory a GPU at the most GPUs
 * never rises); once a step fits, every later kept step fits; nothing
 * follows a step that fits one GPU comfortably. */
static void test_ladder(void)
{
	size_t ladders = 0, wrong = 0, fixed = 0;

	for (int it = 0; it < 300; it++) {
		gs_arch a;
		gs_settings s;
		gs_plan_step st[GS_RUNG_MAX];
		gs_gpu g = gpu_of(12 + draw(40), true);
		const gs_plan_fit *cur = NULL;
		size_t n;

		if (!draw_arch(&a))
			continue;
		draw_settings(&s);
		n = gs_plan_ladder(&a, &s, &g, 8, st);
		ladders++;
		for (size_t k = 0; k < n; k++) {
			const gs_plan_fit *f = &st[k].fit;
			if (k + 1 < n && f->found && f->s.gpus == 1 && f->v == GS_FITS)
				wrong++; /* the ladder goes on past one comfortable GPU */
			if (!st[k].applied)
				continue;
			if (cur != NULL && cur->found && (!f->found || f->s.gpus > cur->s.gpus))
				wrong++;
			if (cur != NULL && !cur->found && !f->found && cur->est.device > 0 &&
			    cur->v != GS_NOT_RUNNABLE && f->est.device > cur->est.device)
				wrong++;
			cur = f;
		}
		fixed += cur != NULL && cur->found && !st[0].fit.found;
	}
	CHECK(wrong == 0 && ladders > 100 && fixed > 10,
	      "the ladder at the count: the fewest count never rises along it, nor the memory while "
	      "nothing fits (%zu ladders, %zu made to fit)", ladders, fixed);
}

/* Whether s runs on class g at exactly n GPUs in some layout (every
 * setting given: no stack choice moves), and comfortably in one. */
static void runs_at(const gs_arch *a, const gs_settings *s, const gs_gpu *g, int64_t n, bool *runs, bool *comfy)
{
	static const gs_shard train[] = { GS_SH_DDP, GS_SH_ZERO1, GS_SH_ZERO2, GS_SH_FSDP2, GS_SH_ZERO3,
	                                  GS_SH_FSDP };
	gs_settings t = *s;
	gs_plan_fit f;

	*runs = *comfy = false;
	t.gpus = n;
	for (int i = 0; i < (s->method == GS_INFER ? 2 : 6); i++) {
		if (n == 1 && i > 0)
			break;
		t.tp = s->method == GS_INFER && i == 0 ? n : 1;
		t.sharding = s->method == GS_INFER ? (i == 0 ? GS_SH_DDP : GS_SH_PIPELINE) : train[i];
		if (n == 1) {
			t.tp = 1;
			t.sharding = GS_SH_DDP;
		}
		if (gs_plan_try(a, &t, g, &f)) {
			*runs = true;
			*comfy = *comfy || f.v == GS_FITS;
		}
	}
}

/* Whether the settings of bits hold the same values in x and y. */
static bool same_values(const gs_settings *x, const gs_settings *y, uint64_t bits)
{
	const gs_setting *d = gs_settings_table();

	for (size_t i = 0; i < gs_settings_count(); i++) {
		gs_setting_value vx, vy;
		if (!(bits & gs_setting_bit(d[i].name)))
			continue;
		gs_setting_get(&d[i], x, &vx);
		gs_setting_get(&d[i], y, &vy);
		if (strcmp(vx.text, vy.text) != 0)
			return false;
	}
	return true;
}

/* Answer x to q on g holds: it fits where it says, as it says; its count
 * is its settings' fewest, rounded to whole nodes past one; its settings
 * are the question with its rungs, and the settings it names are exactly
 * those that differ (the layout's aside); a method change comes only
 * through the last rung. */
static bool answer_holds(const gs_arch *a, const gs_settings *q, const gs_gpu *g, const gs_plan_answer *x)
{
	uint64_t layout = gs_setting_bit("gpus") | gs_setting_bit("sharding") | gs_setting_bit("tp");
	gs_settings s = gs_plan_settings(a, q, g, x->rungs);
	gs_plan_fit f;

	if (!gs_plan_try(a, &x->fit.s, g, &f) || f.est.device != x->fit.est.device || f.v != x->fit.v)
		return false;
	if (x->fit.s.gpus != gs_node_round(x->fewest, x->node))
		return false;
	gs_plan_count(a, &x->fit.s, g, x->fewest, &f);
	if (!f.found || f.s.gpus != x->fewest)
		return false;
	if (!same_values(&s, &x->fit.s, ~layout))
		return false;
	if (!same_values(q, &x->fit.s, ~(layout | x->turned_on | x->by_stack | x->by_layout)) ||
	    (x->turned_on && same_values(q, &x->fit.s, x->turned_on)))
		return false;
	return x->method_change == (x->fit.s.method != q->method) &&
	       (!x->method_change || (x->rungs & (1u << GS_RUNG_QLORA)));
}

/* The answers over random models and classes: each holds (answer_holds);
 * the alternatives need fewer GPUs than the one before (or as many
 * comfortably after a tight one); and every rung an answer names is
 * needed there: without it the rest does not run at that count as
 * comfortably. */
static void test_answers(void)
{
	size_t answers = 0, wrong = 0, order_wrong = 0, unneeded = 0, rounded = 0, rungs = 0;
	gs_time_opts to;

	gs_time_opts_default(&to);
	for (int it = 0; it < 200; it++) {
		gs_arch a;
		gs_settings q;
		gs_plan_step st[GS_RUNG_MAX];
		gs_plan_answer x[GS_PLAN_ANSWERS_MAX];
		gs_gpu g = gpu_of(12 + draw(60), draw(5) != 0);
		int64_t node = draw(2) ? 8 : 1 + draw(6);
		size_t n, k;

		if (!draw_arch(&a))
			continue;
		draw_settings(&q);
		if (gs_settings_check(&q, &(gs_error){ 0 }) != GS_OK)
			continue;
		n = gs_plan_ladder(&a, &q, &g, 32, st);
		k = gs_plan_answers(&a, &q, &g, 32, node, &to, st, n, x);
		for (size_t i = 0; i < k; i++) {
			answers++;
			wrong += !answer_holds(&a, &q, &g, &x[i]);
			rounded += x[i].fit.s.gpus > x[i].fewest;
			if (i > 0 && !(x[i].fit.s.gpus < x[i - 1].fit.s.gpus ||
			               (x[i].fit.s.gpus == x[i - 1].fit.s.gpus && x[i - 1].fit.v == GS_TIGHT &&
			                x[i].fit.v == GS_FITS)))
				order_wrong++;
			for (int r = GS_RUNG_START + 1; r < GS_RUNG_MAX; r++) {
				gs_settings s;
				bool runs, comfy;
				if (!(x[i].rungs & (1u << r)))
					continue;
				rungs++;
				s = gs_plan_settings(&a, &q, &g, x[i].rungs & ~(1u << r));
				runs_at(&a, &s, &g, x[i].fit.s.gpus, &runs, &comfy);
				unneeded += runs && (comfy || x[i].fit.v == GS_TIGHT);
			}
		}
	}
	CHECK(wrong == 0 && answers > 100 && rounded > 5,
	      "answers: %zu fit at their count, need no fewer GPUs, are whole nodes past one (%zu rounded "
	      "up) and name exactly what they turn on", answers, rounded);
	CHECK(order_wrong == 0, "answers: each alternative needs fewer GPUs than the one before, or as many "
	      "comfortably after a tight one");
	CHECK(unneeded == 0 && rungs > 50, "answers: each of the %zu rungs they name is needed at their count "
	      "(%zu not)", rungs, unneeded);
}

/* The rule's key of a cell on class g: (tight, first key, second key). */
static bool ranks_before(gs_plan_rank rule, const gs_plan_cell *a, const gs_gpu *ga,
                         const gs_plan_cell *b, const gs_gpu *gb)
{
	uint64_t ta = ga->usable_bytes * (uint64_t)a->count, tb = gb->usable_bytes * (uint64_t)b->count;

	if ((a->v == GS_TIGHT) != (b->v == GS_TIGHT))
		return b->v == GS_TIGHT;
	if (rule == GS_RANK_FEWEST_GPUS)
		return a->count < b->count || (a->count == b->count && ta < tb);
	return ta < tb || (ta == tb && a->count < b->count);
}

/* The report's plan view, over random models and starting points: each
 * cell is the fewest count (it fits, one fewer does not), the best class
 * is first under the rule, the longest context fits and one more does
 * not, and a class without the bf16 the settings need is marked so. */
static void test_view(void)
{
	static const double sizes[] = { 12, 16, 24, 48, 80, 141, 192 };
	size_t cells = 0, wrong = 0, best_wrong = 0, longest = 0, nr = 0, differ = 0;

	for (int it = 0; it < 60; it++) {
		gs_arch a;
		gs_row row;
		gs_gpu g[5];
		gs_plan_view v[GS_RANK_MEMORY_MAX];
		static const int64_t seqs[] = { 512, 4096, 32768 };

		if (!draw_arch(&a))
			continue;
		memset(&row, 0, sizeof row);
		draw_settings(&row.settings);
		if (gs_settings_check(&row.settings, &(gs_error){ 0 }) != GS_OK)
			continue;
		for (int k = 0; k < 5; k++)
			g[k] = gpu_of(sizes[draw(7)], k != 4 || draw(2));
		for (int r = 0; r < GS_RANK_MEMORY_MAX; r++) {
			gs_plan_opts o = { NULL, 0, (gs_plan_rank)r, 16, 0 };
			gs_plan_view_init(&v[r], g, 5, &o);
			for (int k = 2; k >= 0; k--) { /* out of order: the view sorts */
				row.settings.seq = seqs[k];
				gs_plan_view_row(&v[r], &row);
			}
			gs_plan_view_compute(&v[r], &a);
		}
		for (int r = 0; r < GS_RANK_MEMORY_MAX; r++) {
			const gs_plan_method *pm = &v[r].m[row.settings.method];
			if (!pm->present || pm->nseq != 3 || pm->seqs[0] != 512 || pm->seqs[2] != 32768) {
				wrong++;
				continue;
			}
			for (size_t c = 0; c < 5; c++) {
				gs_needs need = gs_settings_needs(&pm->base);
				bool runs = !(need.bf16 && !g[c].bf16);
				for (size_t k = 0; k < 3; k++) {
					const gs_plan_cell *x = &pm->cells[c * 3 + k];
					gs_settings s = pm->base;
					gs_plan_fit f;
					s.seq = pm->seqs[k];
					bool found = x->state == GS_PC_FOUND;
					if ((x->state == GS_PC_NEEDS_BF16) != !runs || x->state == GS_PC_NO_ESTIMATE) {
						wrong++;
						continue;
					}
					nr += x->state == GS_PC_NEEDS_BF16;
					gs_plan_count(&a, &s, &g[c], 16, &f);
					if (runs ? f.found != found : f.found) {
						wrong++;
						continue;
					}
					if (!found)
						continue;
					cells++;
					if (f.s.gpus != x->count || f.est.device != x->device)
						wrong++;
					if (x->count > 1) {
						gs_plan_count(&a, &s, &g[c], x->count - 1, &f);
						wrong += f.found;
					}
					if (pm->best[k] == SIZE_MAX ||
					    ((size_t)pm->best[k] != c &&
					     ranks_before((gs_plan_rank)r, x, &g[c], &pm->cells[pm->best[k] * 3 + k],
					                  &g[pm->best[k]])))
						best_wrong++;
				}
				if (pm->longest[c] > 0) {
					gs_settings s = pm->base;
					gs_plan_fit f;
					longest++;
					s.seq = pm->longest[c];
					wrong += !gs_plan_try(&a, &s, &g[c], &f);
					s.seq++;
					wrong += !pm->bounded[c] && gs_plan_try(&a, &s, &g[c], &f);
				}
			}
		}
		for (size_t k = 0; k < 3; k++)
			differ += v[0].m[row.settings.method].best[k] != v[1].m[row.settings.method].best[k];
		for (int r = 0; r < GS_RANK_MEMORY_MAX; r++)
			gs_plan_view_free(&v[r]);
	}
	CHECK(wrong == 0 && cells > 100 && longest > 50 && nr > 0,
	      "plan view: %zu cells are the fewest count, %zu longest contexts fit and one more does "
	      "not, %zu not-runnable cells marked", cells, longest, nr);
	CHECK(best_wrong == 0 && differ > 0,
	      "plan view: the best class is first under each rule (the two rules differ %zu times)", differ);
}

/* Without the spec's classes: at most eight, from the smallest to the largest. */
static void test_view_classes(void)
{
	gs_gpu g[22];
	gs_plan_view v;
	bool ok = true;

	for (int n = 1; n <= 22; n++) {
		for (int k = 0; k < n; k++)
			g[k] = gpu_of(12 + 8 * k, true);
		gs_plan_view_init(&v, g, (size_t)n, NULL);
		size_t want = n < 8 ? (size_t)n : 8;
		ok = ok && v.n_classes == want && v.classes[0] == 0 && v.classes[want - 1] == (size_t)n - 1;
		for (size_t i = 1; i < v.n_classes; i++)
			ok = ok && v.classes[i] > v.classes[i - 1];
		gs_plan_view_free(&v);
	}
	CHECK(ok, "plan view: by default at most eight classes, the smallest to the largest, in order");
}


/* The reference of the one "smallest GPU" rule, written out on its own: a
 * tuple per offer, compared field by field, (fits, then for the memory
 * ranks tight, then the rule's first and second key, then the key; for
 * time and cost the key; then the class order). */
static int ref_cmp(gs_plan_rank r, const gs_offer *a, const gs_offer *b)
{
	double ka[6], kb[6];
	int n = 0;

	ka[n] = !a->found;
	kb[n++] = !b->found;
	if (a->found && b->found && (r == GS_RANK_TIME || r == GS_RANK_COST)) {
		ka[n] = a->key;
		kb[n++] = b->key;
	} else if (a->found && b->found) {
		double ta = (double)a->count * (double)a->usable, tb = (double)b->count * (double)b->usable;
		ka[n] = a->tight;
		kb[n++] = b->tight;
		ka[n] = r == GS_RANK_FEWEST_GPUS ? (double)a->count : ta;
		kb[n++] = r == GS_RANK_FEWEST_GPUS ? (double)b->count : tb;
		ka[n] = r == GS_RANK_FEWEST_GPUS ? ta : (double)a->count;
		kb[n++] = r == GS_RANK_FEWEST_GPUS ? tb : (double)b->count;
		ka[n] = a->key;
		kb[n++] = b->key;
	}
	for (int i = 0; i < n; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static gs_offer draw_offer(size_t order, const uint64_t *usable)
{
	static const double keys[] = { 0.5, 1, 2, HUGE_VAL };
	gs_offer o = { draw(6) != 0, order, usable[order], 1 + (int64_t)draw(4), draw(3) == 0, keys[draw(4)] };
	return o;
}

/* One rule, three drivers, the same answer: the report's index and the
 * workbook's Summary (offers streamed in sweep order, every row's fitting
 * classes in class order: gs_best_offer), plan's ranking of the classes
 * (gs_offers_rank) and the plan view's best class (gs_best_offer over one
 * cell per class) agree with the rule written out on its own. */
static void test_best_offer(void)
{
	size_t trials = 0, stream_bad = 0, rank_bad = 0, differ = 0;

	for (int it = 0; it < 3000; it++) {
		gs_plan_rank r = (gs_plan_rank)draw(GS_RANK_MAX);
		size_t n = 1 + draw(8), m = 1 + draw(16), ref = 0, taken = SIZE_MAX;
		uint64_t usable[8];
		gs_offer rows[16], cls[8], best = { 0 };

		for (size_t k = 0; k < n; k++)
			usable[k] = (uint64_t)(8 + 8 * draw(4)) << 30; /* equal sizes: ties */
		/* a sweep: m offers of random classes, in sweep order */
		for (size_t i = 0; i < m; i++) {
			rows[i] = draw_offer(draw((unsigned)n), usable);
			if (gs_best_offer(r, &best, &rows[i]))
				taken = i;
			if (ref_cmp(r, &rows[i], &rows[ref]) < 0)
				ref = i; /* the least; of equals the first */
		}
		trials++;
		if (rows[ref].found ? taken != ref : taken != SIZE_MAX)
			stream_bad++;
		/* plan and the plan view: one offer per class */
		for (size_t k = 0; k < n; k++)
			cls[k] = draw_offer(k, usable);
		gs_offer view = { 0 };
		size_t view_best = SIZE_MAX, ref_best = 0;
		for (size_t k = 0; k < n; k++) {
			if (gs_best_offer(r, &view, &cls[k]))
				view_best = k;
			if (ref_cmp(r, &cls[k], &cls[ref_best]) < 0)
				ref_best = k;
		}
		gs_offers_rank(r, cls, n);
		for (size_t k = 1; k < n; k++)
			rank_bad += ref_cmp(r, &cls[k - 1], &cls[k]) >= 0; /* a strict order: orders differ */
		if (cls[0].order != ref_best || (cls[0].found ? view_best != ref_best : view_best != SIZE_MAX))
			rank_bad++;
		differ += r == GS_RANK_LEAST_MEMORY && n > 2 && ref_best != 0;
	}
	CHECK(stream_bad == 0 && trials == 3000,
	      "best offer: the index's and the Summary's rule (streamed in sweep order) names the "
	      "reference's answer in %zu random sweeps, every rank", trials);
	CHECK(rank_bad == 0 && differ > 100,
	      "best offer: plan's ranking and the plan view's best class agree with it (%zu sets "
	      "where least-memory picks past the first class)", differ);
}

/* The layout a table names: the sharding, "tp N" for inference's split,
 * and 1F1B stages with the sharding only where data-parallel ranks remain. */
static void test_layout_text(void)
{
	static const struct {
		int64_t count, tp, pp;
		gs_shard sh;
		const char *want;
	} t[] = {
		{ 1, 1, 1, GS_SH_ZERO3, "ddp" },           { 4, 1, 1, GS_SH_ZERO3, "zero3" },
		{ 4, 4, 1, GS_SH_DDP, "tp 4" },            { 4, 1, 4, GS_SH_DDP, "pp 4" },
		{ 8, 2, 2, GS_SH_ZERO1, "tp 2 pp 2 zero1" }, { 8, 1, 4, GS_SH_FSDP2, "pp 4 fsdp2" },
		{ 8, 2, 4, GS_SH_ZERO1, "tp 2 pp 4" },
	};
	char buf[48];

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		gs_layout_text(t[i].count, t[i].sh, t[i].tp, t[i].pp, buf, sizeof buf);
		CHECK(strcmp(buf, t[i].want) == 0, "layout of %lld GPUs, tp %lld, pp %lld: %s (got %s)",
		      (long long)t[i].count, (long long)t[i].tp, (long long)t[i].pp, t[i].want, buf);
	}
}

int main(void)
{
	test_layout_text();
	test_best_offer();
	test_count();
	test_count_scan();
	test_max();
	test_ladder();
	test_answers();
	test_view();
	test_view_classes();
	CHECK_DONE();
}
