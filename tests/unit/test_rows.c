/* Unit test: a row is evaluated once (report.h, gs_row_eval). Every
 * report writer (md, html, xlsx, json, csv and the gzip forms) runs over
 * rows the driver evaluated, and none of them reaches the time model, the
 * planner's searches or the engine: the linker wraps those functions
 * (Makefile, test_rows_LDFLAGS: -Wl,--wrap=...) so that every call from
 * another module is counted, by who was running when it came, the
 * evaluation or a writer. Runs from the repository root (templates/). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "engine.h"
#include "plan_view.h"
#include "report.h"
#include "search.h"
#include "sweep.h"
#include "timefields.h"
#include "timing.h"

#define GIB (UINT64_C(1) << 30)

/* Who is running: the evaluation (0) or a writer (1). */
static int in_writer;
static size_t calls[2][4]; /* [who][time model, searches, engine, verdict rule] */

#define WRAP(ret, name, k, params, args)               \
	ret __real_##name params;                       \
	ret __wrap_##name params;                       \
	ret __wrap_##name params                        \
	{                                               \
		calls[in_writer][k]++;                  \
		return __real_##name args;              \
	}

WRAP(gs_err, gs_time_row, 0,
     (const gs_arch *a, const gs_settings *s, const gs_estimate *x, const gs_gpu *g, const gs_time_opts *o,
      gs_time *t, gs_error *e),
     (a, s, x, g, o, t, e))
WRAP(gs_err, gs_time_estimate, 0,
     (const gs_arch *a, const gs_settings *s, const gs_gpu *g, const gs_time_opts *o, gs_time *t, gs_error *e),
     (a, s, g, o, t, e))
WRAP(bool, gs_plan_try, 1, (const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_fit *f),
     (a, s, g, f))
WRAP(void, gs_plan_count, 1,
     (const gs_arch *a, const gs_settings *base, const gs_gpu *g, int64_t max_gpus, gs_plan_fit *f),
     (a, base, g, max_gpus, f))
WRAP(int64_t, gs_plan_max, 1,
     (const gs_arch *a, const gs_settings *s, const gs_gpu *g, gs_plan_axis axis, bool *bounded, gs_plan_fit *f),
     (a, s, g, axis, bounded, f))
WRAP(gs_err, gs_estimate_run, 2, (const gs_arch *a, const gs_settings *s, gs_estimate *x, gs_error *e),
     (a, s, x, e))
WRAP(gs_verdict, gs_verdict_of, 3, (uint64_t device, gs_needs need, const gs_gpu *g, double *headroom),
     (device, need, g, headroom))

static gs_gpu gpus[3];
static gs_arch arch;
static gs_model models[2];

static void gpu(gs_gpu *g, const char *id, const char *name, double usable_gib, bool bf16, double bw,
                double tflops)
{
	memset(g, 0, sizeof *g);
	snprintf(g->id, sizeof g->id, "%s", id);
	snprintf(g->name, sizeof g->name, "%s", name);
	snprintf(g->klass, sizeof g->klass, "%.0f GB", usable_gib);
	g->usable_bytes = (uint64_t)(usable_gib * (double)GIB);
	g->total_bytes = g->usable_bytes + GIB;
	g->bf16 = bf16;
	g->bandwidth_gbs = bw;
	g->bf16_tflops = tflops;
	snprintf(g->source, sizeof g->source, "test data");
}

static void setup(void)
{
	gpu(&gpus[0], "t4", "Tesla T4", 14.5, false, 320, 65);
	gpu(&gpus[1], "l4", "NVIDIA L4", 22, true, 300, 121);
	gpu(&gpus[2], "a100", "NVIDIA A100 80GB", 79, true, 2039, 312);
	/* a Llama-3.1-8B shape: the engine, the time model and the searches
	 * have something to work on */
	gs_arch_manual(&arch, 0, 32, 4096, 32, 8, 14336, 128256, &(gs_error){ 0 });
	arch.max_pos = 131072;
	snprintf(arch.model_type, sizeof arch.model_type, "llama");
	for (int i = 0; i < 2; i++) {
		models[i].id = i ? "org/second" : "org/first";
		models[i].slug = i ? "org--second" : "org--first";
		models[i].arch = &arch;
		models[i].param_source = "config tally";
	}
}

