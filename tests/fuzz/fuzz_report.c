/* libFuzzer target: the report writers (report_csv.c, report_json.c and, as
 * the first byte asks, report_md.c, report_html.c, report_xlsx.c) over
 * fuzzed models and rows: names, labels, recipes and error texts, every
 * byte figure (0 to UINT64_MAX), verdict-changing sizes, row counts from 0
 * (an empty report) to 15. The writers are driven as `report` drives them:
 * begin, model_begin, rows (each evaluated first, gs_row_eval), model_end,
 * end, free, into a private temporary
 * directory emptied after each input (made once, removed at exit).
 *
 * Input: byte 0 selects the extra writers (bit 0 md, 1 html, 2 xlsx) and
 * the row count (bits 4-7); then up to 6 NUL-terminated strings (model id,
 * label, recipe, error text, row id, note); the rest feeds the numbers.
 * Markdown and HTML read the templates of the checkout (run from its top,
 * as tests/fuzz/run.sh does; $GPUSIZER_TEMPLATES if set). */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char out_dir[64];
static gs_arch arch;
static gs_gpu gpus[3];

static const char CONFIG[] =
	"{\"model_type\":\"llama\",\"hidden_size\":2048,\"intermediate_size\":8192,"
	"\"num_attention_heads\":32,\"num_key_value_heads\":8,\"num_hidden_layers\":16,"
	"\"vocab_size\":128256,\"max_position_embeddings\":131072,\"tie_word_embeddings\":true}";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	if (ftw->level > 0)
		remove(path);
	return 0;
}

