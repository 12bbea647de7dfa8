/* gpusizer: the Markdown report generator (index, one page per model, SVG
 * charts) over a page sink (mdgen.h), and the Markdown writer's
 * sink: .md files with the charts beside them. The HTML writer
 * (html.c) is the same generator over its own sink. */
#define _POSIX_C_SOURCE 200809L
#include "mdgen.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "mdesc.h"
#include "measured.h"
#include "paths.h"
#include "plan_view.h"
#include "svg.h"
#include "template.h"
#include "timing.h"
#include "util.h"

/* The named assumptions every writer shows (gs_report_assumptions). */
#define ASSUMPTIONS_TMPL "partials/assumptions.md.tmpl"

/* One row as the pages need it: kept for the current model only. */
typedef struct crow {
	size_t index;
	char label[160];
	char id[64];
	gs_settings s;
	gs_err err;
	char *err_msg;          /* owned; NULL when err == GS_OK */
	gs_estimate est;
	uint64_t seed_dev[GS_F_MAX];
	double seed_bpp[GS_F_MAX];  /* the rule's bytes a parameter (W + G + O) */
	bool seed_ok[GS_F_MAX];
	const char *seed_recipe[GS_F_MAX]; /* static strings of the engine */
	unsigned char *verdict; /* owned; per GPU (meta order) */
	double *headroom;       /* owned; per GPU */
	const gs_measured *measured; /* our verified run of the row, or NULL (meta's store) */
	/* why it is kept (a slot with none is free): a page row candidate,
	 * and how many answers and chart candidates name it */
	bool page;
	int pins;
} crow;

/* What every row of the model leaves, whether or not its whole data is
 * kept: enough for the contexts, the charts' picks and series. The
 * writers' memory stays flat in rows: only the rows a page can show are
 * kept whole (heavy, a slot of w->heavy), about a hundred per model. */
typedef struct trow {
	gs_method method;
	int64_t seq, batch, gpus;
	uint64_t device;
	gs_err err;
	bool fits;      /* fits or is tight on some class */
	uint64_t cfg;   /* its settings but the context, hashed */
	long heavy;     /* its slot in w->heavy, or -1 */
} trow;

/* A chart candidate of a method at one context (seq < 0: any): the first
 * row that fits somewhere, and the row with the least device memory. */
typedef struct pick {
	gs_method method;
	int64_t seq;
	long first_fit, least; /* rows (w->trows), -1 when none */
} pick;

/* What the index keeps of each model (all strings owned). */
typedef struct imodel {
	char *id, *slug, *params, *param_source;
	size_t nrows, nerr;
	int64_t *seqs; /* ascending, distinct */
	size_t nseq;
	bool method_present[GS_METHOD_MAX];
	const gs_answer **best; /* [method][seq] = best[m * nseq + k]: the model's answer
	                           (model->eval's), NULL where the sweep has no row */
	const gs_model_eval *ev;  /* the model's evaluation (its plan view: until its page is
	                             written) */
} imodel;

typedef struct mdw {
	const gs_mdsink *sink; /* borrowed; static */
	gs_report_meta meta; /* borrowed pointers, valid until end */
	gs_tmpl_env *env;
	char tdir[4096];
	const gs_model *model;
	trow *trows;           /* every row of the model, in sweep order */
	size_t nrows, cap;
	crow *heavy;           /* the rows kept whole (slots; free ones reused) */
	size_t nheavy, capheavy;
	pick *picks;           /* the chart candidates so far */
	size_t npicks, cappicks;
	int64_t minb[GS_METHOD_MAX]; /* smallest batch so far per method */
	size_t nerr;
	bool method_present[GS_METHOD_MAX];
	const char *formula_text[GS_F_MAX]; /* the first row's statement of each formula */
	imodel *models;
	size_t nmodels, mcap;
} mdw;

/* ------------------------------------------------------------ helpers */

/* $GPUSIZER_TEMPLATES, else the data root's templates/ (paths.h: installed
 * share/gpusizer, a checkout beside the executable, else ./templates). */
void gs_mdgen_templates_dir(char *buf, size_t n)
{
	gs_data_path(GS_DATA_TEMPLATES, buf, n);
}

/* A file-name-safe form of a slug: [A-Za-z0-9._-], not starting with '.'. */
static char *safe_slug(const char *slug)
{
	char *s = gs_xstrdup(slug && slug[0] ? slug : "model");
	char *p;

	for (p = s; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			*p = '_';
	}
	if (s[0] == '.')
		s[0] = '_';
	return s;
}

static void gib(char *buf, size_t n, uint64_t bytes)
{
	gs_fmt_gib(buf, n, bytes);
}

static void params_text(char *buf, size_t n, const gs_arch *a)
{
	char f[48];
	double p;

	if (a == NULL || a->params_total == 0) {
		snprintf(buf, n, "unknown");
		return;
	}
	p = (double)a->params_total;
	if (p >= 1e9)
		snprintf(buf, n, "%s B", gs_fmt_fixed(f, sizeof f, p / 1e9, 2));
	else
		snprintf(buf, n, "%s M", gs_fmt_fixed(f, sizeof f, p / 1e6, 1));
}

static gs_tval *gpus_list(const gs_report_meta *m)
{
	gs_tval *l = gs_tv_list();
	size_t i;
	char b[64];

	for (i = 0; i < m->n_gpus; i++) {
		const gs_gpu *g = &m->gpus[i];
		gs_tval *x = gs_tv_push(l, gs_tv_map());
		gs_tv_set_str(x, "id", g->id);
		gs_tv_set_str(x, "name", g->name);
		gs_tv_set_str(x, "klass", g->klass);
		gib(b, sizeof b, g->total_bytes);
		gs_tv_set_str(x, "total_gib", b);
		gib(b, sizeof b, g->usable_bytes);
		gs_tv_set_str(x, "usable_gib", b);
		gs_tv_set_str(x, "bf16", g->bf16 ? "yes" : "no");
		gs_tv_set_str(x, "fp8", g->fp8 ? "yes" : "no");
		gs_tv_set_str(x, "bandwidth", gs_fmt_fixed(b, sizeof b, g->bandwidth_gbs, 0));
		gs_tv_set_str(x, "tflops", gs_fmt_fixed(b, sizeof b, g->bf16_tflops, 0));
		gs_tv_set_str(x, "source", g->source);
	}
	return l;
}

/* Fields every page has. */
static gs_tval *common_data(const mdw *w, const char *up)
{
	gs_tval *d = gs_tv_map();

	gs_tv_set_str(d, "tool_version", w->meta.tool_version ? w->meta.tool_version : "");
	gs_tv_set_str(d, "spec_path", w->meta.spec_path ? w->meta.spec_path : "");
	gs_tv_set_str(d, "assumptions", w->meta.assumptions ? w->meta.assumptions : "");
	gs_tv_set_str(d, "ext", w->sink->ext);
	gs_tv_set_str(d, "up", up);
	gs_tv_set_num(d, "tight_pct", GS_TIGHT_HEADROOM * 100);
	gs_tv_set(d, "gpus", gpus_list(&w->meta));
	return d;
}

static gs_err render(mdw *w, const char *name, const gs_tval *d, gs_tbuf *out, gs_error *e)
{
	return gs_tmpl_render(w->env, name, d, out, e);
}