/* The sweep of one model: methods x contexts x GPU counts. */
static size_t rows_of(gs_row *rows, const gs_model *m, size_t *index)
{
	static const char *const methods[] = { "full", "lora", "qlora", "inference" };
	static const char *const seqs[] = { "512", "4096" };
	static const char *const counts[] = { "1", "4" };
	size_t n = 0;

	for (int k = 0; k < 4; k++)
		for (int q = 0; q < 2; q++)
			for (int c = 0; c < 2; c++) {
				gs_settings s;
				gs_error e = { 0 };
				gs_settings_default(&s);
				gs_settings_set(&s, "method", methods[k], &e);
				gs_settings_set(&s, "seq", seqs[q], &e);
				gs_settings_set(&s, "gpus", counts[c], &e);
				if (c)
					gs_settings_set(&s, "sharding", k == 3 ? "ddp" : "zero3", &e);
				if (c && k == 3)
					gs_settings_set(&s, "tp", "4", &e);
				gs_sweep_row(&rows[n], m, &s);
				rows[n].index = (*index)++;
				n++;
			}
	return n;
}

/* The report driver's walk over every writer at once. */
static gs_err walk(gs_writer **w, int nw, const gs_report_meta *meta, gs_error *e)
{
	static gs_row rows[2][16];
	size_t nrows[2], index = 0;
	gs_eval *ev;
	gs_err rc = GS_OK;

	in_writer = 0;
	for (int i = 0; i < 2; i++)
		nrows[i] = rows_of(rows[i], &models[i], &index);
	memset(calls, 0, sizeof calls);
	ev = gs_eval_new(meta);
#define EACH(call)                                                    \
	do {                                                          \
		in_writer = 1;                                        \
		for (int k_ = 0; rc == GS_OK && k_ < nw; k_++)        \
			rc = w[k_]->call;                             \
		in_writer = 0;                                        \
	} while (0)
	EACH(begin(w[k_], meta, e));
	for (int i = 0; i < 2; i++) {
		gs_eval_model_begin(ev, &models[i]);
		EACH(model_begin(w[k_], &models[i], e));
		for (size_t r = 0; r < nrows[i]; r++) {
			gs_row_eval(ev, &rows[i][r]);
			EACH(row(w[k_], &rows[i][r], e));
		}
		gs_eval_model_end(ev);
		EACH(model_end(w[k_], &models[i], e));
	}
	EACH(end(w[k_], e));
#undef EACH
	gs_eval_free(ev);
	return rc;
}

/* The registry against what its writers do: each row's constructor makes
 * a writer of its name, which wrote the row's file; names are distinct;
 * some are written by default; a download is a file at the top of the
 * output directory, the HTML pages' links. */
static void registry(const gs_writer_ops *ops, size_t n, gs_writer **w, const char *out)
{
	size_t named = 0, wrote = 0, distinct = 0, dl = 0, dl_top = 0, defaults = 0;
	char path[512];

	for (size_t k = 0; k < n; k++) {
		named += w[k]->name != NULL && strcmp(w[k]->name, ops[k].name) == 0;
		snprintf(path, sizeof path, "%s/%s", out, ops[k].file);
		wrote += access(path, F_OK) == 0;
		distinct += gs_writer_find(ops[k].name) == &ops[k];
		dl += ops[k].download;
		dl_top += ops[k].download && strchr(ops[k].file, '/') == NULL;
		defaults += ops[k].by_default;
	}
	CHECK(n >= 7 && named == n, "writer registry: every row's constructor makes a writer of its name (%zu)", n);
	CHECK(wrote == n, "writer registry: every format wrote the file its row names (%zu of %zu)", wrote, n);
	CHECK(distinct == n && gs_writer_find("parquet") == NULL, "writer registry: names are distinct, "
	      "an unknown one is none");
	CHECK(defaults > 0 && dl > 0 && dl_top == dl,
	      "writer registry: %zu written by default; %zu downloads, each a file at the top", defaults, dl);
}

/* The time-field table is whole: each field has a key and, for the JSON,
 * a format (or is a boolean); each column of a report row has a workbook
 * title; a key is written once per output and method; every text's
 * directives are known ones and say the value once. */