static void empty_out(void)
{
	nftw(out_dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void cleanup(void)
{
	empty_out();
	rmdir(out_dir);
}

static void setup(void)
{
	gs_error e;

	snprintf(out_dir, sizeof out_dir, "/tmp/gs-fuzz-report-XXXXXX");
	if (mkdtemp(out_dir) == NULL)
		abort();
	atexit(cleanup);
	memset(&e, 0, sizeof e);
	if (gs_config_parse(CONFIG, strlen(CONFIG), "fuzz/config.json", &arch, &e) != GS_OK)
		abort();
	/* Sorted by usable memory, as gs_gpus_load leaves them; one without bf16. */
	static const struct {
		const char *id, *name, *klass;
		uint64_t gib;
		bool bf16, fp8;
	} g[3] = {
		{ "t4", "NVIDIA T4 | <b>", "16 GB", 15, false, false },
		{ "rtx-4090", "=RTX 4090", "24 GB", 23, true, false },
		{ "h100-sxm", "H100 SXM", "80 GB", 79, true, true },
	};
	for (int i = 0; i < 3; i++) {
		snprintf(gpus[i].id, sizeof gpus[i].id, "%s", g[i].id);
		snprintf(gpus[i].name, sizeof gpus[i].name, "%s", g[i].name);
		snprintf(gpus[i].klass, sizeof gpus[i].klass, "%s", g[i].klass);
		gpus[i].usable_bytes = g[i].gib << 30;
		gpus[i].total_bytes = (g[i].gib + 1) << 30;
		gpus[i].bf16 = g[i].bf16;
		gpus[i].fp8 = g[i].fp8;
		gpus[i].bandwidth_gbs = 1000;
		gpus[i].bf16_tflops = 100;
		snprintf(gpus[i].source, sizeof gpus[i].source, "fuzz");
	}
	if (getenv("GPUSIZER_TEMPLATES") == NULL)
		setenv("GPUSIZER_TEMPLATES", "templates", 0);
}

/* The bytes after the strings, as numbers; zeros once they run out. */
typedef struct reader {
	const uint8_t *p;
	size_t n;
} reader;

static uint64_t take(reader *r, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes; i++) {
		v = v << 8 | (r->n ? *r->p : 0);
		if (r->n) {
			r->p++;
			r->n--;
		}
	}
	return v;
}

/* A byte figure: small, near a GPU's memory, huge, or the extremes. */
static uint64_t bytes_of(reader *r)
{
	uint64_t v = take(r, 8);

	switch (take(r, 1) % 4) {
	case 0: return v % ((uint64_t)100 << 30);
	case 1: return v % 4096;
	case 2: return v;
	default: return v & 1 ? UINT64_MAX : 0;
	}
}

/* Up to `max` bytes of string i (NUL-separated) copied into buf. */
static const char *next_str(const uint8_t **p, size_t *n, char *buf, size_t max)
{
	size_t k = 0;

	while (*n > 0 && **p != '\0') {
		if (k + 1 < max)
			buf[k++] = (char)**p;
		(*p)++;
		(*n)--;
	}
	if (*n > 0) {
		(*p)++;
		(*n)--;
	}
	buf[k] = '\0';
	return buf;
}

static void safe_slug(const char *id, char *slug, size_t n)
{
	size_t k = 0;

	for (const char *p = id; *p && k + 1 < n; p++) {
		char c = *p;
		slug[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		                    c == '_' || c == '-'
		            ? c
		            : '-';
	}
	slug[k] = '\0';
	if (k == 0)
		snprintf(slug, n, "model");
}

static void fill_row(gs_row *row, const gs_model *m, reader *r, size_t index, const char *label,
                     const char *recipe, const char *err, const char *id, const char *note, bool failed)
{
	static const char *const methods[] = { "full", "lora", "qlora", "inference" };
	char val[32];
	gs_error e;

	memset(row, 0, sizeof *row);
	row->index = index;
	row->model = m;
	gs_settings_default(&row->settings);
	memset(&e, 0, sizeof e);
	gs_settings_set(&row->settings, "method", methods[take(r, 1) % 4], &e);
	snprintf(val, sizeof val, "%u", (unsigned)(take(r, 3) % 16777216 + 1));
	gs_settings_set(&row->settings, "seq", val, &e);
	snprintf(val, sizeof val, "%u", (unsigned)(take(r, 2) % 65536 + 1));
	gs_settings_set(&row->settings, "batch", val, &e);
	snprintf(val, sizeof val, "%u", (unsigned)(take(r, 1) % 16 + 1));
	gs_settings_set(&row->settings, "gpus", val, &e);
	if (gs_settings_check(&row->settings, &e) != GS_OK)
		gs_settings_default(&row->settings);
	if (label[0])
		snprintf(row->label, sizeof row->label, "%s", label);
	else
		gs_settings_label(&row->settings, row->label, sizeof row->label);
	gs_settings_key(&row->settings, row->key, sizeof row->key);
	snprintf(row->id, sizeof row->id, "%s-%zu", id, index);
	if (failed) {
		row->err = GS_EOVERFLOW;
		snprintf(row->err_msg, sizeof row->err_msg, "%s", err);
		return;
	}
	gs_estimate *x = &row->est;
	x->formula = GS_F_DETAILED;
	x->recipe = recipe;
	x->params_total = bytes_of(r);
	x->params_trainable = bytes_of(r);
	x->params_active = bytes_of(r);
	x->W = bytes_of(r);
	x->G = bytes_of(r);
	x->O = bytes_of(r);
	x->A = bytes_of(r);
	x->B = bytes_of(r);
	x->allocated = bytes_of(r);
	x->reserved = bytes_of(r);
	x->device = bytes_of(r);
	x->host = bytes_of(r);
	x->bpp_W = (double)take(r, 2) / 100.0;
	x->bpp_G = (double)take(r, 2) / 100.0;
	x->bpp_O = (double)take(r, 2) / 100.0;
	x->peak_phase = (gs_phase)(take(r, 1) % GS_PH_MAX);
	x->peak_step = 1 + (int)(take(r, 1) % 2);
	x->gpus = row->settings.gpus;
	snprintf(x->note, sizeof x->note, "%s", note);
	for (int f = 1; f < GS_F_MAX; f++) {
		row->seeds[f].formula = (gs_formula)f;
		if (take(r, 1) & 1) {
			row->seeds[f].recipe = "seed";
			row->seeds[f].device = bytes_of(r);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static gs_row row; /* large: off the stack */
	gs_writer *w[5];
	int nw = 0;
	char id[200], label[160], recipe[300], err[256], rid[48], note[256], slug[200];
	const uint8_t *p = data;
	size_t n = size;
	unsigned flags;
	gs_measured_store none;
	gs_report_meta meta;
	gs_model model;
	gs_error e;
	gs_err rc = GS_OK;
	reader r;

	if (out_dir[0] == '\0')
		setup();
	if (size == 0)
		return 0;
	flags = data[0];
	p++;
	n--;
	next_str(&p, &n, id, sizeof id);
	next_str(&p, &n, label, sizeof label);
	next_str(&p, &n, recipe, sizeof recipe);
	next_str(&p, &n, err, sizeof err);
	next_str(&p, &n, rid, sizeof rid);
	next_str(&p, &n, note, sizeof note);
	r.p = p;
	r.n = n;
	safe_slug(id, slug, sizeof slug);

	memset(&model, 0, sizeof model);
	model.id = id;
	model.slug = slug;
	model.arch = &arch;
	model.param_source = "fuzz";
	memset(&none, 0, sizeof none);
	memset(&meta, 0, sizeof meta);
	meta.spec_path = "fuzz/spec.json";
	meta.out_dir = out_dir;
	meta.gpus = gpus;
	meta.n_gpus = 1 + take(&r, 1) % 3;
	meta.models = &model;
	meta.n_models = 1;
	meta.epoch = 1767225600;
	meta.tool_version = "fuzz";
	meta.assumptions = note;
	meta.measured = &none;

	if (flags & 1)
		w[nw++] = gs_writer_md();
	if (flags & 2)
		w[nw++] = gs_writer_html();
	if (flags & 4)
		w[nw++] = gs_writer_xlsx();
	w[nw++] = gs_writer_json();
	w[nw++] = gs_writer_csv();

	/* As the report driver does (report.h): every row evaluated before a
	 * writer sees it, the model's evaluation complete at model_end. */
	gs_eval *ev = gs_eval_new(&meta);
	memset(&e, 0, sizeof e);
	for (int i = 0; i < nw && rc == GS_OK; i++)
		rc = w[i]->begin(w[i], &meta, &e);
	gs_eval_model_begin(ev, &model);
	for (int i = 0; i < nw && rc == GS_OK; i++)
		rc = w[i]->model_begin(w[i], &model, &e);
	for (size_t k = 0; k < (flags >> 4) && rc == GS_OK; k++) {
		fill_row(&row, &model, &r, k, label, recipe, err, rid, note, (flags & 8) && (k & 1));
		gs_row_eval(ev, &row);
		for (int i = 0; i < nw && rc == GS_OK; i++)
			rc = w[i]->row(w[i], &row, &e);
	}
	gs_eval_model_end(ev);
	for (int i = 0; i < nw && rc == GS_OK; i++)
		rc = w[i]->model_end(w[i], &model, &e);
	for (int i = 0; i < nw && rc == GS_OK; i++)
		rc = w[i]->end(w[i], &e);
	if (rc != GS_OK && getenv("GS_FUZZ_VERBOSE") != NULL)
		fprintf(stderr, "fuzz_report: %s\n", e.msg); /* e.g. to see that the templates were found */
	for (int i = 0; i < nw; i++)
		w[i]->free(w[i]);
	gs_eval_free(ev);
	empty_out();
	return 0;
}