/* -------------------------------------------------------------- begin */

static gs_err w_begin(gs_writer *wr, const gs_report_meta *m, gs_error *e)
{
	mdw *w = wr->state;

	w->meta = *m;
	if (m->out_dir == NULL)
		return gs_fail(e, GS_EINTERNAL, "%s writer: no output directory", wr->name);
	gs_mdgen_templates_dir(w->tdir, sizeof w->tdir);
	w->env = gs_tmpl_env_new(w->tdir, gs_md_escape);
	return w->sink->begin(w->sink, m->out_dir, e);
}

/* ----------------------------------------------------------- rows */

static void crow_clear(crow *c)
{
	free(c->err_msg);
	free(c->verdict);
	free(c->headroom);
	memset(c, 0, sizeof *c);
}

static void rows_clear(mdw *w)
{
	size_t i;

	for (i = 0; i < w->nheavy; i++)
		crow_clear(&w->heavy[i]);
	w->nheavy = w->nrows = w->npicks = w->nerr = 0;
	for (i = 0; i < GS_METHOD_MAX; i++) {
		w->minb[i] = INT64_MAX;
		w->method_present[i] = false;
	}
	for (i = 0; i < GS_F_MAX; i++)
		w->formula_text[i] = NULL;
}

static gs_err w_model_begin(gs_writer *wr, const gs_model *model, gs_error *e)
{
	mdw *w = wr->state;

	(void)e;
	rows_clear(w);
	w->model = model;
	return GS_OK;
}

/* The whole data of row r, in a free slot of w->heavy. */
static long heavy_add(mdw *w, const gs_row *r)
{
	crow *c = NULL;
	size_t g, i;

	for (i = 0; i < w->nheavy && c == NULL; i++)
		if (!w->heavy[i].page && w->heavy[i].pins == 0 && w->heavy[i].verdict == NULL)
			c = &w->heavy[i];
	if (c == NULL) {
		if (w->nheavy == w->capheavy) {
			w->capheavy = w->capheavy ? w->capheavy * 2 : 64;
			w->heavy = gs_xrealloc(w->heavy, w->capheavy * sizeof *w->heavy);
		}
		c = &w->heavy[w->nheavy++];
	}
	memset(c, 0, sizeof *c);
	c->index = r->index;
	snprintf(c->label, sizeof c->label, "%s", r->label);
	snprintf(c->id, sizeof c->id, "%s", r->id);
	c->s = r->settings;
	c->err = r->err;
	if (r->err != GS_OK)
		c->err_msg = gs_xstrdup(r->err_msg[0] ? r->err_msg : gs_strerror(r->err));
	c->est = r->est;
	for (int f = 1; f < GS_F_MAX; f++) {
		c->seed_ok[f] = r->err == GS_OK && r->seeds[f].recipe != NULL;
		c->seed_dev[f] = c->seed_ok[f] ? r->seeds[f].device : 0;
		c->seed_bpp[f] = c->seed_ok[f] ? r->seeds[f].bpp_W + r->seeds[f].bpp_G + r->seeds[f].bpp_O : 0;
		c->seed_recipe[f] = c->seed_ok[f] ? r->seeds[f].recipe : NULL;
	}
	c->verdict = gs_xcalloc(w->meta.n_gpus ? w->meta.n_gpus : 1, 1);
	c->headroom = gs_xcalloc(w->meta.n_gpus ? w->meta.n_gpus : 1, sizeof *c->headroom);
	for (g = 0; g < w->meta.n_gpus; g++) {
		c->verdict[g] = (unsigned char)r->cell[g].v;
		c->headroom[g] = r->cell[g].headroom;
	}
	c->measured = r->measured;
	return (long)(c - w->heavy);
}

/* A row's whole data given up when nothing names it any more. */
static void heavy_release(mdw *w, trow *t)
{
	crow *c;

	if (t->heavy < 0)
		return;
	c = &w->heavy[t->heavy];
	if (c->page || c->pins > 0)
		return;
	crow_clear(c);
	t->heavy = -1;
}

static void pin(mdw *w, long row, int by)
{
	trow *t = &w->trows[row];

	if (t->heavy < 0)
		return;
	w->heavy[t->heavy].pins += by;
	if (by < 0)
		heavy_release(w, t);
}

/* The chart candidates of (m, seq): found or added. */
static pick *pick_at(mdw *w, gs_method m, int64_t seq)
{
	for (size_t i = 0; i < w->npicks; i++)
		if (w->picks[i].method == m && w->picks[i].seq == seq)
			return &w->picks[i];
	if (w->npicks == w->cappicks) {
		w->cappicks = w->cappicks ? w->cappicks * 2 : 32;
		w->picks = gs_xrealloc(w->picks, w->cappicks * sizeof *w->picks);
	}
	pick *p = &w->picks[w->npicks++];
	p->method = m;
	p->seq = seq;
	p->first_fit = p->least = -1;
	return p;
}

/* Row i (the newest) as a chart candidate of p: the first that fits, and
 * the least. Returns how many places it now holds; the row it displaced
 * is unpinned. */
static int pick_offer(mdw *w, pick *p, long i)
{
	const trow *t = &w->trows[i];
	int holds = 0;

	if (t->err != GS_OK)
		return 0;
	if (t->fits && p->first_fit < 0) {
		p->first_fit = i;
		holds++;
	}
	if (p->least < 0 || t->device < w->trows[p->least].device) {
		long old = p->least;
		p->least = i;
		holds++;
		if (old >= 0)
			pin(w, old, -1);
	}
	return holds;
}

static gs_err w_row(gs_writer *wr, const gs_row *r, gs_error *e)
{
	mdw *w = wr->state;
	trow *t;
	gs_method m = r->settings.method;
	long i;
	bool page;

	if ((unsigned)m >= GS_METHOD_MAX)
		return gs_fail(e, GS_EINTERNAL, "%s writer: row %s has no valid method", wr->name, r->id);
	if (r->cell == NULL && w->meta.n_gpus > 0)
		return gs_fail(e, GS_EINTERNAL, "%s writer: row %s not evaluated (gs_row_eval)", wr->name, r->id);
	if (w->nrows == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->trows = gs_xrealloc(w->trows, w->cap * sizeof *w->trows);
	}
	i = (long)w->nrows++;
	t = &w->trows[i];
	memset(t, 0, sizeof *t);
	t->method = m;
	t->seq = r->settings.seq;
	t->batch = r->settings.batch;
	t->gpus = r->settings.gpus;
	t->device = r->err == GS_OK ? r->est.device : 0;
	t->err = r->err;
	t->heavy = -1;
	{
		gs_settings k = r->settings;
		char key[2048];
		k.seq = 0;
		gs_settings_key(&k, key, sizeof key);
		t->cfg = gs_key_hash("", key);
	}
	for (size_t g = 0; g < w->meta.n_gpus; g++)
		t->fits = t->fits || r->cell[g].v == GS_FITS || r->cell[g].v == GS_TIGHT;
	w->method_present[m] = true;
	if (r->err != GS_OK)
		w->nerr++;
	for (int f = 1; f < GS_F_MAX; f++)
		if (w->formula_text[f] == NULL && r->err == GS_OK && r->seeds[f].recipe != NULL)
			w->formula_text[f] = r->seeds[f].recipe;
	/* A page shows each method's one-GPU rows at its smallest batch: a
	 * smaller batch than any so far gives up the rows kept for the last. */
	if (t->batch < w->minb[m]) {
		w->minb[m] = t->batch;
		for (size_t j = 0; j < (size_t)i; j++) {
			trow *o = &w->trows[j];
			if (o->method == m && o->heavy >= 0 && w->heavy[o->heavy].page) {
				w->heavy[o->heavy].page = false;
				heavy_release(w, o);
			}
		}
	}
	page = t->gpus <= 1 && t->batch == w->minb[m];
	/* Kept whole while a page row or a chart candidate names it (the
	 * answers carry what the pages show of their rows: gs_answer). */
	int holds = pick_offer(w, pick_at(w, m, t->seq), i) + pick_offer(w, pick_at(w, m, -1), i);
	if (page || holds > 0) {
		t = &w->trows[i];
		t->heavy = heavy_add(w, r);
		w->heavy[t->heavy].page = page;
		w->heavy[t->heavy].pins = holds;
	}
	return GS_OK;
}