static void time_fields(void)
{
	size_t n, bad = 0, dup = 0, texts = 0;
	const gs_time_field *f = gs_time_fields(&n);

	for (size_t i = 0; i < n; i++) {
		if (f[i].key == NULL || f[i].methods == 0 || f[i].out == 0 ||
		    (f[i].kind == GS_TK_NUM && f[i].fmt == NULL) ||
		    ((f[i].out & (GS_TF_ROW | GS_TF_CLASS)) && f[i].title == NULL) ||
		    (f[i].off + (f[i].kind == GS_TK_NUM ? sizeof(double) : sizeof(int)) > sizeof(gs_cell)))
			bad++;
		for (size_t j = 0; j < i; j++)
			dup += strcmp(f[i].key, f[j].key) == 0 && (f[i].out & f[j].out) && (f[i].methods & f[j].methods);
		for (int t = 0; t < GS_TT_MAX; t++) {
			const char *p = f[i].text[t];
			int values = 0;
			for (; p != NULL && *p != '\0'; p++) {
				if (*p != '%')
					continue;
				p++;
				if (strchr("SUP", *p) != NULL)
					values++;
				else if (*p == '.' && (p[2] == 'f' || p[2] == 'g'))
					values++, p += 2;
				else if (strchr("BM%", *p) == NULL)
					bad++;
			}
			texts += f[i].text[t] != NULL;
			bad += f[i].text[t] != NULL && values != 1;
		}
	}
	CHECK(n >= 20 && bad == 0 && dup == 0 && texts >= 18,
	      "time fields: %zu rows, each with a key, a format or a title where an output needs it, "
	      "keys once per output and method, %zu texts with known directives", n, texts);
}

int main(void)
{
	size_t NW;
	const gs_writer_ops *ops = gs_writer_registry(&NW);
	char out[] = "/tmp/gs-rows-XXXXXX", cmd[64];
	gs_report_meta meta;
	gs_measured_store none = { 0 };
	gs_time_opts to;
	gs_writer **w = calloc(NW, sizeof *w);
	gs_error e = { 0 };
	gs_err rc;

	setup();
	time_fields();
	if (mkdtemp(out) == NULL) {
		CHECK(0, "a temporary directory");
		CHECK_DONE();
	}
	gs_time_opts_default(&to);
	to.tokens_budget = 1e9;
	memset(&meta, 0, sizeof meta);
	meta.spec_path = "(test_rows)";
	meta.out_dir = out;
	meta.gpus = gpus;
	meta.n_gpus = 3;
	meta.models = models;
	meta.n_models = 2;
	meta.tool_version = "test";
	meta.assumptions = "";
	meta.measured = &none;
	meta.time = &to;
	for (size_t k = 0; k < NW; k++)
		w[k] = ops[k].make();
	rc = walk(w, (int)NW, &meta, &e);
	registry(ops, NW, w, out);
	for (size_t k = 0; k < NW; k++)
		w[k]->free(w[k]);
	free(w);
	CHECK(rc == GS_OK, "every writer over 32 evaluated rows of 2 models (%s)", e.msg);
	CHECK(calls[0][0] >= 32 * 3 && calls[0][1] > 0 && calls[0][3] >= 32 * 3,
	      "the evaluation ran the time model (%zu calls), the plan view's searches (%zu) and the "
	      "verdict rule (%zu): the counting sees them", calls[0][0], calls[0][1], calls[0][3]);
	CHECK(calls[1][0] == 0, "a writer row walk reaches the time model zero times (%zu writers, %s to %s: "
	      "%zu calls)", NW, ops[0].name, ops[NW - 1].name, calls[1][0]);
	CHECK(calls[1][1] == 0 && calls[1][2] == 0,
	      "no writer runs the planner's searches or the engine (%zu, %zu calls)", calls[1][1], calls[1][2]);
	CHECK(calls[1][3] == 0, "no writer applies the verdict rule itself: it formats the evaluation's "
	      "(%zu calls)", calls[1][3]);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
	if (system(cmd) != 0)
		printf("  (cleanup of %s failed)\n", out);
	CHECK_DONE();
}