/* ---------------------------------------------------------- model page */

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Distinct contexts of the model's rows (or of one method's, m >= 0). */
static int64_t *distinct_seqs(const mdw *w, int m, size_t *n)
{
	int64_t *v = gs_xcalloc(w->nrows + 1, sizeof *v);
	size_t i, k = 0, j;

	for (i = 0; i < w->nrows; i++)
		if (m < 0 || (int)w->trows[i].method == m)
			v[k++] = w->trows[i].seq;
	qsort(v, k, sizeof *v, cmp_i64);
	for (i = 0, j = 0; i < k; i++)
		if (j == 0 || v[j - 1] != v[i])
			v[j++] = v[i];
	*n = j;
	return v;
}

/* Among the rows of method m (at context seq, or any when seq < 0) with an
 * estimate: the first in sweep order that fits some GPU class, else the
 * one with the least device memory per GPU; -1 if none. */
static long pick_row(const mdw *w, gs_method m, int64_t seq)
{
	for (size_t i = 0; i < w->npicks; i++)
		if (w->picks[i].method == m && w->picks[i].seq == seq)
			return w->picks[i].first_fit >= 0 ? w->picks[i].first_fit : w->picks[i].least;
	return -1;
}

/* The representative row of a method for the charts: picked (pick_row) at
 * the method's middle context, else at any context; -1 if none. */
static long representative(const mdw *w, gs_method m)
{
	size_t n;
	int64_t *seqs = distinct_seqs(w, (int)m, &n), mid;
	long r;

	if (n == 0) {
		free(seqs);
		return -1;
	}
	mid = seqs[(n - 1) / 2];
	free(seqs);
	r = pick_row(w, m, mid);
	return r >= 0 ? r : pick_row(w, m, -1);
}

/* Capacity lines: one per GPU class label, at the smallest usable memory in
 * the class; ascending. Returns the count; caps has room for n_gpus. */
static size_t class_caps(const gs_report_meta *m, gs_svg_cap *caps)
{
	size_t i, j, n = 0;

	for (i = 0; i < m->n_gpus; i++) {
		const gs_gpu *g = &m->gpus[i];
		for (j = 0; j < n; j++)
			if (strcmp(caps[j].label, g->klass) == 0)
				break;
		if (j == n) {
			caps[n].label = g->klass;
			caps[n].bytes = g->usable_bytes;
			n++;
		} else if (g->usable_bytes < caps[j].bytes) {
			caps[j].bytes = g->usable_bytes;
		}
	}
	for (i = 1; i < n; i++) /* insertion sort by bytes, then label */
		for (j = i; j > 0 && (caps[j].bytes < caps[j - 1].bytes ||
		                      (caps[j].bytes == caps[j - 1].bytes &&
		                       strcmp(caps[j].label, caps[j - 1].label) < 0));
		     j--) {
			gs_svg_cap t = caps[j];
			caps[j] = caps[j - 1];
			caps[j - 1] = t;
		}
	return n;
}

typedef struct charts {
	gs_tbuf comp, ctx;
	char comp_file[512], ctx_file[512];
	gs_tval *reps;   /* list of {method, label, device} for the caption */
	gs_tval *series; /* list of {method, label, points} */
} charts;

static void make_charts(mdw *w, const char *id, const char *slug, charts *ch)
{
	gs_svg_cap *caps = gs_xcalloc(w->meta.n_gpus + 1, sizeof *caps);
	size_t ncaps = class_caps(&w->meta, caps);
	gs_svg_bar bars[GS_METHOD_MAX];
	gs_svg_series ser[GS_METHOD_MAX];
	int64_t *xs[GS_METHOD_MAX] = { 0 };
	uint64_t *ys[GS_METHOD_MAX] = { 0 };
	char tips[GS_METHOD_MAX][256], slabels[GS_METHOD_MAX][200];
	size_t nb = 0, ns = 0, i, j;
	char title[400], b[64];
	int m;

	ch->reps = gs_tv_list();
	ch->series = gs_tv_list();
	snprintf(ch->comp_file, sizeof ch->comp_file, "%s-components.svg", slug);
	snprintf(ch->ctx_file, sizeof ch->ctx_file, "%s-context.svg", slug);
	for (m = 0; m < GS_METHOD_MAX; m++) {
		long r = representative(w, (gs_method)m);
		const crow *c;
		gs_tval *x;
		size_t np = 0;

		if (r < 0 || w->trows[r].heavy < 0)
			continue;
		c = &w->heavy[w->trows[r].heavy];
		gib(b, sizeof b, c->est.device);
		snprintf(tips[nb], sizeof tips[nb], "%s: %s GiB", c->label, b);
		bars[nb].label = gs_method_name((gs_method)m);
		bars[nb].tooltip = tips[nb];
		bars[nb].part[0] = c->est.W;
		bars[nb].part[1] = c->est.G;
		bars[nb].part[2] = c->est.O;
		bars[nb].part[3] = c->est.A;
		bars[nb].part[4] = c->est.B;
		nb++;
		x = gs_tv_push(ch->reps, gs_tv_map());
		gs_tv_set_str(x, "method", gs_method_name((gs_method)m));
		gs_tv_set_str(x, "label", c->label);
		gs_tv_set_str(x, "device", b);

		/* The context series: rows like the representative but for seq. */
		xs[ns] = gs_xcalloc(w->nrows, sizeof *xs[ns]);
		ys[ns] = gs_xcalloc(w->nrows, sizeof *ys[ns]);
		for (i = 0; i < w->nrows; i++) {
			const trow *o = &w->trows[i];
			if (o->err != GS_OK || o->cfg != w->trows[r].cfg)
				continue;
			for (j = np; j > 0 && xs[ns][j - 1] > o->seq; j--) {
				xs[ns][j] = xs[ns][j - 1];
				ys[ns][j] = ys[ns][j - 1];
			}
			if (j > 0 && xs[ns][j - 1] == o->seq) { /* duplicate context: keep first */
				memmove(&xs[ns][j], &xs[ns][j + 1], (np - j) * sizeof *xs[ns]);
				memmove(&ys[ns][j], &ys[ns][j + 1], (np - j) * sizeof *ys[ns]);
				continue;
			}
			xs[ns][j] = o->seq;
			ys[ns][j] = o->device;
			np++;
		}
		gs_settings_label_without(&c->s, "seq", slabels[ns], sizeof slabels[ns]);
		ser[ns].label = gs_method_name((gs_method)m);
		ser[ns].n = np;
		ser[ns].x = xs[ns];
		ser[ns].y = ys[ns];
		x = gs_tv_push(ch->series, gs_tv_map());
		gs_tv_set_str(x, "method", gs_method_name((gs_method)m));
		gs_tv_set_str(x, "label", slabels[ns]);
		gs_tv_set_num(x, "points", (double)np);
		ns++;
	}
	snprintf(title, sizeof title, "%.300s: memory per GPU by component", id);
	gs_svg_stacked(&ch->comp, title, bars, nb, caps, ncaps);
	snprintf(title, sizeof title, "%.300s: device memory against context length", id);
	{
		const char *cfg[GS_METHOD_MAX];
		for (i = 0; i < ns; i++)
			cfg[i] = slabels[i];
		gs_svg_lines_ex(&ch->ctx, title, "context length (tokens, log scale)", ser, cfg, ns, caps,
		                ncaps);
	}
	for (i = 0; i < ns; i++) {
		free(xs[i]);
		free(ys[i]);
	}
	free(caps);
}

/* A short matrix cell (the model page; the legend says it once): "✓ 22%"
 * fits with 22% of the usable memory left, "≈ 8%" tight, "✗ 39.6" the GiB
 * over, "—" not runnable. */
static const char *short_cell(char *buf, size_t n, gs_verdict v, double h, uint64_t device,
                              uint64_t usable)
{
	char num[48];

	if (v == GS_FITS || v == GS_TIGHT)
		snprintf(buf, n, "%s %s%%", v == GS_FITS ? "✓" : "≈",
		         gs_fmt_fixed(num, sizeof num, h * 100, 0));
	else if (v == GS_NO_FIT && device > usable)
		snprintf(buf, n, "✗ %s", gs_fmt_fixed(num, sizeof num, (double)(device - usable) / GS_GIB, 1));
	else if (v == GS_NO_FIT)
		snprintf(buf, n, "✗");
	else
		snprintf(buf, n, "—");
	return buf;
}

/* The recipe's name: the text before its first ':' ("amp-bf16"). */
static void recipe_name(char *buf, size_t n, const char *recipe)
{
	const char *colon = recipe ? strchr(recipe, ':') : NULL;

	if (recipe == NULL)
		snprintf(buf, n, "n/a");
	else if (colon)
		snprintf(buf, n, "%.*s", (int)(colon - recipe), recipe);
	else
		snprintf(buf, n, "%s", recipe);
}

static void set_gib(gs_tval *x, const char *key, uint64_t bytes, bool ok)
{
	char b[64];
	if (ok)
		gib(b, sizeof b, bytes);
	gs_tv_set_str(x, key, ok ? b : "n/a");
}

static gs_tval *row_data(const mdw *w, const crow *c, const gs_plan_view *v, unsigned rules_shown)
{
	bool ok = c->err == GS_OK;
	gs_tval *x = gs_tv_map(), *cells, *rules;
	char b[256], b2[64], b3[64];
	size_t g;
	int f;

	gs_tv_set_str(x, "label", c->label);
	gs_tv_set_str(x, "id", c->id);
	gs_tv_set_bool(x, "ok", c->err == GS_OK);
	gs_tv_set_str(x, "error", c->err_msg ? c->err_msg : "");
	set_gib(x, "device", c->est.device, ok);
	set_gib(x, "W", c->est.W, ok);
	set_gib(x, "G", c->est.G, ok);
	set_gib(x, "O", c->est.O, ok);
	set_gib(x, "A", c->est.A, ok);
	set_gib(x, "B", c->est.B, ok);
	set_gib(x, "allocated", c->est.allocated, ok);
	set_gib(x, "reserved", c->est.reserved, ok);
	set_gib(x, "host", c->est.host, ok);
	gs_tv_set_bool(x, "has_host", c->est.host > 0);
	{
		char bpp[256], b1[64];
		gs_fmt_fixed(b1, sizeof b1, c->est.bpp_W, 2);
		gs_fmt_fixed(b2, sizeof b2, c->est.bpp_G, 2);
		gs_fmt_fixed(b3, sizeof b3, c->est.bpp_O, 2);
		snprintf(bpp, sizeof bpp, "%s / %s / %s", b1, b2, b3);
		gs_tv_set_str(x, "bpp", ok ? bpp : "n/a");
	}
	recipe_name(b, sizeof b, ok ? c->est.recipe : NULL);
	gs_tv_set_str(x, "recipe", b);
	snprintf(b, sizeof b, "%s (step %d)", c->err == GS_OK ? gs_phase_name(c->est.peak_phase) : "n/a",
	         c->est.peak_step);
	gs_tv_set_str(x, "peak", c->err == GS_OK ? b : "n/a");
	gs_tv_set_str(x, "note", c->est.note);
	rules = gs_tv_set(x, "rules", gs_tv_list());
	for (f = 1; f < GS_F_MAX; f++) {
		if (!(rules_shown & (1u << f)))
			continue;
		if (c->seed_ok[f])
			gib(b, sizeof b, c->seed_dev[f]);
		else
			snprintf(b, sizeof b, "n/a");
		gs_tv_push(rules, gs_tv_str(b));
	}
	cells = gs_tv_set(x, "cells", gs_tv_list());
	for (size_t k = 0; k < v->n_named; k++) {
		g = v->classes[k];
		gs_tv_push(cells, gs_tv_str(short_cell(b, sizeof b, (gs_verdict)c->verdict[g], c->headroom[g],
		                                       c->est.device, w->meta.gpus[g].usable_bytes)));
	}
	return x;
}

/* A GPU's name without the vendor's brand words ("RTX 4090", "H100 80GB
 * HBM3 (SXM)"), for narrow column headings. */
static void short_gpu_name(char *buf, size_t n, const char *name)
{
	static const char *const drop[] = { "NVIDIA ", "GeForce ", "AMD Instinct ", "Tesla " };
	const char *p = name;

	for (bool again = true; again;) {
		again = false;
		for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
			if (strncmp(p, drop[i], strlen(drop[i])) == 0 && p[strlen(drop[i])] != '\0') {
				p += strlen(drop[i]);
				again = true;
			}
	}
	snprintf(buf, n, "%s", p);
}

/* Push s onto list unless an equal string is there already. */
static void push_distinct(gs_tval *list, const char *s)
{
	size_t k;

	for (k = 0; k < gs_tv_len(list); k++)
		if (strcmp(gs_tv_text(gs_tv_at(list, k)), s) == 0)
			return;
	gs_tv_push(list, gs_tv_str(s));
}

/* The model's answers (its evaluation's) by method and context. */
static void index_entry(mdw *w, imodel *im, const gs_model_eval *ev)
{
	im->seqs = distinct_seqs(w, -1, &im->nseq);
	im->best = gs_xcalloc(GS_METHOD_MAX * (im->nseq ? im->nseq : 1), sizeof *im->best);
	for (int m = 0; m < GS_METHOD_MAX; m++)
		im->method_present[m] = w->method_present[m];
	im->nerr = w->nerr;
	for (size_t i = 0; i < ev->n_answers; i++) {
		const gs_answer *a = &ev->answers[i];
		size_t k;
		for (k = 0; k < im->nseq && im->seqs[k] != a->seq; k++)
			;
		if (k < im->nseq)
			im->best[(size_t)a->method * im->nseq + k] = a;
	}
}

/* An answer as the index shows it: "2 x 24 GB (NVIDIA L4), tight". */
static void answer_text(const mdw *w, const gs_answer *a, char *b, size_t n)
{
	const gs_gpu *g = &w->meta.gpus[a->gpu];

	snprintf(b, n, "%lld x %s (%s)%s", (long long)a->count, g->klass, g->name,
	         a->v == GS_TIGHT ? ", tight" : "");
}

/* ---------------------------------------------------- configurations */

/* What a configuration's name leaves to the table around it: the context
 * and the GPU layout (the answer or the cell names them) and the method
 * (a column names it). */
static uint64_t config_hide(void)
{
	return gs_setting_bit("seq") | gs_setting_bit("method") | gs_settings_layout_bits();
}

/* Configuration s as a table names it: the settings of show ("bf16 b1
 * ckpt"; where none of them shows, all it has: the configuration is then
 * the method's one), after its layout when it runs on several GPUs and
 * layout is asked ("zero3 bf16 b1 ckpt"). */
static void config_text(const gs_settings *s, uint64_t show, bool layout, char *buf, size_t n)
{
	char lay[48] = "", rest[200];
	int64_t count = s->gpus > 0 ? s->gpus : 1;

	if (layout && count > 1)
		gs_layout_text(count, s->sharding, s->tp > 0 ? s->tp : 1, s->pp, lay, sizeof lay);
	gs_settings_label_of(s, show & ~config_hide(), rest, sizeof rest);
	if (rest[0] == '\0')
		gs_settings_label_of(s, ~config_hide(), rest, sizeof rest);
	snprintf(buf, n, "%s%s%s", lay, lay[0] && rest[0] ? " " : "", rest);
}

/* What every configuration of a method shares, named once under a table:
 * s's settings but those of show. */
static void config_shared(const gs_settings *s, uint64_t show, char *buf, size_t n)
{
	gs_settings_label_of(s, ~show & ~config_hide(), buf, n);
}

/* An answer as the index's one table shows it, the GPU short and the
 * configuration after it: "1 x H100 NVL · bf16 b1 ckpt", "2 x H200, tight
 * · zero3 bf16 b1 ckpt". */
static void answer_cell(const mdw *w, const gs_answer *a, uint64_t show, char *b, size_t n)
{
	char nm[96], cfg[240];

	short_gpu_name(nm, sizeof nm, w->meta.gpus[a->gpu].name);
	config_text(&a->s, show, true, cfg, sizeof cfg);
	snprintf(b, n, "%lld x %s%s%s%s", (long long)a->count, nm, a->v == GS_TIGHT ? ", tight" : "",
	         cfg[0] ? " \u00b7 " : "", cfg);
}

/* The page's answer first: per method and context, the smallest GPU class
 * and count that fits (the index's cell, by the spec's rule) and the
 * configuration that does it. */
/* The time model on an answer's class and count (its evaluation's): "time"
 * a training step, or one sequence's decode rate; "budget" the spec's
 * token budget's time and, where the class is priced, cost (training
 * only). */
static void answer_time(const mdw *w, const gs_answer *a, gs_tval *x)
{
	const gs_time *t = &a->cell.t;
	char b[96], s1[32], s2[32];
	double budget = w->meta.time ? w->meta.time->tokens_budget : 0;

	gs_tv_set_str(x, "time", "");
	gs_tv_set_str(x, "budget", "");
	if (!a->cell.timed)
		return;
	if (a->method == GS_INFER) {
		snprintf(b, sizeof b, "%.1f tokens/s", t->decode_tok_s_seq);
		gs_tv_set_str(x, "time", b);
		return;
	}
	snprintf(b, sizeof b, "%s a step", gs_time_fmt_secs(s1, sizeof s1, t->step_s));
	gs_tv_set_str(x, "time", b);
	if (budget > 0) {
		gs_time_fmt_secs(s1, sizeof s1, t->budget_s);
		if (t->cost_usd > 0)
			snprintf(b, sizeof b, "%s, %s", s1, gs_time_fmt_usd(s2, sizeof s2, t->cost_usd));
		else
			snprintf(b, sizeof b, "%s", s1);
		gs_tv_set_str(x, "budget", b);
	}
}

static void page_answers(const mdw *w, const imodel *im, gs_tval *d)
{
	gs_tval *list = gs_tv_set(d, "answers", gs_tv_list());
	char b[256];
	double budget = w->meta.time ? w->meta.time->tokens_budget : 0;
	bool priced = false;

	for (size_t g = 0; g < w->meta.n_gpus; g++)
		priced = priced || w->meta.gpus[g].price_usd_hour > 0;
	gs_tv_set_str(d, "budget", budget > 0 ? gs_time_fmt_count(b, sizeof b, budget) : "");
	gs_tv_set_str(d, "priced", priced ? "yes" : "");
	gs_tv_set_str(d, "runtime", gs_runtime_name(w->meta.time ? w->meta.time->runtime : GS_RT_HF));
	gs_tv_set_str(d, "train_runtime",
	              gs_train_runtime_name(w->meta.time ? w->meta.time->train_runtime : GS_TRT_PYTORCH));

	gs_tv_set_str(d, "plan_rank", gs_plan_rank_name(gs_plan_opts_rank(w->meta.plan)));
	gs_tv_set_str(d, "plan_rank_text", gs_plan_rank_text(gs_plan_opts_rank(w->meta.plan)));
	gs_plan_opts_eligible_text(w->meta.plan, b, sizeof b);
	gs_tv_set_str(d, "eligible", b);
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		if (!im->method_present[m])
			continue;
		for (size_t k = 0; k < im->nseq; k++) {
			const gs_answer *a = im->best[(size_t)m * im->nseq + k];
			gs_tval *x;

			if (a == NULL)
				continue;
			x = gs_tv_push(list, gs_tv_map());
			gs_tv_set_str(x, "method", gs_method_name((gs_method)m));
			gs_tv_set_num(x, "context", (double)a->seq);
			if (!a->found) {
				gs_tv_set_str(x, "gpus", "none fits");
				gs_tv_set_str(x, "label", "");
				gs_tv_set_str(x, "device", "");
				gs_tv_set_str(x, "time", "");
				gs_tv_set_str(x, "budget", "");
				continue;
			}
			answer_text(w, a, b, sizeof b);
			gs_tv_set_str(x, "gpus", b);
			gs_tv_set_str(x, "label", a->label);
			gib(b, sizeof b, a->device);
			gs_tv_set_str(x, "device", b);
			answer_time(w, a, x);
		}
	}
}

/* The model's index entry (cheap, and needed even if its page fails). */
static imodel *index_add(mdw *w, const gs_model *model, const char *slug)
{
	imodel *im;
	char b[128];

	if (w->nmodels == w->mcap) {
		w->mcap = w->mcap ? w->mcap * 2 : 16;
		w->models = gs_xrealloc(w->models, w->mcap * sizeof *w->models);
	}
	im = &w->models[w->nmodels++];
	memset(im, 0, sizeof *im);
	im->id = gs_xstrdup(model->id ? model->id : "");
	im->slug = gs_xstrdup(slug);
	params_text(b, sizeof b, model->arch);
	im->params = gs_xstrdup(b);
	im->param_source = gs_xstrdup(model->param_source ? model->param_source : "");
	im->nrows = w->nrows;
	index_entry(w, im, model->eval);
	im->ev = model->eval;
	return im;
}

/* Whether a page row of method m (one GPU, its smallest batch): t. */
static bool page_row(const mdw *w, const trow *t, int m)
{
	return (int)t->method == m && t->gpus <= 1 && t->batch == w->minb[m] && t->heavy >= 0;
}

/* The published rules that size some of method m's page rows (the two
 * byte-per-parameter rules size a full fine-tune only: the engine refuses
 * them elsewhere), as bits 1 << gs_formula, and their columns' titles in
 * titles: by what each computes, its bytes a parameter ("52 bytes/param
 * rule": W + G + O of the rule's estimate) where the rows agree on it. */
static unsigned page_rules(const mdw *w, int m, gs_tval *titles)
{
	unsigned shown = 0, mixed = 0;
	double bpp[GS_F_MAX] = { 0 };

	for (size_t i = 0; i < w->nrows; i++) {
		const crow *c;
		if (!page_row(w, &w->trows[i], m))
			continue;
		c = &w->heavy[w->trows[i].heavy];
		for (int f = 1; f < GS_F_MAX; f++) {
			if (!c->seed_ok[f])
				continue;
			if ((shown & (1u << f)) && c->seed_bpp[f] != bpp[f])
				mixed |= 1u << f;
			shown |= 1u << f;
			bpp[f] = c->seed_bpp[f];
		}
	}
	for (int f = 1; f < GS_F_MAX; f++) {
		char t[96], num[32];
		if (!(shown & (1u << f)))
			continue;
		if (f == GS_F_COOKBOOK || (mixed & (1u << f)))
			snprintf(t, sizeof t, "%s rule", gs_formula_name((gs_formula)f));
		else
			snprintf(t, sizeof t, "%s bytes per param rule", gs_fmt_fixed(num, sizeof num, bpp[f], bpp[f] == (int64_t)bpp[f] ? 0 : 2));
		gs_tv_push(titles, gs_tv_str(t));
	}
	return shown;
}

/* Method m's part of the page: its rows on one GPU at its smallest swept
 * micro-batch (every row is in the CSV, JSON and workbook), their verified
 * runs, errors, notes and recipes; returns how many rows it shows. */
static size_t page_method(const mdw *w, const imodel *im, int m, gs_tval *methods)
{
	int64_t batch = w->minb[m];
	gs_tval *me = gs_tv_push(methods, gs_tv_map()), *rows, *errs, *notes, *recipes, *meas;
	size_t shown = 0;
	unsigned rules;

	gs_tv_set_str(me, "name", gs_method_name((gs_method)m));
	gs_tv_set_num(me, "batch", (double)batch);
	rows = gs_tv_set(me, "rows", gs_tv_list());
	errs = gs_tv_set(me, "errors", gs_tv_list());
	notes = gs_tv_set(me, "notes", gs_tv_list());
	recipes = gs_tv_set(me, "recipes", gs_tv_list());
	meas = gs_tv_set(me, "measured", gs_tv_list());
	rules = page_rules(w, m, gs_tv_set(me, "rule_titles", gs_tv_list()));
	for (size_t i = 0; i < w->nrows; i++) {
		const trow *t = &w->trows[i];
		if (!page_row(w, t, m))
			continue;
		const crow *c = &w->heavy[t->heavy];
		shown++;
		gs_tv_push(rows, row_data(w, c, im->ev->plan, rules));
		if (c->measured != NULL) {
			char txt[256];
			gs_tval *x = gs_tv_push(meas, gs_tv_map());
			gs_measured_row_text(c->measured, &c->est, txt, sizeof txt);
			gs_tv_set_str(x, "label", c->label);
			gs_tv_set_str(x, "text", txt);
		}
		if (c->err != GS_OK) {
			gs_tval *x = gs_tv_push(errs, gs_tv_map());
			gs_tv_set_str(x, "id", c->id);
			gs_tv_set_str(x, "label", c->label);
			gs_tv_set_str(x, "error", c->err_msg);
		}
		if (c->err == GS_OK && c->est.note[0])
			push_distinct(notes, c->est.note);
		if (c->err == GS_OK && c->est.recipe)
			push_distinct(recipes, c->est.recipe);
	}
	return shown;
}

/* The page's classes (the plan view's, short names) and the seeds'
 * formulas as the engine states them (the first row that has each). */
static void page_classes_formulas(const mdw *w, const imodel *im, gs_tval *d)
{
	gs_tval *cl = gs_tv_set(d, "classes", gs_tv_list()), *formulas;

	for (size_t k = 0; k < im->ev->plan->n_named; k++) {
		const gs_gpu *g = &w->meta.gpus[im->ev->plan->classes[k]];
		gs_tval *x = gs_tv_push(cl, gs_tv_map());
		char nm[96];
		short_gpu_name(nm, sizeof nm, g->name);
		gs_tv_set_str(x, "klass", g->klass);
		gs_tv_set_str(x, "name", nm);
	}
	formulas = gs_tv_set(d, "formulas", gs_tv_list());
	for (size_t k = 1; k < GS_F_MAX; k++) {
		if (w->formula_text[k]) {
			gs_tval *x = gs_tv_push(formulas, gs_tv_map());
			gs_tv_set_str(x, "name", gs_formula_name((gs_formula)k));
			gs_tv_set_str(x, "text", w->formula_text[k]);
		}
	}
}

/* A plan view cell as the page shows it: bold for the answer's class, in
 * italics where the search, not a swept layout, gives it. */
static void plan_cell(const gs_plan_view *v, const gs_plan_method *pm, size_t c, size_t j, char *b,
                      size_t n)
{
	const gs_plan_cell *x = &pm->cells[c * pm->nseq + j];
	char t[160];
	bool mark = x->searched && x->state == GS_PC_FOUND;

	gs_plan_cell_text(v, x, t, sizeof t);
	snprintf(b, n, "%s%s%s%s%s", pm->best[j] == c ? "**" : "", mark ? "*" : "", t, mark ? "*" : "",
	         pm->best[j] == c ? "**" : "");
}

/* One class's row of method m's part of the plan view. */
static void plan_class_row(const mdw *w, const imodel *im, const gs_plan_method *pm, size_t c,
                           gs_tval *row)
{
	const gs_plan_view *v = im->ev->plan;
	const gs_gpu *g = &w->meta.gpus[v->classes[c]];
	gs_tval *cells;
	char b[200], nm[96];

	short_gpu_name(nm, sizeof nm, g->name);
	snprintf(b, sizeof b, "%s %s", g->klass, nm);
	gs_tv_set_str(row, "klass", b);
	gs_tv_set_bool(row, "config", false);
	cells = gs_tv_set(row, "cells", gs_tv_list());
	for (size_t k = 0; k < im->nseq; k++) {
		size_t j;
		for (j = 0; j < pm->nseq && pm->seqs[j] != im->seqs[k]; j++)
			;
		if (j == pm->nseq) {
			gs_tv_push(cells, gs_tv_str("\u2014"));
			continue;
		}
		plan_cell(v, pm, c, j, b, sizeof b);
		gs_tv_push(cells, gs_tv_str(b));
	}
	if (pm->nseq > 0 && pm->cells[c * pm->nseq].state != GS_PC_FOUND &&
	    pm->cells[c * pm->nseq].state != GS_PC_NONE)
		gs_plan_cell_text(v, &pm->cells[c * pm->nseq], b, sizeof b);
	else if (pm->longest[c] == 0)
		snprintf(b, sizeof b, "none");
	else
		snprintf(b, sizeof b, "%" PRId64 "%s", pm->longest[c], pm->bounded[c] ? " (the model's limit)" : "");
	gs_tv_set_str(row, "longest", b);
}

/* The model's plan view (its evaluation's): per method a row naming the
 * configuration sized at each context (what varies among the method's
 * rows; what they share is listed under the table), then a row per class,
 * a cell per context of the model. */
static void page_plan(const mdw *w, const imodel *im, gs_tval *d)
{
	const gs_plan_view *v = im->ev->plan;
	gs_tval *rows = gs_tv_set(d, "plan", gs_tv_list()), *shared = gs_tv_set(d, "plan_shared", gs_tv_list());
	gs_tval *ctx;
	char b[240];

	gs_tv_set_num(d, "plan_max_gpus", (double)v->max_gpus);
	ctx = gs_tv_set(d, "contexts", gs_tv_list());
	for (size_t k = 0; k < im->nseq; k++)
		gs_tv_push(ctx, gs_tv_num((double)im->seqs[k]));
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		const gs_plan_method *pm = &v->m[m];
		uint64_t show = im->ev->varies[m];
		gs_tval *row, *cells, *x;

		if (!pm->present)
			continue;
		row = gs_tv_push(rows, gs_tv_map());
		gs_tv_set_str(row, "method", gs_method_name((gs_method)m));
		gs_tv_set_bool(row, "config", true);
		cells = gs_tv_set(row, "cells", gs_tv_list());
		for (size_t k = 0; k < im->nseq; k++) {
			size_t j;
			for (j = 0; j < pm->nseq && pm->seqs[j] != im->seqs[k]; j++)
				;
			if (j < pm->nseq)
				config_text(&pm->at[j], show, false, b, sizeof b);
			else
				snprintf(b, sizeof b, "\u2014");
			gs_tv_push(cells, gs_tv_str(b));
		}
		gs_tv_set_str(row, "longest", "(below)");
		for (size_t c = 0; c < v->n_classes; c++)
			plan_class_row(w, im, pm, c, gs_tv_push(rows, gs_tv_map()));
		x = gs_tv_push(shared, gs_tv_map());
		gs_tv_set_str(x, "method", gs_method_name((gs_method)m));
		config_shared(&im->ev->first[m], show, b, sizeof b);
		gs_tv_set_str(x, "label", b);
		gs_tv_set_str(x, "first", pm->label);
	}
}

/* The model page's data: the model, its charts (ch), the answers, the
 * methods' rows, the classes and the formulas. */
static gs_tval *page_data(mdw *w, const gs_model *model, const imodel *im, const char *slug, charts *ch)
{
	gs_tval *d = common_data(w, "../"), *mm, *methods;
	size_t shown = 0;
	char b[128];

	mm = gs_tv_set(d, "model", gs_tv_map());
	gs_tv_set_str(mm, "id", im->id);
	gs_tv_set_str(mm, "slug", slug);
	gs_tv_set_str(mm, "params", im->params);
	gs_tv_set_str(mm, "param_source", im->param_source);
	gs_tv_set_str(mm, "arch", model->arch ? model->arch->model_type : "");
	gs_tv_set_str(mm, "warning", model->arch ? model->arch->warning : "");
	gs_tv_set_num(mm, "nrows", (double)w->nrows);
	gs_tv_set_num(mm, "nerr", (double)im->nerr);
	snprintf(b, sizeof b, "../index.%s", w->sink->ext);
	gs_tv_set_str(d, "index_page", b);

	make_charts(w, im->id, slug, ch);
	gs_tv_set_str(d, "chart_components", ch->comp_file);
	gs_tv_set_str(d, "chart_context", ch->ctx_file);
	gs_tv_set(d, "reps", ch->reps);
	gs_tv_set(d, "series", ch->series);

	page_answers(w, im, d);
	page_plan(w, im, d);
	methods = gs_tv_set(d, "methods", gs_tv_list());
	for (int m = 0; m < GS_METHOD_MAX; m++)
		if (im->method_present[m])
			shown += page_method(w, im, m, methods);
	gs_tv_set_num(d, "shown", (double)shown);
	page_classes_formulas(w, im, d);
	return d;
}

static gs_err w_model_end(gs_writer *wr, const gs_model *model, gs_error *e)
{
	mdw *w = wr->state;
	gs_tval *d;
	gs_tbuf md = { 0 };
	charts ch;
	gs_mdchart mc[2];
	char *slug, rel[600];
	imodel *im;
	gs_err err;

	if (model->eval == NULL)
		return gs_fail(e, GS_EINTERNAL, "%s writer: model %s not evaluated (gs_eval_model_begin)",
		               wr->name, model->id ? model->id : "");
	memset(&ch, 0, sizeof ch);
	slug = safe_slug(model->slug);
	w->model = model;
	im = index_add(w, model, slug);
	d = page_data(w, model, im, slug, &ch);
	err = render(w, "model.md.tmpl", d, &md, e);
	if (!err) {
		mc[0].file = ch.comp_file;
		mc[0].svg = ch.comp.p;
		mc[0].len = ch.comp.len;
		mc[1].file = ch.ctx_file;
		mc[1].svg = ch.ctx.p;
		mc[1].len = ch.ctx.len;
		snprintf(rel, sizeof rel, "models/%s", slug);
		err = w->sink->page(w->sink, w->meta.out_dir, rel, im->id, md.p, md.len, mc, 2, e);
	}
	gs_tv_free(d);
	gs_tbuf_free(&md);
	gs_tbuf_free(&ch.comp);
	gs_tbuf_free(&ch.ctx);
	free(slug);
	rows_clear(w);
	return err;
}

/* --------------------------------------------------------------- index */

/* What the index's cells name of each method's configurations: the
 * settings that differ among its rows of any model (and between models);
 * ref[m] a configuration of the method, for what they all share. */
static void index_show(const mdw *w, uint64_t show[GS_METHOD_MAX], const gs_settings *ref[GS_METHOD_MAX])
{
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		show[m] = 0;
		ref[m] = NULL;
	}
	for (size_t i = 0; i < w->nmodels; i++) {
		const gs_model_eval *ev = w->models[i].ev;
		for (int m = 0; m < GS_METHOD_MAX; m++) {
			if (!ev->present[m])
				continue;
			if (ref[m] == NULL)
				ref[m] = &ev->first[m];
			else
				show[m] |= gs_settings_differ(ref[m], &ev->first[m]);
			show[m] |= ev->varies[m];
		}
	}
}

/* The name after the owner of a two-part id ("Llama-3.1-8B" of
 * "meta-llama/Llama-3.1-8B"), else the whole id. */
static const char *id_name(const char *id)
{
	const char *slash = strchr(id, '/');

	return slash && slash > id && slash[1] && strchr(slash + 1, '/') == NULL ? slash + 1 : id;
}

/* A model's name in the index's table: id_name, or the whole id when
 * another model has that name. */
static void index_name(const mdw *w, const imodel *im, char *buf, size_t n)
{
	const char *name = id_name(im->id);

	for (size_t i = 0; i < w->nmodels; i++)
		if (&w->models[i] != im && strcmp(id_name(w->models[i].id), name) == 0)
			name = im->id;
	snprintf(buf, n, "%s", name);
}

/* The index's one table: a row per model and context, a column per
 * method, each cell the answer (the evaluation's) and its configuration;
 * the methods' shared settings listed under it. */
static void index_table(const mdw *w, gs_tval *d)
{
	uint64_t show[GS_METHOD_MAX];
	const gs_settings *ref[GS_METHOD_MAX];
	gs_tval *cols = gs_tv_set(d, "methods", gs_tv_list()), *rows = gs_tv_set(d, "rows", gs_tv_list());
	gs_tval *shared = gs_tv_set(d, "shared", gs_tv_list());
	char b[400];

	index_show(w, show, ref);
	for (int m = 0; m < GS_METHOD_MAX; m++) {
		gs_tval *x;
		if (ref[m] == NULL)
			continue;
		gs_tv_push(cols, gs_tv_str(gs_method_name((gs_method)m)));
		x = gs_tv_push(shared, gs_tv_map());
		gs_tv_set_str(x, "method", gs_method_name((gs_method)m));
		config_shared(ref[m], show[m], b, sizeof b);
		gs_tv_set_str(x, "label", b);
	}
	for (size_t i = 0; i < w->nmodels; i++) {
		const imodel *im = &w->models[i];
		for (size_t k = 0; k < im->nseq; k++) {
			gs_tval *row = gs_tv_push(rows, gs_tv_map()), *cells;
			index_name(w, im, b, sizeof b);
			gs_tv_set_str(row, "model", k == 0 ? b : "");
			gs_tv_set_str(row, "params", k == 0 ? im->params : "");
			snprintf(b, sizeof b, "models/%s.%s", im->slug, w->sink->ext);
			gs_tv_set_str(row, "page", b);
			gs_tv_set_num(row, "context", (double)im->seqs[k]);
			cells = gs_tv_set(row, "cells", gs_tv_list());
			for (int m = 0; m < GS_METHOD_MAX; m++) {
				const gs_answer *a = im->best[(size_t)m * im->nseq + k];
				if (ref[m] == NULL)
					continue;
				if (a == NULL || !a->found) {
					gs_tv_push(cells, gs_tv_str(a != NULL ? "none fits" : "\u2014"));
					continue;
				}
				answer_cell(w, a, show[m], b, sizeof b);
				gs_tv_push(cells, gs_tv_str(b));
			}
		}
	}
}

static gs_err w_end(gs_writer *wr, gs_error *e)
{
	mdw *w = wr->state;
	gs_tval *d = common_data(w, "");
	gs_tbuf md = { 0 };
	char b[256];
	gs_err err;

	snprintf(b, sizeof b, "index.%s", w->sink->ext);
	gs_tv_set_str(d, "index_page", b);
	index_table(w, d);
	gs_tv_set_str(d, "plan_rank", gs_plan_rank_name(gs_plan_opts_rank(w->meta.plan)));
	gs_tv_set_str(d, "plan_rank_text", gs_plan_rank_text(gs_plan_opts_rank(w->meta.plan)));
	gs_plan_opts_eligible_text(w->meta.plan, b, sizeof b);
	gs_tv_set_str(d, "eligible", b);
	err = render(w, "index.md.tmpl", d, &md, e);
	if (!err)
		err = w->sink->page(w->sink, w->meta.out_dir, "index", "GPU sizing report", md.p, md.len,
		                    NULL, 0, e);
	gs_tv_free(d);
	gs_tbuf_free(&md);
	return err;
}

static void w_free(gs_writer *wr)
{
	mdw *w;
	size_t i;

	if (wr == NULL)
		return;
	w = wr->state;
	if (w) {
		rows_clear(w);
		free(w->trows);
		free(w->heavy);
		free(w->picks);
		for (i = 0; i < w->nmodels; i++) {
			imodel *im = &w->models[i];
			free(im->id);
			free(im->slug);
			free(im->params);
			free(im->param_source);
			free(im->seqs);
			free(im->best);
		}
		free(w->models);
		gs_tmpl_env_free(w->env);
		free(w);
	}
	free(wr);
}

gs_writer *gs_mdgen_writer(const gs_mdsink *sink)
{
	gs_writer *wr = gs_xcalloc(1, sizeof *wr);
	mdw *w = gs_xcalloc(1, sizeof *w);

	w->sink = sink;
	wr->name = sink->name;
	wr->begin = w_begin;
	wr->model_begin = w_model_begin;
	wr->row = w_row;
	wr->model_end = w_model_end;
	wr->end = w_end;
	wr->free = w_free;
	wr->state = w;
	return wr;
}

/* ------------------------------------------------- the Markdown sink */

static gs_err md_begin(const gs_mdsink *s, const char *out_dir, gs_error *e)
{
	char path[4096];
	gs_err err;

	(void)s;
	err = gs_path_join(path, sizeof path, out_dir, "models", NULL, e);
	if (!err)
		err = gs_mkdirs(path, e);
	return err;
}

/* The page as out_dir/<rel>.md, its charts as .svg files in models/. */
static gs_err md_page(const gs_mdsink *s, const char *out_dir, const char *rel, const char *title,
                      const char *md, size_t len, const gs_mdchart *chart, size_t ncharts,
                      gs_error *e)
{
	char path[4096];
	gs_err err;
	size_t i;

	(void)s;
	(void)title;
	err = gs_path_join(path, sizeof path, out_dir, rel, ".md", e);
	if (!err)
		err = gs_write_file_atomic(path, md, len, e);
	for (i = 0; !err && i < ncharts; i++) {
		err = gs_path_join(path, sizeof path, out_dir, "models/", chart[i].file, e);
		if (!err)
			err = gs_write_file_atomic(path, chart[i].svg, chart[i].len, e);
	}
	return err;
}

static const gs_mdsink md_sink = { "md", "md", md_begin, md_page };

gs_writer *gs_writer_md(void)
{
	return gs_mdgen_writer(&md_sink);
}

/* ------------------------------------------------------- assumptions */

gs_err gs_report_assumptions(char **text, gs_error *e)
{
	char dir[4096];
	gs_tmpl_env *env;
	gs_tval *d = gs_tv_map();
	gs_tbuf out = { 0 };
	gs_err err;

	*text = NULL;
	gs_mdgen_templates_dir(dir, sizeof dir);
	env = gs_tmpl_env_new(dir, gs_md_escape);
	err = gs_tmpl_render(env, ASSUMPTIONS_TMPL, d, &out, e);
	if (!err)
		*text = out.p ? out.p : gs_xstrdup("");
	else
		gs_tbuf_free(&out);
	gs_tv_free(d);
	gs_tmpl_env_free(env);
	return err;
}
